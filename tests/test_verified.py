"""Atoms of an evaluator that looked the code up: each verified truth names,
in brackets, the sections it rests on; score.py checks them against the
corpus the atoms line names and against what the evaluator's lookups for
that answer read, and counts beside Accurate (which counts every factual
atom) how many rest on a section the evaluator read."""

import json
import os
import tempfile
import unittest

from tests.scenario_demo import DEFAULT_CASES as CASES, run_demo
from tests.support import ROOT, call_main, read_lines

import score  # noqa: E402
from evalkit.scenario.corpus import Corpus  # noqa: E402

CODE = os.path.join(ROOT, "evals", "permits", "code", "riverton-code.json")


class Verified(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "demo")
        run_demo(cls.out, CASES)
        names = sorted(os.listdir(cls.out))
        cls.raws = [os.path.join(cls.out, n) for n in names if n.startswith("raw-")]
        cls.atoms = [os.path.join(cls.out, n) for n in names if n.startswith("atoms-")]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def looked_up(self, sha=None):
        """The first atoms file as an evaluator with lookups would have written
        it: the first atom rests on RCC 33.205.040, which it read, the second
        on a section the code does not have, the third on RCC 33.110.220,
        which it never read, the others on nothing."""
        lines = read_lines(self.atoms[0])
        line = next(l for l in lines if l["atoms"] and len(l["atoms"]) >= 3)
        line["lookups"] = {"mode": "tools", "corpus": "riverton-code.json",
                           "corpus_sha256": sha or Corpus(CODE).sha256,
                           "calls": [{"tool": "read_section",
                                      "input": {"section_id": "RCC 33.205.040"},
                                      "output": Corpus(CODE).read("RCC 33.205.040"),
                                      "error": None}]}
        line["settings"] = dict(line["settings"], context="tools")  # as the line says it
        line["atoms"][0]["verified_truth"] = "At most 800 square feet [RCC 33.205.040]."
        line["atoms"][1]["verified_truth"] = "So the code says [RCC 99.999.999]."
        line["atoms"][2]["verified_truth"] = "Five feet from the rear line [RCC 33.110.220]."
        path = os.path.join(self.tmp.name, f"atoms-looked-{len(os.listdir(self.tmp.name))}.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(l) + "\n" for l in lines)
        return path, line

    def score(self, atoms):
        out = os.path.join(self.tmp.name, "r.json")
        code, _, err = call_main(score, [CASES] + self.raws + [atoms] + self.atoms[1:] +
                                 ["--example", "--json", out,
                                  "--html-dir", os.path.join(self.tmp.name, "pages")])
        return code, err, out

    def test_what_each_atom_rests_on(self):
        path, line = self.looked_up()
        code, err, out = self.score(path)
        self.assertEqual(code, 0, err)
        with open(out, encoding="utf-8") as fh:
            cells = json.load(fh)["cells"]
        cell = next(c for c in cells if c["scenario"] == line["id"] and c["variant"] == line["variant"]
                    and c["evaluator"].endswith(line["evaluator"]["model"]))
        first, second = cell["atoms"][0], cell["atoms"][1]
        self.assertEqual((first["rests_on"], first["verified"]), (["RCC 33.205.040"], True))
        self.assertEqual((second["rests_on"], second["unknown_sections"], second["verified"]),
                         ([], ["RCC 99.999.999"], False))
        self.assertEqual(first["rests_on_read"], ["RCC 33.205.040"])
        third = cell["atoms"][2]
        # named, in the code, but never read by this answer's lookups: not verified
        self.assertEqual((third["rests_on"], third["rests_on_read"], third["verified"]),
                         (["RCC 33.110.220"], [], False))
        facts = [a for a in cell["atoms"] if a["correctness"] != "admitted-gap"]
        accurate = cell["scores"]["accurate"]
        # Accurate counts every factual atom, verified or not; the figure beside it
        # says how many rest on a section the evaluator read
        self.assertNotIn("skipped_unverified", accurate)
        self.assertEqual(accurate["atoms"], len(facts))
        self.assertEqual(cell["verified"], {"factual_atoms": len(facts),
                                            "resting_on_a_section_read": 1})
        self.assertEqual(cell["lookups"]["calls"][0]["tool"], "read_section")
        # atoms lines without lookups carry no such figure: nothing was read
        other = [c for c in cells if "lookups" not in c and c["scores"]["accurate"]["atoms"]]
        self.assertTrue(other)
        self.assertTrue(all("verified" not in c for c in other))

    def test_another_version_of_the_code_is_refused(self):
        path, _ = self.looked_up(sha="0" * 64)
        code, err, _ = self.score(path)
        self.assertEqual(code, 2)
        self.assertIn("looked up another version of riverton-code.json", err)


if __name__ == "__main__":
    unittest.main()
