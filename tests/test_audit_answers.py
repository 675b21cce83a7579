"""Answers whose truth is known, from the reference keys, to audit an
evaluator's correctness tags: written, imported as collected answers,
atomized by a stand-in evaluator, and reported tag by tag per evaluator."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.scenario_demo import run_demo
from tests.standins import model
from tests.support import ROOT, call_main, read_lines

import atomize  # noqa: E402
import audit_answers  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.pages.scenario_pages import tag_agreement  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios  # noqa: E402

CASES = os.path.join(ROOT, "evals", "permits", "scenarios.json")


class Answers(unittest.TestCase):
    def test_agreement_with_the_key(self):
        self.assertEqual(tag_agreement("true_claims", {"correct": 3, "vague-correct": 1,
                                                       "WRONG": 1, "admitted-gap": 2}), (4, 5))
        self.assertEqual(tag_agreement("false_claims", {"correct": 3, "PARTIAL-WRONG": 1,
                                                        "WRONG": 2}), (3, 6))

    def test_alter_changes_every_number(self):
        self.assertEqual(audit_answers.alter("up to 800 square feet, 75 percent of 1,600 sq ft"),
                         "up to 1,700 square feet, 250 percent of 3,300 sq ft")
        self.assertEqual(audit_answers.alter("a 3.5 foot fence"), "a 107 foot fence")

    def test_the_answers_say_the_key(self):
        scenario = load_scenarios(CASES).scenarios[0]
        true = audit_answers.answer_of(scenario, altered=False)
        false = audit_answers.answer_of(scenario, altered=True)
        first = scenario["reference_key"][scenario["must_cover"][0]][0]["fact"]
        self.assertIn(first, true)
        self.assertIn("1,700", false)
        self.assertNotIn("800 square feet", false)


class Audit(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)

    def test_tags_per_evaluator_on_true_and_false_claims(self):
        raws = []
        for altered in (False, True):
            collected = os.path.join(self.tmp, f"collected-{altered}.jsonl")
            args = [CASES, collected] + (["--altered"] if altered else [])
            self.assertEqual(call_main(audit_answers, args)[0], 0)
            raw = os.path.join(self.tmp, f"raw-{altered}.jsonl")
            code, _, err = call_main(run, [CASES, raw, "--provider", "manual", "--from",
                                           collected, "--quiet", "--limit", "2"])
            self.assertEqual(code, 0, err)
            raws.append(raw)
        judge = ModelServer("anthropic", reply=model("anthropic", True))
        judge.__enter__()
        self.addCleanup(judge.__exit__)
        os.environ.update(judge.environ())
        atoms = []
        for raw in raws:
            out = raw.replace("raw-", "atoms-")
            code, _, err = call_main(atomize, [raw, out, "--provider", "anthropic", "--model",
                                               "judge-1", "--cases", CASES, "--quiet"])
            self.assertEqual(code, 0, err)
            atoms.append(out)
        results, md = os.path.join(self.tmp, "r.json"), os.path.join(self.tmp, "r.md")
        code, _, err = call_main(score, [CASES] + raws + atoms + ["--example", "--json", results,
                                                                 "--out", md])
        self.assertEqual(code, 0, err)
        with open(results, encoding="utf-8") as fh:
            tags = json.load(fh)["evaluator_audit"]["anthropic:judge-1"]["tags"]
        counted = {kind: sum(tags[kind].values()) for kind in tags}
        expected = {kind: sum(len(l["atoms"]) for l in read_lines(path))
                    for kind, path in zip(("true_claims", "false_claims"), atoms)}
        self.assertEqual(counted, expected)
        with open(md, encoding="utf-8") as fh:
            self.assertIn("tags on the key's true answers: ", fh.read())


class ScenarioDemo(unittest.TestCase):
    def test_make_scenario_demo_audits_the_stand_in_evaluators(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_demo(tmp, CASES, audit=True)
            with open(os.path.join(tmp, "results.json"), encoding="utf-8") as fh:
                audit = json.load(fh)["evaluator_audit"]
            with open(os.path.join(tmp, "index.html"), encoding="utf-8") as fh:
                page = fh.read()
        self.assertEqual(sorted(audit), ["anthropic:stand-in-claude", "openai:stand-in-gpt"])
        for entry in audit.values():
            self.assertTrue(entry["tags"]["true_claims"])
            self.assertTrue(entry["tags"]["false_claims"])
        self.assertIn("tags on the altered (false) answers", page)
        # surface rules check nothing: every false claim of the demo passes them
        self.assertIn("(agreeing with the key: 0 of 103; over the atoms kept after the "
                      "checks: 0 of 103)", page)
        sections = audit["anthropic:stand-in-claude"]["sections"]   # it looked the code up
        self.assertGreater(sections["atoms"], 0)
        self.assertNotIn("sections", audit["openai:stand-in-gpt"])
        self.assertIn("rest on a section of the code", page)


if __name__ == "__main__":
    unittest.main()
