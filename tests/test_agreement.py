"""The rules against a careful human: the labelled agreement set
(Documents/c4-benchmark/agreement/), scored through the real scorer by
agreement.py, whose table (make agreement prints it) is made here too, and
not printed: the test run prints its progress only. Fails below 90% strict agreement or 98% after
review over the whole set, below 80% or 95% on any measure of the first part,
and when the second part's false passes that no person reads grow past their
count today (the aim, 3% of a language's answers, is not reached: the
methodology page lists each of them as a known limit). The figures the README
and the methodology page quote are checked against this run."""

import os
import re
import unittest

from tests.support import ROOT

import agreement  # noqa: E402
from evalkit.rubric.measures import MEASURES  # noqa: E402

STRICT = 0.90          # the whole set
AFTER_REVIEW = 0.98
FIRST_STRICT = 0.80    # each measure of the first part
FIRST_AFTER_REVIEW = 0.95
# The second part's false passes no person reads, per language, under the
# rules and question files of 2026-12-02: a ceiling that holds them from
# growing. The aim is 3% (two answers a language); text rules get this far.
UNREVIEWED_FALSE_PASSES = {"en": 10, "he": 8, "ru": 10}
QUOTED = [os.path.join(ROOT, "README.md"),
          os.path.join(ROOT, "Documents", "c4-benchmark", "METHODOLOGY.md")]


def run():
    answers = agreement.load_answers(os.path.join(agreement.BENCH, "agreement"))
    files = [os.path.join(agreement.BENCH, f"questions-{s}.json") for s in ("med", "biz")]
    scored = agreement.score_answers(answers, files, None)
    return answers, files, scored


class Agreement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.answers, cls.files, cls.scored = run()
        cls.counts, cls.disagreements = agreement.compare(cls.scored)
        cls.table = agreement.render(cls.scored, cls.files, None, False)

    def test_two_parts_in_three_languages(self):
        self.assertGreaterEqual(len(self.answers), 300)
        second = [item for item in self.answers if item["part"] == "second"]
        self.assertGreaterEqual(len(second), 100)
        for lang in agreement.LANGS:
            self.assertGreaterEqual(self.counts[lang, "all"][2], 150, lang)
            self.assertGreaterEqual(sum(item["file"].endswith(f"-{lang}-2.json")
                                        for item in second), 30, lang)

    def test_false_passes_no_person_reads_in_the_second_part(self):
        missed, _answers = agreement.unreviewed_false_passes(self.scored, "second")
        for lang in agreement.LANGS:
            with self.subTest(lang=lang):
                ids = [item["id"] for item in missed.get(lang, [])]
                self.assertLessEqual(len(ids), UNREVIEWED_FALSE_PASSES[lang], ids)

    def test_agreement_overall_and_per_measure(self):
        strict, after, n = self.counts["all", "all"]
        self.assertIn(f"| all | all | {n} | {strict}/{n} ", self.table)  # what agreement.py prints
        self.assertGreaterEqual(strict / n, STRICT, f"strict {strict}/{n}")
        self.assertGreaterEqual(after / n, AFTER_REVIEW, f"after review {after}/{n}")
        first = agreement.compare(self.scored, "first")[0]
        for measure in MEASURES + ("all",):
            strict, after, n = first["all", measure]
            with self.subTest(measure=measure):
                self.assertGreaterEqual(strict / n, FIRST_STRICT, f"strict {strict}/{n}")
                self.assertGreaterEqual(after / n, FIRST_AFTER_REVIEW,
                                        f"after review {after}/{n}")

    def test_every_missed_disagreement_is_a_listed_limit(self):
        # A disagreement no person reads must be one the methodology page
        # names as a known limit of text rules, by the answer's id.
        with open(QUOTED[1], encoding="utf-8") as fh:
            page = fh.read()
        limits = page.split("<!-- agreement limits -->")[1].split("<!-- /agreement limits -->")[0]
        missed = sorted({item["id"] for item, _m, _r, _h, caught in self.disagreements
                         if not caught})
        self.assertEqual(missed, sorted(set(re.findall(r"`((?:en|he|ru)-(?:\d{3}|b\d{2}))`",
                                                       limits))))

    def test_the_quoted_figures_are_this_run(self):
        second = agreement.compare(self.scored, "second")[0]
        missed, answers = agreement.unreviewed_false_passes(self.scored, "second")
        for path in QUOTED:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            for marker, counts in (("agreement", self.counts),
                                   ("agreement second part", second)):
                table = text.split(f"<!-- {marker}: checked against the tests -->")[1] \
                    .split("\n\n")[1]
                for measure in MEASURES + ("all",):
                    strict, after, n = counts["all", measure]
                    with self.subTest(path=os.path.basename(path), table=marker, measure=measure):
                        self.assertIn(f"| {measure} | {n} | {strict}/{n} | {after}/{n} |", table)
            flat = " ".join(text.split())
            for lang, name in (("en", "English"), ("he", "Hebrew"), ("ru", "Russian")):
                quoted = f"{len(missed.get(lang, []))} of {answers[lang]}"
                with self.subTest(path=os.path.basename(path), lang=lang):
                    self.assertTrue(f"{quoted} {name}" in flat or f"{lang} {quoted}" in flat,
                                    quoted)


if __name__ == "__main__":
    unittest.main()
