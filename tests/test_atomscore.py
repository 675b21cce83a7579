"""Known answers for the four dimensions, each worked out by hand from the
spec's formulas (atomized-claim-scoring) and DESIGN section 6."""

import os
import tempfile
import unittest

from tests import support
from evalkit.scenario.atomscore import JargonTable, SourceTable, score_answer, to_score
from fractions import Fraction

SOURCES = {"format": 1, "buckets": {"authoritative": 1.0, "plausible-third-party": 0.3,
                                    "non-authoritative": 0.0, "none": 0.0},
           "default": "non-authoritative",
           "patterns": [{"pattern": r"redfin|zillow|wikipedia|blog", "bucket": "plausible-third-party"},
                        {"pattern": r"reddit|forum", "bucket": "non-authoritative"},
                        {"pattern": r"\bRCC\b|riverton\.example\.gov|\bORS\b",
                         "bucket": "authoritative"}]}
PERMITS_SOURCES = os.path.join(support.ROOT, "evals", "permits", "sources.json")
FIXTURE_SOURCES = os.path.join(support.FIXTURES, "sources.json")
PERMITS_JARGON = os.path.join(support.ROOT, "evals", "permits", "jargon.json")
JARGON = {"format": 1, "acronyms": [{"token": "ADU", "expansions": ["accessory dwelling unit"]},
                                    {"token": "SDC", "expansions": ["system development charge"]}],
          "code_citation_patterns": [r"\bRCC\s*\d+(?:\.\d+){1,2}\b"],
          "glosses": ["which says", "which means"],
          "requirement_patterns": [r"\b(?:must|limited to)\b"],
          "pointer_patterns": [r"\b(?:see|applies)\b"]}
MUST = ["zoning", "size", "setbacks", "permits", "costs", "sequence"]


def atom(correctness="correct", importance=1, topic="zoning", citation=None, actionability=0.5):
    return {"text": "a claim", "correctness": correctness, "verified_truth": "true",
            "citation": citation, "topic": topic, "specificity": 0.5,
            "actionability": actionability, "importance": importance}


class Tables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.sources = SourceTable(support.write_json(os.path.join(cls.tmp.name, "s.json"), SOURCES))
        cls.jargon = JargonTable(support.write_json(os.path.join(cls.tmp.name, "j.json"), JARGON))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def score(self, atoms, response="A plain answer of a few words.", must=MUST):
        return score_answer(atoms, must, response, self.sources, self.jargon)


class Accurate(Tables):
    def test_every_correctness_tag(self):
        expected = {"correct": 3, "correct-vague": 3, "correct-action": 3, "correct-judg": 3,
                    "correct-range": 3, "hedge-correct": 3,
                    "vague-correct": 2,   # 0.6 * 3 + 0.5 = 2.3
                    "vague-action": 2, "WRONG": 0, "PARTIAL-WRONG": 0}
        for tag, score in expected.items():
            with self.subTest(tag):
                self.assertEqual(self.score([atom(tag)])["accurate"]["score"], score)
        self.assertIsNone(self.score([atom("admitted-gap")])["accurate"]["score"])

    def test_half_way_points_round_up(self):
        # raw 1/6 (= 0.5/3): correct weight 1, WRONG weight 5. 1/6 * 3 + 1/2 = 1 -> 1
        # (Python's round(0.5) would give 0).
        a = self.score([atom("correct", 1), atom("WRONG", 5)])["accurate"]
        self.assertEqual((a["score"], a["raw"]), (1, 0.1667))
        # raw 1/2 (= 1.5/3): 1.5 + 0.5 = 2 -> 2.
        self.assertEqual(self.score([atom("correct", 2), atom("WRONG", 2)])["accurate"]["score"], 2)
        # raw 5/6 (= 2.5/3): 2.5 + 0.5 = 3 -> 3 (round(2.5) would give 2).
        self.assertEqual(self.score([atom("correct", 5), atom("WRONG", 1)])["accurate"]["score"], 3)

    def test_importance_weighting(self):
        # (5*1 + 3*0.6 + 2*0) / 10 = 0.68 -> 2.04 + 0.5 -> 2
        a = self.score([atom("correct", 5), atom("vague-action", 3), atom("PARTIAL-WRONG", 2)])
        self.assertEqual((a["accurate"]["raw"], a["accurate"]["score"]), (0.68, 2))

    def test_admitted_gaps_are_skipped(self):
        a = self.score([atom("correct", 1), atom("admitted-gap", 5)])["accurate"]
        self.assertEqual((a["score"], a["skipped_admitted_gaps"]), (3, 1))


class Complete(Tables):
    def test_coverage_and_half_way_points(self):
        cases = [(["zoning"], 1),                          # 1/6*3 = 0.5 -> 1
                 (["zoning", "size", "setbacks"], 2),      # 1.5 -> 2
                 (["zoning", "size", "setbacks", "permits", "costs"], 3),  # 2.5 -> 3
                 ([], 0)]
        for topics, score in cases:
            with self.subTest(topics=topics):
                c = self.score([atom(topic=t) for t in topics] + [atom(topic="height")])["complete"]
                self.assertEqual(c["score"], score)

    def test_gap_topics_do_not_cover(self):
        c = self.score([atom("admitted-gap", topic=t) for t in MUST])["complete"]
        self.assertEqual((c["score"], c["covered"]), (0, []))

    def test_cap_at_2_for_an_admitted_gap_on_address_or_zoning(self):
        full = [atom(topic=t) for t in MUST]
        self.assertEqual(self.score(full)["complete"]["score"], 3)
        for topic in ("address", "zoning"):
            with self.subTest(topic):
                c = self.score(full + [atom("admitted-gap", topic=topic)])["complete"]
                self.assertEqual((c["score"], c["capped_by_admitted_gap_on"]), (2, [topic]))
        c = self.score(full + [atom("admitted-gap", topic="costs")])["complete"]
        self.assertEqual(c["score"], 3)


class Cited(Tables):
    def test_buckets(self):
        cases = [("RCC 33.205.040", 3), ("https://riverton.example.gov/bds", 3),
                 ("Redfin listing #4451, zoned R5, lot 5,000 sq ft", 1),  # 0.3*3+0.5 = 1.4 -> 1
                 ("reddit.com/r/riverton", 0), (None, 0), ("my neighbour", 0)]
        for citation, score in cases:
            with self.subTest(citation=citation):
                # the answer gives the source the atom's citation names
                answer = f"A plain answer ({citation})."
                self.assertEqual(self.score([atom(citation=citation)], answer)["cited"]["score"],
                                 score)

    def test_a_precise_looking_listing_citation_is_third_party(self):
        self.assertEqual(self.sources.bucket("Zillow listing 12345 citing RCC 33.110"),
                         "plausible-third-party")

    def test_the_most_authoritative_source_gives_the_credit(self):
        # Spec: credit is authority; a weaker source beside the code does not
        # lower it, whichever is named first (e8d1668 took the first pattern of
        # the table, forums before the code: 0.0).
        for path in (PERMITS_SOURCES, FIXTURE_SOURCES):
            table = SourceTable(path)
            for citation in ("RCC 33.205.040 and a homeowners forum",
                             "a homeowners forum; RCC 33.205.040",
                             "Redfin listing & RCC 33.205.040"):
                with self.subTest(table=os.path.basename(os.path.dirname(path)), citation=citation):
                    self.assertEqual(table.bucket(citation), "authoritative")
            c = score_answer([atom(citation="RCC 33.205.040 and a homeowners forum")], MUST,
                             "A plain answer: RCC 33.205.040 and a homeowners forum.", table,
                             self.jargon)["cited"]
            self.assertEqual((c["raw"], c["score"]), (1.0, 3))

    def test_a_source_that_quotes_the_code_is_still_itself(self):
        # What a listing, blog or forum quotes is not a second source.
        table = SourceTable(PERMITS_SOURCES)
        self.assertEqual(table.bucket("Quora answer quoting RCC 33.205.040 and ORS 197.312"),
                         "non-authoritative")
        self.assertEqual(table.bucket("Riverton Realty blog, quoting RCC 33.205.040 and ORS 197.312"),
                         "plausible-third-party")
        self.assertEqual(table.bucket("Zillow: 2260 NE Larkhaven Ln, zoned R2.5 per Title 33 and RCC 33.110"),
                         "plausible-third-party")

    def test_a_vague_official_reference_outranks_a_precise_listing(self):
        # Spec: "A vague reference to portland.gov is more authoritative than a
        # precise-looking citation to a Redfin listing or a third-party blog."
        official = ["Riverton's website", "Riverton zoning code", "Riverton planning department",
                    "Riverton Zoning Code 33.110"]
        listing = "Redfin listing #4451, zoning R5, RCC 33.110"
        for path in (PERMITS_SOURCES, FIXTURE_SOURCES):
            table = SourceTable(path)
            for citation in official:
                with self.subTest(table=os.path.basename(os.path.dirname(path)), citation=citation):
                    self.assertEqual(table.bucket(citation), "authoritative")
                    self.assertGreater(table.credit(citation), table.credit(listing))
        table = SourceTable(PERMITS_SOURCES)
        for citation in ("Riverton’s official website", "the city's website", "City of Riverton website",
                         "Riverton Municipal Code", "Riverton Permit Center", "Riverton Development Code",
                         "the city zoning code", "Riverton Bureau of Development Services",
                         "Oregon building code", "Riverton, Oregon official website",
                         "Oregon Department of Land Conservation and Development"):
            with self.subTest(citation=citation):
                self.assertEqual(table.bucket(citation), "authoritative")
        for citation in ("Riverton Tribune, 12 March 2026", "Riverton Realty", "City-Data forums"):
            with self.subTest(citation=citation):
                self.assertEqual(table.bucket(citation), "non-authoritative")

    def test_a_blog_is_third_party_whatever_its_domain(self):
        for path in (PERMITS_SOURCES, FIXTURE_SOURCES):
            table = SourceTable(path)
            for citation in ("realestateblog.com", "https://www.realestateblog.com/riverton-adu-rules"):
                with self.subTest(table=os.path.basename(os.path.dirname(path)), citation=citation):
                    self.assertEqual((table.bucket(citation), table.credit(citation)),
                                     ("plausible-third-party", Fraction(3, 10)))

    def test_every_example_of_both_tables(self):
        for path in (PERMITS_SOURCES, FIXTURE_SOURCES):
            table = SourceTable(path)
            for example in table.examples:
                with self.subTest(table=path, citation=example["citation"]):
                    self.assertEqual(table.bucket(example["citation"]), example["bucket"])

    def test_mixture_and_gaps(self):
        # (1 + 0.3 + 0) / 3 = 0.4333 -> 1.3 + 0.5 = 1.8 -> 1; the gap is not a factual claim.
        c = self.score([atom(citation="ORS 197.312"), atom(citation="a real-estate blog"),
                        atom(citation=None), atom("admitted-gap")],
                       "Cities must allow it (ORS 197.312), says a real-estate blog.")["cited"]
        self.assertEqual((c["raw"], c["score"], c["atoms"]), (0.4333, 1, 3))
        self.assertIsNone(self.score([atom("admitted-gap")])["cited"]["score"])


class Useful(Tables):
    def words(self, n, extra=""):
        return " ".join(["word"] * (n - len(extra.split()))) + (" " + extra if extra else "")

    def test_mean_actionability(self):
        # (1 + 0.5 + 0) / 3 = 0.5 -> 2; gaps count for Useful.
        u = self.score([atom(actionability=1), atom(actionability=0.5),
                        atom("admitted-gap", actionability=0)])["useful"]
        self.assertEqual((u["raw"], u["score"]), (0.5, 2))

    def test_an_unglossed_acronym_costs_and_a_glossed_one_does_not(self):
        atoms = [atom(actionability=0.5)] * 4
        text = self.words(100, "Build an ADU.")
        u = self.score(atoms, text)["useful"]
        # 1 unexplained token in 100 words: penalty 0.10; 0.5 - 0.1 = 0.4 -> 1.7 -> 1
        self.assertEqual((u["unexplained_jargon"], u["jargon_penalty"], u["score"]), (1, 0.1, 1))
        glossed = self.words(100, "Build an ADU (accessory dwelling unit).")
        u = self.score(atoms, glossed)["useful"]
        self.assertEqual((u["unexplained_jargon"], u["jargon_penalty"], u["score"]), (0, 0.0, 2))

    def test_jargon_penalty_is_capped(self):
        text = "ADU SDC ADUs. RCC 33.205.040 applies. " * 5   # 35 words, 20 unexplained
        u = self.score([atom(actionability=1)], text)["useful"]
        # uncapped 0.1 * 20 * 100 / 35 = 5.71; capped 0.30 -> 0.7 * 3 + 0.5 = 2.6 -> 2
        self.assertEqual((u["unexplained_jargon"], u["jargon_penalty"], u["score"]), (20, 0.3, 2))

    def test_a_glossed_code_citation(self):
        tokens = self.jargon.tokens("See RCC 33.205.040, which says the cottage may be 800 sq ft. "
                                    "Also RCC 33.110.220 applies.")
        self.assertEqual([(t["token"], t["explained"]) for t in tokens],
                         [("RCC 33.205.040", True), ("RCC 33.110.220", False)])

    def test_a_citation_attached_to_a_plain_statement_is_explained(self):
        # A citation beside a plain-language statement of what it requires
        # explains itself (e8d1668: only a gloss phrase did, so "limited" failed).
        table = JargonTable(PERMITS_JARGON)
        cases = [("A backyard cottage is limited to 800 square feet under RCC 33.205.040.", "800 square feet"),
                 ("Keep it at least 5 feet from the side and rear property lines (RCC 33.110.220).", "5 feet"),
                 ("A cottage is limited to 800 sq. ft. under RCC 33.205.040.", "800 sq. ft."),
                 ("An accessory dwelling unit may be up to 800 square feet. (RCC 33.205.040).", "800 square feet"),
                 ("Short-term rentals need a permit under RCC 33.207.", "need"),
                 ("Under ORS 197.312, cities must allow a second home on every house lot.", "must"),
                 ("Front fences may be no taller than three and a half feet (Title 33).",
                  "three and a half feet"),
                 ("Removing a street tree is prohibited without a permit (Chapter 11.40).", "prohibited"),
                 ("RCC 33.205.040, which says the cottage may be 800 square feet.", "which says")]
        for text, why in cases:
            with self.subTest(text=text):
                tokens = [t for t in table.tokens(text) if t["kind"] == "code-citation"]
                self.assertEqual([(t["explained"], t.get("explained_by")) for t in tokens], [(True, why)])

    def test_a_citation_that_only_points_at_the_code_is_unexplained(self):
        table = JargonTable(PERMITS_JARGON)
        for text in ("See RCC 33.205.040.", "RCC 33.205.040 applies.",
                     "You must comply with RCC 33.205.040.",
                     "Your plans need to comply with RCC 33.205.040.",
                     "The requirements of RCC 33.205.040 must be met.",
                     "Accessory dwellings are regulated by RCC 33.205.040.",
                     "Check RCC 33.110.220 and RCC 33.205.040 for details.",
                     "Follow the standards in RCC 33.205.040.",
                     "RCC 33.205.040 may apply to your lot.",
                     "Check whether a cottage is allowed under RCC 33.205.040.",
                     "This is covered in Title 33.",
                     "Sources: RCC 33.205.040, ORS 197.312.",
                     "You'll need to check RCC 33.205.040.",
                     "RCC 33.205.040: this rule applies to your lot.",
                     "You may want to review RCC 33.205.040 before you apply.",
                     "RCC 33.205.040. A cottage is limited to 800 square feet."):
            with self.subTest(text=text):
                tokens = [t for t in table.tokens(text) if t["kind"] == "code-citation"]
                self.assertTrue(tokens)
                self.assertEqual([t["explained"] for t in tokens], [False] * len(tokens))

    def test_nothing_to_score(self):
        result = self.score([], "")
        self.assertEqual({d: result[d]["score"] for d in result},
                         {"accurate": None, "complete": 0, "cited": None, "useful": None})


class WorkedExample(Tables):
    def test_the_example_in_the_suite_readme(self):
        atoms = [atom("correct", 4, "zoning", "RCC 33.205.040", 0.8),
                 atom("vague-correct", 2, "costs", "Redfin", 0.5),
                 atom("admitted-gap", 3, "address", None, 0.2)]
        # 100 words that give both sources; the one unexplained token is ADU
        # (the code citation is explained by "limited to").
        given = ("A backyard ADU is limited to 800 square feet under RCC 33.205.040. "
                 "Fees are high, according to Redfin.")
        text = given + " " + " ".join(["word"] * (100 - len(given.split())))
        result = self.score(atoms, text)
        self.assertEqual({d: (result[d]["raw"], result[d]["score"]) for d in result},
                         {"accurate": (0.8667, 3), "complete": (0.3333, 1),
                          "cited": (0.65, 2), "useful": (0.4, 1)})


class Rounding(unittest.TestCase):
    def test_half_up_never_half_even(self):
        self.assertEqual([to_score(Fraction(n, 6)) for n in range(7)], [0, 1, 1, 2, 2, 3, 3])
        self.assertEqual(to_score(Fraction(-1, 3)), 0)
        self.assertEqual(to_score(Fraction(2)), 3)


if __name__ == "__main__":
    unittest.main()
