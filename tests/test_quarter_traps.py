"""The traps of a quarter (issue 30), each as an operator meets it: make after
a git checkout that rewrote the question files with the same bytes, the
reference assistant's query URL, what make score says next, a reviews file
under another name, a quarter's name nearly right, a reviews file with a
trailing comma or curly quotes, and the review sheet's word on other failed
measures.

The make tests run the real make in a copy of the project (tests/test_docs.py's
copy_project), one quarter asked once of the reference assistant and copied
for each test, so that none sees another's files."""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from tests import test_docs
from tests.support import FIXTURES, ROOT, call_main

import publish  # noqa: E402
import score  # noqa: E402
from evalkit import BadInput, jsonl  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "demo-assistant"))
import server  # noqa: E402

QUARTER = "2026-Q4"
WORK = os.path.join("build", QUARTER)
BENCH = os.path.join("Documents", "c4-benchmark")
QUESTION_FILES = [os.path.join(BENCH, f"questions-{s}.json") for s in ("biz", "med")]
MINI_QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
MINI_RAW = os.path.join(FIXTURES, "raw-mini.jsonl")


def make_env():
    """The environment a user's make runs in: no make of ours around it, no
    endpoint but the one a test names."""
    return {k: v for k, v in os.environ.items()
            if k not in ("MAKEFLAGS", "MAKELEVEL", "BENCH_ENDPOINT")}


class MakeOfAQuarter(unittest.TestCase):
    """One quarter, run once against the reference assistant; each test
    works in a copy of that project (shutil.copytree keeps the files' times,
    which are what make compares)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.template = os.path.join(cls.tmp.name, "template")
        test_docs.copy_project(cls.template)
        httpd = server.make_server(quiet=True)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            endpoint = f"http://127.0.0.1:{httpd.server_address[1]}/api/query"
            proc = cls.make(cls.template, "run", f"ENDPOINT={endpoint}")
        finally:
            httpd.shutdown()
            httpd.server_close()
        if proc.returncode != 0:
            cls.tmp.cleanup()
            raise AssertionError(proc.stdout + proc.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @staticmethod
    def make(project, goal, *variables, quarter=QUARTER):
        return subprocess.run(["make", goal, f"QUARTER={quarter}", f"PY={sys.executable}"]
                              + list(variables), cwd=project, env=make_env(),
                              capture_output=True, text=True, encoding="utf-8", timeout=120)

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.project = os.path.join(tmp.name, "project")
        shutil.copytree(self.template, self.project)

    def path(self, *parts):
        return os.path.join(self.project, *parts)

    def rewrite_question_files(self, change=b""):
        """What a git checkout does to the question files: writes them again
        (``change`` appended to the med set's), after the run by make's clock."""
        earlier = time.time() - 3600
        os.utime(self.path(WORK, "run.done"), (earlier, earlier))
        for rel in QUESTION_FILES:
            with open(self.path(rel), "rb") as fh:
                data = fh.read()
            with open(self.path(rel), "wb") as fh:
                fh.write(data + (change if rel.endswith("med.json") else b""))

    def test_the_same_question_files_written_again_are_scored(self):
        self.rewrite_question_files()
        proc = self.make(self.project, "score")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.exists(self.path(WORK, "results.md")))
        self.assertNotIn("changed", proc.stderr)
        # run.done now stands for the files as they are: the next make scores nothing again.
        written = os.stat(self.path(WORK, "results.md")).st_mtime_ns
        again = self.make(self.project, "score")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(os.stat(self.path(WORK, "results.md")).st_mtime_ns, written)

    def test_other_question_files_are_refused_with_what_to_do(self):
        self.rewrite_question_files(change=b"\n")
        for goal in ("score", "publish"):
            with self.subTest(goal):
                proc = self.make(self.project, goal)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                med = os.path.join(BENCH, "questions-med.json")
                self.assertIn(f"publish.py: {med}: sha256 ", proc.stderr)
                self.assertIn(f"{os.path.join(WORK, 'raw-med.jsonl')}:1", proc.stderr)
                self.assertIn("questions are frozen", proc.stderr)
                self.assertNotIn("questions-biz.json", proc.stderr)
                self.assertIn("score and publish the quarter with the question files it was "
                              "asked", proc.stderr)
                self.assertIn("or run a new quarter (make run QUARTER=...)", proc.stderr)
                self.assertFalse(os.path.exists(self.path(WORK, "results.md")))
                self.assertTrue(os.path.exists(self.path(WORK, "run.done")))

    def test_make_score_names_the_review_sheet_and_the_next_step(self):
        proc = self.make(self.project, "score")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for made in ("results.csv", "review.html", "review-sheet.md"):
            self.assertTrue(os.path.exists(self.path(WORK, made)), made)
        self.assertIn(f"make score: 100 of 100 answers the rubric requires a person to read "
                      f"and 120 of 120 sampled answers have no review entry: "
                      f"{WORK}/review-sheet.md "
                      f"(or {WORK}/review.html, in a browser) lists them; write their entries "
                      f"into {WORK}/reviews-{QUARTER}.json, then make score QUARTER={QUARTER} "
                      f"again (the figures after review) and make publish QUARTER={QUARTER}\n",
                      proc.stderr)

    def test_a_reviews_file_of_another_name_is_pointed_out_when_nothing_is_to_do(self):
        self.assertEqual(self.make(self.project, "score").returncode, 0)
        with open(self.path(WORK, "reviews.json"), "w", encoding="utf-8") as fh:
            fh.write('{"format": 1, "reviews": []}\n')
        proc = self.make(self.project, "score")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(f"make score: {WORK}/reviews.json is not read: the reviews of "
                      f"QUARTER={QUARTER} are read from {WORK}/reviews-{QUARTER}.json only",
                      proc.stderr)

    def test_a_quarter_name_nearly_right_gets_its_spelling(self):
        for name in ("2026q4", "2026-q4", "2026Q4", "2026_Q4"):
            for goal in ("run", "score", "publish", "reproduce"):
                with self.subTest(name=name, goal=goal):
                    proc = self.make(self.project, goal, quarter=name)
                    self.assertEqual(proc.returncode, 2, proc.stderr)
                    self.assertIn(f"quarter '{name}': did you mean 2026-Q4?", proc.stderr)
                    self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
                    self.assertFalse(os.path.exists(self.path("build", name)))
        proc = self.make(self.project, "score", quarter="Q4")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("give YYYY-QN (2026-Q4) or a plain slug", proc.stderr)


class QuarterNames(unittest.TestCase):
    def test_publish_asks_did_you_mean(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, meant in (("2026q4", "2026-Q4"), ("2026-q4", "2026-Q4"),
                                ("2026Q4", "2026-Q4"), ("2027 q1", "2027-Q1")):
                with self.subTest(name):
                    code, out, err = call_main(publish, [name, "--from", tmp, "--bench", tmp])
                    self.assertEqual((code, out), (2, ""))
                    self.assertIn(f"publish.py: quarter {name!r}: did you mean {meant}?", err)
                    self.assertEqual(len(err.splitlines()), 1, err)
            self.assertEqual(os.listdir(tmp), [])
            # A quarter or a slug as it should be passes the check of its name.
            for name in ("2026-Q4", "demo-2026-12b"):
                code, _, err = call_main(publish, [name, "--check"])
                self.assertEqual((code, err), (0, ""))


class DemoAssistantURL(unittest.TestCase):
    def test_it_prints_its_query_url_as_endpoint_wants_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            port_file = os.path.join(tmp, "port")
            proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "demo-assistant",
                                                                  "server.py"),
                                     "--port-file", port_file, "--quiet"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.addCleanup(lambda: proc.poll() is None and proc.kill())
            first = proc.stderr.readline()
            with open(port_file, encoding="utf-8") as fh:
                port = int(fh.read())
            proc.terminate()
            proc.communicate(timeout=10)
        self.assertIn(f" listening on http://127.0.0.1:{port}/; ", first)
        self.assertTrue(first.endswith(f" ENDPOINT=http://127.0.0.1:{port}/api/query\n"), first)

    def test_the_quarter_steps_name_the_query_url(self):
        with open(os.path.join(ROOT, BENCH, "METHODOLOGY.md"), encoding="utf-8") as fh:
            steps = fh.read().split("## A quarter, step by step\n")[1].split("\n## ")[0]
        first = steps.split("\n1. ")[1].split("\n2. ")[0]
        self.assertIn("`ENDPOINT=http://127.0.0.1:PORT/api/query`", first)
        self.assertIn("`python3 tools/demo-assistant/server.py`", first)


class ReviewsFileSyntax(unittest.TestCase):
    """A reviews file is written by hand: a comma left before ] or }, and
    quotes an editor curled, are named in those words, at their line."""

    ENTRY = '{"id": "mini-en-02", "measure": "correct_facts", "value": true, "reason": "read"}'

    def refusal(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, f"reviews-{QUARTER}.json")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            code, out, err = call_main(score, [MINI_QUESTIONS, MINI_RAW, "--reviews", path])
        self.assertEqual((code, out), (2, ""), err)
        self.assertEqual(len(err.splitlines()), 1, err)
        return err.replace(path, f"reviews-{QUARTER}.json")

    def test_a_comma_before_the_end_of_the_list(self):
        err = self.refusal('{"format": 1, "reviews": [\n  ' + self.ENTRY + ',\n  '
                           + self.ENTRY.replace("02", "04") + ',\n]}\n')
        at = 2 + len(self.ENTRY) + 1
        self.assertEqual(err, f"score.py: reviews-{QUARTER}.json:3:{at}: not valid JSON: a comma "
                              "before ]: JSON allows none (remove it)\n")

    def test_a_comma_before_the_end_of_an_entry(self):
        err = self.refusal('{"format": 1, "reviews": [\n  ' + self.ENTRY[:-1] + ', }\n]}\n')
        self.assertIn(f"reviews-{QUARTER}.json:2:{len(self.ENTRY) + 2}: not valid JSON: a comma "
                      "before }: JSON allows none (remove it)", err)

    def test_curly_quotes_around_a_key_or_a_string(self):
        for curled, column in ((self.ENTRY.replace('"id"', "\u201cid\u201d"), 4),
                               (self.ENTRY.replace('"read"', "\u201cread\u201d"),
                                self.ENTRY.index('"read"') + 3),
                               (self.ENTRY.replace('read"', "read\u201d"),
                                self.ENTRY.index('read"') + 7)):
            with self.subTest(curled):
                err = self.refusal('{"format": 1, "reviews": [\n  ' + curled + "\n]}\n")
                quote = curled[column - 3]
                self.assertEqual(err, f"score.py: reviews-{QUARTER}.json:2:{column}: not valid "
                                      f"JSON: a curly quote {quote}: JSON needs straight \" "
                                      "quotes\n")

    def test_curly_quotes_inside_a_string_are_text(self):
        entry = self.ENTRY.replace('"read"', '"the \u201cfull\u201d price"')
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "reviews.json")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write('{"format": 1, "reviews": [' + entry + "]}")
            self.assertEqual(jsonl.read_json(path)["reviews"][0]["reason"],
                             "the \u201cfull\u201d price")
            # Another mistake on their line keeps the parser's words.
            with open(path, "w", encoding="utf-8") as fh:
                fh.write('{"format": 1, "reviews": [' + entry + " " + entry + "]}")
            with self.assertRaises(BadInput) as caught:
                jsonl.read_json(path)
            self.assertIn("not valid JSON: Expecting ',' delimiter", str(caught.exception))

    def test_a_json_line_gets_the_same_words(self):
        with self.assertRaises(BadInput) as caught:
            jsonl.loads('{"a": [1, 2,]}', "raw.jsonl:7")
        self.assertEqual(str(caught.exception), "raw.jsonl:7: not valid JSON: a comma before ]: "
                                                "JSON allows none (remove it) (line 1, column 12)")


class ReviewSheet(unittest.TestCase):
    def test_it_says_other_failed_measures_may_have_entries_too(self):
        with tempfile.TemporaryDirectory() as tmp:
            sheet = os.path.join(tmp, "sheet.md")
            for rules in ("2026-11-05", "2026-12-02"):
                with self.subTest(rules):
                    code, _, err = call_main(score, [MINI_QUESTIONS, MINI_RAW, "--review-sheet",
                                                     sheet, "--rules-as-of", rules])
                    self.assertEqual(code, 0, err)
                    with open(sheet, encoding="utf-8") as fh:
                        intro = fh.read().split("\n\n")[1]
                    self.assertIn("Each answer comes with one entry, for one measure; any "
                                  "other measure it failed (its Mechanical line lists them all) "
                                  "may get an entry of its own too, with the same id.", intro)


if __name__ == "__main__":
    unittest.main()
