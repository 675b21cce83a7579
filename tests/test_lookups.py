"""The evaluator's lookups as tools: each call answered and recorded, bad
calls answered with an error the model can read, and a bound on their number."""

import json
import os
import unittest

from tests.support import FIXTURES

from evalkit.scenario.corpus import Corpus  # noqa: E402
from evalkit.asking.lookups import TOOLS, Lookups  # noqa: E402
from evalkit.scenario.scenario_score import CodeIds, what_was_read  # noqa: E402

MINI = os.path.join(FIXTURES, "code-mini.json")


class Calls(unittest.TestCase):
    def setUp(self):
        self.lookups = Lookups(Corpus(MINI), limit=4)

    def test_each_tool_answers_and_is_recorded(self):
        hits = json.loads(self.lookups.call("search_code", {"query": "ADU rear setback"}))
        self.assertEqual(hits[0]["section"], "RCC 33.205.040")
        section = json.loads(self.lookups.call("read_section", {"section_id": "rcc 17.28.010"}))
        self.assertEqual(section["title"], "Fences")
        parcel = json.loads(self.lookups.call("lookup_parcel",
                                              {"address": "4127 SE Wrenfield Court, Riverton"}))
        self.assertEqual(parcel["zone"], "R5")
        self.assertEqual([c["tool"] for c in self.lookups.exchange],
                         ["search_code", "read_section", "lookup_parcel"])
        self.assertTrue(all(c["error"] is None for c in self.lookups.exchange))
        # what score.py counts as read from this exchange, as an atoms line keeps it:
        # the sections returned, and the parcel as a parcel, never a section
        read = what_was_read({"mode": "tools", "calls": self.lookups.exchange},
                             CodeIds(Corpus(MINI)))
        self.assertEqual(read, ({"RCC 33.205.040", "RCC 17.28.010"}, {"4127 SE Wrenfield Court"}))

    def test_bad_calls_are_answered_with_an_error_and_recorded(self):
        cases = [("delete_code", {"query": "x"}, "no tool 'delete_code'"),
                 ("search_code", {"q": "x"}, "search_code takes one string, query"),
                 ("search_code", "fences", "search_code takes one string, query"),
                 ("read_section", {"section_id": "RCC 1.1"}, "no section 'RCC 1.1'"),
                 ]
        for name, arguments, expected in cases:
            with self.subTest(name=name, arguments=arguments):
                lookups = Lookups(Corpus(MINI))
                self.assertIn(expected, json.loads(lookups.call(name, arguments))["error"])
                (call,) = lookups.exchange
                self.assertIsNone(call["output"])
                self.assertIn(expected, call["error"])

    def test_a_loop_is_cut_off_at_the_bound(self):
        for _ in range(6):
            self.lookups.call("search_code", {"query": "fence"})
        errors = [c["error"] for c in self.lookups.exchange]
        self.assertEqual(errors[:4], [None] * 4)
        self.assertEqual(errors[4:], ["no more lookups: the limit is 4; give your answer now"] * 2)

    def test_every_tool_has_a_schema_a_provider_can_send(self):
        for tool in TOOLS:
            self.assertEqual(tool["input"]["type"], "object")
            self.assertEqual(len(tool["input"]["required"]), 1)
            self.assertTrue(tool["description"])
        json.dumps(TOOLS)


if __name__ == "__main__":
    unittest.main()
