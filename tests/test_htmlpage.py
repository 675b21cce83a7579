"""The results page: well-formed tables, every answer escaped, right-to-left
text marked, and Wilson intervals that match an independent computation."""

import json
import math
import os
import tempfile
import unittest
from html.parser import HTMLParser

from tests import support
from tests.support import FIXTURES, ROOT

from evalkit import siteqa  # noqa: E402
from evalkit.htmlpage import render_html  # noqa: E402
from evalkit.stats import mcnemar_exact, wilson  # noqa: E402

VOID = {"meta", "br", "hr", "img", "input", "link", "line", "rect"}  # rect may hold a <title>
TABLE_PARENTS = {"tr": {"table", "thead", "tbody"}, "td": {"tr"}, "th": {"tr"}}


class Structure(HTMLParser):
    """Checks nesting: every tag closed in order, table parts in their parents,
    and records the text inside <script> (there must be none)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.scripts = 0
        self.texts = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
        if tag in TABLE_PARENTS and (not self.stack or self.stack[-1] not in TABLE_PARENTS[tag]):
            self.errors.append(f"<{tag}> inside <{self.stack[-1] if self.stack else None}>")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()

    def handle_data(self, data):
        self.texts.append(data)


def check(page):
    parser = Structure()
    parser.feed(page)
    parser.close()
    return parser


HOSTILE = ('<script>alert("x")</script></table></td>"quoted" \'single\' & '
           '\u200fשלום\u202e evil')


class Page(unittest.TestCase):
    def hostile_result(self):
        questions = os.path.join(FIXTURES, "questions-mini.json")
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, "raw.jsonl")
            with open(os.path.join(FIXTURES, "raw-mini.jsonl"), encoding="utf-8") as fh:
                lines = [json.loads(l) for l in fh]
            for line in lines:
                body = json.loads(line["response"]["body"]) if line["response"] else None
                if body and "answer" in body:
                    body["answer"] = HOSTILE + body["answer"]
                    body["sources"] = ['http://x/"><script>bad()</script>']
                    line["response"]["body"] = json.dumps(body, ensure_ascii=False)
            with open(raw, "w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            return siteqa.score([questions], [raw], os.path.join(FIXTURES, "reviews-mini.json"))

    def test_hostile_answers_are_escaped(self):
        page = render_html(self.hostile_result())
        parser = check(page)
        self.assertEqual(parser.errors, [])
        self.assertEqual(parser.stack, [])
        self.assertEqual(parser.scripts, 0)
        self.assertNotIn("<script>", page)
        self.assertIn("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;/table&gt;", page)
        self.assertIn("&#x27;single&#x27; &amp;", page)
        # The answer text survives parsing unchanged, as text.
        self.assertTrue(any(HOSTILE in t for t in parser.texts))

    def test_published_demo_page_is_well_formed(self):
        with open(os.path.join(ROOT, "Documents", "c4-benchmark", "demo", "index.html"),
                  encoding="utf-8") as fh:
            page = fh.read()
        parser = check(page)
        self.assertEqual((parser.errors, parser.stack, parser.scripts), ([], [], 0))
        self.assertIn('<blockquote dir="auto" lang="he">', page)
        self.assertEqual(page.count('<section class="q"'), 120)

    def test_wilson_beside_every_rate(self):
        page = render_html(siteqa.score([os.path.join(FIXTURES, "questions-mini.json")],
                                        [os.path.join(FIXTURES, "raw-mini.jsonl")]))
        # mini en correct facts: 2/4 = 50%, Wilson [15%-85%] (computed below).
        self.assertIn('2/4 50% <span class="ci">[15%–85%]</span>', page)


def wilson_by_bisection(x, n, z=1.959963984540054):
    """The interval's ends are the p where |x/n - p| = z * sqrt(p(1-p)/n):
    found by bisection, independently of the closed form."""
    phat = x / n

    def gap(p):
        return abs(phat - p) - z * math.sqrt(p * (1 - p) / n)

    def root(lo, hi):
        for _ in range(200):
            mid = (lo + hi) / 2
            if (gap(lo) > 0) == (gap(mid) > 0):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if x == 0 else root(0.0, phat)
    high = 1.0 if x == n else root(phat, 1.0)
    return low, high


class Statistics(unittest.TestCase):
    def test_wilson_matches_an_independent_computation(self):
        for x, n in [(0, 15), (1, 15), (7, 15), (13, 15), (15, 15), (2, 4), (23, 90), (120, 120)]:
            with self.subTest(x=x, n=n):
                for got, want in zip(wilson(x, n), wilson_by_bisection(x, n)):
                    self.assertAlmostEqual(got, want, places=9)
        self.assertIsNone(wilson(0, 0))

    def test_wilson_known_value(self):
        # 13/15: centre (13/15 + z²/30)/(1 + z²/15), by hand: [0.621, 0.963].
        low, high = wilson(13, 15)
        self.assertAlmostEqual(low, 0.6212, places=4)
        self.assertAlmostEqual(high, 0.9626, places=4)

    def test_mcnemar_exact_by_hand(self):
        # b = 1, c = 6: 2 * (C(7,0) + C(7,1)) / 2^7 = 2 * 8 / 128 = 1/8.
        self.assertEqual(mcnemar_exact(1, 6), __import__("fractions").Fraction(1, 8))
        # b = 0, c = 5: 2 / 32 = 1/16.
        self.assertEqual(mcnemar_exact(0, 5), __import__("fractions").Fraction(1, 16))
        self.assertEqual(mcnemar_exact(3, 3), 1)
        self.assertEqual(mcnemar_exact(0, 0), 1)


if __name__ == "__main__":
    unittest.main()
