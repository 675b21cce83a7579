"""The scenario suite's numbers mean what the spec says (atomized-claim scoring):

- Accurate is the spec's formula over every factual atom, whatever the
  evaluator's lookups back; beside it, how many of those atoms rest on a
  section the evaluator read for that answer (verified: K of N);
- a section counts as read only when this answer's recorded lookups read it
  (a search result, read_section, a parcel lookup, the passages given);
- a citation earns credit only when the answer gave it;
- the answers whose evaluator had tools and made not one lookup are counted.

Each case is worked out by hand from evals/permits/README.md."""

import hashlib
import json
import os
import tempfile
import unittest
from html import escape

from tests.support import ROOT, call_main, read_lines

import run  # noqa: E402
import score  # noqa: E402
from evalkit.scenario.atomscore import JargonTable, SourceTable, score_answer  # noqa: E402
from evalkit.scenario.corpus import Corpus  # noqa: E402

CASES = os.path.join(ROOT, "evals", "permits", "scenarios.json")
CODE = os.path.join(ROOT, "evals", "permits", "code", "riverton-code.json")
SOURCES = os.path.join(ROOT, "evals", "permits", "sources.json")
JARGON = os.path.join(ROOT, "evals", "permits", "jargon.json")
ANSWER = ("A backyard cottage is limited to 800 square feet under RCC 33.205.040. Keep it at "
          "least 5 feet from the rear property line. Permit fees run to several thousand "
          "dollars, according to Redfin. Check your zone at https://www.riverton.example.gov/maps "
          "before you apply.")
SIZE = "RCC 33.205.040"        # read by read_section in most cases below
SETBACKS = "RCC 33.110.220"    # in the code, never read unless a case says so
TINY_HOUSE = "4127 SE Wrenfield Court, Riverton"
OTHER_PARCEL = "2260 NE Larkhaven Lane, Riverton"


def atom(correctness="correct", truth=f"At most 800 square feet [{SIZE}].", citation=None,
         importance=3, topic="size"):
    return {"text": "A backyard cottage is limited to 800 square feet.", "correctness": correctness,
            "verified_truth": truth, "citation": citation, "topic": topic, "specificity": 0.8,
            "actionability": 0.5, "importance": importance}


def read_call(sid, error=None):
    return {"tool": "read_section", "input": {"section_id": sid},
            "output": None if error else Corpus(CODE).read(sid), "error": error}


def search_call(query):
    return {"tool": "search_code", "input": {"query": query},
            "output": Corpus(CODE).search(query, 5), "error": None}


def parcel_call(address):
    return {"tool": "lookup_parcel", "input": {"address": address},
            "output": Corpus(CODE).parcel(address), "error": None}


def tools(*calls):
    return {"mode": "tools", "corpus": "riverton-code.json", "corpus_sha256": Corpus(CODE).sha256,
            "calls": list(calls)}


def passages(*sections):
    return dict(tools(), mode="passages", sections=list(sections))


class Scored(unittest.TestCase):
    """One answer to tiny-house, collected by hand, atomized as each test says."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        collected = os.path.join(cls.tmp.name, "collected.jsonl")
        with open(collected, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": "tiny-house", "answer": ANSWER, "collected_by": "A. Reviewer",
                                 "collected_at": "2026-12-01T10:00:00Z", "product": "ConsumerChat",
                                 "product_version": "2026-12"}) + "\n")
        cls.raw = os.path.join(cls.tmp.name, "raw.jsonl")
        # exit 1: only tiny-house was collected
        assert call_main(run, [CASES, cls.raw, "--provider", "manual", "--from", collected,
                               "--quiet"])[0] == 1
        (line,) = read_lines(cls.raw)
        cls.variant = f"{line['target']['provider']}:{line['target']['model']}"

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def line(self, atoms, lookups=None, evaluator=("anthropic", "judge-a"), repeat=0, error=None):
        return {"format": 1, "id": "tiny-house", "variant": self.variant, "repeat": repeat,
                "evaluator": {"provider": evaluator[0], "model": evaluator[1],
                              "prompt": "atomize-v2", "prompt_sha256": "0" * 64},
                "atoms": None if error else atoms, "error": error,
                "response_sha256": hashlib.sha256(ANSWER.encode("utf-8")).hexdigest(),
                "run": {"tool": "atomize.py"}, "calls": [], "lookups": lookups}

    def score(self, *lines, code=0):
        """``(results.json, results.md, index.html, the first cell's detail page)``,
        or stderr when ``code`` is not 0."""
        folder = tempfile.mkdtemp(dir=self.tmp.name)
        atoms = os.path.join(folder, "atoms.jsonl")
        with open(atoms, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in lines)
        out, md, pages = (os.path.join(folder, n) for n in ("r.json", "r.md", "pages"))
        got, _, err = call_main(score, [CASES, self.raw, atoms, "--example", "--json", out,
                                        "--out", md, "--html-dir", pages])
        self.assertEqual(got, code, err)
        if code:
            return err
        with open(out, encoding="utf-8") as fh:
            result = json.load(fh)
        detail = os.path.join(pages, "detail", sorted(os.listdir(os.path.join(pages, "detail")))[0])
        return result, read(md), read(os.path.join(pages, "index.html")), read(detail)

    def cell(self, *atoms, lookups=None):
        result = self.score(self.line(list(atoms), lookups or tools(read_call(SIZE))))[0]
        (cell,) = result["cells"]
        return cell


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


class AccurateOverEveryAtom(Scored):
    """Spec: raw = sum(weight x credit) / sum(weight) over the atoms attributed
    to the variant; an atom the evaluator's lookups do not back is still one."""

    def test_three_correct_and_two_unsupported_wrong_score_2(self):
        # (3 x 1.0 x 3 + 2 x 0 x 3) / (5 x 3) = 0.6; x 3 + 0.5 = 2.3 -> 2 (3 with the
        # unsupported left out)
        cell = self.cell(*[atom()] * 3, *[atom("WRONG", "Not settled by the code.")] * 2)
        accurate = cell["scores"]["accurate"]
        self.assertEqual((accurate["raw"], accurate["score"], accurate["atoms"]), (0.6, 2, 5))
        self.assertNotIn("skipped_unverified", accurate)
        self.assertEqual(cell["verified"], {"factual_atoms": 5, "resting_on_a_section_read": 3})

    def test_one_correct_and_four_unsupported_partial_wrong_score_1(self):
        # 1 / 5 = 0.2; x 3 + 0.5 = 1.1 -> 1 (3 with the unsupported left out)
        cell = self.cell(atom(), *[atom("PARTIAL-WRONG", "Nothing in the code.")] * 4)
        accurate = cell["scores"]["accurate"]
        self.assertEqual((accurate["raw"], accurate["score"], accurate["atoms"]), (0.2, 1, 5))
        self.assertEqual(cell["verified"], {"factual_atoms": 5, "resting_on_a_section_read": 1})

    def test_no_atom_verified_is_still_scored(self):
        # n/a before: every factual atom unverified; by the spec, two wrong claims are 0
        cell = self.cell(*[atom("WRONG", "Nothing in the code.")] * 2)
        self.assertEqual(cell["scores"]["accurate"]["score"], 0)
        self.assertEqual(cell["verified"], {"factual_atoms": 2, "resting_on_a_section_read": 0})

    def test_the_formula_with_the_flags_the_scorer_sets(self):
        # score_answer is given atoms as scenario_score marks them (verified true or false)
        sources, jargon = SourceTable(SOURCES), JargonTable(JARGON)
        cases = [([("correct", True)] * 3 + [("WRONG", False)] * 2, 2),
                 ([("correct", True)] + [("PARTIAL-WRONG", False)] * 4, 1)]
        for tags, expected in cases:
            with self.subTest(tags=tags):
                atoms = [dict(atom(tag), verified=flag) for tag, flag in tags]
                got = score_answer(atoms, ["size"], ANSWER, sources, jargon)["accurate"]["score"]
                self.assertEqual(got, expected)


class Verified(Scored):
    """A section counts as read only when this answer's lookups read it."""

    def test_a_section_named_but_never_read_does_not_count(self):
        search = search_call("backyard cottage floor area")
        found = search["output"][0]["section"]
        never = "RCC 33.110.255"   # fences: in the code, not among the search's hits
        self.assertNotIn(never, {hit["section"] for hit in search["output"]})
        self.assertIsNotNone(Corpus(CODE).read(never))
        cell = self.cell(atom(truth=f"So the code says [{found}]."),      # a search returned it
                         atom(truth=f"Five feet [{never}]."),              # named, never read
                         atom(truth=f"Five feet [{SETBACKS}]."),           # its read failed
                         atom(truth=f"At most 800 square feet [{SIZE}]."),  # read_section
                         lookups=tools(search, read_call(SETBACKS, error="no more lookups"),
                                       read_call(SIZE)))
        self.assertEqual([a["verified"] for a in cell["atoms"]], [True, False, False, True])
        self.assertEqual([a["rests_on_read"] for a in cell["atoms"]],
                         [[found], [], [], [SIZE]])
        self.assertEqual([a["rests_on"] for a in cell["atoms"]],
                         [[found], [never], [SETBACKS], [SIZE]])
        self.assertEqual(cell["verified"], {"factual_atoms": 4, "resting_on_a_section_read": 2})

    def test_a_parcel_lookup_counts_for_the_parcel_it_returned(self):
        cell = self.cell(atom(truth=f"The lot is zoned R5 [{TINY_HOUSE}].", topic="zoning"),
                         atom(truth=f"That lot is zoned R2.5 [{OTHER_PARCEL}].", topic="zoning"),
                         lookups=tools(parcel_call("4127 SE Wrenfield Court")))
        first, second = cell["atoms"]
        self.assertEqual((first["rests_on_parcel"], first["rests_on_read"], first["verified"]),
                         ([TINY_HOUSE], [TINY_HOUSE], True))
        self.assertEqual((second["rests_on_parcel"], second["rests_on_read"], second["verified"]),
                         ([OTHER_PARCEL], [], False))
        self.assertEqual(first["unknown_sections"], [])   # an address is no missing section

    def test_passages_put_in_the_prompt_count_as_read(self):
        cell = self.cell(atom(), atom(truth=f"Five feet [{SETBACKS}]."), lookups=passages(SIZE))
        self.assertEqual([a["verified"] for a in cell["atoms"]], [True, False])

    def test_a_lookup_output_of_another_shape_is_refused(self):
        bad = dict(search_call("cottage"), output={"section": SIZE})
        err = self.score(self.line([atom()], tools(bad)), code=2)
        self.assertIn("lookups.calls[0].output is not what search_code returns", err)

    def test_the_figure_on_results_md_the_dashboard_and_the_detail_page(self):
        _, md, index, detail = self.score(self.line(
            [atom(), atom("WRONG", f"Five feet [{SETBACKS}].")], tools(read_call(SIZE))))
        said = "Verified: 1 of 2 factual atoms rest on a section the evaluator read"
        self.assertIn(said, md)
        self.assertIn(escape(said), index)
        self.assertIn("(verified 1/2)", md)
        self.assertIn("(verified 1/2)", index)
        self.assertIn("verified: 1 of 2 factual atoms rest on a section the evaluator read",
                      detail)
        self.assertIn(f"unverified; named but never read: {SETBACKS}", detail)


class CitedAsGiven(Scored):
    """An atom's citation earns credit only when the answer gave it."""

    def test_a_citation_the_answer_never_gave_earns_nothing(self):
        # (0 + 0.3 + 1.0) / 3 = 0.4333; x 3 + 0.5 = 1.8 -> 1 (2 when the evaluator's own
        # RCC 33.110.220 counted)
        result, _, _, detail = self.score(self.line([
            atom(citation=SETBACKS), atom(citation="Redfin"),
            atom(citation="riverton.example.gov/maps")], tools(read_call(SIZE))))
        (cell,) = result["cells"]
        self.assertEqual([(a["citation_bucket"], a["citation_not_in_answer"]) for a in cell["atoms"]],
                         [("none", [SETBACKS]), ("plausible-third-party", []), ("authoritative", [])])
        cited = cell["scores"]["cited"]
        self.assertEqual((cited["raw"], cited["score"], cited["not_in_answer"]), (0.4333, 1, 1))
        self.assertIn(escape(f"none (not_in_answer: {SETBACKS})"), detail)

    def test_how_a_citation_is_matched_to_the_answer(self):
        from evalkit.scenario.atomscore import answer_form
        table = SourceTable(SOURCES)
        answer = answer_form("Under Riverton City Code § 33.205.040 a cottage is limited to 800 "
                             "square feet; see https://www.Riverton.example.gov/adu/ and the "
                             "city’s website. A homeowners forum says otherwise.")
        cases = [
            ("RCC 33.205.040", "authoritative", []),           # the section by its number
            ("RCC 33.205", "none", ["RCC 33.205"]),            # a number is whole: not 33.205.040
            ("riverton.example.gov/adu", "authoritative", []),  # host and path, any case
            ("http://riverton.example.gov/adu", "authoritative", []),
            ("riverton.example.gov/fences", "none", ["riverton.example.gov/fences"]),
            ("the city's website", "authoritative", []),       # a curly apostrophe is one
            ("Zillow", "none", ["Zillow"]),
            ("RCC 33.110.220 and a homeowners forum", "non-authoritative", ["RCC 33.110.220"]),
            (None, "none", [])]
        for citation, bucket, missing in cases:
            with self.subTest(citation=citation):
                self.assertEqual(table.given(citation, answer), (bucket, missing))


class NeverLookedUp(Scored):
    def test_answers_whose_evaluator_had_tools_and_looked_nothing_up(self):
        result, md, index, detail = self.score(
            self.line([atom()], tools()),                                   # no lookup
            self.line([atom()], tools(read_call(SIZE)), repeat=1),
            self.line(None, tools(), repeat=2, error="evaluator reply was not JSON"),
            self.line([atom()], passages(SIZE), evaluator=("openai", "judge-b")),
            self.line([atom()], dict(passages(SIZE), why="asked for (--passages)"),
                      evaluator=("openai", "judge-b"), repeat=1))
        # the failed atomization is listed apart, as atomize.py counts: no atoms, nothing
        # rests on anything
        self.assertEqual(result["provenance"]["evaluator_lookups"], {
            "anthropic:judge-a": {"answers": 2, "passages": 0, "tools": 2,
                                  "tools_without_a_lookup": 1, "passages_asked": 0},
            "openai:judge-b": {"answers": 2, "passages": 2, "tools": 0,
                               "tools_without_a_lookup": 0, "passages_asked": 1}})
        # The passages a run asked for (--passages) are said so on the dashboard.
        self.assertIn("2 with the passages in the prompt (1 of them because the run asked for "
                      "the passages", md)
        said = ("Lookups: 2 answer(s) atomized with tools, 1 of them without one lookup call; "
                "0 with the passages in the prompt.")
        self.assertIn(said, md)
        self.assertIn(escape(said), index)
        self.assertIn("no lookup at all", detail)   # judge-a's repeat 0, the first page

    def test_no_count_without_lookups(self):
        result = self.score(self.line([atom()], None))[0]
        self.assertNotIn("evaluator_lookups", result["provenance"])
        self.assertNotIn("verified", result["cells"][0])


if __name__ == "__main__":
    unittest.main()


class AnsweredOn(unittest.TestCase):
    """The day an answer was got is a day of the calendar in ASCII digits,
    else unknown: a line's date never comes from a shape that only looks
    like one."""

    def test_days(self):
        from evalkit.scenario.scenario_score import answered_on
        attempt = lambda when: {"attempts": [{"started_at": when}]}  # noqa: E731
        self.assertEqual(answered_on(attempt("2026-11-20T10:00:00.000Z")), "2026-11-20")
        self.assertEqual(answered_on({"target": {"collected_at": "2026-11-21"}}), "2026-11-21")
        self.assertIsNone(answered_on(attempt("2026-02-30T10:00:00.000Z")))
        self.assertIsNone(answered_on(attempt("\u0662\u0660\u0662\u0666-11-20T10:00:00Z")))
        self.assertIsNone(answered_on(attempt("yesterday")))
