"""Replies of every shape, scored as the spec defines the measures (issue 17,
items 1, 2, 4 and 6): an intake reply must be an extraction over the
vocabulary or its case is errored; a wrong project type is scored, its fields
not compared; "cases fully correct" is the spec's "every field is right";
grounding keeps each part's figures when the other part fails, quotes are
verbatim within one section only and at least five words long, and a case
with no claims is no success. The oracle models (gold echo, all unknown,
``{}``) run over the committed 40 intake cases through a real loopback server.
"""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import user_text
from tests.support import FIXTURES, ROOT, call_main

import ai_eval  # noqa: E402
from evalkit.aieval.grounding import Corpus  # noqa: E402

AI = os.path.join(FIXTURES, "ai")
EVALS = os.path.join(ROOT, "evals", "ai")


def homeowner_text(prompt):
    return prompt.split("<<<TEXT\n", 1)[1].rsplit("\nTEXT>>>", 1)[0]


class Loopback(unittest.TestCase):
    """A loopback model whose reply is ``self.respond(prompt text)``."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.srv = ModelServer("openai", reply=lambda request: self.respond(user_text("openai", request)))
        self.srv.__enter__()
        self.addCleanup(self.srv.__exit__)
        os.environ.update(self.srv.environ())

    def run_suite(self, suite, cases, *extra):
        """A fresh run: no raw calls of an earlier run in this test are reused."""
        out = os.path.join(self.tmp, f"{suite}.json")
        for path in (out, os.path.join(self.tmp, f"{suite}.raw.jsonl")):
            if os.path.exists(path):
                os.unlink(path)
        code, _, err = call_main(ai_eval, [suite, "--cases", cases, "--output", out,
                                           "--raw", os.path.join(self.tmp, f"{suite}.raw.jsonl"),
                                           "--provider", "openai", "--model", "loopback-model",
                                           "--quiet"] + list(extra))
        if not os.path.exists(out):
            return code, err, None
        with open(out, encoding="utf-8") as fh:
            return code, err, json.load(fh)


def counts(summary):
    return {m: (v["count"], v["of"]) for m, v in summary.items()}


class IntakeOracles(Loopback):
    """The committed 40 cases: 212 fields, 107 of them unknown in the gold."""

    def setUp(self):
        super().setUp()
        with open(os.path.join(EVALS, "intake-cases.json"), encoding="utf-8") as fh:
            self.gold = {c["text"]: c["gold"] for c in json.load(fh)["cases"]}

    def run_oracle(self, respond):
        self.respond = lambda prompt: respond(self.gold[homeowner_text(prompt)])
        return self.run_suite("intake", os.path.join(EVALS, "intake-cases.json"))

    def test_gold_echo_is_perfect(self):
        code, err, result = self.run_oracle(lambda gold: gold)
        self.assertEqual((code, err, result["errors"]), (0, "", []))
        got = counts(result["summary"]["overall"])
        for metric in ("field_exact_match", "abstained_when_should", "known_field_exact",
                       "project_type_accuracy", "jurisdiction_accuracy", "cases_fully_correct",
                       "cases_fully_correct_with_jurisdiction"):
            self.assertEqual(got[metric][0], got[metric][1], metric)
        self.assertEqual((got["field_exact_match"], got["abstained_when_should"],
                          got["filled_when_unknown"], got["cases_fully_correct"]),
                         ((212, 212), (107, 107), (0, 107), (40, 40)))

    def test_all_unknown_abstains_everywhere_and_is_fully_correct_on_8_cases(self):
        def all_unknown(gold):
            return {"project_type": gold["project_type"], "jurisdiction": "unknown",
                    "fields": {f: "unknown" for f in gold["fields"]}}
        code, err, result = self.run_oracle(all_unknown)
        self.assertEqual((code, err), (0, ""))
        got = counts(result["summary"]["overall"])
        self.assertEqual(got["abstained_when_should"], (107, 107))
        self.assertEqual(got["filled_when_unknown"], (0, 107))
        # The spec: "the share of cases in which every field is right". 8 cases
        # have only unknown fields; 6 of them also an unknown jurisdiction.
        self.assertEqual(got["cases_fully_correct"], (8, 40))
        self.assertEqual(got["cases_fully_correct_with_jurisdiction"], (6, 40))
        self.assertEqual(got["jurisdiction_accuracy"], (12, 40))

    def test_an_empty_object_errors_every_case(self):
        code, err, result = self.run_oracle(lambda gold: {})
        self.assertEqual(code, 1)
        self.assertIn("40 of 40 case(s) errored", err)
        self.assertEqual(len(result["errors"]), 40)
        self.assertEqual(result["errors"][0]["error"],
                         "the reply has no project_type, jurisdiction, fields")
        got = counts(result["summary"]["overall"])
        self.assertEqual((got["abstained_when_should"], got["filled_when_unknown"],
                          got["jurisdiction_accuracy"], got["cases_fully_correct"],
                          got["cases_errored"], got["fields_not_compared"]),
                         ((0, 107), (0, 107), (0, 40), (0, 40), (40, 40), (212, 212)))

    def test_a_reply_without_fields_is_errored_not_fully_correct(self):
        code, _, result = self.run_oracle(
            lambda gold: {"project_type": gold["project_type"], "jurisdiction": gold["jurisdiction"]})
        self.assertEqual(code, 1)
        got = counts(result["summary"]["overall"])
        self.assertEqual((got["cases_fully_correct"], got["abstained_when_should"], got["cases_errored"]),
                         ((0, 40), (0, 107), (40, 40)))
        self.assertEqual(result["errors"][0]["error"], "the reply has no fields")

    def test_a_wrong_project_type_abstains_on_nothing(self):
        # Every case answered as an SB 9 lot split with every field filled:
        # the gold type's fields are not compared, so nothing is "abstained".
        def lot_split(gold):
            if gold["project_type"] == "sb9-lot-split":
                return gold
            return {"project_type": "sb9-lot-split", "jurisdiction": gold["jurisdiction"],
                    "fields": {"lot_size_band": "5000-plus", "zoning": "single-family",
                               "owner_will_live_there": "yes", "prior_split_by_owner": "no",
                               "historic_district": "no"}}
        code, _, result = self.run_oracle(lot_split)
        self.assertEqual((code, result["errors"]), (0, []))
        got = counts(result["summary"]["overall"])
        lot_split_cases = [c for c in result["cases"] if c["gold"]["project_type"] == "sb9-lot-split"]
        unknown_in_them = sum(v == "unknown" for c in lot_split_cases for v in c["gold"]["fields"].values())
        self.assertEqual(got["abstained_when_should"], (unknown_in_them, 107))
        self.assertEqual(got["filled_when_unknown"], (0, 107))
        self.assertEqual(got["cases_wrong_project_type"][0], 40 - len(lot_split_cases))
        self.assertEqual(got["jurisdiction_accuracy"], (40, 40))


class IntakeShapes(Loopback):
    """The fixture cases (i-en-1 adu/oakland, i-en-2, i-es-1 jadu/fresno,
    i-es-2), each case answered by a reply chosen per test."""

    GOOD = {"i-en-1": {"project_type": "adu", "jurisdiction": "oakland",
                       "fields": {"adu_kind": "detached", "owner_occupies": "yes"}},
            "i-es-1": {"project_type": "jadu", "jurisdiction": "fresno", "fields": {"within_home": "yes"}}}

    def errors_for(self, reply):
        """The errors when i-en-1 gets ``reply`` and i-es-1 its gold."""
        replies = {"backyard cottage": reply, "Quiero convertir": self.GOOD["i-es-1"]}
        self.respond = lambda prompt: next(
            (r for k, r in replies.items() if k in homeowner_text(prompt)),
            {"project_type": "adu", "jurisdiction": "unknown",
             "fields": {"adu_kind": "unknown", "owner_occupies": "unknown"}})
        code, err, result = self.run_suite("intake", os.path.join(AI, "intake-cases.json"))
        return code, err, result

    def test_each_malformed_reply_errors_its_case(self):
        good = self.GOOD["i-en-1"]
        bad = {
            "not an object": (["adu"], "reply is JSON but not an object"),  # the provider's refusal
            "no fields": ({"project_type": "adu", "jurisdiction": "oakland"}, "the reply has no fields"),
            "a field missing": (dict(good, fields={"adu_kind": "detached"}),
                                "the fields are not the material fields of adu; missing owner_occupies"),
            "a field not material": (dict(good, fields=dict(good["fields"], within_home="yes")),
                                     "the fields are not the material fields of adu; not material: within_home"),
            "a value outside": (dict(good, fields=dict(good["fields"], adu_kind="treehouse")),
                                "adu_kind value 'treehouse' is not in the vocabulary"),
            "a null value": (dict(good, fields=dict(good["fields"], owner_occupies=None)),
                             "owner_occupies value None is not in the vocabulary"),
            "a type outside": (dict(good, project_type="ADU"), "project_type 'ADU' is not in the vocabulary"),
            "a jurisdiction outside": (dict(good, jurisdiction="Oakland"),
                                       "jurisdiction 'Oakland' is not in the registry"),
        }
        for name, (reply, message) in bad.items():
            with self.subTest(name):
                code, err, result = self.errors_for(reply)
                self.assertEqual(code, 1)
                self.assertIn("i-en-1", err)
                self.assertEqual(result["errors"], [{"id": "i-en-1", "error": message}])
                got = counts(result["summary"]["overall"])
                self.assertEqual((got["cases_errored"], got["known_field_exact"]), ((1, 4), (1, 3)))

    def test_values_are_compared_exactly(self):
        # " Detached" and "YES" are not values of the vocabulary: no trimming,
        # no case folding turns them into one.
        good = self.GOOD["i-en-1"]
        code, _, result = self.errors_for(dict(good, fields={"adu_kind": " Detached", "owner_occupies": "YES"}))
        self.assertEqual(code, 1)
        self.assertEqual(result["errors"], [{"id": "i-en-1",
                                             "error": "adu_kind value ' Detached' is not in the vocabulary"}])


class GroundingParts(Loopback):
    """The fixture grounding cases g-1 (oakland) and g-2 (fresno)."""

    CLAIMS = {"oakland": [
        {"text": "An ADU is allowed here.", "citations": [
            {"passage": "adu-basics#s1", "quote": "generally allowed on a lot with a single-family home"}]},
        {"text": "Another.", "citations": [
            {"passage": "adu-basics#s1", "quote": "An ADU is generally allowed on a lot"}]}],
        "fresno": [
        {"text": "You need not live there.", "citations": [
            {"passage": "adu-basics#s2", "quote": "does not have to live on the property"}]}]}
    QUESTIONS = [{"text": "Owner rule?", "pointer": {"rule": "adu-owner"}},
                 {"text": "Is it allowed?", "pointer": {"rule": "adu-allowed"}}]

    def respond_with(self, explain, staff):
        def respond(prompt):
            city = "oakland" if '"oakland"' in prompt else "fresno"
            return explain(city) if "passages below" in prompt else staff(city)
        self.respond = respond
        return self.run_suite("grounding", os.path.join(AI, "grounding-cases.json"))

    def test_a_failed_staff_call_keeps_the_verified_claims(self):
        code, err, result = self.respond_with(lambda city: {"claims": self.CLAIMS[city]},
                                              lambda city: "{not json")
        self.assertEqual(code, 1)
        s = result["summary"]
        self.assertEqual((s["claims_generated"], s["claims_shown"]), (3, 3))
        self.assertEqual((s["cases_nothing_withheld"]["count"], s["cases_nothing_withheld"]["of"]), (2, 2))
        self.assertEqual((s["cases_errored"], s["staff_questions_errored"], s["explain_errored"]), (2, 2, 0))
        self.assertEqual(s["staff_questions_drafted"], 0)
        self.assertEqual([e["id"] for e in result["errors"]], ["g-1", "g-2"])
        self.assertTrue(result["errors"][0]["error"].startswith("staff questions: "), result["errors"])

    def test_a_failed_explain_call_keeps_the_questions(self):
        code, _, result = self.respond_with(lambda city: "{not json",
                                            lambda city: {"questions": self.QUESTIONS})
        self.assertEqual(code, 1)
        s = result["summary"]
        self.assertEqual((s["staff_questions_drafted"], s["claims_generated"], s["explain_errored"]), (4, 0, 2))
        self.assertEqual(s["cases_nothing_withheld"]["count"], 0)

    def test_no_claims_is_no_success(self):
        for name, reply in (("empty list", {"claims": []}), ("no claims key", {}),
                            ("claims not a list", {"claims": "none"})):
            with self.subTest(name):
                code, _, result = self.respond_with(lambda city: reply,
                                                    lambda city: {"questions": self.QUESTIONS})
                self.assertEqual(code, 1)
                s = result["summary"]
                self.assertEqual((s["cases_nothing_withheld"]["count"], s["cases_nothing_withheld"]["of"]),
                                 (0, 2))
                self.assertEqual((s["explain_errored"], s["staff_questions_resolving"]["count"]), (2, 3))
                self.assertTrue(result["errors"][0]["error"].startswith("explain: the reply"))

    def test_a_staff_reply_without_questions_is_errored(self):
        for name, reply in (("no questions key", {"claims": []}), ("empty list", {"questions": []})):
            with self.subTest(name):
                code, _, result = self.respond_with(lambda city: {"claims": self.CLAIMS[city]},
                                                    lambda city: reply)
                self.assertEqual(code, 1)
                self.assertEqual(result["summary"]["staff_questions_errored"], 2)
                self.assertEqual(result["summary"]["claims_shown"], 3)
                self.assertTrue(result["errors"][0]["error"].startswith("staff questions: the reply"))


    def test_a_pointer_of_another_type_resolves_nothing(self):
        # A model may put a list where a rule id belongs: the run goes on,
        # and that question resolves nothing (it crashed once: unhashable list).
        odd = [{"text": "Which rule?", "pointer": {"rule": ["adu-owner"]}},
               {"text": "Which fact?", "pointer": {"fact": {"field": "x"}}}]
        code, err, result = self.respond_with(lambda city: {"claims": self.CLAIMS[city]},
                                              lambda city: {"questions": self.QUESTIONS + odd})
        self.assertNotIn("Traceback", err)
        self.assertEqual(code, 0, err)
        s = result["summary"]
        self.assertEqual(s["staff_questions_drafted"], 8)
        _, _, plain = self.respond_with(lambda city: {"claims": self.CLAIMS[city]},
                                        lambda city: {"questions": self.QUESTIONS})
        self.assertEqual(s["staff_questions_resolving"]["count"],
                         plain["summary"]["staff_questions_resolving"]["count"])

class Verbatim(unittest.TestCase):
    """Corpus.check_quote on a corpus with two sections, one with an accent."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        support.write_json(os.path.join(tmp.name, "doc.json"), {
            "id": "doc", "title": "t", "label": "written for the tests", "sections": [
                {"id": "s1", "text": "An ADU is generally allowed on a lot with a single-family home."},
                {"id": "s2", "text": "The owner does not have to live on the property, se\u00f1or caf\u00e9."}]})
        self.corpus = Corpus(tmp.name)

    def test_verbatim_within_one_section(self):
        ok = {"whitespace runs": ("doc#s1", "allowed on a lot\n  with  a single-family home"),
              "NFC": ("doc#s2", "on the property, sen\u0303or cafe\u0301."),
              "exactly five words": ("doc#s1", "An ADU is generally allowed")}
        for name, (passage, quote) in ok.items():
            with self.subTest(name):
                self.assertIsNone(self.corpus.check_quote(passage, quote))

    def test_what_is_not_verbatim(self):
        refused = {
            "letter case": ("doc#s2", "The owner DOES NOT have to live", "the quote is not verbatim in doc#s2"),
            "two sections": ("doc#s1", "with a single-family home. The owner does not have",
                             "the quote is not verbatim in doc#s1"),
            "one word": ("doc#s1", "the", "the quote is 1 word(s); a quote must be at least 5 words "
                                          "to support a claim"),
            "four words": ("doc#s1", "An ADU is generally", "the quote is 4 word(s); a quote must be at "
                                                            "least 5 words to support a claim"),
            "another section": ("doc#s1", "does not have to live on", "the quote is in doc#s2, not in "
                                                                       "the cited doc#s1"),
        }
        for name, (passage, quote, reason) in refused.items():
            with self.subTest(name):
                self.assertEqual(self.corpus.check_quote(passage, quote), reason)


if __name__ == "__main__":
    unittest.main()
