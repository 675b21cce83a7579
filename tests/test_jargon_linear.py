"""The jargon pass of Useful (atomscore.JargonTable.tokens) is linear in an
answer's code citations, and gives what the quadratic pass it replaced gave.

The pass before (kept below as the oracle, as it was at 25983e7) checked each
citation a pattern matched against every citation taken before it, and each
sentence against every citation of the answer: a 300 KB answer took 9 to 25
seconds. Both are compared here on 260 seeded answers (sentences
of citations that two patterns match, citations inside citations, acronyms
inside and beside them, sentences of nothing but a citation, every way a
sentence ends) under the published jargon table and under a table whose
patterns overlap and match the empty string. No timing is asserted: the
speed is measured by make bench (tools/bench)."""

import os
import random
import tempfile
import unittest

from tests import support
from evalkit.scenario import atomscore  # noqa: E402
from evalkit.scenario.atomscore import SENTENCE_END, JargonTable  # noqa: E402

SEED = 4141
PERMITS_JARGON = os.path.join(support.ROOT, "evals", "permits", "jargon.json")
# Patterns that overlap each other (RCC 33.205 and 33.205.040 in one
# citation), and one that matches the empty string between letters.
OVERLAPPING = {"format": 1, "acronyms": [{"token": "ADU", "expansions": ["accessory dwelling unit"]},
                                         {"token": "RCC", "expansions": ["riverton city code"]}],
               "code_citation_patterns": [r"\bRCC\s*\d+(?:\.\d+)?", r"\d+\.\d+(?:\.\d+)?",
                                          r"§+\s*\d+", r"(?<=[a-z])x*(?=[A-Z])"],
               "glosses": ["which says"], "requirement_patterns": [r"\bmust\b", r"\d+ feet"],
               "pointer_patterns": [r"\bsee\b"]}
PIECES = ("RCC 33.205.040", "RCC 33.205", "33.110.220", "ORS 197.312", "§ 3.10.010", "§§ 12",
          "Title 33", "Chapter 17.14", "section 33.120.210", "sec. 2.20", "ADU", "ADUs", "DADU",
          "SDC", "BDS", "FAR", "accessory dwelling unit", "which says", "must", "5 feet",
          "limited to", "see", "applies", "comply with", "the", "a", "cottage", "fence", "aB",
          "(RCC 33.205.050)", "(", ")", ",", ".", "!", "?", "...", "\n", " ", "", "sq. ft.",
          "Riverton", "you", "build", "800 square feet", "x")


def old_statements(text, spans):
    """atomscore._statements as it was: every citation for every sentence."""
    cuts = [0] + [m.end() for m in SENTENCE_END.finditer(text)] + [len(text)]
    out = []
    for start, end in zip(cuts, cuts[1:]):
        if start == end:
            continue
        piece = list(text[start:end])
        for a, b in spans:
            if start <= a < end:
                piece[a - start:min(b, end) - start] = " " * (min(b, end) - a)
        if out and not any(ch.isalnum() for ch in piece):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


class OldJargonTable(JargonTable):
    """JargonTable's citation_spans and tokens as they were."""

    def __init__(self, path):
        super().__init__(path)
        self.seen = {}

    def citation_spans(self, text):
        if text in self.seen:  # the test asks for them again, and tokens does: quadratic, once
            return self.seen[text]
        taken = []
        for pattern in self.citations:
            for match in pattern.finditer(text):
                if not any(a < match.end() and match.start() < b for a, b in taken):
                    taken.append((match.start(), match.end()))
        self.seen[text] = sorted(taken)
        return self.seen[text]

    def tokens(self, text):
        found = []
        spans = self.citation_spans(text)
        for start, end in old_statements(text, spans):
            inside = [(a - start, b - start) for a, b in spans if start <= a < end]
            why = self.explanation(text[start:end], inside) if inside else None
            for a, b in inside:
                found.append((start + a, {"token": text[start + a:start + b], "kind": "code-citation",
                                          "explained": why is not None, "explained_by": why}))
        whole = atomscore.normalize(text)
        for token, pattern, expansions in self.acronyms:
            if token not in text:
                continue
            expansion = next((e for e in expansions if e in whole), None)
            for match in pattern.finditer(text):
                if any(a <= match.start() < b for a, b in spans):
                    continue
                found.append((match.start(), {"token": match.group(0), "kind": "acronym",
                                              "explained": expansion is not None,
                                              "explained_by": expansion}))
        return [item for _pos, item in sorted(found, key=lambda f: (f[0], f[1]["token"]))]


def answers(rng, count):
    """``count`` seeded answers of 0 to 80 pieces, joined by a space or not."""
    for _ in range(count):
        yield "".join(rng.choice(PIECES) + rng.choice((" ", " ", "")) for _ in range(rng.randrange(81)))


class SameTokens(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(tmp.cleanup)
        overlapping = support.write_json(os.path.join(tmp.name, "jargon.json"), OVERLAPPING)
        cls.tables = [(name, JargonTable(path), OldJargonTable(path))
                      for name, path in (("permits", PERMITS_JARGON), ("overlapping", overlapping))]

    def test_the_tokens_of_every_answer_are_those_of_the_pass_before(self):
        rng = random.Random(SEED)
        cited = 0
        for n, text in enumerate(answers(rng, 200)):
            for name, new, old in self.tables:
                expected = old.tokens(text)
                cited += any(t["kind"] == "code-citation" for t in expected)
                self.assertEqual(new.citation_spans(text), old.citation_spans(text),
                                 f"answer {n}, {name} table: {text!r}")
                self.assertEqual(new.tokens(text), expected, f"answer {n}, {name} table: {text!r}")
        self.assertGreater(cited, 300)  # most answers hold citations: the case compared

    def test_the_sentences_are_those_of_the_pass_before(self):
        rng = random.Random(SEED + 1)
        for n, text in enumerate(answers(rng, 60)):
            for name, new, _old in self.tables:
                spans = new.citation_spans(text)
                self.assertEqual(atomscore._statements(text, spans), old_statements(text, spans),
                                 f"answer {n}, {name} table: {text!r}")
                # In any order, as the pass before took them.
                self.assertEqual(atomscore._statements(text, spans[::-1]),
                                 old_statements(text, spans[::-1]), f"answer {n}, {name} table")


if __name__ == "__main__":
    unittest.main()
