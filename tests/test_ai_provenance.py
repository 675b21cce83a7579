"""Result files cannot be fooled (issue 17, item 7): a hand-written file is
refused; a real run's file passes only when every published figure
recomputes from its per-case records, its commit is in the repository's
history and not younger than the run, its prompts and inputs are those of
that commit (the committed case files, not the tests' fixtures under their
name), its tree was clean, its status is who answered (a hosted API, a model
served here, or a stand-in) and its provider speaks its endpoint's API.
Nothing outside the figures holds a number, a limited run says so, a
not_run file holds no result even as text, a key given twice is refused,
and without git a recorded run is not vouched for. A run in which every
call failed writes no result; a stand-in's run is never written into
evals/ai/results/. The endpoint forms of this machine: test_provenance_endpoints.py."""

import copy
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error
from tests.standins import user_text
from tests.support import FIXTURES, ROOT, TOOLS, call_main

import ai_eval  # noqa: E402
from evalkit.aieval import resultfile  # noqa: E402
from evalkit.aieval.resultfile import problems  # noqa: E402

AI = os.path.join(FIXTURES, "ai")
RESULTS = os.path.join(ROOT, "evals", "ai", "results")
REPLY = {"project_type": "adu", "jurisdiction": "unknown",
         "fields": {"adu_kind": "unknown", "owner_occupies": "unknown"}}
# A model of open weights served on this machine, as llama.cpp's server names
# one (its file), and a hosted model as its API names it: asked gpt-4o-mini,
# it reports the snapshot. A closed-weights model is never a local run.
MODEL, SERVED = "qwen2.5-7b-instruct", "Qwen2.5-7B-Instruct-Q4_K_M.gguf"
LIVE_MODEL, LIVE_SERVED = "gpt-4o-mini", "gpt-4o-mini-2024-07-18"
LIVE = "https://api.openai.com/v1"
JSON_MODE = {"openai": "json_object", "anthropic": "forced_tool", "bedrock": "forced_tool"}


def hosted(doc, provider, endpoint, model, served):
    """``doc`` as ``provider``'s API at ``endpoint`` would have written it,
    every record of it made to agree (a hand that relabels a file throughout,
    which the checker cannot tell from a run): status, endpoint, provider,
    model, the served model of each call and the run's, the JSON mode, the
    wire format of each reply."""
    for case in doc["calls"]:
        for call in case["calls"]:
            call["served_model"] = served
            call["reply_format"] = provider if provider in JSON_MODE else None
    doc["run"].update(status="recorded_live_run", endpoint=endpoint, provider=provider,
                      model=model, served_model=served, served_models=[served] if served else [])
    doc["run"]["settings"]["json_mode"] = JSON_MODE.get(provider, "json_object")
    return doc


def model(request):
    """All unknown, except ``{}`` (an errored case) for i-es-1."""
    return {} if "Quiero convertir" in json.dumps(request, ensure_ascii=False) else REPLY


def grounding_model(request):
    """A claim whose quote is nowhere, and a question about a fact."""
    if "passages below" in user_text("openai", request):
        return {"claims": [{"text": "It may be allowed.", "citations": [
            {"passage": "adu-basics#s1", "quote": "one two three four five"}]}]}
    return {"questions": [{"text": "Will the owner live there?", "pointer": {"fact": "owner_occupies"}}]}


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


def run_eval(tmp, suite, cases, name, *extra, model_name="m"):
    """``(code, stderr, result or None)`` of one ai_eval.py run into ``tmp``."""
    out = os.path.join(tmp, name + ".json")
    code, _, err = call_main(ai_eval, [suite, "--cases", cases, "--output", out,
                                       "--raw", os.path.join(tmp, name + ".raw.jsonl"),
                                       "--provider", "openai", "--model", model_name, "--quiet"]
                             + list(extra))
    if not os.path.exists(out):
        return code, err, None
    with open(out, encoding="utf-8") as fh:
        return code, err, json.load(fh)


def consistent(doc):
    """``doc`` after a careful hand: the counts and sums that follow from its
    records made to agree, so that a deeper check is what refuses it."""
    doc["run"]["cases_run"] = len(doc["cases"])
    doc["calls"] = [c for c in doc["calls"] if c["id"] in {r["id"] for r in doc["cases"]}]
    doc["run"]["tokens"] = resultfile.tokens_of(doc["calls"])
    return doc


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

    def test_a_stand_ins_run_is_an_example_with_its_endpoint_and_served_model(self):
        out = os.path.join(self.tmp, "r.json")
        self.run_intake(out)
        with open(out, encoding="utf-8") as fh:
            doc = json.load(fh)
        run = doc["run"]
        self.assertEqual((run["status"], run["endpoint"]), ("example", self.srv.base + "/v1"))
        self.assertEqual((run["served_model"], run["served_models"]), ("m", ["m"]))
        self.assertEqual(run["inputs"]["cases"]["path"], "tests/fixtures/ai/intake-cases.json")
        self.assertTrue(all(c["stand_in"] for case in doc["calls"] for c in case["calls"]))

    def test_every_call_failed_writes_nothing(self):
        self.srv.queue(*[error("openai", 400, "invalid_request_error", "bad model")] * 4)
        before = sorted(os.listdir(RESULTS))
        out = os.path.join(self.tmp, "r.json")
        code, stdout, err = self.run_intake(out)
        self.assertEqual((code, stdout), (1, ""))
        self.assertIn("every call failed, so no result was written", err)
        self.assertFalse(os.path.exists(out))
        self.assertEqual(sorted(os.listdir(RESULTS)), before)

    def test_a_stand_ins_run_is_never_written_into_results(self):
        out = os.path.join(RESULTS, "2026-12-01-intake-openai-m.json")
        self.addCleanup(lambda: os.path.exists(out) and os.remove(out))
        before = sorted(os.listdir(RESULTS))
        code, stdout, err = self.run_intake(out)
        self.assertEqual((code, stdout), (2, ""))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith(f"ai_eval.py: {out}: this run is an example"), err)
        self.assertIn("examples are not published in evals/ai/results/", err)
        self.assertEqual(sorted(os.listdir(RESULTS)), before)
        self.assertEqual(len(self.srv.requests), 4)   # the calls are kept in --raw

    def test_help_names_the_default_folder_of_each_status(self):
        code, out, _ = call_main(ai_eval, ["--help"])
        self.assertEqual(code, 0)
        text = " ".join(out.split())
        output_help = text.rsplit("--output OUTPUT", 1)[1].split("--raw RAW", 1)[0]
        self.assertIn("a recorded run to evals/ai/results/", output_help)
        self.assertIn("an example to build/ai/", output_help)


@unittest.skipUnless(has_git(), "git is not installed")
class History(unittest.TestCase):
    """Real runs' results checked against a small repository holding the same
    files at the same paths, committed: the tests' fixtures and the published
    case sets of evals/ai/. The runs are made once: an example on the
    fixture (a stand-in answered), a recorded run of the whole intake set and
    of its first 5 cases, and of the grounding set (a server playing a model
    that names itself), and a run of the fixture by that server."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        saved = dict(os.environ)
        try:
            for var in support.PROVIDER_SELECTORS:
                os.environ.pop(var, None)
            cls.runs()
        finally:
            os.environ.clear()
            os.environ.update(saved)
        cls.repo = os.path.join(cls.tmp, "repo")
        shutil.copytree(os.path.join(TOOLS, "prompts"),
                        os.path.join(cls.repo, "tools", "eval-benchmark", "prompts"))
        shutil.copytree(AI, os.path.join(cls.repo, "tests", "fixtures", "ai"))
        shutil.copytree(os.path.join(ROOT, "evals", "ai"), os.path.join(cls.repo, "evals", "ai"),
                        ignore=shutil.ignore_patterns("results"))
        git(cls.repo, "init", "-q")
        git(cls.repo, "add", ".")
        git(cls.repo, "commit", "-q", "-m", "the inputs")
        cls.commit = git(cls.repo, "rev-parse", "HEAD")
        for doc in (cls.example, cls.fixture, cls.local, cls.limited, cls.grounding):
            doc["run"].update(git_commit=cls.commit, git_dirty=False)

    @classmethod
    def runs(cls):
        published = os.path.join(ROOT, "evals", "ai")
        with ModelServer("openai", reply=model) as srv:
            os.environ.update(srv.environ())
            cls.example = run_eval(cls.tmp, "intake", os.path.join(AI, "intake-cases.json"), "ex")[2]
        with ModelServer("openai", reply=model, stand_in=False, served_model=SERVED) as srv:
            os.environ.update(srv.environ())
            intake = os.path.join(published, "intake-cases.json")
            cls.fixture = run_eval(cls.tmp, "intake", os.path.join(AI, "intake-cases.json"), "fx",
                                   model_name=MODEL)[2]
            cls.local = run_eval(cls.tmp, "intake", intake, "all", model_name=MODEL)[2]
            cls.limited = run_eval(cls.tmp, "intake", intake, "five", "--limit", "5",
                                   model_name=MODEL)[2]
        with ModelServer("openai", reply=grounding_model, stand_in=False, served_model=SERVED) as srv:
            os.environ.update(srv.environ())
            cls.grounding = run_eval(cls.tmp, "grounding",
                                     os.path.join(published, "grounding-cases.json"), "g",
                                     model_name=MODEL)[2]

    def check(self, doc, root=None):
        return resultfile.check(doc, root or self.repo)

    def changed(self, change, doc=None):
        doc = copy.deepcopy(self.example if doc is None else doc)
        change(doc)
        return self.check(doc)

    def live(self, doc=None):
        """A recorded run as a hosted API made it: the same replies, from the
        OpenAI API's endpoint and an OpenAI model (hosted)."""
        doc = copy.deepcopy(self.local if doc is None else doc)
        return hosted(doc, "openai", LIVE, LIVE_MODEL, LIVE_SERVED)

    def test_real_runs_pass(self):
        self.assertEqual(self.check(self.example), [])
        self.assertEqual((self.local["run"]["status"], self.local["run"]["served_model"]),
                         ("recorded_local_run", SERVED))
        self.assertEqual(len(self.local["cases"]), 40)
        for doc in (self.local, self.limited, self.live(), self.live(self.grounding)):
            with self.subTest(doc["run"]["status"], cases=len(doc["cases"]), suite=doc["suite"]):
                self.assertEqual(self.check(doc), [])

    def test_a_grounding_run_recomputes_from_its_replies(self):
        from tests.test_ai_eval import model as fixture_grounding
        support.isolate_environ(self)
        with ModelServer("openai", reply=fixture_grounding) as srv:
            os.environ.update(srv.environ())
            doc = run_eval(self.tmp, "grounding", os.path.join(AI, "grounding-cases.json"), "fg")[2]
        doc["run"].update(git_commit=self.commit, git_dirty=False)
        self.assertEqual(self.check(doc), [])
        # A withheld claim's quote made verbatim by hand is scored again, and shows.
        doc["cases"][0]["explain_reply"]["claims"][1]["citations"][0]["quote"] = "generally allowed on a lot with"
        self.assertEqual(self.check(doc), ["summary is not what the per-case records give",
                                           "per-case records not as scored: g-1"])

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
                         ["run.cases_run 4 is not the number of per-case records (3)"])
        self.assertEqual(self.changed(lambda doc: consistent(drop_a_case(doc) or doc)),
                         ["the per-case records are not the first cases of the case file"])

    def test_no_number_outside_summary_cases_and_errors(self):
        def headline(doc):
            doc["headline"] = {"field_exact_match": 0.97}
        self.assertEqual(self.changed(headline), ["headline is not a field of a result file"])

        def accuracy(doc):
            doc["run"]["accuracy"] = 0.97
        self.assertEqual(self.changed(accuracy), ["run.accuracy is not a field of a result file"])

        def tokens(doc):
            doc["run"]["tokens"]["input_tokens"] = 1
        self.assertEqual(self.changed(tokens), ["run.tokens is not what the calls' usage adds up to"])

        def a_score_in_an_input(doc):
            doc["run"]["inputs"]["cases"]["score"] = 0.97
        self.assertEqual(self.changed(a_score_in_an_input),
                         ["run.inputs.cases.score is not a field of a result file"])

    def test_a_limited_run_cannot_say_it_ran_every_case(self):
        def no_limit(doc):
            doc["run"]["limit"] = None
        self.assertEqual(self.changed(no_limit, self.limited), [
            "the per-case records are 5 of the case file's 40 cases, and run.limit is not set: "
            "a run of the first 5 says run.limit 5"])

        def forty(doc):
            doc["run"].update(limit=None, cases_run=40)
        self.assertEqual(self.changed(forty, self.limited),
                         ["run.cases_run 40 is not the number of per-case records (5)"])

        def a_larger_limit(doc):
            doc["run"]["limit"] = 40
        self.assertIn("the per-case records are 5 of the case file's 40 cases",
                      self.changed(a_larger_limit, self.limited)[0])

    def test_the_fixture_cannot_pass_as_the_published_case_file(self):
        doc = self.live(self.fixture)
        self.assertEqual(self.check(doc), [
            "run.inputs.cases is tests/fixtures/ai/intake-cases.json, not "
            "evals/ai/intake-cases.json: a recorded run uses the committed inputs of evals/ai/",
            "run.inputs.vocabulary is tests/fixtures/ai/vocabulary.json, not "
            "evals/ai/vocabulary.json: a recorded run uses the committed inputs of evals/ai/"])

        def renamed(doc):
            for role in ("cases", "vocabulary"):
                doc["run"]["inputs"][role]["path"] = f"evals/ai/{doc['run']['inputs'][role]['name']}"
        found = self.changed(renamed, doc)
        self.assertEqual(len(found), 2, found)
        self.assertTrue(all(" is not at " in p and "with the recorded sha256" in p for p in found))

        def with_the_published_sha256(doc):
            renamed(doc)
            real = self.local["run"]["inputs"]
            for role in ("cases", "vocabulary"):
                doc["run"]["inputs"][role]["sha256"] = real[role]["sha256"]
            doc["run"]["cases_sha256"] = real["cases"]["sha256"]
        self.assertEqual(self.changed(with_the_published_sha256, doc),
                         ["the per-case records are not the first cases of the case file"])

    def test_commit_prompts_and_inputs_are_those_of_the_history(self):
        def unknown_commit(doc):
            doc["run"]["git_commit"] = "1" * 40
        self.assertEqual(self.changed(unknown_commit),
                         [f"run.git_commit {'1' * 40} is not in the repository's history"])

        def other_prompt(doc):
            doc["run"]["prompt_versions"][0]["sha256"] = "a" * 64
        self.assertEqual(self.changed(other_prompt),
                         [f"prompt intake-v2: not the file of that name at {self.commit[:12]}"])

        def other_cases(doc):
            doc["run"]["inputs"]["cases"]["sha256"] = doc["run"]["cases_sha256"] = "c" * 64
        self.assertEqual(len(self.changed(other_cases)), 1)

    def test_a_run_is_not_older_than_its_commit_nor_dated_tomorrow(self):
        def long_ago(doc):
            doc["run"].update(date_utc="2020-01-01", dates_utc=["2020-01-01"])
        found = self.changed(long_ago, self.local)
        self.assertEqual(len(found), 1, found)
        self.assertRegex(found[0], rf"^run\.date_utc 2020-01-01 is before its commit "
                                   rf"{self.commit[:12]} was made \(\d{{4}}-\d\d-\d\d, UTC\)$")

        def in_the_future(doc):
            doc["run"].update(date_utc="2999-01-01", dates_utc=["2999-01-01"])
        self.assertRegex(self.changed(in_the_future, self.local)[0],
                         r"^run\.dates_utc 2999-01-01 is after today \(\d{4}-\d\d-\d\d, UTC\)$")

    def test_a_published_run_needs_a_clean_tree_and_an_endpoint_of_its_status(self):
        def dirty(doc):
            doc["run"]["git_dirty"] = True
        self.assertEqual(self.changed(dirty, self.live()), [
            "run.git_dirty must be false: a published run is made from a committed tree"])

        def this_machine(doc):
            doc["run"]["status"] = "recorded_live_run"
        found = self.changed(this_machine, self.local)
        self.assertEqual(len(found), 1, found)
        self.assertIn("is this machine or a private network: label the run recorded_local_run", found[0])

        def local(doc):
            doc["run"]["status"] = "recorded_local_run"
        self.assertIn(f"run.endpoint {LIVE} is a hosted API's: label the run recorded_live_run",
                      self.changed(local, self.live()))

    def test_every_form_of_this_machine_is_refused_as_a_hosted_run(self):
        for host in ("127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0.0.0.0",
                     "[::ffff:127.0.0.1]", "[::1]", "[::]", "localhost", "LOCALHOST.",
                     "box.localhost", "10.0.0.5", "192.168.1.20", "169.254.1.1", "[fd00::2]",
                     "gpu-box", "ollama.local", "llm.internal"):
            with self.subTest(host):
                def at(doc):
                    doc["run"]["endpoint"] = f"http://{host}:8080/v1"
                found = self.changed(at, self.live())
                self.assertEqual(len(found), 1, found)
                self.assertIn("is this machine or a private network", found[0])

    def test_the_provider_speaks_its_endpoints_api(self):
        cases = [("anthropic", LIVE, "run.provider anthropic with an OpenAI-style endpoint"),
                 ("anthropic", "https://gateway.example.com/v1",
                  "run.provider anthropic with an OpenAI-style endpoint"),
                 ("bedrock", LIVE, "run.provider bedrock with the endpoint"),
                 ("openai", "https://bedrock-runtime.us-east-1.amazonaws.com",
                  "run.provider openai with Bedrock's endpoint"),
                 ("manual", LIVE, "run.provider manual is none of")]
        for provider, endpoint, message in cases:
            with self.subTest(provider=provider, endpoint=endpoint):
                def relabelled(doc):
                    hosted(doc, provider, endpoint, LIVE_MODEL, LIVE_SERVED)
                found = self.changed(relabelled, self.live())
                self.assertEqual(len(found), 1, found)
                self.assertTrue(found[0].startswith(message), found[0])
        for provider, endpoint, name in (
                ("anthropic", "https://api.anthropic.com", "claude-sonnet-4-5-20250929"),
                ("bedrock", "https://bedrock-runtime.eu-west-1.amazonaws.com", None),
                ("openai", "https://api.groq.com/openai/v1", LIVE_SERVED)):
            with self.subTest(provider=provider, endpoint=endpoint):
                def speaks(doc):
                    hosted(doc, provider, endpoint, name and "claude-sonnet-4-5" if
                           provider != "openai" else LIVE_MODEL, name)
                    doc["run"]["model"] = "us.anthropic.claude-sonnet-4-5-20250929-v1:0" \
                        if provider == "bedrock" else doc["run"]["model"]
                self.assertEqual(self.changed(speaks, self.live()), [])

    def test_a_stand_in_is_never_a_recorded_run(self):
        for status, endpoint in (("recorded_live_run", LIVE),
                                 ("recorded_local_run", "http://127.0.0.1:8080/v1")):
            with self.subTest(status):
                def recorded(doc):
                    doc["run"].update(status=status, endpoint=endpoint)
                self.assertEqual(self.changed(recorded)[0],
                                 "a stand-in answered (its server said so): label the run example")

        def named_so(doc):
            for case in doc["calls"]:
                case["calls"][0]["served_model"] = "stand-in-gpt"
                case["calls"][0]["stand_in"] = False
            doc["run"].update(served_model="stand-in-gpt", served_models=["stand-in-gpt"])
        self.assertEqual(self.changed(named_so, self.live()),
                         ["a stand-in answered (its server said so): label the run example"])

    def test_the_model_named_is_of_the_family_the_server_reported(self):
        def relabelled(doc):
            doc["run"]["model"] = "gpt-4o"
        self.assertEqual(self.changed(relabelled, self.live()), [
            f"the server reported {LIVE_SERVED}, not of the family of run.model gpt-4o (gpt4o): "
            "record the model that answered"])

        def served_too(doc):
            for case in doc["calls"]:
                case["calls"][0]["served_model"] = "gpt-4o"
        self.assertEqual(self.changed(served_too, self.live()), [
            "run.served_model and run.served_models are not the models the calls name"])

    def test_a_local_run_names_its_model(self):
        def unnamed(doc):
            for case in doc["calls"]:
                case["calls"][0]["served_model"] = None
            doc["run"].update(served_model=None, served_models=[])
        self.assertEqual(self.changed(unnamed, self.local), [
            "a local run names the model its server reported, and no reply named one: "
            "label the run example"])

    def test_without_git_a_recorded_run_is_not_vouched_for(self):
        copied = os.path.join(self.tmp, "archive")
        shutil.copytree(self.repo, copied, ignore=shutil.ignore_patterns(".git"))
        self.assertEqual(resultfile.check(self.example, copied), [])   # recomputed from the files
        for commit in (self.commit, "1" * 40):
            with self.subTest(commit):
                doc = self.live()
                doc["run"]["git_commit"] = commit
                self.assertEqual(resultfile.check(doc, copied), [
                    f"run.git_commit {commit[:12]} cannot be checked: {copied} is not a git "
                    "checkout (its history holds the commit, its files and its date)"])
        doc = self.live()
        doc["summary"]["overall"]["field_exact_match"]["count"] += 1
        self.assertIn("summary is not what the per-case records give", resultfile.check(doc, copied))

    def test_a_key_given_twice_is_refused(self):
        path = os.path.join(self.tmp, "twice.json")
        text = json.dumps(self.live(), indent=1)
        forged = {"overall": {"field_exact_match": {"count": 40, "of": 40, "rate": 1.0}}}
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text[:-2] + ',\n "summary": ' + json.dumps(forged) + "\n}\n")
        with open(path, encoding="utf-8") as fh:
            self.assertEqual(json.load(fh)["summary"], forged)  # what json.load reads
        found = resultfile.check_file(path, self.repo)
        self.assertEqual(len(found), 1, found)
        self.assertTrue(found[0].startswith(f"{path}: "), found[0])
        self.assertIn("the key 'summary' is given twice in one object", found[0])
        clean = os.path.join(self.tmp, "once.json")
        with open(clean, "w", encoding="utf-8") as fh:
            fh.write(text)
        self.assertEqual(resultfile.check_file(clean, self.repo), [])


class Shape(unittest.TestCase):
    def test_a_hand_written_file_is_refused(self):
        found = problems(HAND_WRITTEN)
        self.assertIn("no per-case records (cases): the figures cannot be recomputed", found)
        self.assertIn("run.endpoint is missing", found)

    def test_a_not_run_file_holds_no_result_even_as_text(self):
        doc = {"format": 3, "suite": "intake",
               "run": {"status": "not_run", "provider": "anthropic", "model": "claude-sonnet-4-5",
                       "reason": "no model API reachable from this machine"}}
        self.assertEqual(problems(doc), [])
        for change, expected in [
                (lambda d: d.update(summary={"field_exact_match": 0.9}),
                 "status not_run but it holds numbers (first: summary.field_exact_match)"),
                (lambda d: d.update(summary={"field_exact_match": "90%"}),
                 "summary is not a field of a result file"),
                (lambda d: d.update(cases=[{"id": "i-en-1", "match": "yes"}]),
                 "cases is not a field of a result file"),
                (lambda d: d["run"].update(accuracy="0.93"),
                 "run.accuracy is not a field of a result file"),
                (lambda d: d["run"].update(reason="scored 93% on a laptop"),
                 "run.reason of a not_run file holds a digit: a reason, not a result")]:
            with self.subTest(expected):
                changed = copy.deepcopy(doc)
                change(changed)
                self.assertEqual(problems(changed), [expected])

    def test_every_committed_result_file(self):
        names = sorted(n for n in os.listdir(RESULTS) if n.endswith(".json"))
        if names and not resultfile.is_git_checkout(ROOT):
            self.skipTest("not a git checkout: a recorded run's commit cannot be checked here")
        for name in names:
            with self.subTest(name):
                path = os.path.join(RESULTS, name)
                self.assertNotEqual(resultfile.load(path).get("run", {}).get("status"),
                                    "example", "examples are not published")
                self.assertEqual(resultfile.check_file(path, ROOT), [])
                self.assertRegex(name, r"^\d{4}-\d\d-\d\d-(intake|grounding)-[a-z0-9.-]+\.json$")


if __name__ == "__main__":
    unittest.main()


class OneCommand(unittest.TestCase):
    """reproduce.py on a published result file: the one command an auditor
    runs (evals/ai/results/README.md), and what it says of a changed one."""

    def test_each_published_result_reproduces(self):
        import reproduce
        names = sorted(n for n in os.listdir(RESULTS) if n.endswith(".json"))
        self.assertTrue(names)
        for name in names:
            with self.subTest(name):
                code, out, err = call_main(reproduce, [os.path.join(RESULTS, name)])
                self.assertEqual((code, out), (0, ""), err)
                self.assertIn("every figure recomputed from its records and equal", err)

    def test_a_changed_figure_is_not_reproduced(self):
        import reproduce
        name = [n for n in sorted(os.listdir(RESULTS)) if "-intake-" in n][0]
        with open(os.path.join(RESULTS, name), encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["summary"]["overall"]["cases_fully_correct"]["count"] += 1
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
            code, out, err = call_main(reproduce, [path])
        self.assertEqual(code, 1)
        self.assertIn("differs    summary is not what the per-case records give", out)
        self.assertIn("NOT reproduced", err)
