"""atomize.py --lookups: the evaluator looks each claim up in the city's code,
in a tool loop with each provider that takes tools, or from the passages put
in its prompt when it takes none; the atoms line records what it consulted,
and score.py reads what each verified truth rests on."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, calling, conversation
from tests.support import ROOT, call_main, read_lines

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.scenario.corpus import Corpus  # noqa: E402

CASES = os.path.join(ROOT, "evals", "permits", "scenarios.json")
CODE = os.path.join(ROOT, "evals", "permits", "code", "riverton-code.json")
JUDGES = {"openai": "judge-1", "anthropic": "judge-1",
          "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0"}
ATOMS = {"atoms": [{"text": "A cottage may have up to 800 square feet.", "correctness": "correct",
                    "verified_truth": "An ADU may have at most 800 square feet [RCC 33.205.040].",
                    "citation": None, "topic": "size", "specificity": 0.8,
                    "actionability": 0.5, "importance": 4},
                   {"text": "You need a permit.", "correctness": "correct-vague",
                    "verified_truth": "Not settled by the code as asked.", "citation": None,
                    "topic": "permits", "specificity": 0.2, "actionability": 0.3,
                    "importance": 3}]}


class Lookups(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.raw = os.path.join(self.tmp, "raw.jsonl")
        with ModelServer("openai", reply=lambda r: "You can build a cottage of 800 square "
                                                   "feet with a permit.") as gen:
            os.environ.update(gen.environ())
            self.assertEqual(call_main(run, [CASES, self.raw, "--provider", "openai", "--model",
                                             "gen-1", "--quiet", "--limit", "1"])[0], 0)
        for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
            os.environ.pop(var, None)

    def atomize(self, flavour, reply, model=None):
        judge = ModelServer(flavour, reply=reply)
        judge.__enter__()
        self.addCleanup(judge.__exit__)
        os.environ.update(judge.environ())
        out = os.path.join(self.tmp, f"atoms-{flavour}.jsonl")
        code, _, err = call_main(atomize, [self.raw, out, "--provider", flavour, "--model",
                                           model or JUDGES[flavour], "--cases", CASES,
                                           "--lookups", "--quiet"])
        self.assertEqual(code, 0, err)
        (line,) = read_lines(out)
        return judge, line, out

    def test_a_tool_loop_with_each_provider(self):
        for flavour in JUDGES:
            with self.subTest(flavour):
                search = ("call_1", "search_code", {"query": "ADU size"})
                judge, line, _ = self.atomize(flavour, conversation(calling(search), ATOMS))
                self.assertEqual(len(judge.requests), 2)
                lookups = line["lookups"]
                self.assertEqual((lookups["mode"], lookups["corpus"]),
                                 ("tools", "riverton-code.json"))
                self.assertEqual(lookups["corpus_sha256"], Corpus(CODE).sha256)
                self.assertEqual([c["tool"] for c in lookups["calls"]], ["search_code"])
                self.assertEqual(lookups["calls"][0]["output"],
                                 Corpus(CODE).search("ADU size", 5))
                self.assertEqual(len(line["calls"]), 2)          # one per round
                self.assertNotIn("request", line["calls"][0])   # the history is not repeated
                self.assertEqual(line["evaluator"]["prompt"], "atomize-v2")
                self.assertEqual(set(line["lookups"]) - {"sections"},
                                 {"mode", "corpus", "corpus_sha256", "calls"})
                self.assertIn("Riverton, at 4127 SE Wrenfield Court", json.dumps(
                    judge.requests[0]["json"]))

    def test_a_model_without_tools_gets_the_passages(self):
        judge, line, _ = self.atomize("bedrock", lambda r: ATOMS,
                                      model="meta.llama3-1-70b-instruct-v1:0")
        lookups = line["lookups"]
        self.assertEqual(lookups["mode"], "passages")
        self.assertTrue(lookups["sections"])
        sent = json.dumps(judge.requests[0]["json"], ensure_ascii=False)
        self.assertIn("You have no tools", sent)
        self.assertIn(f"[{lookups['sections'][0]}]", sent)
        self.assertNotIn("toolConfig", judge.requests[0]["json"])

    def test_score_reads_what_each_verified_truth_rests_on(self):
        _, _, out = self.atomize("anthropic", conversation(ATOMS))
        results = os.path.join(self.tmp, "results.json")
        code, _, err = call_main(score, [CASES, self.raw, out, "--example", "--json", results])
        self.assertEqual(code, 0, err)
        with open(results, encoding="utf-8") as fh:
            (cell,) = json.load(fh)["cells"]
        self.assertEqual([a["rests_on"] for a in cell["atoms"]], [["RCC 33.205.040"], []])
        self.assertEqual(cell["scores"]["accurate"]["atoms"], 2)  # every factual atom
        self.assertEqual(cell["atoms"][0]["rests_on_read"], [])   # named, never looked up
        self.assertEqual(cell["verified"], {"factual_atoms": 2, "resting_on_a_section_read": 0})

    def test_the_evaluator_audited_against_the_reference_keys(self):
        atoms = json.loads(json.dumps(ATOMS))
        atoms["atoms"].append(dict(atoms["atoms"][0], topic="costs",
                                   text="The permit costs $500.",
                                   verified_truth="It costs $500 [RCC 33.205.040; RCC 9.9.9]."))
        _, _, out = self.atomize("anthropic", conversation(atoms))
        results = os.path.join(self.tmp, "results.json")
        md = os.path.join(self.tmp, "results.md")
        code, _, err = call_main(score, [CASES, self.raw, out, "--example", "--json", results,
                                         "--out", md])
        self.assertEqual(code, 0, err)
        with open(results, encoding="utf-8") as fh:
            audit = json.load(fh)["evaluator_audit"]["anthropic:judge-1"]["sections"]
        # size rests on a key section of size; costs on a section outside its topic's
        # key, and on one the code lacks; permits on nothing
        self.assertEqual(audit, {"atoms": 3, "atoms_kept_after_checks": 3, "resting_on_a_section": 2,
                                 "on_a_key_section_of_the_topic": 1,
                                 "naming_a_section_the_code_lacks": 1})
        with open(md, encoding="utf-8") as fh:
            self.assertIn("Checked against the reference keys: of 3 factual atom(s) (3 kept after the "
                          "checks), 2 rest on "
                          "a section of the code, 1 on a section the key names", fh.read())

    def test_lookups_need_the_scenarios(self):
        os.environ["ANTHROPIC_API_KEY"] = "sk-ant-test-never-used"
        code, _, err = call_main(atomize, [self.raw, os.path.join(self.tmp, "a.jsonl"),
                                           "--provider", "anthropic", "--model", "j",
                                           "--lookups"])
        self.assertEqual(code, 2)
        self.assertIn("required: --cases", err)


if __name__ == "__main__":
    unittest.main()
