"""The make targets a reader reaches a quarter's numbers with (issue 30,
capability 5, and issue 40): make quarters, make compare, LIMIT and ONLY
passed through to run.py, and a whole quarter as an operator makes it on
their second day: a LIMIT trial, the full run, score before and after the
review, publish and reproduce. Each holds for any set of published quarters:
the ones checked are built in a folder of the test's own (BENCH= and WORK=
on the make line), and the repository's own are only counted."""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

from tests import support
from tests.support import FIXTURES, ROOT, TempDirCase

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
SETS = ("biz", "med")


def make(*args, cwd=ROOT):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL")}
    env.pop("BENCH_ENDPOINT", None)
    return subprocess.run(["make", "--no-print-directory", "-f", os.path.join(ROOT, "Makefile"),
                           *args, f"PY={sys.executable}"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


class Targets(unittest.TestCase):
    def test_make_quarters_lists_every_published_quarter_whatever_they_are(self):
        proc = make("quarters")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = [line for line in proc.stdout.splitlines() if " | " in line]
        self.assertEqual([line.split(" | ")[0] for line in lines], support.published_quarters(BENCH))
        for line in lines:
            self.assertRegex(line, r"^\S+ \| asked [0-9-]{10}(, [0-9-]{10})* \| rules of "
                                   r"[0-9-]{10} \| reviewed \d+ of \d+ \| \S+index\.html$")
        self.assertIn(f"{len(lines)} published quarter(s) in Documents/c4-benchmark", proc.stderr)

    def test_make_compare_needs_two_runs_and_passes_its_flags(self):
        proc = make("compare")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("make compare: give A=... and B=...", proc.stderr)
        raw = os.path.join(FIXTURES, "raw-mini.jsonl")
        questions = os.path.join(FIXTURES, "questions-mini.json")
        proc = make("compare", f"A={raw}", f"B={raw}",
                    f"COMPARE_FLAGS=--fail-on-change --questions {questions}")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("None: every question has the same verdicts in A and B.", proc.stdout)

    def test_limit_and_only_reach_run_py(self):
        proc = make("-n", "run", "QUARTER=trial", "LIMIT=2", "ONLY=med-en-03",
                    "ENDPOINT=http://127.0.0.1:9/api/query")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("--endpoint http://127.0.0.1:9/api/query --limit 2 --only med-en-03",
                      " ".join(proc.stdout.split()))


class SecondDay(TempDirCase):
    """An operator's quarter in a benchmark folder of the test's own: a
    trial of five questions a set, then the whole run, which asks only the
    rest; make score's next step before and after the review; publish;
    reproduce. (No repository file is written: BENCH= and WORK= point here.)"""

    def setUp(self):
        super().setUp()
        self.bench = self.path("bench")
        os.makedirs(self.bench)
        for name in SETS:
            shutil.copy(os.path.join(BENCH, f"questions-{name}.json"), self.bench)
        self.work = self.path("work")
        self.widget = support.WidgetServer()
        self.widget.__enter__()
        self.addCleanup(self.widget.__exit__)

    def make(self, *args):
        return make(*args, "QUARTER=op-trial", f"BENCH={self.bench}", f"WORK={self.work}",
                    f"ENDPOINT={self.widget.url}")

    def lines(self):
        return {name: support.read_lines(os.path.join(self.work, f"raw-{name}.jsonl"))
                for name in SETS}

    def questions(self):
        """The questions the widget was asked (the endpoint check's greeting aside)."""
        return [r["body"]["question"] for r in self.widget.requests
                if r["body"]["question"] != "Hello"]

    def test_a_trial_then_the_run_then_review_publish_reproduce(self):
        proc = self.make("run", "LIMIT=5")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("make run: a trial (LIMIT=5): QUARTER=op-trial is not marked as run; "
                      "make run QUARTER=op-trial asks the rest", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "run.done")))
        self.assertEqual({name: len(lines) for name, lines in self.lines().items()},
                         {"biz": 5, "med": 5})
        # The trial scores, and says what it did not ask.
        proc = self.make("score")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("## Not asked (counted as not delivered)", proc.stdout)
        self.assertIn("make score: 110 of 120 questions were not asked (a trial, LIMIT or ONLY, "
                      "or an interrupted run), and count as not delivered: make run "
                      "QUARTER=op-trial asks them", proc.stderr)
        # Not published from a trial.
        proc = self.make("publish")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("was not run in full", proc.stderr)
        self.assertEqual(support.published_quarters(self.bench), [])
        # The whole run asks only what the trial did not.
        proc = self.make("run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        asked = self.questions()
        self.assertEqual((len(asked), len(set(asked))), (120, 120))
        lines = self.lines()
        self.assertEqual({name: len({line["id"] for line in lines[name]}) for name in SETS},
                         {"biz": 60, "med": 60})
        self.assertEqual(self.make("run").stdout.strip(), "make: Nothing to be done for 'run'.")
        # Score: the reviews are what comes next; once written, publish is.
        proc = self.make("score")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        before = proc.stderr.splitlines()[-1]
        self.assertRegex(before, r"^make score: (\d+) of \1 answers the rubric requires a "
                                 r"person to read and (\d+) of \2 sampled answers have no "
                                 r"review entry: ")
        self.fill_reviews()
        proc = self.make("score")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        after = proc.stderr.splitlines()[-1]
        self.assertTrue(after.startswith("make score: the review is complete: every answer the "
                                         "rubric requires a person to read ("), after)
        self.assertIn("make publish QUARTER=op-trial publishes them", after)
        proc = self.make("publish")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(support.published_quarters(self.bench), ["op-trial"])
        proc = self.make("reproduce")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def fill_reviews(self):
        """The reviewer's step: every entry of the sheet, the mechanical verdict kept."""
        with open(os.path.join(self.work, "review-sheet.md"), encoding="utf-8") as fh:
            sheet = fh.read()
        target = re.search(r"write your verdicts into `([^`]+)`", sheet).group(1)
        pasted = sheet.split("```json\n")[1].split("```")[0]
        self.assertEqual(target, os.path.join(self.work, "reviews-op-trial.json"))
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(pasted.replace('"reason": "TODO"',
                                    json.dumps({"reason": "read; the verdict stands"})[1:-1]))


if __name__ == "__main__":
    unittest.main()
