"""What a published site-qa figure says of its run and its inputs (rules of
2026-12-03, issue "a published figure binds everything that made it"):

- a run asked from this machine or a private network is a local run, as the
  scenario and intake suites say; the rules before keep their label;
- publish.py reads a quarter's input names by the one definition reproduce.py
  reads them by (evalkit/rubric/quarter.py INPUTS): a raw file it would
  publish under a name the manifest checker refuses is refused first.
"""

import os
import shutil
import unittest

from tests.support import TempDirCase, call_main
from tests.siteqa_runs import big_set, read_lines, write_lines

import publish  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402


class LocalRuns(TempDirCase):
    def status(self, url, rules=None):
        qpath, raw = big_set(self.tmp, 2, "run", name="two")
        lines = read_lines(raw)
        for line in lines:
            line["target"]["url"] = url
        write_lines(raw, lines)
        return siteqa.score([qpath], [raw], rules_date=rules)["provenance"]["run"]["status"]

    def test_a_run_asked_from_loopback_or_a_private_address_is_local(self):
        for url in ("http://127.0.0.1:8080/api/query", "http://localhost/api",
                    "http://10.1.2.3/api", "http://[::1]:9/api"):
            self.assertEqual(self.status(url), "recorded_local_run", url)
        self.assertEqual(self.status("https://assistant.example/api/query"), "recorded_live_run")
        self.assertEqual(self.status("http://127.0.0.1:8080/api/query", "2026-12-02.3"),
                         "recorded_live_run")


class QuarterInputs(TempDirCase):
    def test_publish_refuses_a_raw_file_reproduce_would_refuse(self):
        qpath, raw = big_set(self.tmp, 2, "run", name="two")
        bench = self.path("bench")
        os.mkdir(bench)
        shutil.copyfile(qpath, os.path.join(bench, "questions-two.json"))
        for bad in ("raw-two_v2.jsonl", "raw-Two.jsonl"):
            work = self.path("work-" + bad)
            os.mkdir(work)
            shutil.copyfile(raw, os.path.join(work, bad))
            # Unreviewed on purpose: the name is refused before anything is scored.
            code, _out, err = call_main(publish, ["trial", "--from", work, "--bench", bench,
                                                  "--allow-unreviewed"])
            self.assertEqual(code, 2, err)
            self.assertIn("raw-SET.jsonl", err)
            self.assertEqual(len(err.strip().splitlines()), 1)
            self.assertFalse(os.path.exists(os.path.join(bench, "trial")))



if __name__ == "__main__":
    unittest.main()
