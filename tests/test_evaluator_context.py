"""What the evaluator is told and who it is when nobody says: the scenario's
city and address in every mode (as the generator is told them), and the
spec's default evaluator, Claude, when no provider and no model is given."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.support import call_main, read_lines, write_json
from tests.test_atomize import good_atoms

import atomize  # noqa: E402
import run  # noqa: E402

SCENARIOS = {
    "suite": "scenario", "format": 1, "note": "A fictional city for the tests.",
    "topics": {"zoning": "what the zone allows", "size": "how big", "permits": "which permits",
               "address": "facts about the parcel"},
    "scenarios": [{"id": "shed", "question": "May I build a shed behind my house?",
                   "jurisdiction": "Riverton", "address": "88 SW Bramblecrest Loop, Riverton",
                   "must_cover": ["zoning", "size", "permits"]}]}


class EvaluatorContext(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.cases = os.path.join(self.tmp, "scenarios.json")
        write_json(self.cases, SCENARIOS)
        self.raw = os.path.join(self.tmp, "raw.jsonl")
        with ModelServer("openai", reply=lambda r: "Yes, up to 120 square feet.") as gen:
            os.environ.update(gen.environ())
            code, _, err = call_main(run, [self.cases, self.raw, "--provider", "openai",
                                           "--model", "gen-1", "--quiet"])
        self.assertEqual(code, 0, err)
        for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
            os.environ.pop(name, None)

    def judge(self):
        srv = ModelServer("anthropic", reply=good_atoms)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        return srv

    def atomize(self, *args):
        out = os.path.join(self.tmp, "atoms.jsonl")
        code, _, err = call_main(atomize, [self.raw, out, "--cases", self.cases, "--quiet"]
                                 + list(args))
        return code, err, out

    def test_the_evaluator_without_lookups_is_told_the_city_and_the_address(self):
        judge = self.judge()
        code, err, out = self.atomize("--provider", "anthropic", "--model", "judge-1")
        self.assertEqual(code, 0, err)
        prompt = judge.requests[0]["json"]["messages"][0]["content"]
        self.assertIn("Riverton, at 88 SW Bramblecrest Loop, Riverton", prompt)
        self.assertEqual(read_lines(out)[0]["evaluator"]["prompt"], "atomize-v3")

    def test_the_evaluator_with_lookups_is_told_them_too(self):
        judge = self.judge()
        corpus = os.path.join(support.FIXTURES, "code-mini.json")
        code, err, _ = self.atomize("--provider", "anthropic", "--model", "judge-1",
                                    "--lookups", "--corpus", corpus)
        self.assertEqual(code, 0, err)
        prompt = judge.requests[0]["json"]["messages"][0]["content"]
        self.assertIn("Riverton, at 88 SW Bramblecrest Loop, Riverton", prompt)

    def test_no_evaluator_given_is_the_specs_default_claude(self):
        judge = self.judge()
        code, err, out = self.atomize()
        self.assertEqual(code, 0, err)
        self.assertEqual(judge.requests[0]["json"]["model"], atomize.DEFAULT_EVALUATOR[1])
        evaluator = read_lines(out)[0]["evaluator"]
        self.assertEqual((evaluator["provider"], evaluator["model"]),
                         ("anthropic", "claude-sonnet-4-5"))

    def test_the_default_evaluator_without_a_key_is_refused_before_any_call(self):
        code, err, out = self.atomize()
        self.assertEqual(code, 2)
        self.assertIn("ANTHROPIC_API_KEY", err)
        self.assertFalse(os.path.exists(out))

    def test_a_model_without_a_provider_is_not_given_to_the_default(self):
        self.judge()
        code, err, _ = self.atomize("--model", "gpt-4o")
        self.assertEqual(code, 2)
        self.assertIn("no provider configured", err)


if __name__ == "__main__":
    unittest.main()
