"""evals/permits: the scenario file loads, the source-authority table gives
every published example its bucket, and the jargon table behaves as its
rule says on sample sentences."""

import os
import unittest

from tests.support import ROOT
from evalkit.scenario.atomscore import JargonTable, SourceTable
from evalkit.scenario.scenarios import load_scenarios

PERMITS = os.path.join(ROOT, "evals", "permits")


class Data(unittest.TestCase):
    def test_scenarios(self):
        cases = load_scenarios(os.path.join(PERMITS, "scenarios.json"))
        self.assertGreaterEqual(len(cases.scenarios), 10)
        self.assertEqual(cases.by_id["tiny-house"]["must_cover"],
                         ["zoning", "size", "setbacks", "permits", "costs", "sequence"])
        self.assertTrue(any(s["address"] for s in cases.scenarios))

    def test_every_source_example(self):
        table = SourceTable(os.path.join(PERMITS, "sources.json"))
        self.assertGreaterEqual(len(table.examples), 30)
        for example in table.examples:
            with self.subTest(citation=example["citation"]):
                self.assertEqual(table.bucket(example["citation"]), example["bucket"])
        self.assertEqual(table.bucket("Redfin listing #4451, zoning R5, RCC 33.110"),
                         "plausible-third-party")
        self.assertEqual(table.credit("RCC 33.205.040"), 1)

    def test_jargon(self):
        table = JargonTable(os.path.join(PERMITS, "jargon.json"))
        tokens = table.tokens("You can build an ADU. The SDC is due at permit time. "
                              "See RCC 33.205.040. It costs $1,200.50 at 8:30 on 2026-11-05.")
        self.assertEqual([(t["token"], t["explained"]) for t in tokens],
                         [("ADU", False), ("SDC", False), ("RCC 33.205.040", False)])
        tokens = table.tokens("An accessory dwelling unit (ADU) is allowed; RCC 33.205.040, "
                              "which says it may be 800 square feet.")
        self.assertEqual([t["explained"] for t in tokens], [True, True])


if __name__ == "__main__":
    unittest.main()
