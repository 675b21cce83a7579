"""Result files cannot be fooled (issue 17, item 7): a hand-written file is
refused; a real run's file passes only when every published figure
recomputes from its per-case records, its commit is in the repository's
history, its prompts and inputs are those of that commit and its tree was
clean; loopback runs are examples with their endpoint; a run in which every
call failed writes no result."""

import copy
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error
from tests.support import FIXTURES, ROOT, TOOLS, call_main

import ai_eval  # noqa: E402
from evalkit.resultfile import problems  # noqa: E402

AI = os.path.join(FIXTURES, "ai")
RESULTS = os.path.join(ROOT, "evals", "ai", "results")
REPLY = {"project_type": "adu", "jurisdiction": "unknown",
         "fields": {"adu_kind": "unknown", "owner_occupies": "unknown"}}


def model(request):
    """All unknown, except ``{}`` (an errored case) for i-es-1."""
    return {} if "Quiero convertir" in json.dumps(request, ensure_ascii=False) else REPLY

# What issue 17 found passing: commit 111...1, a made-up sha256, perfect
# numbers and no cases.
HAND_WRITTEN = {"format": 1, "suite": "intake",
                "run": {"status": "recorded_live_run", "provider": "anthropic", "model": "m",
                        "prompt_versions": [{"name": "intake-v1", "sha256": "a" * 64}],
                        "date_utc": "2026-11-20", "git_commit": "1" * 40, "git_dirty": False,
                        "cases_file": "intake-cases.json", "cases_sha256": "c" * 64},
                "summary": {"overall": {"field_exact_match": {"count": 40, "of": 40, "rate": 1.0}}}}


def git(cwd, *args):
    return subprocess.run(("git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                           "-c", "commit.gpgsign=false") + args, cwd=cwd, check=True,
                          capture_output=True, text=True).stdout.strip()


def has_git():
    return shutil.which("git") is not None


class Runs(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.srv = ModelServer("openai", reply=model)
        self.srv.__enter__()
        self.addCleanup(self.srv.__exit__)
        os.environ.update(self.srv.environ())

    def run_intake(self, output):
        return call_main(ai_eval, ["intake", "--cases", os.path.join(AI, "intake-cases.json"),
                                   "--output", output, "--raw", os.path.join(self.tmp, "r.raw.jsonl"),
                                   "--provider", "openai", "--model", "m", "--quiet"])

    def test_a_loopback_run_is_an_example_with_its_endpoint(self):
        out = os.path.join(self.tmp, "r.json")
        self.run_intake(out)
        with open(out, encoding="utf-8") as fh:
            run = json.load(fh)["run"]
        self.assertEqual((run["status"], run["endpoint"]), ("example", self.srv.base + "/v1"))
        self.assertEqual(run["inputs"]["cases"]["path"], "tests/fixtures/ai/intake-cases.json")

    def test_every_call_failed_writes_nothing(self):
        self.srv.queue(*[error("openai", 400, "invalid_request_error", "bad model")] * 4)
        before = sorted(os.listdir(RESULTS))
        out = os.path.join(self.tmp, "r.json")
        code, stdout, err = self.run_intake(out)
        self.assertEqual((code, stdout), (1, ""))
        self.assertIn("every call failed, so no result was written", err)
        self.assertFalse(os.path.exists(out))
        self.assertEqual(sorted(os.listdir(RESULTS)), before)


@unittest.skipUnless(has_git(), "git is not installed")
class History(unittest.TestCase):
    """A real run's result checked against a small repository holding the
    same files at the same paths, committed."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        srv = ModelServer("openai", reply=model)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        out = os.path.join(self.tmp, "r.json")
        call_main(ai_eval, ["intake", "--cases", os.path.join(AI, "intake-cases.json"), "--output", out,
                            "--raw", os.path.join(self.tmp, "r.raw.jsonl"),
                            "--provider", "openai", "--model", "m", "--quiet"])
        with open(out, encoding="utf-8") as fh:
            self.doc = json.load(fh)
        self.repo = os.path.join(self.tmp, "repo")
        shutil.copytree(os.path.join(TOOLS, "prompts"), os.path.join(self.repo, "tools", "eval-benchmark", "prompts"))
        shutil.copytree(AI, os.path.join(self.repo, "tests", "fixtures", "ai"))
        os.makedirs(os.path.join(self.repo, "evals", "ai"))
        shutil.copy(os.path.join(ROOT, "evals", "ai", "EXTRACTION_POLICY.md"), os.path.join(self.repo, "evals", "ai"))
        git(self.repo, "init", "-q")
        git(self.repo, "add", ".")
        git(self.repo, "commit", "-q", "-m", "the inputs")
        self.doc["run"].update(git_commit=git(self.repo, "rev-parse", "HEAD"), git_dirty=False)

    def check(self, doc):
        from evalkit.resultfile import check
        return check(doc, self.repo)

    def test_a_real_run_passes(self):
        self.assertEqual(self.check(self.doc), [])
        live = copy.deepcopy(self.doc)
        live["run"].update(status="recorded_live_run", endpoint="https://api.openai.com/v1")
        self.assertEqual(self.check(live), [])

    def test_a_grounding_run_recomputes_from_its_replies(self):
        from tests.test_ai_eval import model as grounding_model
        with ModelServer("openai", reply=grounding_model) as srv:
            os.environ.update(srv.environ())
            out = os.path.join(self.tmp, "g.json")
            call_main(ai_eval, ["grounding", "--cases", os.path.join(AI, "grounding-cases.json"),
                                "--output", out, "--raw", os.path.join(self.tmp, "g.raw.jsonl"),
                                "--provider", "openai", "--model", "m", "--quiet"])
        with open(out, encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["run"].update(git_commit=self.doc["run"]["git_commit"], git_dirty=False)
        self.assertEqual(self.check(doc), [])
        # A withheld claim's quote made verbatim by hand is scored again, and shows.
        doc["cases"][0]["explain_reply"]["claims"][1]["citations"][0]["quote"] = "generally allowed on a lot with"
        self.assertEqual(self.check(doc), ["summary is not what the per-case records give",
                                           "per-case records not as scored: g-1"])

    def changed(self, change):
        doc = copy.deepcopy(self.doc)
        change(doc)
        return self.check(doc)

    def test_every_published_figure_is_recomputed(self):
        def more_abstained(doc):
            doc["summary"]["overall"]["abstained_when_should"]["count"] += 1
        self.assertEqual(self.changed(more_abstained), ["summary is not what the per-case records give"])

        def better_reply(doc):
            doc["cases"][1]["prediction"]["fields"]["adu_kind"] = "detached"
        self.assertIn("summary is not what the per-case records give", self.changed(better_reply))

        def hide_an_error(doc):
            doc["errors"] = []
        self.assertEqual(self.changed(hide_an_error), ["errors is not what the per-case records give"])

        def drop_a_case(doc):
            del doc["cases"][0]
        self.assertEqual(self.changed(drop_a_case),
                         ["the per-case records are not the first cases of the case file"])

    def test_commit_prompts_and_inputs_are_those_of_the_history(self):
        def unknown_commit(doc):
            doc["run"]["git_commit"] = "1" * 40
        self.assertEqual(self.changed(unknown_commit),
                         [f"run.git_commit {'1' * 40} is not in the repository's history"])

        def other_prompt(doc):
            doc["run"]["prompt_versions"][0]["sha256"] = "a" * 64
        self.assertEqual(self.changed(other_prompt),
                         [f"prompt intake-v2: not the file of that name at {self.doc['run']['git_commit'][:12]}"])

        def other_cases(doc):
            doc["run"]["inputs"]["cases"]["sha256"] = doc["run"]["cases_sha256"] = "c" * 64
        self.assertEqual(len(self.changed(other_cases)), 1)

    def test_a_published_run_needs_a_clean_tree_and_a_remote_endpoint(self):
        def dirty(doc):
            doc["run"].update(status="recorded_live_run", endpoint="https://api.openai.com/v1", git_dirty=True)
        self.assertEqual(self.changed(dirty), [
            "run.git_dirty must be false: a published run is made from a committed tree"])

        def loopback(doc):
            doc["run"]["status"] = "recorded_live_run"
        self.assertEqual(len(self.changed(loopback)), 1)
        self.assertIn("is loopback: label the run example", self.changed(loopback)[0])


class Shape(unittest.TestCase):
    def test_a_hand_written_file_is_refused(self):
        found = problems(HAND_WRITTEN)
        self.assertIn("no per-case records (cases): the figures cannot be recomputed", found)
        self.assertIn("run.endpoint is missing", found)

    def test_not_run_may_hold_no_number(self):
        doc = {"format": 1, "run": {"status": "not_run"}, "summary": {"note": "not run yet"}}
        self.assertEqual(problems(doc), [])
        doc["summary"]["field_exact_match"] = 0.9
        self.assertEqual(problems(doc), ["status not_run but it holds numbers (first: summary.field_exact_match)"])

    def test_every_committed_result_file(self):
        from evalkit.resultfile import check
        names = sorted(n for n in os.listdir(RESULTS) if n.endswith(".json"))
        for name in names:
            with self.subTest(name):
                with open(os.path.join(RESULTS, name), encoding="utf-8") as fh:
                    doc = json.load(fh)
                self.assertNotEqual(doc.get("run", {}).get("status"), "example",
                                    "examples are not published")
                self.assertEqual(check(doc, ROOT), [])


if __name__ == "__main__":
    unittest.main()
