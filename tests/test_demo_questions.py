"""The demo question sets against the demo sites, for all 120 questions:
the evidence is in the visible text of its source page, every fact group has
a spelling inside the evidence (by the newest matching rule, and as a plain
substring), and no page of its language holds a
not-on-site question's key terms or must_not_include strings (a check on a
term list, not a proof that no page answers it)."""

import json
import os
import sys
import unittest
from collections import Counter

from tests.support import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "demo-assistant"))
import pages  # noqa: E402
from evalkit.rubric.cases import load_site_qa  # noqa: E402
from evalkit.rubric.rulebook import rules_as_of  # noqa: E402
from evalkit.textmatch import contains, normalize  # noqa: E402
from evalkit.rubric.urls import normalize_url  # noqa: E402

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
SITES = pages.load_sites(os.path.join(BENCH, "sites"))
SLUG = {"med": "clinic", "biz": "office"}
RULES = rules_as_of()
FIRST_RULES = rules_as_of("2026-10-28")  # digits alone bounded a spelling


def site_pages(set_name, lang):
    site = next(s for s in SITES if s.set == set_name and s.lang == lang)
    return {normalize_url(p.url): p for p in site.pages}


class DemoQuestions(unittest.TestCase):
    def sets(self):
        for set_name in ("med", "biz"):
            yield set_name, load_site_qa(os.path.join(BENCH, f"questions-{set_name}.json"))

    def test_twenty_per_language_fifteen_answerable(self):
        total = 0
        for set_name, qset in self.sets():
            self.assertEqual(qset.set, set_name)
            counts = Counter((q["lang"], q["kind"]) for q in qset.questions)
            for lang in ("en", "he", "ru"):
                self.assertEqual(counts[(lang, "answerable")], 15, (set_name, lang))
                self.assertEqual(counts[(lang, "not_on_site")], 5, (set_name, lang))
            total += len(qset.questions)
        self.assertEqual(total, 120)

    def test_sites_and_widget_keys_match_the_demo_sites(self):
        for set_name, qset in self.sets():
            for lang, site in qset.sites.items():
                real = next(s for s in SITES if s.set == set_name and s.lang == lang)
                self.assertEqual(normalize_url(site["site_url"]), normalize_url(real.pages[0].url))
                self.assertEqual(site["widget_key"], real.widget_key)

    def test_answerable_questions(self):
        checked = 0
        for set_name, qset in self.sets():
            for q in qset.questions:
                if q["kind"] != "answerable":
                    continue
                with self.subTest(q["id"]):
                    by_url = site_pages(set_name, q["lang"])
                    self.assertIn(normalize_url(q["page_url"]), by_url)
                    for url in [q["source_url"]] + q["also_source_urls"]:
                        page = by_url.get(normalize_url(url))
                        self.assertIsNotNone(page, f"{url} is not a page of the site")
                        self.assertIn(normalize(q["evidence"]), normalize(page.text), url)
                    words, digits = RULES.words(q["lang"]), FIRST_RULES.words(q["lang"])
                    for group in q["facts"]:
                        self.assertTrue(any(contains(normalize(q["evidence"]), normalize(s), digits)
                                            for s in group),
                                        f"no spelling of {group} in the evidence")
                        self.assertTrue(any(contains(normalize(q["evidence"]), normalize(s), words)
                                            for s in group),
                                        f"no spelling of {group} in the evidence by the rule")
                    checked += 1
        self.assertEqual(checked, 90)

    def test_no_page_holds_a_not_on_site_questions_terms(self):
        terms = {}
        for slug in ("clinic", "office"):
            with open(os.path.join(BENCH, "sites", slug, "not-on-site-terms.json"),
                      encoding="utf-8") as fh:
                terms.update(json.load(fh))
        checked = 0
        for set_name, qset in self.sets():
            for q in qset.questions:
                if q["kind"] != "not_on_site":
                    continue
                with self.subTest(q["id"]):
                    self.assertTrue(q["must_not_include"])
                    self.assertTrue(terms.get(q["id"]), "no key terms listed")
                    by_url = site_pages(set_name, q["lang"])
                    self.assertIn(normalize_url(q["page_url"]), by_url)
                    for page in by_url.values():
                        text = normalize(page.title + "\n" + page.text)
                        for needle in q["must_not_include"] + terms[q["id"]]:
                            self.assertNotIn(normalize(needle), text, f"{needle!r} on {page.url}")
                    checked += 1
        self.assertEqual(checked, 30)
        self.assertEqual(sorted(terms), sorted(
            q["id"] for _s, qset in self.sets() for q in qset.questions if q["kind"] == "not_on_site"))


class DemoSites(unittest.TestCase):
    def test_five_to_eight_pages_per_language(self):
        self.assertEqual(len(SITES), 6)
        for site in SITES:
            self.assertTrue(5 <= len(site.pages) <= 8, (site.slug, site.lang))

    def test_markup_language_and_direction(self):
        for site in SITES:
            for page in site.pages:
                with open(page.path, encoding="utf-8") as fh:
                    head = fh.read(300)
                self.assertIn(f'lang="{site.lang}"', head, page.path)
                self.assertEqual('dir="rtl"' in head, site.lang == "he", page.path)

    def test_facts_differ_between_languages(self):
        for slug in ("clinic", "office"):
            phones = {s.phone for s in SITES if s.slug == slug}
            self.assertEqual(len(phones), 3)


if __name__ == "__main__":
    unittest.main()
