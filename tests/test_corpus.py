"""The code corpus the scenario evaluator looks things up in: ranked search,
a section by id, a parcel by address, and refusals of a bad corpus file."""

import json
import os
import tempfile
import unittest

from tests.support import FIXTURES

from evalkit import BadInput  # noqa: E402
from evalkit.scenario.corpus import Corpus, tokens  # noqa: E402

MINI = os.path.join(FIXTURES, "code-mini.json")


class Search(unittest.TestCase):
    def setUp(self):
        self.corpus = Corpus(MINI)

    def test_the_passage_that_answers_comes_first(self):
        hits = self.corpus.search("how far from the back lot line can a detached ADU go")
        self.assertEqual(hits[0]["section"], "RCC 33.205.040")
        self.assertEqual(hits[0]["passage"], "A detached accessory dwelling unit must be set "
                                             "back at least 5 feet from the rear lot line.")
        self.assertEqual(hits[0]["title"], "Accessory dwelling units")

    def test_a_section_number_is_one_word(self):
        self.assertIn("33.205.040", tokens("under RCC 33.205.040, an ADU"))
        hits = self.corpus.search("33.205.040")
        self.assertEqual({h["section"] for h in hits}, {"RCC 33.205.040"})

    def test_the_same_query_gives_the_same_passages(self):
        query = "fence height front yard feet"
        first = self.corpus.search(query)
        self.assertEqual(first, Corpus(MINI).search(query))
        self.assertEqual(first[0]["section"], "RCC 17.28.010")
        self.assertEqual(json.dumps(first), json.dumps(self.corpus.search(query)))

    def test_ranked_best_first_and_limited(self):
        hits = self.corpus.search("feet", limit=2)
        self.assertEqual(len(hits), 2)
        self.assertGreaterEqual(hits[0]["score"], hits[1]["score"])

    def test_nothing_for_words_the_code_does_not_hold(self):
        self.assertEqual(self.corpus.search("helicopter landing pad"), [])
        self.assertEqual(self.corpus.search("the of and"), [])


class Lookups(unittest.TestCase):
    def setUp(self):
        self.corpus = Corpus(MINI)

    def test_read_a_section_whatever_its_spelling(self):
        for spelling in ("RCC 33.205.040", "rcc 33.205.040", " RCC  33.205.040 "):
            self.assertEqual(self.corpus.read(spelling)["title"], "Accessory dwelling units")
        self.assertIsNone(self.corpus.read("RCC 99.999.999"))

    def test_a_parcel_with_or_without_the_city(self):
        for address in ("4127 SE Wrenfield Court", "4127 SE Wrenfield Court, Riverton",
                        "4127 se wrenfield court riverton"):
            self.assertEqual(self.corpus.parcel(address)["zone"], "R5")
        self.assertIsNone(self.corpus.parcel("1 Nowhere Street"))


class Refusals(unittest.TestCase):
    def refuse(self, doc, expected):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "code.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
            with self.assertRaises(BadInput) as caught:
                Corpus(path)
        self.assertIn(expected, str(caught.exception))

    def test_each(self):
        section = {"id": "A 1", "title": "t", "text": "x"}
        self.refuse({"format": 2, "sections": [section]}, "format 1")
        self.refuse({"format": 1, "sections": []}, "non-empty list")
        self.refuse({"format": 1, "sections": [{"id": "A 1", "title": "t"}]},
                    "sections[0]: needs id, title and text")
        self.refuse({"format": 1, "sections": [section, dict(section, id="a 1")]},
                    "sections[1]: a 1 twice")
        self.refuse({"format": 1, "sections": [section], "parcels": [{"zone": "R5"}]},
                    "parcels[0]: needs an address")


if __name__ == "__main__":
    unittest.main()
