"""review.html (issue 30, capability 3): a review made in the page gives a
reviews file that score.py reads and publish.py accepts, with the verdicts of
the JSON sheet route.

The page's script builds the file in the browser; ``reviewpage.reviews_file``
states the same rule in Python (the module's docstring). These tests hold the
Python rule to the sheet route and the page to the data the script reads; the
script itself is run in headless Chromium against the Python rule by
tests/test_review_found.py, where Chromium is installed."""

import json
import os
import re
import shutil

from tests.support import call_main, write_json
from tests.test_sample import QUESTIONS, RAWS, REVIEWS, TempCase
from tests.test_sample import completed_by_measure as completed

import publish  # noqa: E402
import score  # noqa: E402
from evalkit.pages import reviewpage  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.rubric.measures import MEASURES  # noqa: E402


class ReviewPage(TempCase):
    def setUp(self):
        super().setUp()
        self.bench, self.work = self.path("bench"), self.path("work")
        os.makedirs(self.bench)
        os.makedirs(self.work)
        for path in QUESTIONS:
            shutil.copy(path, self.bench)
        for path in RAWS:
            shutil.copy(path, self.work)
        self.questions = [os.path.join(self.bench, os.path.basename(p)) for p in QUESTIONS]
        self.raws = [os.path.join(self.work, os.path.basename(p)) for p in RAWS]
        self.start = shutil.copy(REVIEWS, self.path("reviews-start.json"))

    def decisions(self):
        """What one reviewer decided: a sampled pass overturned, another
        marked faulty; everything else read and kept."""
        result = siteqa.score(self.questions, self.raws, self.start)
        sampled = [row["id"] for row in result["questions"] if row.get("sampled")]
        return result, {(sampled[0], "correct_facts")}, {sampled[1]}

    def page_choices(self, result, overturn, faulty):
        """The same decisions made in the page, as its choices."""
        choices = {}
        for row in result["questions"]:
            if row["id"] in faulty:
                choices[row["id"]] = {"faulty": "two answers"}
            elif not row["reviewed"]:
                given = {r["measure"] for r in row["reviews"]}
                choices[row["id"]] = {m: (row["mechanical"][m] and (row["id"], m) not in overturn,
                                          "read against the page")
                                      for m in reviewpage.required_measures(row)
                                      if m not in given}
        return choices

    def verdicts(self, reviews):
        result = siteqa.score(self.questions, self.raws, reviews)
        return ({row["id"]: row["after_review"] for row in result["questions"]},
                [f["id"] for f in result["faulty"]], result)

    def test_the_page_and_the_sheet_give_the_same_verdicts_and_publish(self):
        result, overturn, faulty = self.decisions()
        sheet = shutil.copy(self.start, self.path("reviews-sheet.json"))
        completed(sheet, self.questions, self.raws, overturn=overturn, faulty=faulty)
        made = reviewpage.reviews_file(reviewpage.page_data(result),
                                       self.page_choices(result, overturn, faulty))
        page = os.path.join(self.work, "reviews-demo-3.json")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(made)
        by_page, faulty_page, scored = self.verdicts(page)
        by_sheet, faulty_sheet, _ = self.verdicts(sheet)
        self.assertEqual(by_page, by_sheet)
        self.assertEqual(faulty_page, faulty_sheet)
        self.assertEqual(faulty_page, sorted(faulty))
        (qid, measure), = overturn
        self.assertIs(by_page[qid][measure], False)
        self.assertEqual(scored["review_coverage"]["missing"], [])
        self.assertEqual(scored["sampled_review"]["coverage"]["missing"], [])
        code, _, err = call_main(publish, ["demo-3", "--from", self.work, "--bench", self.bench])
        self.assertEqual(code, 0, err)

    def test_untouched_the_page_gives_back_the_file_it_started_from(self):
        result = siteqa.score(self.questions, self.raws, self.start)
        made = json.loads(reviewpage.reviews_file(reviewpage.page_data(result)))
        with open(self.start, encoding="utf-8") as fh:
            started = json.load(fh)
        key = lambda entry: json.dumps(entry, sort_keys=True)  # noqa: E731
        self.assertEqual(sorted(map(key, made["reviews"])), sorted(map(key, started["reviews"])))

    def test_score_writes_the_page_with_the_data_its_script_reads(self):
        out = self.path("review.html")
        code, _, err = call_main(score, self.questions + self.raws + [
            "--reviews", self.start, "--review-page", out,
            "--reviews-to", "build/2026-Q4/reviews-2026-Q4.json"])
        self.assertEqual(code, 0, err)
        with open(out, encoding="utf-8") as fh:
            page = fh.read()
        block = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
        data = json.loads(block.group(1))
        result = siteqa.score(self.questions, self.raws, self.start)
        self.assertEqual(data, reviewpage.page_data(result))
        # One card per answer of the data, each with every measure's choice.
        for answer in data["answers"]:
            card = re.search(rf'<section class="a" data-id="{answer["id"]}">.*?</section>',
                             page, re.S).group(0)
            for item in answer["measures"]:
                self.assertIn(f'name="{answer["id"]}|{item["measure"]}" value="true"', card)
        self.assertEqual(len(data["answers"]), sum(
            1 for row in result["questions"] if row["review_required"] or row.get("sampled")))
        self.assertIn('download="reviews-2026-Q4.json"', page)
        self.assertEqual(page.count("<script"), 2)   # the data and the script, nothing fetched
        self.assertNotIn("fetch(", reviewpage.SCRIPT)
        self.assertNotIn("</", reviewpage.SCRIPT)

    def test_a_reason_that_would_close_the_data_block_stays_data(self):
        result = siteqa.score(self.questions, self.raws, self.start)
        row = next(r for r in result["questions"] if r["review_required"])
        row["reviews"] = [{"measure": reviewpage.required_measures(row)[0], "value": True,
                           "reason": "</script><script>alert(1)</script>"}]
        page = reviewpage.render_review_page(result, "reviews.json")
        block = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
        self.assertNotIn("<", block.group(1))
        self.assertIn("</script><script>alert(1)</script>", json.dumps(json.loads(block.group(1)),
                                                                       ensure_ascii=False))
        self.assertEqual(page.count("<script"), 2)
        self.assertTrue(all(m in MEASURES for a in json.loads(block.group(1))["answers"]
                            for m in [i["measure"] for i in a["measures"]]))
