"""Intake extraction and citation grounding end to end against a loopback
model, with every metric computed by hand on the small case set in
tests/fixtures/ai, and the loader refusals. Replies of the wrong shape are
tests/test_ai_replies.py; result files and their provenance,
tests/test_ai_provenance.py."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import user_text
from tests.support import FIXTURES, call_main, read_lines

import ai_eval  # noqa: E402
from evalkit import BadInput  # noqa: E402
from evalkit.aieval.intake import Vocabulary, load_cases  # noqa: E402

AI = os.path.join(FIXTURES, "ai")
PREDICTIONS = {
    "backyard cottage": {"project_type": "adu", "jurisdiction": "oakland",
                         "fields": {"adu_kind": "detached", "owner_occupies": "yes"}},
    "not sure what kind": {"project_type": "adu", "jurisdiction": "unknown",
                           "fields": {"adu_kind": "detached", "owner_occupies": "unknown"}},
    "Una unidad": {"project_type": "jadu", "jurisdiction": "unknown", "fields": {"within_home": "yes"}},
}
CLAIMS = {
    '"oakland"': {"claims": [
        {"text": "An ADU is allowed here.", "citations": [
            {"passage": "adu-basics#s1", "quote": "generally allowed on a lot with a single-family home"}]},
        {"text": "ADUs are always allowed.", "citations": [
            {"passage": "adu-basics#s1", "quote": "ADUs are always allowed anywhere in the state"}]},
        {"text": "The zoning code agrees.", "citations": [{"passage": "zoning-code#s9", "quote": "x"}]}]},
    '"fresno"': {"claims": [
        {"text": "You need not live there.", "citations": [
            {"passage": "adu-basics#s2", "quote": "does not have to live on the property"}]},
        {"text": "Again: no owner occupancy.", "citations": [
            {"passage": "adu-basics#s2", "quote": "The owner  does not have\nto live"}]}]},
}
QUESTIONS = {
    '"oakland"': {"questions": [{"text": "Will the owner live there?", "pointer": {"fact": "owner_occupies"}},
                                {"text": "Owner rule?", "pointer": {"rule": "adu-owner"}},
                                {"text": "Is it allowed?", "pointer": {"rule": "adu-allowed"}}]},
    '"fresno"': {"questions": [{"text": "Owner rule?", "pointer": {"rule": "adu-owner"}}]},
}


def model(request):
    text = user_text("openai", request)
    if "<<<TEXT" in text:
        body = text.split("<<<TEXT\n", 1)[1]
        if "Quiero convertir" in body:
            return "{not json"
        return next(p for k, p in PREDICTIONS.items() if k in body)
    table = CLAIMS if "passages below" in text else QUESTIONS
    return next(v for k, v in table.items() if k in text.split("The confirmed facts", 1)[1])


class Suites(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.srv = ModelServer("openai", reply=model)
        self.srv.__enter__()
        self.addCleanup(self.srv.__exit__)
        os.environ.update(self.srv.environ())

    def run_suite(self, suite, *extra):
        out = os.path.join(self.tmp, f"{suite}.json")
        code, _, err = call_main(ai_eval, [suite, "--cases", os.path.join(AI, f"{suite}-cases.json"),
                                           "--output", out, "--raw", os.path.join(self.tmp, f"{suite}.raw.jsonl"),
                                           "--provider", "openai", "--model", "loopback-model",
                                           "--quiet"] + list(extra))
        with open(out, encoding="utf-8") as fh:
            return code, err, json.load(fh)

    def test_intake_metrics_by_hand(self):
        code, err, result = self.run_suite("intake")
        self.assertEqual(code, 1)   # i-es-1 got malformed JSON
        self.assertIn("i-es-1", err)
        self.assertEqual(result["errors"][0]["id"], "i-es-1")
        got = {m: (v["count"], v["of"]) for m, v in result["summary"]["overall"].items()}
        # i-es-2 is a well-formed jadu reply to an adu case: its two adu
        # fields cannot be compared, so they neither match, abstain nor fill.
        self.assertEqual(got, {
            "field_exact_match": (3, 7),       # 2 (i-en-1) + 1 (owner, i-en-2) + 0 (error) + 0 (wrong type)
            "abstained_when_should": (1, 4),   # i-en-2 owner
            "filled_when_unknown": (1, 4),     # i-en-2 adu_kind "detached" was never said
            "known_field_exact": (2, 3),
            "known_field_missed": (0, 3),
            "known_field_wrong": (0, 3),
            "fields_not_compared": (3, 7),     # i-es-1 (errored) 1 + i-es-2 (wrong type) 2
            "project_type_accuracy": (2, 4),
            "jurisdiction_accuracy": (3, 4),   # unknown == unknown counts
            "cases_fully_correct": (1, 4),
            "cases_fully_correct_with_jurisdiction": (1, 4),
            "cases_errored": (1, 4),
            "cases_wrong_project_type": (1, 4)})
        en = result["summary"]["by_language"]["en"]["field_exact_match"]
        es = result["summary"]["by_language"]["es"]["field_exact_match"]
        self.assertEqual(((en["count"], en["of"]), (es["count"], es["of"])), ((3, 4), (0, 3)))
        self.assertEqual(result["summary"]["by_field"]["adu.adu_kind"]["filled_when_unknown"]["count"], 1)
        run = result["run"]
        self.assertEqual((run["status"], run["provider"], run["model"], run["endpoint"]),
                         ("example", "openai", "loopback-model", self.srv.base + "/v1"))
        # The stand-in said it is one in every reply, and named the model asked for.
        self.assertEqual((run["served_model"], run["served_models"]),
                         ("loopback-model", ["loopback-model"]))
        self.assertEqual([[c["stand_in"] for c in case["calls"]] for case in result["calls"]],
                         [[True]] * 4)
        self.assertEqual(run["prompt_versions"][0]["name"], "intake-v2")

    def test_limit_runs_the_first_cases(self):
        code, _, result = self.run_suite("intake", "--limit", "2")
        self.assertEqual(code, 0)
        self.assertEqual([c["id"] for c in result["cases"]], ["i-en-1", "i-en-2"])

    def test_grounding_metrics_by_hand(self):
        code, err, result = self.run_suite("grounding")
        self.assertEqual((code, err), (0, ""))
        s = result["summary"]
        self.assertEqual((s["claims_generated"], s["claims_shown"], s["claims_withheld"]), (5, 3, 2))
        self.assertEqual((s["verified_citations"]["count"], s["verified_citations"]["of"]), (3, 5))
        self.assertEqual((s["cases_nothing_withheld"]["count"], s["cases_nothing_withheld"]["of"]), (1, 2))
        self.assertEqual((s["staff_questions_resolving"]["count"], s["staff_questions_resolving"]["of"]), (3, 4))
        g1 = result["cases"][0]
        self.assertEqual(g1["matched"], ["adu-allowed"])
        self.assertEqual(g1["unresolved"], [{"field": "owner_occupies", "rule": "adu-owner"}])
        reasons = [c["reason"] for c in g1["claims"]]
        self.assertEqual(reasons, [None, "the quote is not verbatim in adu-basics#s1",
                                   "cites zoning-code#s9, and no corpus document zoning-code exists"])
        self.assertEqual([r["name"] for r in result["run"]["prompt_versions"]],
                         ["explain-v2", "staff-questions-v1"])

    def test_a_folder_that_cannot_be_made_is_one_line_and_exit_2(self):
        blocker = os.path.join(self.tmp, "a-file")
        with open(blocker, "w", encoding="utf-8") as fh:
            fh.write("not a folder\n")
        inside, raw = os.path.join(blocker, "sub"), os.path.join(self.tmp, "intake.raw.jsonl")
        for flag, output, raw_path in (
                ("--raw", os.path.join(self.tmp, "r.json"), os.path.join(inside, "r.raw.jsonl")),
                ("--output", os.path.join(inside, "r.json"), raw)):
            with self.subTest(flag):
                code, out, err = call_main(ai_eval, [
                    "intake", "--cases", os.path.join(AI, "intake-cases.json"), "--output", output,
                    "--raw", raw_path, "--provider", "openai", "--model", "loopback-model", "--quiet"])
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertNotIn("Traceback", err)
                self.assertTrue(err.startswith(f"ai_eval.py: {blocker}"), err)
        # The bad --output was found after the calls: they are kept for the next run.
        self.assertEqual(len(read_lines(raw)), 4)
        self.assertEqual(len(self.srv.requests), 4)

    def test_no_provider_is_exit_2(self):
        code, _, err = call_main(ai_eval, ["intake", "--cases", os.path.join(AI, "intake-cases.json"),
                                           "--output", os.path.join(self.tmp, "x.json")])
        self.assertEqual(code, 2)
        self.assertIn("no provider configured", err)


class Loader(unittest.TestCase):
    def refuse(self, mutate, expected):
        with open(os.path.join(AI, "intake-cases.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        mutate(doc)
        with tempfile.TemporaryDirectory() as tmp:
            path = support.write_json(os.path.join(tmp, "cases.json"), doc)
            with self.assertRaises(BadInput) as ctx:
                load_cases(path, Vocabulary(os.path.join(AI, "vocabulary.json")), "intake", "gold")
        self.assertIn(expected, str(ctx.exception))

    def test_refusals(self):
        self.refuse(lambda d: d["cases"][0]["gold"]["fields"].update(adu_kind="treehouse"),
                    "adu_kind value 'treehouse' is not in the vocabulary")
        self.refuse(lambda d: d["cases"][0]["gold"]["fields"].pop("owner_occupies"),
                    "must be exactly the material fields of adu; missing owner_occupies")
        self.refuse(lambda d: d["cases"][0]["gold"]["fields"].update(within_home="yes"),
                    "not material: within_home")
        self.refuse(lambda d: d["cases"][0]["gold"].update(jurisdiction="atlantis"),
                    "jurisdiction 'atlantis' is not in the registry")
        self.refuse(lambda d: d["cases"][1].update(id="i-en-1"), "i-en-1: duplicate id")
        self.refuse(lambda d: d["cases"][0].update(language="fr"), "language must be en or es")


if __name__ == "__main__":
    unittest.main()
