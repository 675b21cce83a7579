"""lint_questions.py: the current question files have no defect; the files
of the published demo quarter show, under the rules they were scored with,
every data defect an outside reader found (issue 16); the second version
(kept by the demo-2026-12 quarter) shows, under the rules of 2026-12-02, the
defects the third version mends."""

import json
import os
import tempfile
import unittest

from tests.support import ROOT, call_main

import lint_questions  # noqa: E402

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
CURRENT = [os.path.join(BENCH, f"questions-{s}.json") for s in ("med", "biz")]
OLD = [os.path.join(BENCH, "demo", f"questions-{s}.json") for s in ("med", "biz")]
SECOND = [os.path.join(BENCH, "demo-2026-12", f"questions-{s}.json") for s in ("med", "biz")]

# The lint of the second version under the rules of 2026-12-02, line by line
# (the file's path left out); the third version mends every one.
SECOND_DEFECTS = [
    "med-ru-06: not in the evidence: fact group 1 "
    "['7 мин', 'семь мин', 'семи мин', '7-ми мин', '7-и мин']",
    "med-ru-14: uncovered qualifier: 'лет' (year) beside '15': no fact group holds it; "
    "its forms: лет, в год, за год, ежегодн",
    "biz-en-06: uncovered qualifier: 'minute' (minute) beside 'free 30': no fact group holds "
    "it; its forms: minute, minutes, min, mins",
    "biz-he-01: uncovered qualifier: 'לחודש' (month) beside '290': no fact group holds it; "
    "its forms: חודש, חודשים, חודשיים, חודשי, חודשית",
    "biz-he-02: uncovered qualifier: 'לחודש' (month) beside '590': no fact group holds it; "
    "its forms: חודש, חודשים, חודשיים, חודשי, חודשית",
    "biz-he-03: uncovered qualifier: 'חד-פעמי' (one-time) beside '650': no fact group holds "
    "it; its forms: חד-פעמי, חד פעמי, חד-פעמית, חד פעמית, פעם אחת",
    "biz-he-15: uncovered qualifier: 'שעתיים' (hour) beside 'חינם ללקוחות': no fact group "
    "holds it; its forms: שעה, שעות, שעתיים",
    "biz-ru-04: uncovered qualifier: 'месяц' (month) beside '700': no fact group holds it; "
    "its forms: месяц, ежемесячн",
    "biz-ru-06: uncovered qualifier: 'минут' (minute) beside '45': no fact group holds it; "
    "its forms: минут, мин",
    "biz-ru-06: inside a longer word: 'бесплатн' in 'бесплатно' on "
    "http://biz.demo.localhost/demo/office/ru/faq",
    "biz-ru-06: inside a longer word: 'бесплатн' in 'бесплатной' on "
    "http://biz.demo.localhost/demo/office/ru/services",
    "biz-ru-12: not in the evidence: fact group 1 ['30 апр', '30-го апр', '30-е апр', '30.04']",
]


def question_file(folder, questions, set_name="t"):
    """A question file of ``questions`` (answerable ones need only what
    differs from a plain English one) in ``folder``; its path."""
    base = {"lang": "en", "kind": "answerable", "page_url": "http://t.example/en/",
            "source_url": "http://t.example/en/", "also_source_urls": []}
    doc = {"suite": "site-qa", "set": set_name, "format": 1,
           "sites": {"en": {"site_url": "http://t.example/en/", "widget_key": "k"},
                     "he": {"site_url": "http://t.example/he/", "widget_key": "k"},
                     "ru": {"site_url": "http://t.example/ru/", "widget_key": "k"}},
           "questions": [dict(base, id=f"t-{q.get('lang', 'en')}-{n:02d}", **q)
                         for n, q in enumerate(questions, 1)]}
    path = os.path.join(folder, f"questions-{set_name}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, ensure_ascii=False)
    return path


class LintQuestions(unittest.TestCase):
    def test_the_current_files_pass(self):
        code, out, err = call_main(lint_questions, CURRENT)
        self.assertEqual((code, out), (0, ""), err)

    def test_the_old_files_show_their_defects(self):
        code, out, err = call_main(lint_questions, OLD + ["--rules-as-of", "2026-11-05"])
        self.assertEqual(code, 1, err)
        for qid, defect in [
                ("med-en-20", "topic in must_not_include: 'Botox'"),
                ("med-he-16", "topic in must_not_include: 'דיקור סיני'"),
                ("med-ru-16", "topic in must_not_include: 'иглоукалывани'"),
                ("med-he-18", "topic in must_not_include: 'MRI'"),
                ("med-ru-19", "topic in must_not_include: 'стоматолог'"),
                ("med-ru-20", "topic in must_not_include: 'ГИБДД'"),
                ("biz-he-20", "topic in must_not_include: 'המשרד נגיש'"),
                ("med-he-19", "topic in must_not_include: 'רופא שיניים'"),
                ("med-he-20", "topic in must_not_include: 'פסיכולוג'"),
                ("med-en-13", "echo: 'Cigna'"),
                ("med-he-13", "echo: 'ביט'"),
                ("med-he-13", "inside a longer word: 'ביט' in 'ביטוח'"),
                ("biz-he-09", "inside a longer word: 'אבי' in 'אביב'")]:
            with self.subTest(qid=qid, defect=defect):
                self.assertIn(f"{qid}: {defect}", out)
        self.assertIn("defect(s) in 2 file(s), rules as of 2026-11-05", err)

    def test_the_second_version_shows_what_the_third_mends(self):
        code, out, err = call_main(lint_questions, SECOND + ["--rules-as-of", "2026-12-02"])
        self.assertEqual(code, 1, err)
        self.assertEqual([line.split(": ", 1)[1] for line in out.splitlines()], SECOND_DEFECTS)
        self.assertIn("12 defect(s) in 2 file(s), rules as of 2026-12-02", err)
        kinds = [line.split(": ")[1] for line in SECOND_DEFECTS]
        with open(os.path.join(BENCH, "METHODOLOGY.md"), encoding="utf-8") as fh:
            page = " ".join(fh.read().split())
        self.assertIn(f"it lists {len(kinds)} defects ({kinds.count('uncovered qualifier')} "
                      f"uncovered qualifiers, {kinds.count('inside a longer word')} spellings "
                      f"inside a longer word, {kinds.count('not in the evidence')} fact groups "
                      "no longer found in the evidence); on the third, none", page)

    def lint(self, questions):
        with tempfile.TemporaryDirectory() as tmp:
            code, out, err = call_main(lint_questions, [question_file(tmp, questions),
                                                        "--sites", "none"])
        self.assertIn(code, (0, 1), err)
        return [line.split(": ", 2)[2] for line in out.splitlines()]

    def test_uncovered_qualifiers(self):
        defects = self.lint([
            {"question": "how much is it", "evidence": "It costs £85 per month.",
             "facts": [["85", "£85"]]},
            # covered by a group, named by the question, too far away
            {"question": "how much is it", "evidence": "It costs £85 per month.",
             "facts": [["85", "£85"], ["month", "monthly"]]},
            {"question": "what is the monthly fee", "evidence": "It costs £85 per month.",
             "facts": [["85", "£85"]]},
            {"question": "how much is it", "evidence": "£85 for the support in the first year.",
             "facts": [["85", "£85"]]},
            # a day on either side of a time, a unit only after its number
            {"question": "when is the late evening", "evidence": "Until 19:00 on Wednesdays.",
             "facts": [["19:00"]]},
            {"question": "when is the late evening", "evidence": "On Wednesday until 19:00.",
             "facts": [["19:00"]]},
            {"question": "how much is the consultation", "evidence": "An hour costs £50.",
             "facts": [["50", "£50"]]},
            # not across a sentence's end
            {"question": "how much", "evidence": "It costs £50. Minutes are free.",
             "facts": [["50", "£50"]]},
            {"lang": "ru", "question": "сколько стоит", "evidence": "Это стоит 700 ₽ в месяц.",
             "facts": [["700"]]},
            {"lang": "he", "question": "כמה זה עולה", "evidence": "זה עולה 290 ₪ לחודש.",
             "facts": [["290"]]},
        ])
        self.assertEqual(defects, [
            "uncovered qualifier: 'month' (month) beside '85': no fact group holds it; "
            "its forms: month, months, monthly",
            "uncovered qualifier: 'wednesdays' (wednesday) beside '19:00': no fact group holds "
            "it; its forms: wednesday, wednesdays",
            "uncovered qualifier: 'wednesday' (wednesday) beside '19:00': no fact group holds "
            "it; its forms: wednesday, wednesdays",
            "uncovered qualifier: 'месяц' (month) beside '700': no fact group holds it; "
            "its forms: месяц, ежемесячн",
            "uncovered qualifier: 'לחודש' (month) beside '290': no fact group holds it; "
            "its forms: חודש, חודשים, חודשיים, חודשי, חודשית",
        ])

    def test_a_longer_word_on_the_site(self):
        site_question = {"lang": "ru", "question": "первая консультация платная?",
                         "page_url": "http://biz.demo.localhost/demo/office/ru/services/",
                         "source_url": "http://biz.demo.localhost/demo/office/ru/",
                         "evidence": "Первая консультация бесплатная и длится до 45 минут.",
                         "facts": [["бесплатн"], ["45 минут"]]}
        with tempfile.TemporaryDirectory() as tmp:
            path = question_file(tmp, [site_question], "biz")
            _, out, _ = call_main(lint_questions, [path])
            self.assertEqual([line.split(": ", 2)[2] for line in out.splitlines()], [
                "inside a longer word: 'бесплатн' in 'бесплатно' on "
                "http://biz.demo.localhost/demo/office/ru/faq",
                "inside a longer word: 'бесплатн' in 'бесплатной' on "
                "http://biz.demo.localhost/demo/office/ru/services"])
            # A form the writer lists as a spelling is the writer's judgement.
            listed = dict(site_question, facts=[["бесплатн", "бесплатно", "бесплатной"],
                                                ["45 минут"]])
            path = question_file(tmp, [listed], "biz")
            self.assertEqual(call_main(lint_questions, [path])[:2], (0, ""))

    def test_a_bad_file_is_one_line_and_exit_2(self):
        code, _, err = call_main(lint_questions, [os.path.join(BENCH, "no-such.json")])
        self.assertEqual(code, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("no-such.json", err)


if __name__ == "__main__":
    unittest.main()
