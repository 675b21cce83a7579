"""The rules against a careful human: the labelled agreement set
(Documents/c4-benchmark/agreement/), scored through the real scorer by
agreement.py. Prints the table; fails below 80% strict agreement or 95%
after review, overall and for each measure. The figures the README and the
methodology page quote are checked against this run."""

import os
import re
import unittest

from tests.support import ROOT

import agreement  # noqa: E402
from evalkit.measures import MEASURES  # noqa: E402

STRICT = 0.80
AFTER_REVIEW = 0.95
QUOTED = [os.path.join(ROOT, "README.md"),
          os.path.join(ROOT, "Documents", "c4-benchmark", "METHODOLOGY.md")]


def run():
    answers = agreement.load_answers(os.path.join(agreement.BENCH, "agreement"))
    files = [os.path.join(agreement.BENCH, f"questions-{s}.json") for s in ("med", "biz")]
    counts, disagreements = agreement.compare(agreement.score_answers(answers, files, None))
    return answers, files, counts, disagreements


class Agreement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.answers, cls.files, cls.counts, cls.disagreements = run()
        print("\n" + agreement.render(cls.counts, cls.disagreements, cls.answers, cls.files,
                                      None, False))

    def test_two_hundred_answers_in_three_languages(self):
        self.assertGreaterEqual(len(self.answers), 200)
        for lang in agreement.LANGS:
            self.assertGreaterEqual(self.counts[lang, "all"][2], 150, lang)

    def test_agreement_overall_and_per_measure(self):
        for measure in MEASURES + ("all",):
            strict, after, n = self.counts["all", measure]
            with self.subTest(measure=measure):
                self.assertGreaterEqual(strict / n, STRICT, f"strict {strict}/{n}")
                self.assertGreaterEqual(after / n, AFTER_REVIEW, f"after review {after}/{n}")

    def test_every_missed_disagreement_is_a_listed_limit(self):
        # A disagreement no person reads must be one the methodology page
        # names as a known limit of text rules, by the answer's id.
        with open(QUOTED[1], encoding="utf-8") as fh:
            page = fh.read()
        limits = page.split("<!-- agreement limits -->")[1].split("<!-- /agreement limits -->")[0]
        missed = sorted({item["id"] for item, _m, _r, _h, caught in self.disagreements
                         if not caught})
        self.assertEqual(missed, sorted(set(re.findall(r"`((?:en|he|ru)-\d{3})`", limits))))

    def test_the_quoted_figures_are_this_run(self):
        for path in QUOTED:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            table = text.split("<!-- agreement: checked against the tests -->")[1].split("\n\n")[1]
            for measure in MEASURES + ("all",):
                strict, after, n = self.counts["all", measure]
                with self.subTest(path=os.path.basename(path), measure=measure):
                    self.assertIn(f"| {measure} | {n} | {strict}/{n} | {after}/{n} |", table)


if __name__ == "__main__":
    unittest.main()
