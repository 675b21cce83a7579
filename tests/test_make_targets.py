"""The make targets a reader reaches a quarter's numbers with (issue 30,
capability 5): make quarters, make compare, and LIMIT and ONLY passed through
to run.py."""

import os
import subprocess
import sys
import unittest

from tests.support import ROOT


def make(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", "--no-print-directory", *args, f"PY={sys.executable}"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


class Targets(unittest.TestCase):
    def test_make_quarters_lists_every_published_quarter(self):
        proc = make("quarters")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = [line for line in proc.stdout.splitlines() if " | " in line]
        self.assertEqual([line.split(" | ")[0] for line in lines],
                         ["demo", "demo-2026-12", "demo-2026-12b"])
        self.assertIn("demo-2026-12b | asked 2026-12-01 | rules of 2026-12-02 | reviewed 100 of "
                      "100 | Documents/c4-benchmark/demo-2026-12b/index.html", lines)

    def test_make_compare_needs_two_runs_and_passes_its_flags(self):
        proc = make("compare")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("make compare: give A=... and B=...", proc.stderr)
        demo = os.path.join("Documents", "c4-benchmark", "demo")
        proc = make("compare", f"A={demo}", f"B={demo}", "COMPARE_FLAGS=--fail-on-change")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("None: every question has the same verdicts in A and B.", proc.stdout)

    def test_limit_and_only_reach_run_py(self):
        proc = make("-n", "run", "QUARTER=trial", "LIMIT=2", "ONLY=med-en-03",
                    "ENDPOINT=http://127.0.0.1:9/api/query")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("--endpoint http://127.0.0.1:9/api/query --limit 2 --only med-en-03",
                      " ".join(proc.stdout.split()))


if __name__ == "__main__":
    unittest.main()
