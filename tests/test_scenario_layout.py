"""The scenario dashboard and its detail pages on a phone and a laptop
(issue 30, trap 2): a viewport setting, every column of a score table
labelled where a phone shows a row as a card, and what an n/a cell means
said on the dashboard as in results.md. The pages were looked at in headless
Chromium at 390 and 1280 px; this holds what was fixed then."""

import os
import re
import tempfile
import unittest
from html.parser import HTMLParser

from tests.support import ROOT, call_main

import score  # noqa: E402

RUN = os.path.join(ROOT, "evals", "permits", "results", "2026-12-01-local-cpu")
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


class Cards(HTMLParser):
    """For each table of class "cards": its header cells and, per body row,
    each cell's data-label (None where it has none)."""

    def __init__(self):
        super().__init__()
        self.tables, self.current, self.in_head = [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "cards" in (attrs.get("class") or "").split():
            self.current = {"heads": [], "rows": []}
            self.tables.append(self.current)
        elif self.current is None:
            return
        elif tag == "thead":
            self.in_head = True
        elif tag == "tr" and not self.in_head:
            self.current["rows"].append([])
        elif tag == "th" and self.in_head:
            self.current["heads"].append(None)
        elif tag == "td":
            self.current["rows"][-1].append(attrs.get("data-label"))

    def handle_endtag(self, tag):
        if tag == "thead":
            self.in_head = False
        elif tag == "table":
            self.current = None


class ScenarioLayout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        files = sorted(os.path.join(RUN, f) for f in os.listdir(RUN) if f.endswith(".jsonl"))
        code, _, err = call_main(score, [os.path.join(ROOT, "evals", "permits", "scenarios.json")]
                                 + files + ["--out", os.path.join(cls.tmp.name, "results.md"),
                                            "--html-dir", cls.tmp.name])
        assert code == 0, err
        with open(os.path.join(cls.tmp.name, "index.html"), encoding="utf-8") as fh:
            cls.dashboard = fh.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_page_sets_the_viewport(self):
        self.assertIn(VIEWPORT, self.dashboard)
        detail = os.path.join(self.tmp.name, "detail")
        for name in sorted(os.listdir(detail)):
            with open(os.path.join(detail, name), encoding="utf-8") as fh:
                self.assertIn(VIEWPORT, fh.read(), name)

    def test_a_phone_shows_each_cell_with_its_column(self):
        parser = Cards()
        parser.feed(self.dashboard)
        # One table per evaluator and the cross-evaluation table.
        self.assertGreaterEqual(len(parser.tables), 2)
        for table in parser.tables:
            for row in table["rows"]:
                self.assertEqual(len(row), len(table["heads"]))
                # The first cell names the row (a scenario, an evaluator):
                # every other cell says which column it is.
                self.assertTrue(all(row[1:]), row)
        self.assertIn("@media (max-width:40rem)", self.dashboard)
        self.assertIn("table.cards td::before{content:attr(data-label)", self.dashboard)

    def test_no_page_is_wider_than_a_phone(self):
        """Issue 40: at 390 px the dashboard was 681 px wide (a sha256 in its
        provenance, a table wider than the screen). Every table scrolls in a
        box of its own, and a word longer than its box breaks."""
        details = os.path.join(self.tmp.name, "detail")
        pages = [self.dashboard]
        for name in sorted(os.listdir(details)):
            with open(os.path.join(details, name), encoding="utf-8") as fh:
                pages.append(fh.read())
        for page in pages:
            self.assertEqual(page.count("<table"), page.count('<div class="wide"><table'))
            self.assertIn("p,li,h1,h2,blockquote{overflow-wrap:anywhere}"
                          "td,th{overflow-wrap:break-word}", page)

    def test_the_dashboard_says_what_n_a_means_as_results_md_does(self):
        said = ("n/a where there was nothing to score (no atom); failed: the atomization "
                "failed; not reached: the evaluator has no atoms line for the answer; refused: "
                "the evaluator and the generator are one model family (the family rule). With an "
                "evaluator that looked the code up, each cell also says how many of its "
                "factual atoms rest on a section the evaluator read (verified K/N); Accurate "
                "counts them all.")
        with open(os.path.join(self.tmp.name, "results.md"), encoding="utf-8") as fh:
            self.assertIn(said, fh.read())
        self.assertIn(said, re.sub(r"<[^>]+>", "", self.dashboard))


if __name__ == "__main__":
    unittest.main()
