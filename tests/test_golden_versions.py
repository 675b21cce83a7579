"""One VERSION always writes the same results: the golden files are those
recorded for the tools' VERSION in tests/golden/versions.json, so a change of
a rule or of an output format that moves a golden file fails here until
VERSION is bumped and the new sums are recorded (``make golden``)."""

import hashlib
import os
import tempfile
import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from tests.golden import record
from tests.support import FIXTURES, call_main

import score  # noqa: E402
from evalkit import VERSION  # noqa: E402


class GoldenVersions(unittest.TestCase):
    def test_the_goldens_are_those_of_this_version(self):
        versions = record.recorded()
        self.assertIn(VERSION, versions, "no sums recorded for this VERSION: run make golden")
        self.assertEqual(record.sums(), {n: versions[VERSION][n] for n in record.NUMBERS},
                         "a golden file of numbers changed while VERSION did not: bump "
                         "VERSION in evalkit/__init__.py and run make golden")

    def test_the_fixtures_score_to_the_golden_files(self):
        # Today's scorer writes the golden numbers and pages byte for byte
        # (the pages are a presentation, recorded by make golden without a
        # new VERSION: tests/golden/record.py).
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = call_main(score, [
                os.path.join(FIXTURES, "questions-mini.json"),
                os.path.join(FIXTURES, "raw-mini.jsonl"),
                "--reviews", os.path.join(FIXTURES, "reviews-mini.json"),
                "--out", os.path.join(tmp, "mini-results.md"),
                "--json", os.path.join(tmp, "mini-results.json"),
                "--html", os.path.join(tmp, "index.html")])
            self.assertEqual(code, 0, err)
            for name in record.FILES:
                fresh = name if name.startswith("mini-results") else name[len("mini-"):]
                with open(os.path.join(tmp, fresh), "rb") as fh, \
                        open(os.path.join(record.GOLDEN, name), "rb") as golden:
                    self.assertEqual(fh.read(), golden.read(),
                                     f"{name} differs from today's output: run make golden "
                                     "and read the diff")

    def test_older_rules_still_write_what_their_version_wrote(self):
        # Scored under the rules of 2026-11-05, the fixtures give byte for byte
        # the numbers 0.2.0 wrote (results.md, results.json): a quarter
        # published then re-scores identically. Its pages are today's three,
        # a presentation of results.json checked by what they show
        # (tests/test_publish.py), never by their bytes.
        numbers = ("mini-results.md", "mini-results.json")
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = call_main(score, [
                os.path.join(FIXTURES, "questions-mini.json"),
                os.path.join(FIXTURES, "raw-mini.jsonl"),
                "--reviews", os.path.join(FIXTURES, "reviews-mini.json"),
                "--rules-as-of", "2026-11-05",
                "--out", os.path.join(tmp, numbers[0]), "--json", os.path.join(tmp, numbers[1]),
                "--html", os.path.join(tmp, "mini-index.html")])
            self.assertEqual(code, 0, err)
            self.assertEqual(sorted(os.listdir(tmp)), sorted(record.FILES))
            sums = {}
            for name in numbers:
                with open(os.path.join(tmp, name), "rb") as fh:
                    sums[name] = hashlib.sha256(fh.read()).hexdigest()
        self.assertEqual(sums, {name: record.recorded()["0.2.0"][name] for name in numbers})

    def test_earlier_versions_stay_recorded(self):
        versions = record.recorded()
        self.assertIn("0.1.0", versions)
        for version, sums in versions.items():
            self.assertEqual(sorted(sums), sorted(record.files_of(version)), version)
        self.assertLessEqual(set(record.NUMBERS), set(versions[VERSION]))

    def test_html_writes_every_language_beside_the_english_page(self):
        # score.py --html FILE: the English page at FILE, the others beside it
        # with the language before the extension.
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = call_main(score, [
                os.path.join(FIXTURES, "questions-mini.json"),
                os.path.join(FIXTURES, "raw-mini.jsonl"),
                "--html", os.path.join(tmp, "mini-index.html")])
            self.assertEqual(code, 0, err)
            self.assertEqual(sorted(os.listdir(tmp)),
                             ["mini-index.he.html", "mini-index.html", "mini-index.ru.html"])
            with open(os.path.join(tmp, "mini-index.he.html"), encoding="utf-8") as fh:
                self.assertIn('<a href="mini-index.ru.html" hreflang="ru"', fh.read())


if __name__ == "__main__":
    unittest.main()
