"""The sampled review of passes (rules of 2026-12-02, evalkit/rubric/sampling.py),
scored under the last rules that drew it (2026-12-02.3: the rules of
2026-12-03 read every measure on its own, tests/test_pass_review.py; a quarter
is published under the newest rules, so the publishing tests below hold those).

The sample is the rule's, recomputed here from the raw lines and sha256
alone, and pinned to digests computed outside Python; it is the same on
every run, in any order of the raw lines, and whatever the reviews say. The
false-pass rate and its Wilson interval match a worked example computed by
hand. results.md, results.json, the three pages and the review sheet show it.
publish.py refuses an unreviewed sample; reproduce.py fails for a results.json
whose sample is not the rule's and for a sample with an entry missing. Under
the rules before 2026-12-02 nothing changed: the fixtures give byte for byte
what tools 0.4.0 wrote."""

import hashlib
import json
import os
import random
import re
import shutil
import tempfile
import unittest

from tests import support
from tests.golden import record
from tests.support import FIXTURES, ROOT, call_main
from tests.test_htmlpage import check

import publish  # noqa: E402
import reproduce  # noqa: E402
import score  # noqa: E402
from evalkit.rubric import sampling, siteqa  # noqa: E402
from evalkit.rubric.measures import APPLIES, MEASURES  # noqa: E402
from evalkit.pages.pagelabels import LABELS, page_names  # noqa: E402
from evalkit.jsonl import sha256_file  # noqa: E402
from evalkit.rubric.report import render_markdown, sample_texts  # noqa: E402
from evalkit.stats import wilson  # noqa: E402

QUARTER = os.path.join(ROOT, "Documents", "c4-benchmark", "demo-2026-12")
SETS = ("biz", "med")
QUESTIONS = [os.path.join(QUARTER, f"questions-{s}.json") for s in SETS]
RAWS = [os.path.join(QUARTER, f"raw-{s}.jsonl") for s in SETS]
REVIEWS = os.path.join(QUARTER, "reviews-demo-2026-12.json")
MINI_QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
MINI_RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
MINI_REVIEWS = os.path.join(FIXTURES, "reviews-mini.json")
Z = 1.959963984540054
RULES = "2026-12-02.3"  # the last rules of the whole-answer sample


def old_score(questions, raws, reviews=None):
    """siteqa.score under the rules of the whole-answer sample."""
    return siteqa.score(questions, raws, reviews, RULES)


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def write_json(path, doc):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(doc, fh, ensure_ascii=False)
    return path


def drawn_by_hand(result, raw_files, per_set=20):
    """The rule, written again from its words: per set, the rows no rule
    sends to a person, ordered by the sha256 of their raw line's run id, a
    line feed and their id; the first ``per_set``. ``{set: [ids]}``."""
    run_ids = {}
    for path in raw_files:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                line = json.loads(line)
                run_ids[line["id"]] = line["run"]["run_id"]
    keyed = {}
    for row in result["questions"]:
        if not row["review_required"]:
            digest = hashlib.sha256((run_ids[row["id"]] + "\n" + row["id"]).encode("utf-8"))
            keyed.setdefault(row["set"], []).append((digest.hexdigest(), row["id"]))
    return {name: [qid for _, qid in sorted(items)[:per_set]] for name, items in keyed.items()}


def sampled_ids(block):
    return {s["set"]: [item["id"] for item in s["sampled"]] for s in block["sets"]}


def completed(reviews_path, questions, raws, *, overturn=(), faulty=(), drop=()):
    """The reviews file at ``reviews_path`` completed as a reviewer would
    from the review sheet: an entry keeping the mechanical verdict for every
    answer a person must read that has none, and one for every measure of
    every sampled pass; ``overturn`` (id, measure) set false, ``faulty`` ids
    marked faulty instead, ``drop`` (id, measure) left out. Returns the doc."""
    doc = json.loads(read(reviews_path)) if os.path.exists(reviews_path) else \
        {"format": 1, "reviews": []}
    result = old_score(questions, raws, reviews_path if doc["reviews"] else None)
    for row in result["questions"]:
        if row["review_required"] and not row["reviewed"]:
            failed = [m for m in MEASURES if row["mechanical"][m] is False]
            measure = "declined_when_not_on_site" if row["kind"] == "not_on_site" else \
                (failed or ["correct_facts"])[0]
            doc["reviews"].append({"id": row["id"], "measure": measure,
                                   "value": row["mechanical"][measure], "reason": "read"})
    for item in result["sampled_review"]["coverage"]["missing"]:
        if item["id"] in faulty:
            doc["reviews"].append({"id": item["id"], "faulty": True, "reason": "two answers"})
            continue
        for measure in item["measures"]:
            if (item["id"], measure) not in drop:
                doc["reviews"].append({"id": item["id"], "measure": measure,
                                       "value": (item["id"], measure) not in overturn,
                                       "reason": "read against the page"})
    write_json(reviews_path, doc)
    return doc


class TempCase(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def path(self, name):
        return os.path.join(self.tmp, name)


class TheDraw(TempCase):
    def test_the_sample_is_the_rules_recomputed_from_sha256(self):
        # The demo-2026-12 quarter's inputs, re-scored under the newest rules.
        result = old_score(QUESTIONS, RAWS, REVIEWS)
        block = result["sampled_review"]
        by_hand = drawn_by_hand(result, RAWS)
        self.assertEqual(sampled_ids(block), by_hand)
        rows = {row["id"]: row for row in result["questions"]}
        for entry in block["sets"]:
            candidates = [r for r in result["questions"]
                          if r["set"] == entry["set"] and not r["review_required"]]
            self.assertEqual(entry["candidates"], len(candidates))
            self.assertGreater(entry["candidates"], 0)
            self.assertEqual(len(entry["sampled"]), min(20, len(candidates)))
            for item in entry["sampled"]:
                self.assertEqual(item["sha256"], hashlib.sha256(
                    f"{item['run_id']}\n{item['id']}".encode("utf-8")).hexdigest())
        drawn = {qid for ids in by_hand.values() for qid in ids}
        self.assertEqual({qid for qid, row in rows.items() if row["sampled"]}, drawn)
        # Only passes no rule sends to a person: never a not-on-site answer.
        self.assertTrue(all(rows[qid]["kind"] == "answerable" for qid in drawn))

    def test_the_mini_sample_is_pinned(self):
        # Every candidate of the fixture (5, fewer than 20), in the rule's
        # order; each digest computed outside Python, e.g.
        #   printf 'worked-example\nmini-ru-02' | sha256sum
        block = old_score([MINI_QUESTIONS], [MINI_RAW])["sampled_review"]
        self.assertEqual(block["per_set"], 20)
        self.assertEqual([(item["id"], item["sha256"][:16]) for item in block["sets"][0]["sampled"]],
                         [("mini-ru-02", "07de9319f6bd4534"), ("mini-en-04", "75e50dd5a6e1bec5"),
                          ("mini-en-01", "9a73a6708ef79d79"), ("mini-he-02", "b424f6d6022234cd"),
                          ("mini-he-01", "eb052fc755d79d1b")])
        self.assertEqual(block["sets"][0]["candidates"], 5)

    def test_the_same_on_every_run_in_any_order(self):
        # Through a real interpreter twice, and in process on shuffled and split raw lines.
        outputs = []
        for run in range(2):
            out = self.path(f"run{run}.json")
            proc = support.run_script("score.py", *QUESTIONS, *RAWS, "--json", out,
                                      "--rules-as-of", RULES)
            self.assertEqual((proc.returncode, proc.stderr), (0, ""))
            outputs.append(json.loads(read(out))["sampled_review"])
        self.assertEqual(outputs[0], outputs[1])
        lines = [line for path in RAWS for line in read(path).splitlines(keepends=True)]
        random.Random(20261202).shuffle(lines)
        parts = [self.path("a.jsonl"), self.path("b.jsonl")]
        for part, chunk in zip(parts, (lines[:77], lines[77:])):
            with open(part, "w", encoding="utf-8", newline="\n") as fh:
                fh.write("".join(chunk))
        self.assertEqual(old_score(QUESTIONS, parts)["sampled_review"], outputs[0])

    def test_at_most_twenty_a_set_and_the_rest_counted_outside(self):
        def made(name, number, kind="answerable"):
            qid = f"{name}-{number:02d}"
            after = {m: (True if m in APPLIES[kind] else None) for m in MEASURES}
            return {"id": qid, "set": name, "kind": kind, "run_id": "r1",
                    "sha256": sampling.sample_key("r1", qid), "after_review": after,
                    "faulty": False, "entries": set()}

        candidates = [made("big", n) for n in range(45)] + [made("small", n) for n in range(7)]
        block, ids = sampling.sampled_review(candidates, ["big", "small"])
        big = sorted(candidates[:45], key=lambda c: hashlib.sha256(
            ("r1\n" + c["id"]).encode("utf-8")).hexdigest())
        small = sorted((f"small-{n:02d}" for n in range(7)),
                       key=lambda qid: hashlib.sha256(("r1\n" + qid).encode("utf-8")).hexdigest())
        self.assertEqual(sampled_ids(block), {"big": [c["id"] for c in big[:20]], "small": small})
        self.assertEqual(len(ids), 27)
        figures = {g["set"]: g for g in block["figures"]}
        self.assertEqual(figures["big"]["correct_facts"],
                         {"reviewed": 0, "overturned": 0, "rate": None, "interval": None,
                          "not_reviewed": 20, "unsampled_passes": 25})
        self.assertEqual(figures["all"]["delivered"]["unsampled_passes"], 25)
        self.assertEqual(figures["all"]["declined_when_not_on_site"]["not_reviewed"], 0)
        self.assertEqual(block["coverage"], {"sampled": 27, "reviewed": 0, "missing": [
            {"id": qid, "measures": ["delivered", "correct_facts", "right_page_cited",
                                     "in_question_language"]}
            for name in ("big", "small") for qid in sampled_ids(block)[name]]})

    def test_reviews_cannot_move_the_draw(self):
        plain = old_score(QUESTIONS, RAWS, REVIEWS)["sampled_review"]
        first_biz, first_med = (sampled_ids(plain)[s][0] for s in SETS)
        path = shutil.copy(REVIEWS, self.path("reviews.json"))
        completed(path, QUESTIONS, RAWS, overturn={(first_biz, "correct_facts")},
                  faulty={first_med})
        block = old_score(QUESTIONS, RAWS, path)["sampled_review"]
        self.assertEqual(block["sets"], plain["sets"])
        # A faulty sampled answer is reviewed, and out of every rate.
        self.assertEqual(block["coverage"]["missing"], [])
        sampled = {s: len(ids) for s, ids in sampled_ids(block).items()}
        figures = {g["set"]: g for g in block["figures"]}
        self.assertEqual(figures["med"]["delivered"]["reviewed"], sampled["med"] - 1)
        self.assertEqual(figures["biz"]["correct_facts"]["overturned"], 1)
        self.assertEqual(figures["biz"]["right_page_cited"]["overturned"], 0)

    def test_a_candidate_without_a_run_id_is_refused_naming_its_line(self):
        lines = read(MINI_RAW).splitlines(keepends=True)
        line = json.loads(lines[0])
        self.assertEqual(line["id"], "mini-en-01")  # a candidate: it passes every measure
        del line["run"]["run_id"]
        lines[0] = json.dumps(line) + "\n"
        raw = self.path("raw.jsonl")
        with open(raw, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("".join(lines))
        code, out, err = call_main(score, [MINI_QUESTIONS, raw, "--rules-as-of", RULES])
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(err, f"score.py: {raw}:1: run.run_id must be a non-empty string: the "
                              "sampled review of passes is drawn from it (rules of 2026-12-02)\n")
        # Under the rules of its date the line is scored as before.
        self.assertEqual(call_main(score, [MINI_QUESTIONS, raw, "--rules-as-of", "2026-12-01"])[0], 0)


class Figures(TempCase):
    def test_the_wilson_interval_of_the_worked_example_by_hand(self):
        # 2 of 40 overturned, p = 0.05, z² = 3.841459:
        #   centre = (0.05 + 3.841459/80) / (1 + 3.841459/40) = 0.0980182 / 1.0960365 = 0.0894297
        #   half   = 1.959964 / 1.0960365 * sqrt(0.05 * 0.95 / 40 + 3.841459 / 6400)
        #          = 1.788229 * sqrt(0.0011875 + 0.00060023) = 1.788229 * 0.0422815 = 0.0756091
        #   interval 0.0138207 .. 0.1650388
        low, high = wilson(2, 40)
        self.assertAlmostEqual(low, 0.0138207, places=6)
        self.assertAlmostEqual(high, 0.1650388, places=6)
        # None overturned: the upper end is z² / (n + z²): 16% of 20, 9% of 40.
        for n, upper in ((20, 3.841459 / 23.841459), (40, 3.841459 / 43.841459)):
            self.assertEqual(wilson(0, n)[0], 0.0)
            self.assertAlmostEqual(wilson(0, n)[1], upper, places=6)
        self.assertAlmostEqual(wilson(0, 20)[1], 0.1611, places=4)
        self.assertAlmostEqual(wilson(0, 40)[1], 0.0876, places=4)

    def test_the_worked_example_as_printed(self):
        # With 27 passes outside the sample: 2/40 x 27 = 1.35, and the ends
        # 0.0138207 x 27 = 0.37, 0.1650388 x 27 = 4.46.
        self.assertEqual(sample_texts({"reviewed": 40, "overturned": 2, "not_reviewed": 0,
                                       "unsampled_passes": 27}),
                         {"overturned": "2/40", "rate": "5%", "interval": "1%–17%",
                          "unsampled": "27", "expected": "1.4 (0.4–4.5)"})
        self.assertEqual(sample_texts({"reviewed": 0, "overturned": 0, "not_reviewed": 5,
                                       "unsampled_passes": 0}),
                         {"overturned": "–", "rate": "–", "interval": "–", "unsampled": "0",
                          "expected": "–"})

    def test_results_json_rounds_once_to_four_places(self):
        # 1 of 3 reviewed passes overturned: 0.3333, Wilson (0.0615, 0.7923).
        candidates = []
        for n in range(3):
            qid = f"x-{n}"
            after = {m: (m in APPLIES["answerable"]) or None for m in MEASURES}
            if n == 0:
                after["correct_facts"] = False
            candidates.append({"id": qid, "set": "x", "kind": "answerable", "run_id": "r",
                               "sha256": sampling.sample_key("r", qid), "after_review": after,
                               "faulty": False, "entries": set(APPLIES["answerable"])})
        block, _ = sampling.sampled_review(candidates, ["x"])
        self.assertEqual(block["figures"][0]["correct_facts"],
                         {"reviewed": 3, "overturned": 1, "rate": 0.3333,
                          "interval": [0.0615, 0.7923], "not_reviewed": 0,
                          "unsampled_passes": 0})
        self.assertEqual(block["figures"][0]["declined_when_not_on_site"]["rate"], None)
        self.assertEqual([g["set"] for g in block["figures"]], ["x"])  # no "all" of one set

    def test_a_reviewed_sample_counts_what_was_overturned(self):
        path = shutil.copy(REVIEWS, self.path("reviews.json"))
        first = sampled_ids(old_score(QUESTIONS, RAWS, REVIEWS)["sampled_review"])
        overturned = {(first["biz"][0], "correct_facts"), (first["med"][0], "right_page_cited")}
        completed(path, QUESTIONS, RAWS, overturn=overturned)
        result = old_score(QUESTIONS, RAWS, path)
        block = result["sampled_review"]
        n = sum(len(ids) for ids in first.values())
        figures = {g["set"]: g for g in block["figures"]}
        self.assertEqual(figures["all"]["correct_facts"],
                         {"reviewed": n, "overturned": 1, "rate": round(1 / n, 4),
                          "interval": [round(end, 4) for end in wilson(1, n)],
                          "not_reviewed": 0, "unsampled_passes": sum(
                              s["candidates"] - len(s["sampled"]) for s in block["sets"])})
        self.assertEqual(figures["biz"]["correct_facts"]["overturned"], 1)
        self.assertEqual(figures["med"]["correct_facts"]["overturned"], 0)
        self.assertEqual(figures["med"]["right_page_cited"]["overturned"], 1)
        self.assertEqual(block["coverage"]["reviewed"], n)
        # An overturned pass is a verdict set by review like any other.
        rows = {row["id"]: row for row in result["questions"]}
        self.assertIs(rows[first["biz"][0]]["after_review"]["correct_facts"], False)
        markdown = render_markdown(result)
        low, high = wilson(1, n)
        self.assertIn(f"| all | Correct facts | 1/{n} | {1 / n * 100:.0f}% | "
                      f"{low * 100:.0f}%–{high * 100:.0f}% |", markdown)
        self.assertIn(f"Review of the sample: {n} of {n} sampled answers have an entry for "
                      "every measure that applies.\n", markdown)


class Outputs(TempCase):
    def test_results_md_json_and_the_three_pages_show_it(self):
        path = shutil.copy(REVIEWS, self.path("reviews-x.json"))
        completed(path, QUESTIONS, RAWS)
        md, js, page = self.path("results.md"), self.path("results.json"), self.path("index.html")
        code, out, err = call_main(score, QUESTIONS + RAWS + [
            "--reviews", path, "--out", md, "--json", js, "--html", page, "--rules-as-of", RULES])
        self.assertEqual((code, out, err), (0, "", ""))
        doc = json.loads(read(js))
        block = doc["sampled_review"]
        self.assertEqual(sampled_ids(block), drawn_by_hand(doc, RAWS))
        markdown = read(md)
        self.assertIn("\n## Sampled review of passes\n", markdown)
        # Beside the figures: right after the results table and its review line.
        self.assertLess(markdown.index("Human review:"), markdown.index("## Sampled review"))
        self.assertLess(markdown.index("## Sampled review"), markdown.index("## Faulty"))
        table = [line for line in markdown.split("## Sampled review of passes")[1]
                 .split("\n\n")[2].splitlines()[2:]]
        self.assertEqual([line.split(" | ")[:2] for line in table],
                         [[f"| {s}", title] for s in ("biz", "med", "all")
                          for title in ("Delivered", "Correct facts", "Right page cited",
                                        "Answer in the question's language")])
        n = len(sampled_ids(block)["biz"]) + len(sampled_ids(block)["med"])
        self.assertIn(f"| all | Correct facts | 0/{n} | 0% | 0%–", markdown)
        english = None
        for lang, name in page_names().items():
            with self.subTest(page=name):
                html = read(self.path(name))
                parser = check(html)
                self.assertEqual((parser.errors, parser.stack, parser.scripts), ([], [], 0))
                self.assertIn(f"<h2>{LABELS['sample'][lang]}</h2>", html)
                section = html.split('<table class="sample">')[1].split("</table>")[0]
                numbers = re.findall(r'<td class="n">(.*?)</td>', section)
                self.assertEqual(len(numbers), 5 * len(table))
                english = english or numbers
                self.assertEqual(numbers, english)  # the same numbers on every page
                self.assertIn(LABELS["sample_complete"][lang].split("{")[0], html)
        self.assertIn(f'<span dir="ltr" class="fig">0/{n}</span>', english)

    def test_the_review_sheet_lists_the_sample_with_its_entries(self):
        sheet = self.path("sheet.md")
        code, out, err = call_main(score, [MINI_QUESTIONS, MINI_RAW, "--review-sheet", sheet,
                                           "--reviews-to", "build/x/reviews-x.json",
                                           "--rules-as-of", RULES])
        self.assertEqual((code, out, err), (0, "", ""))
        text = read(sheet)
        sampled = text.split("\n## Sampled passes\n")[1].split("\n## The reviews file\n")[0]
        self.assertEqual(re.findall(r"\n### (\S+) ", sampled),
                         ["mini-en-01", "mini-en-04", "mini-he-01", "mini-he-02", "mini-ru-02"])
        self.assertIn('\n    {"id": "mini-ru-02", "measure": "right_page_cited", "value": true, '
                      '"reason": "TODO"}\n', sampled)
        self.assertEqual(sampled.count('"reason": "TODO"'), 5 * 4)
        pasted = json.loads(text.split("```json\n")[1].split("```")[0])
        self.assertEqual(len(pasted["reviews"]), 8 + 5 * 4)
        for item in pasted["reviews"]:
            item["reason"] = "read; the mechanical verdict stands"
        result = old_score([MINI_QUESTIONS], [MINI_RAW],
                              write_json(self.path("reviews.json"), pasted))
        self.assertEqual(result["sampled_review"]["coverage"],
                         {"sampled": 5, "reviewed": 5, "missing": []})
        self.assertEqual(result["review_coverage"]["missing"], [])

    def test_older_rules_write_byte_for_byte_what_0_4_0_wrote(self):
        code, _, err = call_main(score, [
            MINI_QUESTIONS, MINI_RAW, "--reviews", MINI_REVIEWS, "--rules-as-of", "2026-12-01",
            "--out", self.path("mini-results.md"), "--json", self.path("mini-results.json"),
            "--html", self.path("index.html")])
        self.assertEqual(code, 0, err)
        # The numbers, byte for byte; the pages are today's (a presentation of
        # results.json, held to what they show: evalkit/pages/shown.py).
        sums = {name: sha256_file(self.path(name)) for name in record.NUMBERS}
        self.assertEqual(sums, {name: record.recorded()["0.4.0"][name] for name in record.NUMBERS})
        self.assertEqual(sorted(os.listdir(self.tmp)), sorted(
            list(record.NUMBERS) + ["index.html", "index.he.html", "index.ru.html"]))
        self.assertNotIn('"sampled', read(self.path("mini-results.json")))


def completed_by_measure(reviews_path, questions, raws, *, overturn=(), faulty=(), drop=()):
    """The reviews file completed as a reviewer would from the review sheet
    under the newest rules: an entry keeping the mechanical verdict for every
    measure asked or sampled that has none; ``overturn`` (id, measure) set
    false, ``faulty`` ids marked faulty instead, ``drop`` (id, measure) left
    out. Returns the doc."""
    doc = json.loads(read(reviews_path)) if os.path.exists(reviews_path) else \
        {"format": 1, "reviews": []}
    result = siteqa.score(questions, raws, reviews_path if doc["reviews"] else None)
    have = {(e["id"], e.get("measure")) for e in doc["reviews"]}
    doc["reviews"] = [e for e in doc["reviews"] if e["id"] not in faulty]
    doc["reviews"] += [{"id": qid, "faulty": True, "reason": "two answers"} for qid in faulty]
    for row in result["questions"]:
        for measure in [] if row["id"] in faulty else row["asked"] + row["sampled"]:
            if (row["id"], measure) not in have | set(drop):
                doc["reviews"].append({"id": row["id"], "measure": measure,
                                       "value": row["mechanical"][measure]
                                       and (row["id"], measure) not in overturn,
                                       "reason": "read against the page"})
    write_json(reviews_path, doc)
    return doc


def sampled_by_measure(block):
    return {(s["set"], m["measure"]): m["sampled"] for s in block["sets"] for m in s["measures"]}


class PublishAndReproduce(TempCase):
    """The demo-2026-12 quarter's inputs published again under the newest
    rules (every measure read on its own: evalkit/rubric/passes.py), into a
    folder of this test's own."""

    def setUp(self):
        super().setUp()
        self.bench = self.path("bench")
        self.work = self.path("work")
        os.makedirs(self.bench)
        os.makedirs(self.work)
        for path in QUESTIONS:
            shutil.copy(path, self.bench)
        for path in RAWS:
            shutil.copy(path, self.work)
        self.reviews = shutil.copy(REVIEWS, os.path.join(self.work, "reviews-demo-3.json"))
        self.folder = os.path.join(self.bench, "demo-3")

    def publish(self, *flags):
        return call_main(publish, ["demo-3", "--from", self.work, "--bench", self.bench]
                         + list(flags))

    def inputs(self):
        return ([os.path.join(self.bench, os.path.basename(p)) for p in QUESTIONS],
                [os.path.join(self.work, os.path.basename(p)) for p in RAWS])

    def rewrite(self, name, change):
        """Change a published file and rewrite its MANIFEST entry to match,
        as someone covering their tracks would."""
        path = os.path.join(self.folder, name)
        doc = json.loads(read(path))
        change(doc)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
        manifest_path = os.path.join(self.folder, "MANIFEST.json")
        manifest = json.loads(read(manifest_path))
        manifest["files"][name].update(sha256=sha256_file(path), bytes=os.path.getsize(path))
        write_json(manifest_path, manifest)

    def published(self):
        return siteqa.score(*self.inputs(), self.reviews)["sampled_review"]

    def test_a_reviewed_sample_publishes_and_reproduces(self):
        completed_by_measure(self.reviews, *self.inputs())
        code, _, err = self.publish()
        self.assertEqual(code, 0, err)
        self.assertRegex(err, r"reviewed (\d+) of \1 required and (\d+) of \2 sampled\n$")
        code, out, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 0, out + err)
        self.assertIn("identical  results.json", out)

    def test_publish_refuses_an_unreviewed_sample_then_the_pages_say_so(self):
        sampled = sampled_by_measure(siteqa.score(*self.inputs())["sampled_review"])
        completed_by_measure(self.reviews, *self.inputs(), drop={
            (qid, measure) for (_s, measure), ids in sampled.items() for qid in ids})
        block = self.published()
        first = block["coverage"]["missing"][0]
        count = block["coverage"]["sampled"]
        code, _, err = self.publish()
        self.assertEqual(code, 2)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn(f"{count} of {count} sampled answers lack an entry for a measure sampled "
                      f"(first: {first['id']} {first['measures'][0]}); write them into "
                      f"{self.reviews}", err)
        self.assertIn("(make: PUBLISH_FLAGS=--allow-unreviewed)", err)
        self.assertNotIn("answers the rubric requires", err)
        self.assertFalse(os.path.exists(self.folder))
        code, _, err = self.publish("--allow-unreviewed")
        self.assertEqual(code, 0, err)
        manifest = json.loads(read(os.path.join(self.folder, "MANIFEST.json")))
        self.assertTrue(manifest["unreviewed_allowed"])
        self.assertEqual(manifest["sampled_review"]["missing"], block["coverage"]["missing"])
        for lang, name in page_names().items():
            note = LABELS["sample_missing"][lang].split("{")[0]
            self.assertIn(f'<p class="note">{note}', read(os.path.join(self.folder, name)))
        self.assertIn(f"Review of the sample: 0 of {count} sampled answers",
                      read(os.path.join(self.folder, "results.md")))
        # Every file is identical, yet the quarter is not verified: its
        # sample has no entries.
        code, out, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1)
        self.assertTrue(all(line.startswith(("identical", "verified", "shows"))
                            for line in out.splitlines()), out)
        self.assertEqual(err, f"reproduce.py: {self.folder}: NOT verified: the sampled review is "
                              f"incomplete: {count} of {count} sampled answers lack a review "
                              f"entry (first: {first['id']} {first['measures'][0]})\n")

    def test_reproduce_fails_for_a_sample_that_is_not_the_rules(self):
        completed_by_measure(self.reviews, *self.inputs())
        self.assertEqual(self.publish()[0], 0)
        drawn = sampled_by_measure(self.published())
        other = next(row["id"] for row in siteqa.score(*self.inputs(), self.reviews)["questions"]
                     if row["id"] not in drawn["med", "correct_facts"] and row["set"] == "med"
                     and row["kind"] == "answerable")

        def swap(doc):
            med = next(s for s in doc["sampled_review"]["sets"] if s["set"] == "med")
            facts = next(m for m in med["measures"] if m["measure"] == "correct_facts")
            facts["sampled"][0] = other
        self.rewrite("results.json", swap)
        code, out, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1, out)
        self.assertIn("differs    results.json", out)
        self.assertIn("    (the sample it names is not the one the rule draws from the inputs: "
                      f"med correct_facts {', '.join(drawn['med', 'correct_facts'])})\n", out)
        self.assertIn(f'    - "{other}",', out)
        self.assertIn("NOT reproduced", err)

    def test_reproduce_fails_for_a_missing_entry(self):
        completed_by_measure(self.reviews, *self.inputs())
        self.assertEqual(self.publish()[0], 0)
        first = sampled_by_measure(self.published())["biz", "right_page_cited"][0]
        reviews = os.path.join(self.folder, "reviews-demo-3.json")

        def drop(doc):
            doc["reviews"] = [entry for entry in doc["reviews"] if
                              (entry["id"], entry.get("measure")) != (first, "right_page_cited")]
        self.rewrite("reviews-demo-3.json", drop)
        self.assertEqual(len(json.loads(read(reviews))["reviews"]),
                         len(json.loads(read(self.reviews))["reviews"]) - 1)
        code, out, err = call_main(reproduce, [self.folder])
        self.assertEqual(code, 1, out)
        self.assertIn("verified   reviews-demo-3.json", out)
        self.assertIn("differs    results.json", out)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn("NOT verified: the sampled review is incomplete: 1 of ", err)
        self.assertIn(f"(first: {first} right_page_cited); and see the lines marked differs", err)


if __name__ == "__main__":
    unittest.main()
