"""Defects an outside tester found in the scenario suite, each held here:

- ``score.py --publish FOLDER --replace`` replaces only a published scenario
  run (a folder, not a link, whose scenario MANIFEST.json lists every file in
  it but detail/): the scenario folder, a work folder with notes, a link,
  a run with a file put beside it are refused, and nothing is deleted;
- atoms made against another scenario file (run.cases_sha256) are refused
  with file:line, as raw lines are; atoms that record none are scored;
- a source or jargon pattern that re.compile cannot take (OverflowError,
  RecursionError, re.error) or that is no string is refused in one line
  naming the file and the entry, never a traceback;
- a run a stand-in answered ("stand_in": true in a reply, or a model id
  beginning stand-in) is labelled an example (not_run), as ai_eval.py labels
  it, and is not published among the runs beside the scenario file.

The inputs are a small part of the published run (real models), changed
where a case needs it."""

import glob
import json
import os
import shutil
import tempfile
import unittest

from tests.support import ROOT, call_main

import reproduce  # noqa: E402
import score  # noqa: E402
from evalkit import BadInput  # noqa: E402
from evalkit.pages import scenario_run  # noqa: E402

PERMITS = os.path.join(ROOT, "evals", "permits")
CASES = os.path.join(PERMITS, "scenarios.json")
RUN = os.path.join(PERMITS, "results", "2026-12-01-local-cpu")
# Two raw files and the atoms of their answers by a model of another family.
RAWS = ["raw-key-false.jsonl", "raw-smol.jsonl"]
ATOMS = ["atoms-qwen15-1.jsonl"]


def lines_of(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)
    return path


def tree(folder):
    """Every path under ``folder`` with its bytes (a link as its target)."""
    found = {}
    for here, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(here, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                found[rel] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as fh:
                    found[rel] = fh.read()
            else:
                found[rel] = "folder"
    return found


class Inputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.raws = [self.copy(name) for name in RAWS]
        self.atoms = [self.copy(name) for name in ATOMS]

    def copy(self, name):
        path = os.path.join(self.tmp, name)
        shutil.copyfile(os.path.join(RUN, name), path)
        return path

    def score(self, *extra, raws=None, atoms=None):
        return call_main(score, [CASES] + (raws or self.raws) + (atoms or self.atoms) + list(extra))

    def refused(self, code, err, *words):
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertNotIn("Traceback", err)
        for word in words:
            self.assertIn(word, err)


class ReplaceOnlyAPublishedRun(Inputs):
    def publish(self, folder, *extra):
        return self.score("--publish", folder, *extra)

    def assert_refused_untouched(self, folder, *words):
        before = tree(folder)
        code, _out, err = self.publish(folder, "--replace")
        self.refused(code, err, folder, "nothing was changed", *words)
        self.assertEqual(tree(folder), before)
        self.assertEqual([n for n in os.listdir(os.path.dirname(folder)) if n.startswith(".")], [])

    def test_the_scenario_folder_is_refused_and_kept(self):
        folder = os.path.join(self.tmp, "permits")
        shutil.copytree(PERMITS, folder, ignore=shutil.ignore_patterns("results"))
        self.assert_refused_untouched(folder)
        self.assertTrue(os.path.isfile(os.path.join(folder, "scenarios.json")))

    def test_a_work_folder_with_notes_is_refused_and_kept(self):
        folder = os.path.join(self.tmp, "work")
        os.mkdir(folder)
        for path in self.raws + self.atoms:
            shutil.copy(path, folder)
        with open(os.path.join(folder, "NOTES.txt"), "w", encoding="utf-8") as fh:
            fh.write("what I saw\n")
        self.assert_refused_untouched(folder, "MANIFEST.json")

    def test_a_link_is_refused_by_name_and_nothing_behind_it_is_touched(self):
        target = os.path.join(self.tmp, "target")
        code, _out, err = self.publish(target)
        self.assertEqual(code, 0, err)
        before = tree(target)
        link = os.path.join(self.tmp, "link")
        os.symlink(target, link)
        for given in (link, link + os.sep):
            code, _out, err = self.publish(given, "--replace")
            self.refused(code, err, link, "symbolic link")
            self.assertTrue(os.path.islink(link))
            self.assertEqual(tree(target), before)

    def test_a_published_run_with_a_file_put_beside_it_is_refused(self):
        folder = os.path.join(self.tmp, "run")
        self.assertEqual(self.publish(folder)[0], 0)
        with open(os.path.join(folder, "NOTES.txt"), "w", encoding="utf-8") as fh:
            fh.write("why this run\n")
        self.assert_refused_untouched(folder, "NOTES.txt", "not in its MANIFEST.json")

    def test_a_folder_of_another_suite_is_refused(self):
        folder = os.path.join(self.tmp, "quarter")
        os.mkdir(folder)
        with open(os.path.join(folder, "MANIFEST.json"), "w", encoding="utf-8") as fh:
            json.dump({"format": 1, "suite": "site-qa", "files": {}}, fh)
        self.assert_refused_untouched(folder)

    def test_without_replace_a_folder_that_is_no_run_is_not_offered_replace(self):
        folder = os.path.join(self.tmp, "notes")
        os.mkdir(folder)
        code, _out, err = self.publish(folder)
        self.refused(code, err, folder, "no published scenario run")
        self.assertNotIn("--replace replaces it)", err)

    def test_a_published_run_is_replaced_whole(self):
        folder = os.path.join(self.tmp, "run")
        self.assertEqual(self.publish(folder)[0], 0)
        code, _out, err = self.publish(folder, "--replace")
        self.assertEqual(code, 0, err)
        self.assertEqual(call_main(reproduce, [folder])[0], 0)
        self.assertEqual(sorted(n for n in os.listdir(self.tmp) if n.startswith(".")), [])

    def test_what_the_old_manifest_does_not_list_is_never_deleted(self):
        # A file put into the run after it was looked at: the old run moved
        # aside keeps it, and only the files the manifest listed go.
        folder = os.path.join(self.tmp, "run")
        self.assertEqual(self.publish(folder)[0], 0)
        listed = scenario_run.replaceable(folder)
        with open(os.path.join(folder, "detail", "late.txt"), "w", encoding="utf-8") as fh:
            fh.write("written late\n")
        staging = os.path.join(self.tmp, "new")
        os.mkdir(staging)
        scenario_run.replace(folder, staging, listed)
        kept = glob.glob(os.path.join(self.tmp, ".replaced-*", "run", "**", "*"), recursive=True)
        self.assertEqual(sorted(os.path.relpath(p, self.tmp).split(os.sep)[2:] for p in kept),
                         [["detail"], ["detail", "late.txt"]])


class AtomsOfTheScenarioFile(Inputs):
    def atoms_with(self, change):
        lines = lines_of(self.atoms[0])
        change(lines)
        return [write_lines(os.path.join(self.tmp, "atoms-changed.jsonl"), lines)]

    def test_atoms_made_against_another_scenario_file_are_refused(self):
        def other(lines):
            lines[2]["run"]["cases_sha256"] = "0" * 64
        atoms = self.atoms_with(other)
        code, _out, err = self.score("--json", os.path.join(self.tmp, "r.json"), atoms=atoms)
        self.refused(code, err, f"{atoms[0]}:3", "000000000000", "scenarios are frozen")

    def test_atoms_that_record_no_scenario_file_are_scored(self):
        def none(lines):
            lines[0]["run"]["cases_sha256"] = None  # atomize.py without --cases
            del lines[1]["run"]
        code, _out, err = self.score("--json", os.path.join(self.tmp, "r.json"),
                                     atoms=self.atoms_with(none))
        self.assertEqual(code, 0, err)

    def test_every_atoms_line_of_the_published_run_is_of_its_scenario_file(self):
        self.assertEqual(call_main(reproduce, [RUN])[0], 0)


class PatternsTheScorerCannotCompile(Inputs):
    # What the message says of each, in the same words on every Python (re's
    # error is PatternError from 3.13 on).
    BAD = {"a repeat too large": "a{4294967296}",
           "groups nested too deep": "(" * 3000 + ")" * 3000,
           "a syntax error": "(unclosed", "string": 5}

    def table(self, name, change):
        with open(os.path.join(PERMITS, name), encoding="utf-8") as fh:
            doc = json.load(fh)
        change(doc)
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        return path

    def test_a_bad_source_pattern_is_refused_naming_the_entry(self):
        for what, pattern in self.BAD.items():
            with self.subTest(what):
                path = self.table("sources.json",
                                  lambda doc: doc["patterns"][3].update(pattern=pattern))
                code, _out, err = self.score("--sources", path)
                self.refused(code, err, path, "patterns[3]", what)

    def test_a_bad_jargon_pattern_is_refused_naming_the_entry(self):
        for key in ("code_citation_patterns", "requirement_patterns", "pointer_patterns"):
            for what, pattern in self.BAD.items():
                with self.subTest(key=key, what=what):
                    path = self.table("jargon.json",
                                      lambda doc: doc[key].insert(1, pattern))
                    code, _out, err = self.score("--jargon", path)
                    self.refused(code, err, path, f"{key}[1]", what)


def renamed(line, model):
    """A raw line whose server named ``model``: its response.model and its body's."""
    line["response"]["model"] = model
    doc = json.loads(line["response"]["body"])
    doc["model"] = model
    line["response"]["body"] = json.dumps(doc)


class StandInsAreExamples(Inputs):
    def status(self, raws=None, atoms=None, *extra):
        out = os.path.join(self.tmp, "results.json")
        md = os.path.join(self.tmp, "results.md")
        code, _out, err = self.score("--json", out, "--out", md, *extra, raws=raws, atoms=atoms)
        self.assertEqual(code, 0, err)
        with open(out, encoding="utf-8") as fh, open(md, encoding="utf-8") as page:
            provenance = json.load(fh)["provenance"]
            return provenance["run"]["status"], provenance["example"], page.read()

    def changed(self, path, change):
        lines = lines_of(path)
        change(lines[0])
        return write_lines(os.path.join(self.tmp, "stand-in-" + os.path.basename(path)), lines)

    def test_real_models_stay_a_recorded_local_run(self):
        status, example, _page = self.status()
        self.assertEqual((status, example), ("recorded_local_run", False))

    def test_a_reply_that_says_it_is_a_stand_in_makes_an_example(self):
        def body(line):
            doc = json.loads(line["response"]["body"])
            doc["stand_in"] = True
            line["response"]["body"] = json.dumps(doc)

        def served(line):
            renamed(line, "stand-in-smol")

        def evaluator_body(line):
            reply = json.loads(line["calls"][0]["reply"])
            reply["stand_in"] = True
            line["calls"][0]["reply"] = json.dumps(reply)

        def evaluator_served(line):
            line["served_model"] = "Stand-In-qwen"
            for call in line["calls"]:  # the model each reply names, as the line says
                reply = json.loads(call["reply"])
                reply["model"] = "Stand-In-qwen"
                call["reply"] = json.dumps(reply)

        cases = {"raw body": ("raw", body), "raw model": ("raw", served),
                 "atoms reply": ("atoms", evaluator_body),
                 "atoms served_model": ("atoms", evaluator_served)}
        for name, (kind, change) in cases.items():
            with self.subTest(name):
                raws, atoms = list(self.raws), list(self.atoms)
                if kind == "raw":
                    raws[1] = self.changed(raws[1], change)
                else:
                    atoms[0] = self.changed(atoms[0], change)
                status, example, page = self.status(raws, atoms)
                self.assertEqual((status, example), ("not_run", True))
                self.assertIn("This is an EXAMPLE, not a measurement", page)
                self.assertNotIn("recorded_local_run", page)

    def test_published_elsewhere_it_says_it_is_an_example(self):
        raws = [self.raws[0], self.changed(self.raws[1],
                                           lambda line: renamed(line, "stand-in-smol"))]
        folder = os.path.join(self.tmp, "run")
        code, _out, err = self.score("--publish", folder, raws=raws)
        self.assertEqual(code, 0, err)
        with open(os.path.join(folder, "results.json"), encoding="utf-8") as fh:
            self.assertEqual(json.load(fh)["provenance"]["run"]["status"], "not_run")
        self.assertEqual(call_main(reproduce, [folder])[0], 0)

    def test_it_is_never_published_among_the_runs_beside_the_scenario_file(self):
        scenarios = os.path.join(self.tmp, "suite", "scenarios.json")
        os.makedirs(os.path.join(self.tmp, "suite", "results"))
        example = {"provenance": {"example": True}}
        for folder in ("results/run", "results/a/b"):
            with self.subTest(folder):
                where = os.path.join(self.tmp, "suite", *folder.split("/"))
                with self.assertRaises(BadInput) as caught:
                    scenario_run.refuse_example_in_results(where, scenarios, example)
                self.assertIn("example", str(caught.exception))
        scenario_run.refuse_example_in_results(os.path.join(self.tmp, "elsewhere"), scenarios,
                                               example)
        scenario_run.refuse_example_in_results(os.path.join(self.tmp, "suite", "results", "r"),
                                               scenarios, {"provenance": {"example": False}})


if __name__ == "__main__":
    unittest.main()
