"""Every measure read on its own, and what a figure binds (rules of
2026-12-03: evalkit/rubric/passes.py, report.signature, siteqa.run_status).

- The signature covers the reviews: one flipped entry changes it, and the
  methodology's ``sha256sum`` recipe prints it in a quarter folder.
- The sample is drawn from the questions and the answers' bodies: runs with
  other run ids (and lines in another order) draw the same sample, also when
  a set has more candidates than the sample holds.
- Every pass no person is asked about is a candidate of its measure; the
  flags run whenever the measure they doubt passed.
- Up to 60 candidates a set and measure, all are read; past it, enough for an
  interval at most 20 points wide.
- Each figure carries how many of its passes are true: a worked example by
  hand, an independent brute-force oracle of the interval, a labelled run
  reviewed honestly, and a simulation over the agreement set.
(A run asked from 127.0.0.1 is a local run, and publish.py reads a
quarter's input names as reproduce.py does: tests/test_run_labels.py.)
Each holds the newest rules; the rules before keep their output (the
published quarters reproduce: tests/test_line_endings.py, test_publish.py).
"""

import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import unittest
from fractions import Fraction

from tests.siteqa_runs import big_set, read_lines, write_json, write_lines
from tests.support import TempDirCase, ROOT, call_main

import agreement  # noqa: E402
import score  # noqa: E402
from evalkit.rubric import passes, siteqa  # noqa: E402
from evalkit.rubric.measures import APPLIES  # noqa: E402
from evalkit.rubric.report import render_markdown  # noqa: E402
from evalkit.stats import hypergeometric_interval  # noqa: E402

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
BEFORE = "2026-12-02.3"  # the last rules that drew whole answers from the run id


def newest_reviewed_quarter():
    """The published quarter with a reviews file whose rules are the newest
    (then by name): what the tests copy, whatever quarters a repository has."""
    found = []
    for name in sorted(os.listdir(BENCH)):
        path = os.path.join(BENCH, name, "MANIFEST.json")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as fh:
                scoring = json.load(fh)["scoring"]
            if scoring.get("reviews"):
                found.append((scoring["decline_as_of"], name, scoring))
    if not found:
        raise unittest.SkipTest("no published quarter with a reviews file")
    _date, name, scoring = max(found)
    return os.path.join(BENCH, name), scoring


def sample_of(block):
    return {(s["set"], m["measure"]): m["sampled"] for s in block["sets"] for m in s["measures"]}


class Signature(TempDirCase):
    def signed(self, folder, scoring, rules=None):
        md = self.path("results.md")
        names = scoring["questions"] + scoring["raw"]
        args = [os.path.join(folder, n) for n in names] + [
            "--reviews", os.path.join(folder, scoring["reviews"]), "--out", md]
        code, _out, err = call_main(score, args + (["--rules-as-of", rules] if rules else []))
        self.assertEqual((code, err), (0, ""))
        with open(md, encoding="utf-8") as fh:
            return fh.read().splitlines()[-1]

    def copy_inputs(self, quarter, scoring):
        folder = self.path("quarter")
        os.mkdir(folder)
        for name in scoring["questions"] + scoring["raw"] + [scoring["reviews"]]:
            shutil.copyfile(os.path.join(quarter, name), os.path.join(folder, name))
        return folder

    def flip_one(self, folder, scoring):
        path = os.path.join(folder, scoring["reviews"])
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        entry = next(e for e in doc["reviews"] if "measure" in e)
        entry["value"] = not entry["value"]
        entry["reason"] = "flipped by a test"
        write_json(path, doc)

    def test_flipping_one_review_entry_changes_the_signature(self):
        folder = self.copy_inputs(*newest_reviewed_quarter())
        scoring = newest_reviewed_quarter()[1]
        before = self.signed(folder, scoring)
        self.assertIn("questions, raw answers and reviews sha256", before)
        self.flip_one(folder, scoring)
        after = self.signed(folder, scoring)
        self.assertNotEqual(before, after)
        # Under the rules before, the reviews were not signed: the same line.
        self.flip_one(folder, scoring)
        old = self.signed(folder, scoring, BEFORE)
        self.flip_one(folder, scoring)
        self.assertEqual(self.signed(folder, scoring, BEFORE), old)

    @unittest.skipUnless(shutil.which("sha256sum") and shutil.which("sh"), "no sha256sum")
    def test_the_recipe_of_the_methodology_page_prints_it(self):
        quarter, scoring = newest_reviewed_quarter()
        folder = self.copy_inputs(quarter, scoring)
        line = self.signed(folder, scoring)
        out = subprocess.run(["sh", "-c", "LC_ALL=C sha256sum questions-*.json raw-*.jsonl "
                                          "reviews-*.json | sha256sum"],
                             cwd=folder, capture_output=True, text=True, check=True)
        self.assertTrue(line.endswith("sha256 " + out.stdout.split()[0]), (line, out.stdout))
        with open(os.path.join(BENCH, "METHODOLOGY.md"), encoding="utf-8") as fh:
            self.assertIn("sha256sum questions-*.json raw-*.jsonl reviews-*.json | sha256sum",
                          fh.read())


class TheDraw(TempDirCase):
    def test_other_run_ids_and_line_orders_draw_the_same_sample(self):
        quarter, scoring = newest_reviewed_quarter()
        questions = [os.path.join(quarter, n) for n in scoring["questions"]]
        raws = [os.path.join(quarter, n) for n in scoring["raw"]]
        first = siteqa.score(questions, raws)["sampled_review"]
        again = []
        for path in raws:
            lines = read_lines(path)
            for line in lines:
                line["run"]["run_id"] = "another-run"
            random.Random(7).shuffle(lines)
            again.append(write_lines(self.path(os.path.basename(path)), lines))
        second = siteqa.score(questions, again)["sampled_review"]
        self.assertEqual(sample_of(first), sample_of(second))
        # Under the rules before, the run id moved the sample.
        self.assertNotEqual(siteqa.score(questions, raws, rules_date=BEFORE)["sampled_review"],
                            siteqa.score(questions, again, rules_date=BEFORE)["sampled_review"])

    def test_more_candidates_than_the_sample_the_same_sample(self):
        qpath, raw_a = big_set(self.tmp, 70, "run-a")
        order = list(range(70))
        random.Random(3).shuffle(order)
        _q, raw_b = big_set(self.tmp, 70, "run-b", order=order)
        a = siteqa.score([qpath], [raw_a])["sampled_review"]
        b = siteqa.score([qpath], [raw_b])["sampled_review"]
        self.assertEqual(sample_of(a), sample_of(b))
        sampled = sample_of(a)[("big", "correct_facts")]
        self.assertTrue(0 < len(sampled) < 70, len(sampled))
        # The rule's order, recomputed from its words.
        with open(qpath, "rb") as fh:
            sha = hashlib.sha256(fh.read()).hexdigest()
        keys = {}
        for line in read_lines(raw_a):
            body = hashlib.sha256(line["response"]["body"].encode("utf-8")).hexdigest()
            keys[line["id"]] = hashlib.sha256(
                f"{sha}\n{line['id']}\n{body}".encode("utf-8")).hexdigest()
        self.assertEqual(sampled, sorted(keys, key=lambda qid: (keys[qid], qid))[:len(sampled)])

    def test_up_to_sixty_a_set_every_candidate_is_read(self):
        qpath, raw = big_set(self.tmp, 60, "run")
        block = siteqa.score([qpath], [raw])["sampled_review"]
        self.assertEqual(len(sample_of(block)[("big", "correct_facts")]), 60)
        qpath, raw = big_set(self.tmp, 61, "run", name="bigger")
        block = siteqa.score([qpath], [raw])["sampled_review"]
        sampled = len(sample_of(block)[("bigger", "correct_facts")])
        # The fewest for a 20-point interval were none overturned.
        self.assertTrue(passes.narrow(0, sampled, 61))
        self.assertFalse(passes.narrow(0, sampled - 1, 61))

    def test_the_sample_grows_to_the_rate_found(self):
        outcomes = ["overturned" if n % 4 == 0 else "stands" for n in range(500)]
        size = passes.sample_size(outcomes)
        seen = outcomes[:size].count("overturned")
        self.assertTrue(passes.narrow(seen, size, 500))
        self.assertGreater(size, passes.sample_size(["stands"] * 500))
        # Not yet reviewed: the first ones are what the sheet asks for.
        self.assertEqual(passes.sample_size([None] * 500), passes.sample_size(["stands"] * 500))


class EveryMeasure(TempDirCase):
    def one_answer(self, answer, sources, rules=None):
        qpath, _raw = big_set(self.tmp, 1, "run", name="one")
        line = read_lines(_raw)[0]
        line["response"]["body"] = json.dumps({"answer": answer, "grounded": True,
                                               "sources": [{"url": u} for u in sources]})
        raw = write_lines(self.path("raw-one.jsonl"), [line])
        return siteqa.score([qpath], [raw], rules_date=rules)["questions"][0]

    def test_a_pass_beside_a_failure_is_a_candidate(self):
        row = self.one_answer("It is 42.", [])
        self.assertEqual(row["asked"], ["right_page_cited"])
        self.assertEqual(row["sampled"], ["delivered", "correct_facts", "in_question_language"])

    def test_the_flags_run_whatever_the_other_measures_did(self):
        # 42 beside a number the evidence does not give, and no page cited.
        row = self.one_answer("It is 42, or 43 on Sundays.", [])
        self.assertIn("value", row["flags"])
        self.assertEqual(row["asked"], ["correct_facts", "right_page_cited"])
        self.assertEqual(self.one_answer("It is 42, or 43 on Sundays.", [], BEFORE)["flags"], [])

    def test_the_sheet_asks_an_entry_for_every_measure_to_read(self):
        qpath, raw = big_set(self.tmp, 3, "run", name="three")
        sheet = self.path("sheet.md")
        code, _out, err = call_main(score, [qpath, raw, "--review-sheet", sheet])
        self.assertEqual((code, err), (0, ""))
        with open(sheet, encoding="utf-8") as fh:
            text = fh.read()
        listed = text.split("```json")[1].split("```")[0].splitlines()[2:-1]
        entries = [json.loads(line.strip().rstrip(",")) for line in listed]
        self.assertEqual(len(entries), 3 * 4)  # every pass a candidate, all read
        self.assertEqual({e["measure"] for e in entries}, set(APPLIES["answerable"]))


def brute_force_interval(seen, drawn, total, alpha=Fraction(1, 20)):
    """The hypergeometric interval from its definition, over every F."""
    everything = math.comb(total, drawn)
    keep = []
    for marked in range(total + 1):
        pmf = [math.comb(marked, j) * math.comb(total - marked, drawn - j)
               for j in range(drawn + 1)]
        low_tail, high_tail = sum(pmf[:seen + 1]), sum(pmf[seen:])
        if Fraction(low_tail, everything) > alpha / 2 and Fraction(high_tail, everything) > alpha / 2:
            keep.append(marked)
    return keep[0], keep[-1]


class Estimates(unittest.TestCase):
    def test_the_interval_is_its_definition(self):
        for seen, drawn, total in [(0, 20, 45), (2, 40, 100), (3, 3, 7), (0, 0, 5), (5, 9, 30),
                                   (9, 9, 12), (1, 25, 25), (0, 1, 61)]:
            self.assertEqual(hypergeometric_interval(seen, drawn, total),
                             brute_force_interval(seen, drawn, total), (seen, drawn, total))
        # By hand: P(K = 0 | F = 5) = C(40,20)/C(45,20) = 0.0435, for F = 6 0.0217.
        self.assertEqual(hypergeometric_interval(0, 20, 45), (0, 5))

    def test_the_worked_example_of_the_module(self):
        # 100 candidates, 40 read, 2 overturned, 60 unread, 128 passes.
        self.assertEqual(passes.estimate(128, [(100, 40, 2, 60, 0, 0)]),
                         {"passes": 128, "estimate": 125.0, "interval": [116, 128],
                          "exact": False})
        # Every pass read: exact.
        self.assertEqual(passes.estimate(13, [(11, 11, 0, 0, 0, 0)]),
                         {"passes": 13, "estimate": 13.0, "interval": [13, 13], "exact": True})
        # A flagged pass not yet reviewed: it may be false, and no estimate.
        self.assertEqual(passes.estimate(13, [(11, 11, 0, 0, 0, 1)])["interval"], [12, 13])
        self.assertIsNone(passes.estimate(13, [(11, 11, 0, 0, 0, 1)])["estimate"])


def labelled_rows():
    """The agreement set scored under the newest rules: ``[(item, row)]``."""
    answers = agreement.load_answers(os.path.join(BENCH, "agreement"))
    files = [os.path.join(BENCH, "questions-med.json"), os.path.join(BENCH, "questions-biz.json")]
    return agreement.score_answers(answers, files, None)


class LabelledRun(TempDirCase):
    """The agreement set made into one run of two sets, every labelled answer
    under a question of its own: "pooled" holds every answer (101 passes of
    Correct facts no one is asked about: more than 60, so sampled), "second"
    the second part again (45: all read). The reviewer writes, for every
    entry the sheet asks, the person's verdict (the label)."""

    def build(self):
        answers = agreement.load_answers(os.path.join(BENCH, "agreement"))
        demo = {}
        for name in ("questions-biz.json", "questions-med.json"):
            with open(os.path.join(BENCH, name), encoding="utf-8") as fh:
                doc = json.load(fh)
            sites = doc["sites"]
            demo.update({q["id"]: q for q in doc["questions"]})
        files, raws, truth = [], [], {}
        for name, items in (("pooled", answers),
                            ("second", [a for a in answers if a["part"] == "second"])):
            questions = []
            for item in items:
                q = dict(demo[item["question"]], id=f"{name}-{item['id']}")
                questions.append(q)
                truth[q["id"]] = item["human"]
            path = write_json(self.path(f"questions-{name}.json"),
                              {"format": 1, "suite": "site-qa", "set": name,
                               "sites": sites, "questions": questions})
            qset = siteqa.load_questions([path])[0]
            lines = [dict(agreement.raw_line(item, qset), id=f"{name}-{item['id']}")
                     for item in items]
            for line in lines:
                line["run"]["tool"] = "run.py"
            raws.append(write_lines(self.path(f"raw-{name}.jsonl"), lines))
            files.append(path)
        return files, raws, truth

    def test_reviewed_honestly_the_interval_holds_the_true_count(self):
        files, raws, truth = self.build()
        reviews = self.path("reviews.json")
        doc = {"format": 1, "reviews": []}
        for _round in range(10):  # the sheet may ask for more once it has read some
            result = siteqa.score(files, raws, reviews if doc["reviews"] else None)
            have = {(e["id"], e["measure"]) for e in doc["reviews"]}
            asked = [(row["id"], m) for row in result["questions"]
                     for m in row["asked"] + row["sampled"] if (row["id"], m) not in have]
            if not asked:
                break
            doc["reviews"] += [{"id": qid, "measure": m, "value": truth[qid][m],
                                "reason": "the label"} for qid, m in asked]
            write_json(reviews, doc)
        else:
            self.fail("the sheet kept asking")
        block = result["sampled_review"]
        self.assertEqual(block["coverage"]["missing"], [])
        est = {(e["set"], e["measure"]): e for e in block["estimates"]}
        pooled = [s for s in block["sets"] if s["set"] == "pooled"][0]
        cf = [m for m in pooled["measures"] if m["measure"] == "correct_facts"][0]
        self.assertGreater(cf["candidates"], passes.READ_ALL)
        self.assertLess(len(cf["sampled"]), cf["candidates"])
        self.assertFalse(est["all", "correct_facts"]["exact"])
        for (name, measure), item in est.items():
            true = sum(1 for qid, labels in truth.items()
                       if labels.get(measure) is True and (name == "all" or qid.startswith(name)))
            low, high = item["interval"]
            with self.subTest(set=name, measure=measure):
                self.assertLessEqual(low, true)
                self.assertLessEqual(true, high)
        text = render_markdown(result)
        self.assertIn("## How many of the passes are true", text)


class Simulation(unittest.TestCase):
    """Drawing many samples from the agreement set's passes of Correct facts
    that no one is asked about (both sets pooled into one: 101 candidates, 28
    of them false by the labels), each reviewed by the labels with the
    sample's own growing size, the interval holds the true count at least 95%
    of the time. (Measured: 952 of 1,000 draws of seed 20261203; the
    methodology page quotes it.)"""

    def test_the_interval_holds_the_true_count_95_percent_of_the_time(self):
        truth = [item["human"]["correct_facts"] is False for item, row in labelled_rows()
                 if row["mechanical"]["correct_facts"] is True
                 and "correct_facts" not in row["asked"]]
        total, false = len(truth), sum(truth)
        self.assertGreater(total, passes.READ_ALL)
        rng = random.Random(20261203)
        held, trials = 0, 1000
        for _ in range(trials):
            rng.shuffle(truth)
            size = passes.sample_size(["overturned" if f else "stands" for f in truth])
            low, high = passes.false_interval([(total, size, sum(truth[:size]))])
            held += low <= false <= high
        self.assertGreaterEqual(held / trials, 0.95, (held, trials, total, false))


if __name__ == "__main__":
    unittest.main()
