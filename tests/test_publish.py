"""Quarter folders: publish.py assembles and refuses, reproduce.py re-scores
the published demo quarter byte for byte and says which file differs."""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests import support, test_docs
from tests.test_sample import completed_by_measure as completed
from tests.support import ROOT, call_main

import publish  # noqa: E402
import reproduce  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.jsonl import sha256_file  # noqa: E402
from evalkit.rubric.measures import MEASURES  # noqa: E402
from evalkit.rubric.rulebook import change_dates  # noqa: E402

# An example input: its absence skips the tests that copy it (support.example_quarter).
DEMO, NEEDS_DEMO = support.example_quarter("demo")
BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")


class EveryQuarter(unittest.TestCase):
    def test_every_published_quarter_reproduces(self):
        # Whatever quarters the repository holds (an operator's too): each
        # re-scores byte for byte and its pages show its results. A quarter
        # published with --allow-unreviewed and a sample left unread is
        # reproduced file for file, and not verified (exit 1), as it says.
        quarters = support.published_quarters(BENCH)
        if not quarters:
            self.skipTest("no quarter is published here")
        for name in quarters:
            folder = os.path.join(BENCH, name)
            with self.subTest(quarter=name):
                with open(os.path.join(folder, "MANIFEST.json"), encoding="utf-8") as fh:
                    manifest = json.load(fh)
                proc = support.run_script("reproduce.py", folder)
                lines = proc.stdout.splitlines()
                self.assertIn("identical  results.md", lines)
                self.assertIn("identical  results.json", lines)
                self.assertTrue(all(l.startswith(("identical", "verified", "shows")) for l in lines),
                                lines)
                self.assertTrue(any(l.startswith("shows      index.html (results.json's ")
                                    for l in lines), lines)
                unread = (manifest.get("sampled_review") or {}).get("missing")
                if manifest.get("unreviewed_allowed") and unread:
                    self.assertEqual(proc.returncode, 1, proc.stderr)
                    self.assertIn("NOT verified: the sampled review is incomplete", proc.stderr)
                else:
                    self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)


@NEEDS_DEMO
class Reproduce(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.folder = os.path.join(tmp.name, "demo")
        shutil.copytree(DEMO, self.folder)

    def test_one_changed_byte_of_a_raw_answer_fails_and_names_the_file(self):
        path = os.path.join(self.folder, "raw-med.jsonl")
        with open(path, "rb") as fh:
            data = bytearray(fh.read())
        at = data.index(b"Saturdays")
        data[at] = ord("s")
        with open(path, "wb") as fh:
            fh.write(data)
        code, out, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1)
        self.assertIn("differs    raw-med.jsonl (input does not match MANIFEST.json)", out)
        self.assertIn("NOT reproduced", err)

    def test_a_changed_result_shows_a_diff(self):
        path = os.path.join(self.folder, "results.md")
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text.replace("| med | en | 20/20 |", "| med | en | 19/20 |"))
        code, out, _ = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1)
        self.assertIn("differs    results.md", out)
        self.assertIn("-| med | en | 19/20 |", out)
        self.assertIn("+| med | en | 20/20 |", out)

    def test_a_file_not_in_the_manifest(self):
        with open(os.path.join(self.folder, "extra.txt"), "w") as fh:
            fh.write("x")
        code, out, _ = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1)
        self.assertIn("differs    extra.txt (not in MANIFEST.json)", out)

    def test_inputs_the_scorer_refuses_are_not_reproduced(self):
        # The files match the manifest (it was rewritten to agree), but the
        # reviews file is one score.py refuses: the published results do not
        # follow from the published inputs, which is a verdict on the quarter
        # (exit 1), not a failure to start.
        reviews = os.path.join(self.folder, "reviews-demo.json")
        with open(reviews, encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["reviews"][0]["reason"] = "TODO"
        with open(reviews, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        manifest_path = os.path.join(self.folder, "MANIFEST.json")
        with open(manifest_path, encoding="utf-8") as fh:
            manifest = json.load(fh)
        manifest["files"]["reviews-demo.json"].update(
            sha256=sha256_file(reviews), bytes=os.path.getsize(reviews))
        with open(manifest_path, "w", encoding="utf-8") as fh:
            json.dump(manifest, fh)
        code, out, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1)
        self.assertIn("verified   reviews-demo.json", out)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("cannot re-score", err)
        self.assertIn("reviews-demo.json", err)
        self.assertIn("TODO", err)

    def test_no_manifest(self):
        os.unlink(os.path.join(self.folder, "MANIFEST.json"))
        code, _, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 2)
        self.assertIn(f"{self.folder}: no MANIFEST.json, so not a published folder", err)


class MakeWithoutARun(unittest.TestCase):
    def test_score_of_a_quarter_not_run_says_so_and_asks_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            test_docs.copy_project(tmp)
            env = {k: v for k, v in os.environ.items()
                   if k not in ("MAKEFLAGS", "MAKELEVEL", "BENCH_ENDPOINT")}
            for goal, said in (
                    ("score", "QUARTER=2031-Q1 was not run (build/2031-Q1/raw-biz.jsonl is "
                              "missing): make run QUARTER=2031-Q1 first"),
                    ("publish", "QUARTER=2031-Q1 was not run in full (build/2031-Q1/run.done is "
                                "missing; a trial with LIMIT or ONLY does not make it): make run "
                                "QUARTER=2031-Q1 asks what is missing")):
                with self.subTest(goal):
                    proc = subprocess.run(["make", goal, "QUARTER=2031-Q1",
                                           f"PY={sys.executable}"], cwd=tmp, env=env,
                                          capture_output=True, text=True, timeout=60)
                    self.assertEqual(proc.returncode, 2)
                    self.assertIn(said, proc.stderr)
                    self.assertFalse(os.path.exists(os.path.join(tmp, "build", "2031-Q1")))


@NEEDS_DEMO
class FirstDemoUnderTheNewQuestions(unittest.TestCase):
    """The first demo quarter marks no question faulty because no defect of
    its question files changed a verdict (METHODOLOGY.md, "The questions"):
    its raw answers, scored against the second version of the files, get the
    mechanical verdicts it published, under the rules of its date and the
    newest."""

    def test_no_verdict_changes(self):
        with open(os.path.join(DEMO, "results.json"), encoding="utf-8") as fh:
            published = {q["id"]: q["mechanical"] for q in json.load(fh)["questions"]}
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        questions, raws = [], []
        for name in ("med", "biz"):
            current = os.path.join(BENCH, f"questions-{name}.json")
            self.assertNotEqual(sha256_file(current),
                                sha256_file(os.path.join(DEMO, f"questions-{name}.json")))
            questions.append(current)
            raws.append(os.path.join(tmp.name, f"raw-{name}.jsonl"))
            with open(os.path.join(DEMO, f"raw-{name}.jsonl"), encoding="utf-8") as src, \
                    open(raws[-1], "w", encoding="utf-8") as dst:
                for line in src:
                    record = json.loads(line)
                    record["run"]["cases_sha256"] = sha256_file(current)
                    dst.write(json.dumps(record) + "\n")
        for date in ("2026-11-05", None):
            with self.subTest(rules=date or "newest"):
                result = siteqa.score(questions, raws, rules_date=date)
                self.assertEqual({q["id"]: q["mechanical"] for q in result["questions"]},
                                 published)


@NEEDS_DEMO
class Publish(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.bench = os.path.join(tmp.name, "bench")
        self.work = os.path.join(tmp.name, "work")
        os.makedirs(self.bench)
        os.makedirs(self.work)
        # The question files the demo's raw answers were recorded against.
        for name in ("questions-med.json", "questions-biz.json"):
            shutil.copy(os.path.join(DEMO, name), self.bench)
        for name in ("raw-med.jsonl", "raw-biz.jsonl"):
            shutil.copy(os.path.join(DEMO, name), self.work)

    def publish(self, *args, quarter="2026-Q4"):
        return call_main(publish, [quarter, "--from", self.work, "--bench", self.bench] + list(args))

    def inputs(self):
        return ([os.path.join(self.bench, f"questions-{s}.json") for s in ("biz", "med")],
                [os.path.join(self.work, f"raw-{s}.jsonl") for s in ("biz", "med")])

    def reviews(self, quarter):
        """The demo's reviews, one for the answer that the rules of
        2026-12-01 flag (the fact it states is also in the question), and,
        for what else the newest rules send to a person (those of 2026-12-02,
        and their sample of passes, one entry a measure: evalkit/rubric/sampling.py),
        an entry keeping the mechanical verdict."""
        with open(os.path.join(DEMO, "reviews-demo.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["reviews"].append({"id": "med-he-13", "measure": "correct_facts", "value": True,
                               "reason": "says that Bit is accepted, beyond repeating the question"})
        path = os.path.join(self.work, f"reviews-{quarter}.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False)
        completed(path, *self.inputs())

    def test_publish_then_reproduce(self):
        self.reviews("2026-Q4")
        code, _, err = self.publish()
        self.assertEqual(code, 0, err)
        folder = os.path.join(self.bench, "2026-Q4")
        self.assertEqual(sorted(os.listdir(folder)), [
            "MANIFEST.json", "index.he.html", "index.html", "index.ru.html", "questions-biz.json",
            "questions-med.json", "raw-biz.jsonl", "raw-med.jsonl", "results.csv", "results.json",
            "results.md", "reviews-2026-Q4.json"])
        with open(os.path.join(folder, "MANIFEST.json"), encoding="utf-8") as fh:
            manifest = json.load(fh)
        # The three results pages and results.csv are outputs.
        self.assertEqual(sorted(n for n, e in manifest["files"].items() if e["role"] == "output"),
                         ["index.he.html", "index.html", "index.ru.html", "results.csv",
                          "results.json", "results.md"])
        self.assertEqual(manifest["review_coverage"]["missing"], [])
        self.assertGreaterEqual(manifest["review_coverage"]["reviewed"], 99)
        self.assertEqual(manifest["sampled_review"]["missing"], [])
        self.assertGreater(manifest["sampled_review"]["reviewed"], 0)
        self.assertFalse(manifest["unreviewed_allowed"])
        self.assertEqual(manifest["decline_list_date"], change_dates()[-1])
        self.assertEqual(manifest["runs"]["platform_versions"], ["demo-assistant 0.1.0"])
        code, out, _ = call_main(reproduce, [folder])
        self.assertEqual(code, 0, out)
        # Nothing else was written next to the quarter.
        self.assertEqual(sorted(os.listdir(self.bench)),
                         ["2026-Q4", "questions-biz.json", "questions-med.json"])

    def test_reproduce_holds_a_page_to_the_figures_of_results_json(self):
        # A page is checked by what it shows (evalkit/pages/shown.py): a figure
        # changed in the Russian page, with a manifest that agrees with the
        # changed bytes, is named with its row and measure.
        self.reviews("2026-Q4")
        self.assertEqual(self.publish()[0], 0)
        folder = os.path.join(self.bench, "2026-Q4")
        page = os.path.join(folder, "index.ru.html")
        with open(page, encoding="utf-8") as fh:
            text = fh.read()
        at = text.index('<span class="fig">20/20</span>')
        with open(page, "w", encoding="utf-8", newline="") as fh:
            fh.write(text[:at] + text[at:].replace("20/20", "19/20", 1))
        self.rewrite_manifest_entry(folder, "index.ru.html")
        code, out, _ = call_main(reproduce, [folder])
        self.assertEqual(code, 1, out)
        self.assertIn("shows      index.he.html (results.json's 54 figures and every question)", out)
        self.assertIn("differs    index.ru.html (shows what results.json does not say)\n"
                      "    biz en Delivered shows '19/20 100% [84%–100%]'; results.json gives "
                      "20 20 100 84 100\n", out)

    def test_results_csv_says_every_verdict_and_is_held_to_them(self):
        self.reviews("2026-Q4")
        self.assertEqual(self.publish()[0], 0)
        folder = os.path.join(self.bench, "2026-Q4")
        with open(os.path.join(folder, "results.json"), encoding="utf-8") as fh:
            result = json.load(fh)
        with open(os.path.join(folder, "results.csv"), encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        self.assertEqual([row["id"] for row in rows], [q["id"] for q in result["questions"]])
        for row, q in zip(rows, result["questions"]):
            for m in MEASURES:
                for part in ("mechanical", "after_review"):
                    value = q[part][m]
                    self.assertEqual(row[f"{m}_{part}"], "" if value is None else json.dumps(value))
        code, out, _ = call_main(reproduce, [folder])
        self.assertEqual(code, 0, out)
        self.assertIn(f"shows      results.csv (results.json's {len(rows[0]) * len(rows)} cells)",
                      out)
        # One verdict turned in the file, the manifest agreeing: named.
        path = os.path.join(folder, "results.csv")
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
        first = rows[0]
        turned = "false" if first["delivered_after_review"] == "true" else "true"
        line = text.splitlines(keepends=True)[1]
        old = f",{first['delivered_mechanical']},{first['delivered_after_review']},"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text.replace(line, line.replace(
                old, f",{first['delivered_mechanical']},{turned},", 1), 1))
        self.rewrite_manifest_entry(folder, "results.csv")
        code, out, _ = call_main(reproduce, [folder])
        self.assertEqual(code, 1, out)
        self.assertIn(f"differs    results.csv (shows what results.json does not say)\n"
                      f"    {first['id']} delivered_after_review: says \"{turned}\"", out)

    def test_a_page_is_not_compared_byte_for_byte(self):
        # Today's renderer may lay a page out otherwise: what matters is that
        # the page the manifest lists shows the figures. A page left out of
        # the folder and the manifest is not one the quarter must have.
        self.reviews("2026-Q4")
        self.assertEqual(self.publish()[0], 0)
        folder = os.path.join(self.bench, "2026-Q4")
        page = os.path.join(folder, "index.html")
        with open(page, encoding="utf-8") as fh:
            text = fh.read()
        with open(page, "w", encoding="utf-8", newline="") as fh:
            fh.write(text.replace("<body>", "<body><!-- laid out otherwise -->", 1))
        self.rewrite_manifest_entry(folder, "index.html")
        path = os.path.join(folder, "MANIFEST.json")
        with open(path, encoding="utf-8") as fh:
            manifest = json.load(fh)
        del manifest["files"]["index.ru.html"]
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(manifest, fh)
        os.unlink(os.path.join(folder, "index.ru.html"))
        code, out, err = call_main(reproduce, [folder])
        self.assertEqual(code, 0, out + err)
        self.assertIn("shows      index.html", out)
        self.assertNotIn("index.ru.html", out)
        # A page changed without its manifest entry still differs.
        with open(page, "a", encoding="utf-8") as fh:
            fh.write("\n")
        code, out, _ = call_main(reproduce, [folder])
        self.assertEqual(code, 1)
        self.assertIn("differs    index.html (does not match MANIFEST.json)", out)

    def rewrite_manifest_entry(self, folder, name):
        path = os.path.join(folder, "MANIFEST.json")
        with open(path, encoding="utf-8") as fh:
            manifest = json.load(fh)
        manifest["files"][name].update(sha256=sha256_file(os.path.join(folder, name)),
                                       bytes=os.path.getsize(os.path.join(folder, name)))
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(manifest, fh)

    def test_a_second_quarter_carries_the_trend_and_still_reproduces(self):
        self.reviews("2026-Q3")
        self.assertEqual(self.publish(quarter="2026-Q3")[0], 0)
        self.reviews("2026-Q4")
        self.assertEqual(self.publish(quarter="2026-Q4")[0], 0)
        folder = os.path.join(self.bench, "2026-Q4")
        with open(os.path.join(folder, "history.json"), encoding="utf-8") as fh:
            history = json.load(fh)
        self.assertEqual([q["quarter"] for q in history["quarters"]], ["2026-Q3"])
        with open(os.path.join(folder, "index.html"), encoding="utf-8") as fh:
            page = fh.read()
        self.assertIn("Trend across quarters", page)
        self.assertIn("<polyline", page)
        for name, heading in (("index.he.html", "מגמה לאורך הרבעונים"),
                              ("index.ru.html", "Динамика по кварталам")):
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                self.assertIn(f"<h2>{heading}</h2>", fh.read())
        self.assertNotIn("history.json", os.listdir(os.path.join(self.bench, "2026-Q3")))
        code, out, _ = call_main(reproduce, [folder])
        self.assertEqual(code, 0, out)
        self.assertIn("verified   history.json", out)

    def test_the_trend_holds_only_earlier_quarters_never_a_demo(self):
        for quarter in ("demo", "2026-Q4", "2026-Q3"):
            self.reviews(quarter)
            self.assertEqual(self.publish(quarter=quarter)[0], 0)
        # 2026-Q3 was published last, but 2026-Q4 comes after it; demo is no quarter.
        for quarter in ("demo", "2026-Q3"):
            self.assertNotIn("history.json", os.listdir(os.path.join(self.bench, quarter)))
        self.reviews("2027-Q1")
        self.assertEqual(self.publish(quarter="2027-Q1")[0], 0)
        with open(os.path.join(self.bench, "2027-Q1", "history.json"), encoding="utf-8") as fh:
            self.assertEqual([q["quarter"] for q in json.load(fh)["quarters"]],
                             ["2026-Q3", "2026-Q4"])
        # A demo run published after the quarters still has no trend.
        self.reviews("demo-2")
        self.assertEqual(self.publish(quarter="demo-2")[0], 0)
        self.assertNotIn("history.json", os.listdir(os.path.join(self.bench, "demo-2")))

    def test_the_folder_is_readable_by_all_under_the_usual_umask(self):
        self.reviews("2026-Q4")
        old = os.umask(0o022)
        try:
            self.assertEqual(self.publish()[0], 0)
        finally:
            os.umask(old)
        folder = os.path.join(self.bench, "2026-Q4")
        self.assertEqual(os.stat(folder).st_mode & 0o777, 0o755)
        for name in os.listdir(folder):
            with self.subTest(name=name):
                self.assertEqual(os.stat(os.path.join(folder, name)).st_mode & 0o777, 0o644)

    def test_refuses_to_overwrite_unless_forced(self):
        self.reviews("2026-Q4")
        self.assertEqual(self.publish()[0], 0)
        code, _, err = self.publish()
        self.assertEqual(code, 2)
        self.assertIn("already published; to replace it, pass --force", err)
        self.assertEqual(self.publish("--force")[0], 0)

    def test_refuses_unreviewed_answers(self):
        # 99 under the rules of 2026-12-01; the newest may send more.
        required = siteqa.score(*self.inputs())["review_coverage"]["required"]
        self.assertGreaterEqual(required, 99)
        code, _, err = self.publish()
        self.assertEqual(code, 2)
        self.assertIn(f"{required} of {required} answers the rubric requires a person to read "
                      "have no review entry", err)
        self.assertFalse(os.path.exists(os.path.join(self.bench, "2026-Q4")))
        code, _, _ = self.publish("--allow-unreviewed")
        self.assertEqual(code, 0)
        with open(os.path.join(self.bench, "2026-Q4", "results.md"), encoding="utf-8") as fh:
            self.assertIn(f"Human review: 0 of {required} answers", fh.read())

    def test_quarter_names(self):
        for bad in ("../x", "2026-Q5", "Q4", "a/b", "", ".hidden", "UPPER"):
            with self.subTest(bad=bad):
                code, _, err = self.publish(quarter=bad)
                self.assertEqual(code, 2)
                self.assertIn("give YYYY-QN", err)
        self.assertEqual(sorted(os.listdir(self.bench)), ["questions-biz.json", "questions-med.json"])

    def test_a_bad_reviews_file_is_named_where_the_user_keeps_it(self):
        path = os.path.join(self.work, "reviews-2026-Q4.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"format": 1, "reviews": [{"id": "med-en-01", "measure": "correct_facts",
                                                 "value": False, "reason": "TODO"}]}, fh)
        code, _, err = self.publish()
        self.assertEqual(code, 2)
        self.assertIn(f"{path}: reason is still TODO", err)
        self.assertNotIn("staging", err)

    def test_refusals_name_the_make_variable_and_the_reviews_file(self):
        code, _, err = self.publish()
        self.assertEqual(code, 2)
        self.assertIn(f"write them into {self.work}/reviews-2026-Q4.json", err)
        self.assertIn("(make: PUBLISH_FLAGS=--allow-unreviewed)", err)
        # --from is not build/QUARTER here: make score writes there, not to --from.
        self.assertIn("score.py --review-sheet writes one; make score QUARTER=2026-Q4 writes "
                      "build/2026-Q4/review-sheet.md", err)
        self.assertEqual(self.publish("--allow-unreviewed")[0], 0)
        code, _, err = self.publish("--allow-unreviewed")
        self.assertIn("pass --force (make: PUBLISH_FLAGS=--force)", err)

    def test_a_reviews_file_of_another_name_is_pointed_out(self):
        self.reviews("2026-Q4")
        os.rename(os.path.join(self.work, "reviews-2026-Q4.json"),
                  os.path.join(self.work, "reviews.json"))
        code, _, err = self.publish()
        self.assertEqual(code, 2)
        self.assertIn(f"{self.work}/reviews.json: the reviews of 2026-Q4 are read from "
                      f"{self.work}/reviews-2026-Q4.json only: rename it", err)

    def test_a_lower_case_quarter_is_refused_with_its_spelling(self):
        code, _, err = self.publish(quarter="2026-q4")
        self.assertEqual(code, 2)
        self.assertIn("a quarter is written with a capital Q: 2026-Q4", err)
        self.assertEqual(sorted(os.listdir(self.bench)), ["questions-biz.json", "questions-med.json"])

    def test_changed_question_file_is_refused(self):
        with open(os.path.join(self.bench, "questions-med.json"), "a", encoding="utf-8") as fh:
            fh.write(" ")
        code, _, err = self.publish("--allow-unreviewed")
        self.assertEqual(code, 2)
        self.assertIn("questions are frozen", err)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo_in_the_runs_folder_is_refused_not_waited_on(self):
        # A real process: were the FIFO waited on, the timeout would end it.
        self.reviews("2026-Q4")
        for name in ("reviews-2026-Q4.json", "raw-med.jsonl"):
            with self.subTest(name):
                os.unlink(os.path.join(self.work, name))
                os.mkfifo(os.path.join(self.work, name))
                proc = support.run_script("publish.py", "2026-Q4", "--from", self.work,
                                          "--bench", self.bench, timeout=support.HANG)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(proc.stderr, f"publish.py: {self.work}/{name}: is a FIFO (named "
                                              "pipe), not a regular file: nothing was read from "
                                              "it\n")
                self.assertEqual(sorted(os.listdir(self.bench)),
                                 ["questions-biz.json", "questions-med.json"])

    def test_what_a_killed_publish_left_is_cleared_by_the_next(self):
        # A publish killed while it built (its staging folder), and a publish
        # --force killed between moving the published quarter aside and
        # renaming the new one into place (no quarter where it was).
        self.reviews("2026-Q4")
        self.assertEqual(self.publish()[0], 0)
        staging = os.path.join(self.bench, ".2026-Q4.staging-k1ll3d_x")
        os.makedirs(staging)
        shutil.copy(os.path.join(self.work, "raw-med.jsonl"), staging)
        aside = os.path.join(self.bench, ".2026-Q4.old-abc_1234")
        os.makedirs(aside)
        os.rename(os.path.join(self.bench, "2026-Q4"), os.path.join(aside, "2026-Q4"))
        code, _, err = self.publish()
        self.assertEqual(code, 2)
        self.assertEqual(err.splitlines(), [
            f"publish.py: {self.bench}/2026-Q4: put back where it was published (a publish "
            f"--force stopped after moving it aside to {aside})",
            f"publish.py: {aside}: removed, left by a publish that was stopped",
            f"publish.py: {staging}: removed, left by a publish that was stopped",
            f"publish.py: {self.bench}/2026-Q4: already published; to replace it, pass --force "
            "(make: PUBLISH_FLAGS=--force)"])
        self.assertEqual(sorted(os.listdir(self.bench)),
                         ["2026-Q4", "questions-biz.json", "questions-med.json"])
        self.assertEqual(call_main(reproduce, [os.path.join(self.bench, "2026-Q4")])[0], 0)
        # A replaced quarter aside beside its successor is the old one: removed.
        os.makedirs(os.path.join(aside, "2026-Q4"))
        code, _, err = self.publish("--force")
        self.assertEqual(code, 0, err)
        self.assertIn(f"{aside}: removed", err)
        self.assertEqual(sorted(os.listdir(self.bench)),
                         ["2026-Q4", "questions-biz.json", "questions-med.json"])


if __name__ == "__main__":
    unittest.main()
