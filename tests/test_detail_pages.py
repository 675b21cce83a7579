"""Scenario detail pages never share a file (issue 26, C): ids that differ
only in case or punctuation each get a page of their own, named the same on
every run, distinct on a file system that ignores case, and the dashboard
links each cell to its own page."""

import json
import os
import re
import tempfile
import unittest

from tests.scenario_demo import run_demo
from tests.support import FIXTURES, ROOT, write_json

from evalkit.pages.scenario_pages import detail_name  # noqa: E402

IDS = ("Case-1", "case-1", "case_1")


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


class DetailPages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        doc = json.loads(read(os.path.join(FIXTURES, "scenarios-mini.json")))
        first = doc["scenarios"][0]
        doc["scenarios"] = [dict(first, id=sid) for sid in IDS]
        cases = write_json(os.path.join(cls.tmp.name, "scenarios.json"), doc)
        cls.out = os.path.join(cls.tmp.name, "demo")
        run_demo(cls.out, cases, sources=os.path.join(FIXTURES, "sources.json"),
                 jargon=os.path.join(FIXTURES, "jargon.json"))
        cls.result = json.loads(read(os.path.join(cls.out, "results.json")))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_cell_has_a_page_of_its_own(self):
        cells = self.result["cells"]
        self.assertEqual(sorted({c["scenario"] for c in cells}), sorted(IDS))
        names = sorted(os.listdir(os.path.join(self.out, "detail")))
        self.assertEqual(len(names), len(cells))
        self.assertEqual(len({name.casefold() for name in names}), len(cells))
        for cell in cells:
            page = read(os.path.join(self.out, "detail", detail_name(cell)))
            with self.subTest(cell=(cell["scenario"], cell["variant"], cell["evaluator"])):
                self.assertIn(f"<h1>{cell['scenario']}: {cell['variant']}</h1>", page)
                self.assertIn(f"Verified by: {cell['evaluator']} ", page)

    def test_the_dashboard_links_each_cell_to_its_page(self):
        index = read(os.path.join(self.out, "index.html"))
        links = re.findall(r'<a href="detail/([^"]+)">', index)
        first = [c for c in self.result["cells"] if c["repeat"] == 0]
        self.assertEqual(sorted(links), sorted(detail_name(c) for c in first))
        self.assertEqual(len(set(links)), len(first))

    def test_names_are_stable(self):
        cell = {"scenario": "tiny-house", "variant": "openai:gpt-4o",
                "evaluator": "anthropic:claude-sonnet-4-5", "repeat": 0}
        name = detail_name(cell)
        self.assertEqual(name, "tiny-house--openai-gpt-4o--anthropic-claude-sonnet-4-5--r0-"
                               "5398262d1876.html")
        # The name evals/permits/README.md gives for this cell.
        self.assertIn(f"(`{name}` for", read(os.path.join(ROOT, "evals", "permits", "README.md")))
        self.assertNotEqual(detail_name(dict(cell, scenario="Tiny-House")), name)
        self.assertNotEqual(detail_name(dict(cell, repeat=1)), name)


if __name__ == "__main__":
    unittest.main()
