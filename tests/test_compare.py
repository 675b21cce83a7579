"""compare.py: the exact McNemar p-value of a hand-computed case, the
verdicts, and the refusal of mismatched question sets."""

import hashlib
import json
import os
import tempfile
import unittest

from tests import support
from tests.support import ROOT, call_main

import compare  # noqa: E402
import publish  # noqa: E402
from evalkit.stats import mcnemar_exact  # noqa: E402

# An example input: its absence skips the tests that read it.
DEMO, NEEDS_DEMO = support.example_quarter("demo")


def raw_line(qid, sha, answer):
    body = json.dumps({"answer": answer, "sources": [], "grounded": True})
    return {"format": 1, "id": qid, "run": {"run_id": "worked-example", "tool": "worked-example",
                                            "cases_sha256": sha, "cases_file": "questions-cmp.json"},
            "target": {"kind": "widget", "url": "http://127.0.0.1:1/",
                       "response": {"answer": "answer", "sources": "sources",
                                    "source_url": "url", "grounded": "grounded"}},
            "attempts": [{"started_at": "2026-11-20T10:00:00.000Z", "status": 200,
                          "error": None, "latency_ms": 10}],
            "response": {"status": 200, "body": body, "body_base64": None, "bytes": len(body),
                         "truncated": False, "headers": {}}}


class Compare(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.write_questions(12)

    def write_questions(self, count):
        """A question file of ``count`` answerable English questions, each
        with one fact: ``cmp-en-00``, answered right by ``It is fact0.``"""
        self.count = count
        questions = {"suite": "site-qa", "set": "cmp", "format": 1,
                     "sites": {"en": {"site_url": "http://x/", "widget_key": "k"}},
                     "questions": [{"id": f"cmp-en-{i:02d}", "lang": "en", "kind": "answerable",
                                    "question": f"question {i}?", "page_url": "http://x/",
                                    "source_url": "http://x/p/", "also_source_urls": [],
                                    "evidence": f"The answer is fact{i}.",
                                    "facts": [[f"fact{i}"]]} for i in range(count)]}
        self.questions = support.write_json(os.path.join(self.tmp, "questions-cmp.json"), questions)
        with open(self.questions, "rb") as fh:
            self.sha = hashlib.sha256(fh.read()).hexdigest()

    def raw(self, name, correct):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as fh:
            for i in range(self.count):
                answer = f"It is fact{i}." if i in correct else "I am not sure."
                fh.write(json.dumps(raw_line(f"cmp-en-{i:02d}", self.sha, answer)) + "\n")
        return path

    def test_hand_computed_mcnemar(self):
        # A right on 0-4; B right on 1-10. Both: 1-4 (4). Only A: 0 (1). Only B: 5-10 (6).
        # Neither: 11 (1). p = 2 * (C(7,0) + C(7,1)) / 2^7 = 16/128 = 0.125: within noise.
        a = self.raw("a.jsonl", set(range(0, 5)))
        b = self.raw("b.jsonl", set(range(1, 11)))
        code, out, err = call_main(compare, [a, b, "--questions", self.questions])
        self.assertEqual((code, err), (0, ""))
        self.assertIn("| cmp | en | Correct facts | 5/12 | 10/12 | 4 | 1 | 6 | 1 | 0.1250 | within noise |",
                      out)

    def test_a_real_change(self):
        # Only B: 7, only A: 0 -> p = 2 / 128 = 0.015625 < 0.05: changed.
        a = self.raw("a.jsonl", set())
        b = self.raw("b.jsonl", set(range(7)))
        code, out, _ = call_main(compare, [a, b, "--questions", self.questions])
        self.assertEqual(code, 0)
        self.assertIn("| cmp | en | Correct facts | 0/12 | 7/12 | 0 | 0 | 7 | 5 | 0.0156 | changed |", out)

    def test_the_questions_that_flipped_with_both_answers(self):
        # A right on 0-4, B on 1-10: 00 passed in A only, 05-10 in B only.
        a = self.raw("a.jsonl", set(range(0, 5)))
        b = self.raw("b.jsonl", set(range(1, 11)))
        out = call_main(compare, [a, b, "--questions", self.questions])[1]
        flips = out[out.index("## Which questions changed"):]
        self.assertIn("Correct facts, passed in A only (1):\n- cmp-en-00\n"
                      "    A: It is fact0.\n    B: I am not sure.\n", flips)
        self.assertIn("Correct facts, passed in B only (6):\n- cmp-en-05\n"
                      "    A: I am not sure.\n    B: It is fact5.\n", flips)
        self.assertEqual(flips.count("\n- cmp-en-"), 7)  # no other measure flipped
        self.assertNotIn("cmp-en-01", flips)   # passed in both
        self.assertNotIn("cmp-en-11", flips)   # failed in both

    def test_fail_on_change_both_ways(self):
        a = self.raw("a.jsonl", set())
        changed = self.raw("b.jsonl", set(range(7)))       # p = 0.0156: changed
        noise = self.raw("c.jsonl", set(range(2)))         # p = 0.5: within noise
        code, out, err = call_main(compare, [a, changed, "--questions", self.questions,
                                             "--fail-on-change"])
        self.assertEqual(code, 1)
        self.assertIn("| changed |", out)   # the table is printed all the same
        # The row of cmp/en and that of the set's total, cmp/all.
        self.assertEqual(err, "compare.py: 2 row(s) of the table changed beyond noise (first: "
                              "cmp en Correct facts, p = 0.0156)\n")
        code, out, err = call_main(compare, [a, noise, "--questions", self.questions,
                                             "--fail-on-change"])
        self.assertEqual((code, err), (0, ""))
        self.assertIn("passed in B only (2)", out)
        # Without the flag a change is reported, not failed.
        self.assertEqual(call_main(compare, [a, changed, "--questions", self.questions])[0], 0)

    def test_a_verdict_a_review_changed_is_said_to_be_the_reviews(self):
        # The same answers, published with a review that overturns one
        # verdict (A), and as raw answers scored mechanically (B).
        raw = self.raw("raw-cmp.jsonl", set(range(6)))
        bench, work = os.path.join(self.tmp, "bench"), os.path.join(self.tmp, "work")
        os.makedirs(work)
        os.makedirs(bench)
        os.replace(raw, os.path.join(work, "raw-cmp.jsonl"))
        os.replace(self.questions, os.path.join(bench, "questions-cmp.json"))
        support.write_json(os.path.join(work, "reviews-cmp-q.json"), {"format": 1, "reviews": [
            {"id": "cmp-en-09", "measure": "correct_facts", "value": True,
             "reason": "states fact9 in other words"}]})
        code, _, err = call_main(publish, ["cmp-q", "--from", work, "--bench", bench,
                                           "--allow-unreviewed"])
        self.assertEqual(code, 0, err)
        code, out, err = call_main(compare, [os.path.join(bench, "cmp-q"),
                                             os.path.join(bench, "cmp-q", "raw-cmp.jsonl"),
                                             "--bench", bench])
        self.assertEqual(code, 0, err)
        flips = out[out.index("## Which questions changed"):]
        self.assertIn("1 of these verdicts changed by a review alone, not by a new answer (each "
                      "marked so).\n\nCorrect facts, passed in A only (1):\n- cmp-en-09 (set by "
                      "review in A; the mechanical verdicts of A and B are the same: a review "
                      "changed it, not a new answer)\n    A: I am not sure.\n", flips)
        self.assertEqual(flips.count("\n- cmp-en-"), 1)

    @NEEDS_DEMO
    def test_mismatched_question_sets_are_refused(self):
        # The raw file is scored against the question file it answered, the
        # demo's own copy: the current one is a later version.
        demo = DEMO
        code, _, err = call_main(compare, [
            demo, os.path.join(demo, "raw-med.jsonl"),
            "--questions", os.path.join(demo, "questions-med.json")])
        self.assertEqual(code, 2)
        self.assertIn("different question files", err)
        self.assertEqual(len(err.splitlines()), 1)

    @NEEDS_DEMO
    def test_the_demo_against_itself_is_within_noise(self):
        demo = DEMO
        code, out, _ = call_main(compare, [demo, demo])
        self.assertEqual(code, 0)
        self.assertNotIn("| changed |", out)
        self.assertIn("| all | all | Correct facts | 23/90 | 23/90 | 23 | 0 | 0 | 67 | 1.0000 | within noise |", out)
        self.assertTrue(out.endswith("## Which questions changed\n\n"
                                     "None: every question has the same verdicts in A and B.\n"))

    @NEEDS_DEMO
    def test_groups_in_the_results_tables_order(self):
        demo = DEMO
        out = call_main(compare, [demo, demo])[1]
        groups = list(dict.fromkeys(tuple(line.split(" | ")[:2]) for line in out.splitlines()
                                    if line.startswith("| ") and "Delivered" in line))
        with open(os.path.join(demo, "results.md"), encoding="utf-8") as fh:
            table = [tuple(line.split(" | ")[:2]) for line in fh if line.startswith("| ")
                     and not line.startswith("| Set")]
        self.assertEqual(groups, table)
        self.assertEqual(groups[:4], [("| biz", "en"), ("| biz", "he"), ("| biz", "ru"),
                                      ("| biz", "all")])

    def test_one_set_has_no_total_of_all_sets(self):
        out = call_main(compare, [self.raw("a.jsonl", {0}), self.raw("b.jsonl", {0}),
                                  "--questions", self.questions])[1]
        self.assertIn("| cmp | en |", out)
        self.assertIn("| cmp | all |", out)
        self.assertNotIn("| all | all |", out)


def fewest(n, against=0, alpha=0.05):
    """The fewest of ``n`` paired questions that must move one way, with
    ``against`` moving the other, for the exact test compare.py applies to
    call the change significant; None when no count of ``n`` can."""
    return next((k for k in range(1, n - against + 1) if mcnemar_exact(k, against) < alpha), None)


class WhatADifferenceCanMean(unittest.TestCase):
    """The methodology page's table of the smallest change compare.py could
    call, recomputed from the current question files, and its thresholds
    met by compare.py itself, on runs of 15 questions."""

    def test_the_table_on_the_page(self):
        bench = os.path.join(ROOT, "Documents", "c4-benchmark")
        counts = {}
        for name in ("med", "biz"):
            with open(os.path.join(bench, f"questions-{name}.json"), encoding="utf-8") as fh:
                for q in json.load(fh)["questions"]:
                    key = (name, q["lang"], q["kind"])
                    counts[key] = counts.get(key, 0) + 1
        per_language = {(counts[s, l, "answerable"], counts[s, l, "not_on_site"])
                        for s in ("med", "biz") for l in ("en", "he", "ru")}
        self.assertEqual(per_language, {(15, 5)})   # every set and language alike

        def cell(n):
            k = fewest(n)
            return f"none of {n} can" if k is None else f"{k} of {n} ({100 * k / n:.1f} points)"
        rows = ["| group | Correct facts, Right page cited | Declined when not on the site | "
                "Delivered, Answer in the question's language |", "|---|---|---|---|"]
        for group, answerable, not_on_site in (("one set, one language", 15, 5),
                                               ("one set, three languages", 45, 15),
                                               ("both sets", 90, 30)):
            rows.append(f"| {group} | {cell(answerable)} | {cell(not_on_site)} | "
                        f"{cell(answerable + not_on_site)} |")
        with open(os.path.join(bench, "METHODOLOGY.md"), encoding="utf-8") as fh:
            page = fh.read()
        block = page.split("<!-- detectable: checked against the tests -->\n")[1].split("\n\n")[0]
        self.assertEqual(block.splitlines(), rows)
        self.assertIn("at least 6 questions move one way and none the other (p =\n2/64); "
                      "when 2 move back, 10 must move", page)

    def test_compare_calls_a_change_at_the_pages_thresholds(self):
        # 15 answerable questions of one language, as on the page: 6 moving
        # one way are a change, 5 are not; with 2 moving back, 10 are, 9 not.
        runs = Compare("raw")
        runs.setUp()
        self.addCleanup(runs.doCleanups)
        runs.write_questions(15)
        base = runs.raw("base.jsonl", {13, 14})
        for moved, back, verdict in ((6, 0, "changed"), (5, 0, "within noise"),
                                     (10, 2, "changed"), (9, 2, "within noise")):
            with self.subTest(moved=moved, back=back):
                kept = {13, 14} - set(range(13, 13 + back))
                other = runs.raw("other.jsonl", set(range(moved)) | kept)
                out = call_main(compare, [base, other, "--questions", runs.questions])[1]
                row = next(line for line in out.splitlines()
                           if line.startswith("| cmp | en | Correct facts |"))
                self.assertTrue(row.endswith(f"| {verdict} |"), row)
                self.assertIn(f"| {back} | {moved} |", row)   # only in A, only in B

    def test_the_figures_by_hand(self):
        self.assertEqual(float(mcnemar_exact(6, 0)), 2 / 64)
        self.assertEqual(float(mcnemar_exact(5, 0)), 2 / 32)
        self.assertEqual(fewest(15), 6)
        self.assertIsNone(fewest(5))
        self.assertEqual(fewest(90, against=2), 10)
        self.assertGreaterEqual(float(mcnemar_exact(9, 2)), 0.05)


if __name__ == "__main__":
    unittest.main()
