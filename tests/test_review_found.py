"""review.html as an outside tester found it (issue 30's review page,
evalkit/pages/reviewpage.py), each defect held here:

1. a card did not say why its answer is there: the flags, what they found,
   the sampled-pass mark (the review sheet shows all three);
2. the page lost a reviewer's choice without a word (a verdict switched
   with no reason, a faulty box ticked with none) and counted TODO as done,
   which score.py refuses;
3. a bidi control in an answer, a source or a reason acted on the page
   ("$53" shown as "$35"), and an override in one source reordered the next;
4. a long answer made the page half a million pixels wide, and on a phone
   the reason boxes were 66 px wide;
5. without scripts the button did nothing and nothing said so;
6. the labels named one thing with two words (Hebrew "set", Russian
   "faulty");
7. the page did not say which reviews file, rules or scorer it is for.

The page's rule is stated twice, in Python (``reviewpage.made``) and in its
script; tests/test_reviewpage.py holds the Python to the sheet route. Here
the script is run in headless Chromium where one is installed (skipped
otherwise: the standard library has no browser; tests/chromium.py drives it)
against the Python, on the same choices, and the page's layout is measured
at 390 px."""

import hashlib
import html
import json
import os
import re
import tempfile
import unicodedata
import unittest

from tests.chromium import CHROMIUM, Chromium
from tests.test_sample import QUESTIONS, RAWS, REVIEWS

from evalkit.pages import explore, reviewpage  # noqa: E402
from evalkit.pages.pagelabels import LABELS  # noqa: E402
from evalkit.rubric import report, siteqa  # noqa: E402
from evalkit.rubric.measures import FLAGS, TITLES  # noqa: E402
from evalkit.rubric.report import render_review_sheet  # noqa: E402
from evalkit.rubric.reviews import load_reviews  # noqa: E402
from evalkit import BadInput  # noqa: E402

NAME = "build/2026-Q4/reviews-2026-Q4.json"
# The reviews file the page made for ``decisions`` before these fixes
# (tools 0.7.0's reviewpage.reviews_file): a valid review makes it still.
DECIDED_SHA256 = "c351d31e28338d7d0ea6d1d5c0dff123c9eced9f61f63a8ba812ac2312c676a1"
OVERRIDE = "\u202e"


def demo(reviews=None, rules="2026-12-02.3"):
    """The demo quarter's answers scored under the last rules of one entry an
    answer (the newest ask one a measure: ByMeasure below)."""
    return siteqa.score(QUESTIONS, RAWS, reviews, rules)


def decisions(result):
    """A whole review made on the page: every required answer read, its
    verdict kept; a sampled pass overturned on Correct facts, one marked
    faulty (its reason with an override), one read with a Hebrew reason."""
    choices = {}
    for row in result["questions"]:
        if row["review_required"]:
            (m,) = reviewpage.required_measures(row)
            choices[row["id"]] = {m: (row["mechanical"][m], "read")}
    sampled = [row for row in result["questions"] if row.get("sampled")]
    choices[sampled[0]["id"]] = {m: (m != "correct_facts", 'read "against" the page \\ — ✓')
                                 for m in reviewpage.required_measures(sampled[0])}
    choices[sampled[1]["id"]] = {"faulty": f"two answers, {OVERRIDE}$53 "}
    choices[sampled[2]["id"]] = {m: (True, " נקרא מול הדף")
                                 for m in reviewpage.required_measures(sampled[2])}
    return choices


def card(page, qid):
    return re.search(rf'<section class="a" data-id="{re.escape(qid)}">.*?</section>', page,
                     re.S).group(0)


def passing_row(result):
    """A required answer that passed every measure (flagged), to give flags."""
    return next(row for row in result["questions"] if row["review_required"]
                and row["kind"] == "answerable" and False not in row["mechanical"].values())



def mark(code):
    """How a page shows the bidi control ``code`` (explore.inert)."""
    return (f'<code class="bidi" dir="ltr" title="{unicodedata.name(chr(code))}">'
            f"U+{code:04X}</code>")

class WhyItIsHere(unittest.TestCase):
    """1. Each card says why its answer is there, in the sheet's words."""

    @classmethod
    def setUpClass(cls):
        cls.result = demo()
        row = passing_row(cls.result)
        row["flags"] = ["echo", "negation"] + row["flags"]
        row["details"]["negation_words"] = ["not", "ללא"]
        cls.flagged = row
        cls.page = reviewpage.render_review_page(cls.result, NAME)
        cls.sheet = render_review_sheet(cls.result, NAME)

    def test_each_flag_with_what_it_found_as_the_sheet_says(self):
        rows = [row for row in self.result["questions"] if row.get("flags")]
        self.assertGreaterEqual(len(rows), 2)
        for row in rows:
            with self.subTest(row["id"]):
                shown = card(self.page, row["id"])
                self.assertIn("Flags (it passed, but):", shown)
                for flag in row["flags"]:
                    self.assertIn(f"<li><code>{flag}</code>: {html.escape(FLAGS[flag])}", shown)
                    self.assertIn(FLAGS[flag], self.sheet)
                    for word in row["details"].get(report.FLAG_FOUND.get(flag), []):
                        self.assertIn(f"<bdi>{html.escape(word)}</bdi>", shown)
        self.assertIn("(<bdi>not</bdi>, <bdi>ללא</bdi>)", card(self.page, self.flagged["id"]))

    def test_a_sampled_pass_is_marked_as_one(self):
        per_set = self.result["sampled_review"]["per_set"]
        for row in self.result["questions"]:
            if not (row["review_required"] or row.get("sampled")):
                continue
            shown = card(self.page, row["id"])
            with self.subTest(row["id"]):
                self.assertEqual('<span class="mark">sampled pass</span>' in shown,
                                 bool(row.get("sampled")))
                if row.get("sampled"):
                    self.assertIn(f"question id, {per_set} a set)", shown)

    def test_a_failed_or_not_on_site_answer_says_so(self):
        for row in self.result["questions"]:
            failed = [TITLES[m] for m, v in row["mechanical"].items() if v is False]
            if not row["review_required"] or not (failed or row["kind"] == "not_on_site"):
                continue
            shown = card(self.page, row["id"])
            with self.subTest(row["id"]):
                self.assertIn("Why it is here: ", shown)
                if failed:
                    self.assertIn("it failed " + ", ".join(sorted(
                        failed, key=list(TITLES.values()).index)), shown)
                if row["kind"] == "not_on_site":
                    self.assertIn("every answer to a not-on-site question", shown)


class ByMeasure(unittest.TestCase):
    """1b. Under the rules of 2026-12-03 on, each card names every measure to
    read and why, as the sheet's "To judge" line does (report.to_read)."""

    def test_each_measure_to_read_with_why(self):
        result = demo(rules=None)
        page = reviewpage.render_review_page(result, NAME)
        for row in result["questions"]:
            measures = report.to_read(row)
            if not measures:
                continue
            shown = card(page, row["id"])
            with self.subTest(row["id"]):
                self.assertIn("Why it is here: " + "; ".join(
                    f"{html.escape(TITLES[m])} ({html.escape(reviewpage.WHY[why])})"
                    for m, why in measures) + ".", shown)
                self.assertEqual(reviewpage.required_measures(row), [m for m, _ in measures])


class Refused(unittest.TestCase):
    """2. The page makes no file that score.py refuses or that drops a
    choice it shows; its problems name the answer and the measure."""

    @classmethod
    def setUpClass(cls):
        cls.result = demo()
        cls.data = reviewpage.page_data(cls.result)
        cls.row = passing_row(cls.result)
        (cls.required,) = reviewpage.required_measures(cls.row)
        cls.other = next(m for m in ("delivered", "in_question_language", "right_page_cited")
                         if m != cls.required)

    def problems(self, choices):
        with self.assertRaises(ValueError):
            reviewpage.reviews_file(self.data, choices)
        return reviewpage.made(self.data, choices)[1]

    def test_a_verdict_switched_without_a_reason_is_refused(self):
        qid = self.row["id"]
        self.assertEqual(self.problems({qid: {self.other: (False, "  ")}}), [
            f"{qid}, {TITLES[self.other]}: fail is not the mechanical verdict and needs a "
            "reason, or it is left out"])

    def test_a_faulty_box_ticked_without_a_reason_is_refused(self):
        qid = self.row["id"]
        for reason in ("", "   ", "todo"):
            with self.subTest(reason=reason):
                (problem,) = self.problems({qid: {"faulty": reason,
                                                  self.required: (True, "read")}})
                self.assertTrue(problem.startswith(f"{qid}, faulty question: the reason "),
                                problem)

    def test_todo_or_two_lines_is_refused_and_blank_is_not_done(self):
        qid = self.row["id"]
        self.assertEqual(self.problems({qid: {self.required: (True, " ToDo ")}}), [
            f"{qid}, {TITLES[self.required]}: the reason is still TODO (write what you read)"])
        self.assertEqual(self.problems({qid: {self.required: (True, "read\u2028twice")}}), [
            f"{qid}, {TITLES[self.required]}: the reason must be one line"])
        required = sum(1 for row in self.result["questions"] if row["review_required"]) + \
            sum(len(reviewpage.required_measures(row)) for row in self.result["questions"]
                if row.get("sampled"))
        # Every answer is left until its required measures have a reason.
        answers = [answer["id"] for answer in self.data["answers"]]
        self.assertEqual(len(answers), sum(1 for row in self.result["questions"]
                                           if row["review_required"] or row.get("sampled")))
        self.assertLess(len(answers), required)
        self.assertEqual(reviewpage.made(self.data)[2], answers)
        self.assertEqual(reviewpage.made(self.data, {qid: {self.required: (True, "read")}})[2],
                         [a for a in answers if a != qid])

    def test_what_the_page_refuses_score_py_refuses_or_would_lose(self):
        # Each refused choice, written as the page wrote it before: the
        # loader refuses it, or reads back a verdict other than the one shown.
        qid, questions = self.row["id"], {q["id"]: q for q in self.result["questions"]}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "reviews.json")
            for reason in ("TODO", "read\u2028twice"):
                with open(path, "w", encoding="utf-8") as fh:
                    json.dump({"format": 1, "reviews": [{"id": qid, "measure": self.required,
                                                         "value": True, "reason": reason}]}, fh)
                with self.assertRaises(BadInput):
                    load_reviews(path, questions)
            # A fail chosen with no reason was written as no entry: read
            # back, the answer passes, as if nobody had chosen.
            with open(path, "w", encoding="utf-8") as fh:
                json.dump({"format": 1, "reviews": []}, fh)
            (row,) = [r for r in siteqa.score(QUESTIONS, RAWS, path)["questions"]
                      if r["id"] == qid]
        self.assertIs(row["after_review"][self.other], True)

    def test_a_file_made_is_read_as_the_page_shows_it(self):
        choices = decisions(self.result)
        made = reviewpage.reviews_file(self.data, choices)
        self.assertEqual(hashlib.sha256(made.encode("utf-8")).hexdigest(), DECIDED_SHA256)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "reviews-demo-3.json")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(made)
            scored = siteqa.score(QUESTIONS, RAWS, path)
        faulty = {f["id"] for f in scored["faulty"]}
        for row in scored["questions"]:
            for measure, chosen in choices.get(row["id"], {}).items():
                if measure == "faulty":
                    self.assertIn(row["id"], faulty)
                else:
                    self.assertEqual(row["after_review"][measure], chosen[0], row["id"])


class Inert(unittest.TestCase):
    """3. Stored text shows in logical order: every bidi control a marker,
    every source isolated; the reviews file keeps the characters."""

    def setUp(self):
        self.result = demo()
        rows = [row for row in self.result["questions"] if row["review_required"]]
        self.row, m = rows[0], reviewpage.required_measures(rows[0])[0]
        self.row["answer"] = f"It costs {OVERRIDE}$53\u202c a month\u2067."
        self.row["sources"] = [f"http://a.example/{OVERRIDE}x", "http://b.example/second"]
        self.row["reviews"] = [{"measure": m, "value": True, "reason": f"says {OVERRIDE}$53"}]
        self.page = reviewpage.render_review_page(self.result, NAME)

    def test_no_control_acts_and_each_is_shown(self):
        shown = card(self.page, self.row["id"])
        self.assertIn(f"It costs {mark(0x202E)}$53{mark(0x202C)} a month{mark(0x2067)}.", shown)
        self.assertIn(f'Sources: <code dir="ltr">http://a.example/{mark(0x202E)}'
                      'x</code>, <code dir="ltr">http://b.example/second</code>', shown)
        self.assertIn(f"stored as: <bdi>says {mark(0x202E)}$53</bdi>", shown)
        # Outside the data block and the text boxes' values, none is left.
        body = re.sub(r'<script type="application/json" id="data">.*?</script>', "", self.page,
                      flags=re.S)
        body = re.sub(r' value="[^"]*"', "", body)
        self.assertIsNone(explore.BIDI.search(body))

    def test_the_reason_keeps_its_characters_in_the_file(self):
        made = json.loads(reviewpage.reviews_file(reviewpage.page_data(self.result)))
        self.assertEqual(made["reviews"][0]["reason"], f"says {OVERRIDE}$53")
        self.assertIn(f'value="says {OVERRIDE}$53"', card(self.page, self.row["id"]))


class PageFrame(unittest.TestCase):
    """4, 5, 7: the style that wraps, the notice without scripts, the head."""

    @classmethod
    def setUpClass(cls):
        cls.result = demo(REVIEWS)
        cls.page = reviewpage.render_review_page(cls.result, NAME)

    def test_long_texts_wrap_and_a_phone_gets_full_width_reasons(self):
        style = reviewpage.STYLE
        self.assertIn("h1,section.a{overflow-wrap:anywhere}", style)
        self.assertIn("white-space:pre-wrap;overflow-wrap:anywhere}", style)   # the answer
        phone = style[style.index("@media (max-width:44rem)"):]
        self.assertIn("table.m td:last-child{display:block;width:100%}", phone)
        self.assertIn("input.reason,input.faulty-reason{width:100%}", style)

    def test_without_scripts_a_notice_says_to_use_the_sheet(self):
        notice = re.search(r"<noscript>(.*?)</noscript>", self.page, re.S).group(1)
        self.assertIn("Scripts are off", notice)
        self.assertIn("review-sheet.md", notice)
        self.assertIn("its last section, &quot;The reviews file&quot;", notice)
        self.assertIn(f"<code>{NAME}</code>", notice)
        # Before the answers; the button shown only by the script.
        self.assertLess(self.page.index("<noscript>"), self.page.index('<section class="a"'))
        self.assertIn('<div id="maker" hidden>', self.page)
        self.assertIn('byId("maker").hidden = false;', reviewpage.SCRIPT)

    def test_the_head_names_the_file_the_rules_and_the_scorer(self):
        p = self.result["provenance"]
        self.assertIn("<title>Review: reviews-2026-Q4.json</title>", self.page)
        self.assertIn(f"<li>Makes: <code>{NAME}</code></li>", self.page)
        self.assertIn(f"<li>Started from: <code>{p['reviews']['file']}</code> "
                      f"({p['reviews']['entries']} entries)</li>", self.page)
        self.assertIn(f"<li>Scoring rules as of: {p['decline_list_date']}</li>", self.page)
        self.assertIn(f"<li>Scored by: score.py {p['scorer']['version']}</li>", self.page)
        self.assertIn("<code>questions-biz.json</code>, <code>questions-med.json</code>",
                      self.page)
        fresh = reviewpage.render_review_page(demo(), "reviews-QUARTER.json")
        self.assertIn("<li>Started from: no reviews file", fresh)


class OneWordATerm(unittest.TestCase):
    """6. A set and a faulty question are one word each in every language."""

    def test_set_and_faulty(self):
        self.assertEqual(LABELS["filter_set"], LABELS["set"])
        self.assertIn("סט", LABELS["chart"]["he"])
        russian = " ".join(text["ru"] for text in LABELS.values()).lower()
        self.assertNotIn("ошибочн", russian)
        self.assertIn("некорректный", LABELS["state_faulty"]["ru"])
        hebrew = " ".join(text["he"] for text in LABELS.values())
        self.assertNotIn("קבוצה", hebrew)


# ---- the script itself, in headless Chromium ---------------------------------------------

WIDTH = 390
# Run on the page, after its script, with the scenarios as its argument: each
# scenario resets every box to the page's start, makes its choices, presses
# the button and records what the page shows; then the layout as the
# reviewer sees it in a viewport WIDTH px wide.
HARNESS = r"""(function (scenarios) {
  var boxes = Array.prototype.slice.call(document.querySelectorAll("section.a input"));
  var results = scenarios.map(function (actions) {
    boxes.forEach(function (box) { box.value = box.defaultValue; box.checked = box.defaultChecked; });
    actions.forEach(function (a) {
      var card = document.querySelector('section.a[data-id="' + CSS.escape(a.id) + '"]');
      if (a.measure === null) {
        card.querySelector("input.faulty").checked = a.reason !== null;
        card.querySelector("input.faulty-reason").value = a.reason || "";
        return;
      }
      var row = card.querySelector('tr[data-measure="' + a.measure + '"]');
      row.querySelector('input[value="' + a.value + '"]').checked = true;
      row.querySelector("input.reason").value = a.reason;
    });
    document.getElementById("make").click();
    var list = document.getElementById("problems");
    return {text: document.getElementById("out").value,
            todo: document.getElementById("todo").textContent,
            problems: list ? Array.prototype.map.call(list.children, function (li) {
              return li.textContent; }) : [],
            saved: !document.getElementById("save").hidden};
  });
  var live = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    var node = walker.currentNode;
    if (node.parentNode.nodeName !== "SCRIPT" && /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(node.nodeValue))
      live.push(node.nodeValue);
  }
  var widths = Array.prototype.map.call(document.querySelectorAll("input.reason"), function (box) {
    return box.getBoundingClientRect().width; });
  var maker = document.getElementById("maker");
  return {results: results, live: live, inner: window.innerWidth,
    scroll: document.documentElement.scrollWidth, reason: Math.min.apply(null, widths),
    maker: maker ? !maker.hidden : null};
})"""


def actions(choices):
    """The page's choices as what a reviewer does in it."""
    out = []
    for qid, chosen in choices.items():
        for measure, choice in chosen.items():
            out.append({"id": qid, "measure": None, "reason": choice} if measure == "faulty" else
                       {"id": qid, "measure": measure, "value": str(choice[0]).lower(),
                        "reason": choice[1]})
    return out


def run_in_chromium(page, scenarios):
    """What the harness recorded, the page loaded from a temporary folder in
    headless Chromium, its viewport WIDTH px wide."""
    block = json.dumps([actions(c) for c in scenarios], ensure_ascii=False)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "review.html")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
        browser = Chromium()
        try:
            tab = browser.tab(WIDTH)
            tab.open("file://" + path)
            return tab.evaluate(f"{HARNESS}({block})")
        finally:
            browser.close()


@unittest.skipUnless(CHROMIUM, "no Chromium on this machine")
class ScriptInChromium(unittest.TestCase):
    """2, 3, 4 as the browser runs the page: the script makes what ``made``
    makes, refuses what it refuses in the same words, and the page fits a
    phone with a 50,000-character answer."""

    @classmethod
    def setUpClass(cls):
        cls.result = demo()
        required = [row for row in cls.result["questions"] if row["review_required"]]
        required[0]["answer"] = "x" * 50000
        required[1]["answer"] = f"It costs {OVERRIDE}$53\u202c."
        required[1]["sources"] = [f"http://a.example/{OVERRIDE}x", "http://b.example/second"]
        # One question marked faulty in the reviews file the page starts from.
        stored = [row for row in cls.result["questions"] if row.get("sampled")][3]["id"]
        cls.result["faulty"].append({"id": stored, "reason": "asks two things"})
        cls.data = reviewpage.page_data(cls.result)
        row = passing_row(cls.result)
        (m,) = reviewpage.required_measures(row)
        other = "delivered" if m != "delivered" else "in_question_language"
        cls.scenarios = [
            {},
            decisions(cls.result),
            {row["id"]: {other: (False, "")}},
            {row["id"]: {"faulty": " "}},
            {row["id"]: {m: (True, "todo")}, required[2]["id"]: {
                reviewpage.required_measures(required[2])[0]: (True, "a\u2028b")}},
            dict(decisions(cls.result), **{row["id"]: {m: (True, "TODO"), other: (False, "")}}),
            {stored: {"faulty": None}},
        ]
        cls.ran = run_in_chromium(reviewpage.render_review_page(cls.result, NAME), cls.scenarios)

    def test_the_script_makes_and_refuses_as_made_states(self):
        for n, (choices, got) in enumerate(zip(self.scenarios, self.ran["results"])):
            entries, problems, left = reviewpage.made(self.data, choices)
            with self.subTest(scenario=n):
                self.assertEqual(got["problems"], problems)
                self.assertEqual(got["saved"], not problems)
                if problems:
                    self.assertEqual(got["text"], "")
                    self.assertTrue(got["todo"].startswith(f"Not made: {len(problems)} "))
                else:
                    self.assertEqual(got["text"], reviewpage.reviews_file(self.data, choices))
                    self.assertEqual(got["todo"], f"{len(left)} answer(s) still without a "
                                     "complete entry" if left else "every answer has a complete "
                                     "entry")
        self.assertEqual([bool(r["problems"]) for r in self.ran["results"]],
                         [False, False, True, True, True, True, False])
        self.assertIn('"faulty": true', self.ran["results"][0]["text"])
        self.assertNotIn('"faulty": true', self.ran["results"][-1]["text"])

    def test_no_bidi_control_acts_on_the_page(self):
        self.assertEqual(self.ran["live"], [])

    def test_a_phone_shows_the_page_its_width_with_full_width_reasons(self):
        self.assertEqual(self.ran["inner"], WIDTH)
        self.assertLessEqual(self.ran["scroll"], WIDTH)
        self.assertGreater(self.ran["reason"], WIDTH - 100)
        self.assertIs(self.ran["maker"], True)


if __name__ == "__main__":
    unittest.main()
