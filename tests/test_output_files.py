"""The outputs of one command appear together or not at all.

score.py writes up to four files (results.md, results.json, the results
pages, the review sheet), the scenario suite a dashboard and its detail
pages: when a later one cannot be written (its path a folder, its folder
missing), no earlier one appears or changes, and no temporary file is left.
publish.py builds a quarter in a staging folder and renames it into place;
with --force, a rename that fails leaves the quarter published before.
"""

import hashlib
import os
import shutil
import tempfile
import unittest
from unittest import mock

from tests.scenario_demo import run_demo
from tests.support import FIXTURES, ROOT, call_main

import publish  # noqa: E402
import score  # noqa: E402
from evalkit import BadInput, jsonl  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
DEMO = os.path.join(ROOT, "Documents", "c4-benchmark", "demo")


def snapshot(folder):
    """Every file and folder under ``folder``, with the sha256 of its bytes
    (a difference is then shown as names, not as megabytes of pages)."""
    out = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs:
            out[os.path.relpath(os.path.join(top, name), folder) + "/"] = None
        for name in files:
            with open(os.path.join(top, name), "rb") as fh:
                out[os.path.relpath(os.path.join(top, name), folder)] = \
                    hashlib.sha256(fh.read()).hexdigest()
    return out


class Together(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.out = os.path.join(self.tmp, "out")
        os.makedirs(self.out)

    def path(self, name):
        return os.path.join(self.out, name)

    def none_written(self, argv, *expected):
        """``score.py argv`` is refused (exit 2, one line holding
        ``expected``) and the output folder is as it was."""
        before = snapshot(self.tmp)
        code, out, err = call_main(score, argv)
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        for text in expected:
            self.assertIn(text, err)
        self.assertEqual(out, "")
        self.assertEqual(snapshot(self.tmp), before)


class ScoreSiteQa(Together):
    def argv(self, sheet=None, html=None):
        return [QUESTIONS, RAW, "--out", self.path("results.md"),
                "--json", self.path("results.json"),
                "--html", html or self.path("index.html"),
                "--review-sheet", sheet or self.path("review-sheet.md")]

    def test_a_review_sheet_whose_path_is_a_folder(self):
        sheet = self.path("review-sheet.md")
        os.makedirs(sheet)
        self.none_written(self.argv(), f"{sheet}: is a folder, not a file")

    def test_a_review_sheet_whose_folder_is_missing(self):
        sheet = os.path.join(self.tmp, "missing", "review-sheet.md")
        self.none_written(self.argv(sheet=sheet), f"{sheet}: no such folder")

    def test_earlier_outputs_keep_their_bytes(self):
        for name in ("results.md", "results.json", "index.html"):
            with open(self.path(name), "w", encoding="utf-8") as fh:
                fh.write(f"the {name} of an earlier run\n")
        sheet = self.path("review-sheet.md")
        os.makedirs(sheet)
        self.none_written(self.argv(), f"{sheet}: is a folder, not a file")

    def test_a_results_page_whose_path_is_a_folder(self):
        page = self.path("index.html")
        os.makedirs(page)
        self.none_written(self.argv(), f"{page}: is a folder, not a file")

    def test_all_written_when_all_can_be(self):
        code, _, err = call_main(score, self.argv())
        self.assertEqual(code, 0, err)
        names = sorted(os.listdir(self.out))
        self.assertIn("results.md", names)
        self.assertIn("review-sheet.md", names)
        self.assertEqual([n for n in names if n.startswith(".")], [])


class ScoreScenarios(Together):
    def setUp(self):
        super().setUp()
        demo = os.path.join(self.tmp, "demo")
        run_demo(demo, os.path.join(FIXTURES, "scenarios-mini.json"))
        self.inputs = [os.path.join(FIXTURES, "scenarios-mini.json")] + sorted(
            os.path.join(demo, n) for n in os.listdir(demo) if n.endswith(".jsonl"))

    def test_a_detail_page_that_cannot_be_written(self):
        pages = self.path("pages")
        os.makedirs(os.path.join(pages, "detail"))
        code, _, err = call_main(score, self.inputs + ["--example", "--html-dir", pages])
        self.assertEqual(code, 0, err)
        detail = sorted(os.listdir(os.path.join(pages, "detail")))
        shutil.rmtree(pages)
        os.makedirs(os.path.join(pages, "detail", detail[-1]))
        self.none_written(self.inputs + ["--example", "--out", self.path("results.md"),
                                         "--json", self.path("results.json"),
                                         "--html-dir", pages],
                          f"{detail[-1]}: is a folder, not a file")


class WriteAllAtomic(unittest.TestCase):
    def test_a_path_given_twice_is_written_once_the_last_text_winning(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "a.md")
            jsonl.write_all_atomic([(path, "first\n"), (path, "second\n")])
            with open(path, encoding="utf-8") as fh:
                self.assertEqual(fh.read(), "second\n")
            self.assertEqual(os.listdir(tmp), ["a.md"])

    def test_nothing_written_when_the_last_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            first = os.path.join(tmp, "first.md")
            second = os.path.join(tmp, "no", "second.md")
            with self.assertRaises(BadInput):
                jsonl.write_all_atomic([(first, "x\n"), (second, "y\n")])
            self.assertEqual(os.listdir(tmp), [])


class PublishForce(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.bench = os.path.join(tmp.name, "bench")
        self.work = os.path.join(tmp.name, "work")
        os.makedirs(self.bench)
        os.makedirs(self.work)
        for name in ("questions-med.json", "questions-biz.json"):
            shutil.copy(os.path.join(DEMO, name), self.bench)
        for name in ("raw-med.jsonl", "raw-biz.jsonl"):
            shutil.copy(os.path.join(DEMO, name), self.work)

    def publish(self, *args):
        return call_main(publish, ["2026-Q4", "--from", self.work, "--bench", self.bench,
                                   "--allow-unreviewed"] + list(args))

    def test_a_failed_replacement_keeps_the_quarter_published_before(self):
        self.assertEqual(self.publish()[0], 0)
        before = snapshot(self.bench)
        real_rename = os.rename

        def rename(src, dst):
            # The staging folder cannot take the quarter's place (a full
            # disk, another process): every other rename goes through.
            if os.path.basename(src).startswith(".2026-Q4.staging-"):
                raise OSError(28, "No space left on device", src)
            return real_rename(src, dst)

        with mock.patch.object(publish.os, "rename", rename):
            code, _, err = self.publish("--force")
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertEqual(snapshot(self.bench), before)


if __name__ == "__main__":
    unittest.main()
