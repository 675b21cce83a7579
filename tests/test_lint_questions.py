"""lint_questions.py: the current question files have no defect; the files
of the published demo quarter show, under the rules they were scored with,
every data defect an outside reader found (issue 16)."""

import os
import unittest

from tests.support import ROOT, call_main

import lint_questions  # noqa: E402

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
CURRENT = [os.path.join(BENCH, f"questions-{s}.json") for s in ("med", "biz")]
OLD = [os.path.join(BENCH, "demo", f"questions-{s}.json") for s in ("med", "biz")]


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

    def test_a_bad_file_is_one_line_and_exit_2(self):
        code, _, err = call_main(lint_questions, [os.path.join(BENCH, "no-such.json")])
        self.assertEqual(code, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("no-such.json", err)


if __name__ == "__main__":
    unittest.main()
