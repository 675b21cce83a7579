"""evals/ai: the committed case sets load under the strict loaders, with the
counts the suite promises, and the matcher decides every grounding case."""

import os
import unittest
from collections import Counter

from tests.support import ROOT
from evalkit.aieval.grounding import Corpus, Rules
from evalkit.aieval.intake import Vocabulary, load_cases

AI = os.path.join(ROOT, "evals", "ai")


class Data(unittest.TestCase):
    def setUp(self):
        self.vocabulary = Vocabulary(os.path.join(AI, "vocabulary.json"))

    def test_intake_cases(self):
        cases, _sha = load_cases(os.path.join(AI, "intake-cases.json"), self.vocabulary, "intake", "gold")
        self.assertEqual(len(cases), 40)
        self.assertEqual(Counter(c["language"] for c in cases), {"en": 25, "es": 15})
        self.assertEqual(set(c["gold"]["project_type"] for c in cases), set(self.vocabulary.types))
        tags = Counter(t for c in cases for t in c["tags"])
        self.assertGreaterEqual(tags["underspecified"], 10)
        self.assertGreaterEqual(tags["inference-tempting"], 10)

    def test_grounding_cases_and_rules(self):
        corpus = Corpus(os.path.join(AI, "corpus"))
        rules = Rules(os.path.join(AI, "rules.json"), self.vocabulary, corpus)
        cases, _sha = load_cases(os.path.join(AI, "grounding-cases.json"), self.vocabulary,
                                 "grounding", "facts")
        self.assertEqual(len(cases), 8)
        unresolved_cases = 0
        for case in cases:
            matched, unresolved = rules.match(case["facts"])
            self.assertGreaterEqual(len(matched), 2, case["id"])
            self.assertEqual(rules.match(case["facts"]), (matched, unresolved))  # deterministic
            unresolved_cases += bool(unresolved)
        self.assertGreaterEqual(unresolved_cases, 3)
        for doc in corpus.documents.values():
            self.assertTrue(doc["sections"])


if __name__ == "__main__":
    unittest.main()
