"""results.csv (issue 40): it held verdicts only, one row per question and
measure; a reader of the spreadsheet could not see the question, the answer,
its sources or its latency. Now one row per question holds them and both
verdicts of every measure with the review's reason (evalkit/pages/
csvexport.py); an answer that a spreadsheet would run as a formula is written
as text. A quarter published with the first layout is still checked in it:
reproduce.py holds results.csv to what it says, not to its bytes."""

import copy
import csv
import hashlib
import io
import json
import os
import unittest

from tests.support import FIXTURES

from evalkit.pages import csvexport  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.rubric.measures import APPLIES, MEASURES  # noqa: E402

# results.csv of the mini fixture as tools 0.7.0 wrote it (the first layout),
# computed with that version's csvexport.render_csv.
PER_MEASURE_SHA256 = "1fc7159298888474818f7257663260216a9f8e6545f737e86a368bf07c03f95f"


def mini_result():
    return siteqa.score([os.path.join(FIXTURES, "questions-mini.json")],
                        [os.path.join(FIXTURES, "raw-mini.jsonl")],
                        os.path.join(FIXTURES, "reviews-mini.json"))


def read(text):
    return list(csv.DictReader(io.StringIO(text)))


def written(rows):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


class OneRowAQuestion(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.result = mini_result()
        cls.rows = read(csvexport.render_csv(cls.result))

    def test_what_was_asked_what_came_back_and_both_verdicts(self):
        self.assertEqual([row["id"] for row in self.rows],
                         [q["id"] for q in self.result["questions"]])
        faulty = {f["id"]: f["reason"] for f in self.result["faulty"]}
        for row, q in zip(self.rows, self.result["questions"]):
            with self.subTest(q["id"]):
                self.assertEqual((row["set"], row["lang"], row["kind"], row["question"]),
                                 (q["set"], q["lang"], q["kind"], q["question"]))
                self.assertEqual(row["answer"], q["answer"] or "")
                self.assertEqual(row["problem"], q["problem"] or "")
                self.assertEqual(json.loads(row["sources"]), q["sources"])
                self.assertEqual(row["latency_ms"], "" if q["latency_ms"] is None
                                 else str(q["latency_ms"]))
                self.assertEqual((row["faulty"], row["faulty_reason"]),
                                 ("true" if q["faulty"] else "false", faulty.get(q["id"], "")))
                reasons = {r["measure"]: r["reason"] for r in q["reviews"]}
                for m in MEASURES:
                    for part in ("mechanical", "after_review"):
                        want = {True: "true", False: "false", None: ""}[q[part][m]]
                        self.assertEqual(row[f"{m}_{part}"], want)
                        if m not in APPLIES[q["kind"]]:
                            self.assertEqual(want, "")
                    self.assertEqual(row[f"{m}_reason"], reasons.get(m, ""))

    def test_the_fixture_has_each_kind_of_row(self):
        # What the test above reads: a review that changed a verdict, a
        # faulty question, a question with no answer and one not asked.
        changed = [(q["id"], m) for q in self.result["questions"] for m in MEASURES
                   if q["mechanical"][m] is not None and q["after_review"][m] is not None
                   and q["mechanical"][m] != q["after_review"][m]]
        self.assertTrue(changed)
        qid, m = changed[0]
        row = next(r for r in self.rows if r["id"] == qid)
        self.assertNotEqual(row[f"{m}_mechanical"], row[f"{m}_after_review"])
        self.assertTrue(row[f"{m}_reason"])
        self.assertIn("not asked", [row["problem"] for row in self.rows])
        self.assertIn("HTTP 500", [row["problem"] for row in self.rows])
        self.assertTrue(any(row["faulty_reason"] for row in self.rows))

    def test_a_cell_a_spreadsheet_would_run_is_written_as_text(self):
        result = copy.deepcopy(self.result)
        q = result["questions"][0]
        q["answer"] = '=HYPERLINK("http://evil.example","click")'
        q["question"] = "+1 how much?"
        q["sources"] = ["@SUM(A1)"]
        q["reviews"] = [{"measure": "delivered", "value": True, "reason": "-read"}]
        result["faulty"] = [{"id": q["id"], "reason": "'quoted already"}]
        (row,) = read(csvexport.render_csv(result))[:1]
        self.assertEqual(row["answer"], "'" + q["answer"])
        self.assertEqual(row["question"], "'+1 how much?")
        self.assertEqual(row["sources"], '["@SUM(A1)"]')     # starts with [
        self.assertEqual(row["delivered_reason"], "'-read")
        self.assertEqual(row["faulty_reason"], "''quoted already")
        self.assertEqual(csvexport.problems(csvexport.render_csv(result), result), ([], len(
            result["questions"]) * len(csvexport.COLUMNS)))


class HeldToTheResults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.result = mini_result()

    def test_a_written_file_says_what_the_results_say(self):
        text = csvexport.render_csv(self.result)
        self.assertEqual(csvexport.problems(text, self.result),
                         ([], len(self.result["questions"]) * len(csvexport.COLUMNS)))

    def test_each_cell_that_differs_is_named(self):
        rows = csvexport.rows(self.result)
        column = rows[0].index("correct_facts_after_review")
        row = next(r for r in rows[1:] if r[column] == "true")
        row[column] = "false"
        rows[2][rows[0].index("answer")] = "another answer"
        rows.pop()
        found, _ = csvexport.problems(written(rows), self.result)
        self.assertCountEqual(found, [
            f'{rows[2][0]} answer: says "another answer"; the results give '
            f'{json.dumps(self.result["questions"][1]["answer"][:60] + "…", ensure_ascii=False)}',
            f'{row[0]} correct_facts_after_review: says "false"; the results give "true"',
            f"{self.result['questions'][-1]['id']}: missing",
            f"{len(rows) - 1} rows; the results give {len(rows)}"])

    def test_the_first_layout_is_still_checked(self):
        # A quarter published with tools 0.7.0 holds this file: it still
        # reproduces, and a verdict turned in it is still found.
        text = written(csvexport.rows_per_measure(self.result))
        self.assertEqual(hashlib.sha256(text.encode("utf-8")).hexdigest(), PER_MEASURE_SHA256)
        cells = len(csvexport.rows_per_measure(self.result)) - 1
        self.assertEqual(csvexport.problems(text, self.result), ([], cells * 9))
        turned = text.replace(",true,true,", ",true,false,", 1)
        found, _ = csvexport.problems(turned, self.result)
        self.assertEqual(len(found), 1, found)
        self.assertRegex(found[0], r"^\S+ \S+ after_review: says \"false\"; the results give "
                                   r"\"true\"$")

    def test_a_file_that_is_not_results_csv(self):
        self.assertEqual(csvexport.problems("id,set\nx,y\n", self.result)[0],
                         [f"the header is not {','.join(csvexport.COLUMNS)}"])
        self.assertEqual(csvexport.problems("", self.result)[0],
                         [f"the header is not {','.join(csvexport.COLUMNS)}"])


if __name__ == "__main__":
    unittest.main()
