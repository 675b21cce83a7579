"""What issue 39 found in the model-judged suites (scenario, intake,
grounding), each held here against loopback servers that speak the real
wire formats; every test fails on the code before the fix.

1. settings that decide the results are recorded: JSON mode, max tokens,
   temperature, context, prompt, the model the server reported; a line
   whose settings disagree with what it holds is refused;
2. cross-evaluation cells count scored and failed apart and say why a
   cell is empty;
3. a model id that is a path (llama.cpp's server without --alias) is
   reduced to its file name and marked; no home folder reaches an output;
4. atoms are checked against the answer: invented, duplicated, a truth
   that only negates; counted beside Accurate and the audit;
5. provenance: a closed-weights name served here is a stand-in; a reply in
   another provider's wire format is refused; a run lists its prompts;
   the five same-model pairs and provider:model names;
6. tool calls without an id, or sharing one, go back by position under
   ids of their own;
7. atomize.py needs --cases; a scenario run suggests no quarter's make
   target; Cited credits neither a telephone number written as a section
   nor a source the answer warns against.

The Done-when run (DoneWhen): a stand-in reporting a GGUF path,
OPENAI_JSON_MODE=json_schema and --max-tokens 777.
"""

import copy
import hashlib
import json
import os

from tests.model_servers import calling, conversation, error
from tests.support import ROOT, call_main, read_lines
from tests.test_atomize import CASES, EnvTestCase

import ai_eval  # noqa: E402
import atomize  # noqa: E402
import reproduce  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.aieval import resultfile  # noqa: E402
from evalkit.asking import providers  # noqa: E402
from evalkit import families  # noqa: E402
from evalkit.scenario.atomscore import SourceTable, answer_form, given_in  # noqa: E402

ANSWER = ("You may build a backyard cottage of up to 800 square feet. Apply for a building "
          "permit before you start. Keep it 5 feet from the side and rear lines.")
REAL = {"text": "A backyard cottage may have up to 800 square feet.", "correctness": "correct",
        "verified_truth": "At most 800 square feet.", "citation": None, "topic": "size",
        "specificity": 0.8, "actionability": 0.6, "importance": 4}
# A claim the answer never makes: no word of it is in the answer.
INVENTED = dict(REAL, text="The neighbour must sign a consent form.", topic="permits")
PERMITS = os.path.join(ROOT, "evals", "permits")
AI = os.path.join(ROOT, "tests", "fixtures", "ai")
HOME_MODEL = os.path.join(os.path.expanduser("~"), "models", "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf")


def atoms_reply(*atoms):
    return lambda request: {"atoms": [dict(a) for a in atoms]}


class Pipeline(EnvTestCase):
    """A generator's answers, an evaluator's atoms and the score, in one folder."""

    def generate(self, answer=ANSWER, model="gen-1", **server):
        self.server("openai", reply=lambda r: answer, **server)
        out = os.path.join(self.tmp, f"raw-{model}.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", model,
                                       "--quiet"])
        self.assertEqual(code, 0, err)
        return out

    def atomize(self, raw_path, reply, *extra, model="judge-1", env=None, **server):
        srv = self.server("openai", reply=reply, **server)
        os.environ.update(env or {})
        out = os.path.join(self.tmp, f"atoms-{model}.jsonl")
        code, _, err = call_main(atomize, [raw_path, out, "--provider", "openai", "--model", model,
                                           "--cases", CASES, "--quiet"] + list(extra))
        return code, err, out, srv

    def score(self, *files):
        out = os.path.join(self.tmp, "results.json")
        code, _, err = call_main(score, [CASES, *files, "--example", "--json", out,
                                         "--out", os.path.join(self.tmp, "results.md"),
                                         "--html-dir", os.path.join(self.tmp, "pages")])
        self.assertEqual(code, 0, err)
        with open(out, encoding="utf-8") as fh:
            return json.load(fh)


class DoneWhen(Pipeline):
    """The run of issue 39's Done-when: a loopback stand-in reporting the
    path of a GGUF file under the home folder as its model, JSON mode
    json_schema, a token limit of 777; an answer atomized into a true atom,
    a copy of it and a claim the answer never made."""

    def test_settings_recorded_no_home_path_and_the_atoms_counted(self):
        raw_path = self.generate()
        code, err, atoms_path, judge = self.atomize(
            raw_path, atoms_reply(REAL, REAL, INVENTED), "--max-tokens", "777",
            env={"OPENAI_JSON_MODE": "json_schema"}, served_model=HOME_MODEL)
        self.assertEqual(code, 0, err)
        sent = judge.requests[0]["json"]
        self.assertEqual((sent["max_tokens"], sent["response_format"]["type"]),
                         (777, "json_schema"))
        line = read_lines(atoms_path)[0]
        self.assertEqual(line["settings"], {"json_mode": "json_schema", "max_tokens": 777,
                                            "temperature": None, "context": "none",
                                            "prompt": "atomize-v3"})
        self.assertEqual((line["served_model"], line["served_model_reduced"]),
                         ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", True))
        result = self.score(raw_path, atoms_path)
        cell = next(c for c in result["cells"] if c["scenario"] == "tiny-house")
        self.assertEqual(cell["settings"]["max_tokens"], 777)
        self.assertEqual({k: cell["atom_checks"][k] for k in ("atoms", "unsupported", "duplicate",
                                                               "set_aside", "factual_atoms_kept")},
                         {"atoms": 3, "unsupported": 1, "duplicate": 1, "set_aside": 2,
                          "factual_atoms_kept": 1})
        self.assertEqual([a["set_aside"] for a in cell["atoms"]],
                         [[], ["duplicate"], ["unsupported"]])
        self.assertEqual(cell["scores"]["accurate"]["atoms_kept_after_checks"], 1)
        evaluator = [m for m in result["provenance"]["served_models"] if m["role"] == "evaluator"]
        self.assertEqual(evaluator, [{"role": "evaluator", "asked": "openai:judge-1",
                                      "served": "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
                                      "reduced": True}])
        self.assertNoHomeIn(self.tmp)
        with open(os.path.join(self.tmp, "pages", "index.html"), encoding="utf-8") as fh:
            page = fh.read()
        self.assertIn("JSON mode json_schema, max tokens 777", page)
        # both answers of the mini set, atomized alike
        self.assertIn("2 the answer does not say, 2 copies of an earlier atom", page)

    def test_an_intake_run_records_its_settings_and_no_home_path(self):
        self.server("openai", reply=lambda r: {"project_type": "adu", "jurisdiction": "unknown",
                                               "fields": {}},
                    served_model=HOME_MODEL)
        os.environ["OPENAI_JSON_MODE"] = "json_schema"
        out = os.path.join(self.tmp, "intake.json")
        code, _, err = call_main(ai_eval, ["intake", "--cases", os.path.join(AI, "intake-cases.json"),
                                           "--output", out, "--raw", os.path.join(self.tmp, "r.jsonl"),
                                           "--provider", "openai", "--model", "m", "--max-tokens",
                                           "777", "--limit", "2", "--quiet"])
        self.assertIn(code, (0, 1), err)
        with open(out, encoding="utf-8") as fh:
            doc = json.load(fh)
        self.assertEqual(doc["run"]["settings"], {"json_mode": "json_schema", "max_tokens": 777,
                                                  "temperature": None, "context": "none"})
        call = doc["calls"][0]["calls"][0]
        self.assertEqual((call["served_model"], call["served_model_reduced"], call["prompt"],
                          call["reply_format"]),
                         ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", True, "intake-v2", "openai"))
        self.assertEqual(resultfile.problems(doc), [])
        self.assertNoHomeIn(self.tmp)

    def assertNoHomeIn(self, folder):
        home = os.path.dirname(os.path.dirname(HOME_MODEL))
        for here, _dirs, files in os.walk(folder):
            for name in files:
                with open(os.path.join(here, name), encoding="utf-8") as fh:
                    self.assertNotIn(home + os.sep, fh.read(), name)


class Settings(Pipeline):
    """Item 1: the settings are recorded, and a line that disagrees with
    its own settings is refused."""

    def test_a_line_whose_settings_disagree_with_it_is_refused(self):
        raw_path = self.generate()
        code, err, atoms_path, _judge = self.atomize(raw_path, atoms_reply(REAL),
                                                     "--max-tokens", "5")
        self.assertEqual(code, 0, err)
        # the stand-in reports 7 output tokens: over the 5 the line says it sent
        code, _, err = call_main(score, [CASES, raw_path, atoms_path])
        self.assertEqual(code, 2)
        self.assertIn("7 output tokens reported, over the 5 the call was sent with", err)
        lines = read_lines(atoms_path)
        for change, said in ((lambda s: s.update(context="tools"), "settings.context tools"),
                             (lambda s: s.update(json_mode="forced_tool"),
                              "settings.json_mode forced_tool is not one of openai's"),
                             (lambda s: s.update(prompt="atomize-v1"), "settings.prompt")):
            with self.subTest(said):
                edited = copy.deepcopy(lines)
                for line in edited:
                    line["settings"]["max_tokens"] = 100
                    change(line["settings"])
                path = os.path.join(self.tmp, "edited.jsonl")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.writelines(json.dumps(line) + "\n" for line in edited)
                code, _, err = call_main(score, [CASES, raw_path, path])
                self.assertEqual(code, 2)
                self.assertIn(said, err)

    def test_reproduce_refuses_a_published_run_whose_settings_disagree(self):
        raw_path = self.generate()
        atoms_path = self.atomize(raw_path, atoms_reply(REAL), "--max-tokens", "100")[2]
        folder = os.path.join(self.tmp, "run")
        code, _, err = call_main(score, [CASES, raw_path, atoms_path, "--publish", folder])
        self.assertEqual(code, 0, err)
        self.assertEqual(call_main(reproduce, [folder])[0], 0)
        # the line made to claim a token limit its calls passed, and the
        # manifest made to agree: what the line holds still refuses it
        name = os.path.basename(atoms_path)
        lines = read_lines(os.path.join(folder, name))
        for line in lines:
            line["settings"]["max_tokens"] = 5
        data = "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
        with open(os.path.join(folder, name), "wb") as fh:
            fh.write(data)
        manifest = os.path.join(folder, "MANIFEST.json")
        with open(manifest, encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["files"][name].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
        with open(manifest, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        code, out, err = call_main(reproduce, [folder])
        self.assertEqual(code, 1, out + err)
        self.assertIn("7 output tokens reported, over the 5 the call was sent with", err)

    def test_continuing_with_other_settings_is_refused(self):
        raw_path = self.generate()
        code, err, atoms_path, _judge = self.atomize(raw_path, atoms_reply(REAL), "--limit", "1")
        self.assertEqual(code, 0, err)
        code, _, err = call_main(atomize, [raw_path, atoms_path, "--provider", "openai", "--model",
                                           "judge-1", "--cases", CASES, "--max-tokens", "777"])
        self.assertEqual(code, 2)
        self.assertIn("written with other settings", err)


class CrossCells(Pipeline):
    """Item 2: failures are not responses; an empty cell says why."""

    def test_scored_and_failed_apart_and_why_a_cell_is_empty(self):
        raw_path = self.generate()
        other = self.generate(model="gen-2")
        # tiny-house atomized, fence fails twice (a copy of the real atom's
        # topic outside the vocabulary is refused, then again)
        bad = dict(REAL, topic="vibes")
        replies = conversation({"atoms": [REAL]}, {"atoms": [bad]}, {"atoms": [bad]})
        code, err, atoms_path, _judge = self.atomize(raw_path, replies)
        self.assertEqual(code, 1, err)
        result = self.score(raw_path, other, atoms_path)
        rows = {row["generator"]: row for row in result["cross_evaluation"]["table"]}
        mine = rows["openai:gen-1"]
        self.assertEqual((mine["scored"], mine["failed"], mine["not_reached"], mine["empty"]),
                         (1, 1, 0, None))
        self.assertEqual(mine["accurate"], 3.0)  # the one scored answer, not two
        unreached = rows["openai:gen-2"]
        self.assertEqual((unreached["scored"], unreached["failed"], unreached["not_reached"],
                          unreached["empty"]), (0, 0, 2, "not reached"))
        with open(os.path.join(self.tmp, "results.md"), encoding="utf-8") as fh:
            md = fh.read()
        self.assertIn("| openai:judge-1 | openai:gen-1 | 1 | 1 | 0 | 3.0 |", md)
        self.assertIn("none scored: not reached", md)
        self.assertNotIn("–", md)


class ModelPaths(Pipeline):
    """Item 3: a path of a file as a model id."""

    def test_the_generators_reported_path_is_reduced_in_the_line_and_its_body(self):
        raw_path = self.generate(served_model=HOME_MODEL)
        line = read_lines(raw_path)[0]
        self.assertEqual((line["response"]["model"], line["response"]["model_reduced"]),
                         ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", True))
        self.assertNotIn(os.path.dirname(HOME_MODEL), json.dumps(line))

    def test_a_path_is_reduced_to_its_file_name(self):
        for path, name in (("/home/me/models/x.gguf", "x.gguf"), ("C:\\models\\x.gguf", "x.gguf"),
                           ("./x.gguf", "x.gguf"), ("models/x.gguf", "x.gguf"),
                           ("~/m/x.Q4_K_M.gguf", "x.Q4_K_M.gguf")):
            self.assertEqual(families.served_name(path), (name, True))
        for kept in ("meta-llama/Llama-3.1-8B-Instruct", "qwen2.5:7b",
                     "arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-x-v1:0"):
            self.assertEqual(families.served_name(kept), (kept, False))

    def test_a_model_asked_for_by_its_path_is_refused(self):
        with self.assertRaises(providers.ProviderError) as ctx:
            providers.resolve("openai", HOME_MODEL, {})
        self.assertIn("--alias", str(ctx.exception))
        self.assertNotIn(os.path.dirname(HOME_MODEL), str(ctx.exception))

    def test_a_published_run_naming_the_home_folder_is_refused(self):
        raw_path = self.generate()
        code, err, atoms_path, _judge = self.atomize(raw_path, atoms_reply(REAL))
        lines = read_lines(atoms_path)
        lines[0]["error"], lines[0]["atoms"] = f"could not read {HOME_MODEL}", None
        with open(atoms_path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in lines)
        folder = os.path.join(self.tmp, "run")
        code, _, err = call_main(score, [CASES, raw_path, atoms_path, "--publish", folder])
        self.assertEqual(code, 2)
        self.assertIn("names a folder of this machine", err)
        self.assertFalse(os.path.exists(folder))


class AtomsAgainstTheAnswer(Pipeline):
    """Item 4: seven atoms, five of them copies, one invented, one whose
    truth only says No: counted, and the audit says what its agreement
    rests on."""

    def test_copies_inventions_and_a_bare_no_are_counted(self):
        raw_path = self.generate()
        no = dict(REAL, text="A building permit is needed before you start.", topic="permits",
                  correctness="WRONG", verified_truth="No.")
        code, err, atoms_path, _ = self.atomize(raw_path, atoms_reply(REAL, REAL, REAL, REAL,
                                                                      REAL, INVENTED, no))
        self.assertEqual(code, 0, err)
        cell = next(c for c in self.score(raw_path, atoms_path)["cells"]
                    if c["scenario"] == "tiny-house")
        checks = cell["atom_checks"]
        self.assertEqual((checks["atoms"], checks["duplicate"], checks["unsupported"],
                          checks["truth_only_negates"], checks["factual_atoms_kept"]),
                         (7, 4, 1, 1, 1))
        self.assertEqual(cell["scores"]["accurate"]["atoms"], 7)  # the spec's formula: all
        page = [n for n in os.listdir(os.path.join(self.tmp, "pages", "detail"))
                if n.startswith("tiny-house")][0]
        with open(os.path.join(self.tmp, "pages", "detail", page), encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn("4 duplicate(s), 1 whose verified truth only negates the claim", text)
        self.assertIn("rests on 7 factual atom(s), 1 once", text)

    def test_the_audit_counts_a_bare_no_apart(self):
        # the answers of known falsehood audit_answers.py writes from the keys
        key = os.path.join(self.tmp, "key.jsonl")
        with open(key, "w", encoding="utf-8") as fh:
            for sid in ("tiny-house", "fence"):
                fh.write(json.dumps({"id": sid, "answer": ANSWER.replace("800", "1,700"),
                                     "collected_by": "audit_answers.py",
                                     "collected_at": "2026-12-01",
                                     "product": "reference-key-altered",
                                     "product_version": "0123456789ab"}) + "\n")
        raw_path = os.path.join(self.tmp, "raw-key.jsonl")
        code, _, err = call_main(run, [CASES, raw_path, "--provider", "manual", "--from", key,
                                       "--quiet"])
        self.assertIn(code, (0, 1), err)
        flipped = dict(REAL, text="A backyard cottage may have up to 1,700 square feet.",
                       correctness="WRONG", verified_truth="No")
        code, err, atoms_path, _ = self.atomize(raw_path, atoms_reply(flipped))
        self.assertEqual(code, 0, err)
        audit = self.score(raw_path, atoms_path)["evaluator_audit"]["openai:judge-1"]
        self.assertEqual(audit["tags"]["false_claims"], {"WRONG": 2})
        self.assertEqual(audit["tags_kept"]["false_claims"], {})


class Provenance(Pipeline):
    """Item 5."""

    def test_a_closed_weights_name_served_here_is_a_stand_in(self):
        raw_path = self.generate(model="claude-sonnet-4-5", stand_in=False)
        code, err, atoms_path, _ = self.atomize(raw_path, atoms_reply(REAL), model="qwen2.5-7b",
                                                stand_in=False)
        self.assertEqual(code, 0, err)
        out = os.path.join(self.tmp, "r.json")
        code, _, err = call_main(score, [CASES, raw_path, atoms_path, "--json", out])
        self.assertEqual(code, 0, err)
        with open(out, encoding="utf-8") as fh:
            provenance = json.load(fh)["provenance"]
        self.assertEqual((provenance["run"]["status"], provenance["example"]), ("not_run", True))
        self.assertTrue(provenance["stand_ins"][0].startswith(
            "openai:claude-sonnet-4-5 answered from 127.0.0.1"))

    def test_an_intake_run_of_a_closed_weights_name_here_is_an_example(self):
        self.server("openai", reply=lambda r: {"project_type": "adu", "jurisdiction": "unknown",
                                               "fields": {}}, stand_in=False)
        out = os.path.join(self.tmp, "r.json")
        code, _, err = call_main(ai_eval, ["intake", "--cases", os.path.join(AI, "intake-cases.json"),
                                           "--output", out, "--raw", os.path.join(self.tmp, "r.jsonl"),
                                           "--provider", "openai", "--model", "claude-sonnet-4-5",
                                           "--limit", "1", "--quiet"])
        with open(out, encoding="utf-8") as fh:
            self.assertEqual(json.load(fh)["run"]["status"], "example", err)

    def test_a_reply_in_another_providers_wire_format_is_refused(self):
        raw_path = self.generate()
        atoms_path = self.atomize(raw_path, atoms_reply(REAL))[2]
        lines = read_lines(raw_path)
        for line in lines:
            line["target"]["provider"] = "anthropic"  # the body stays OpenAI's
        with open(raw_path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in lines)
        code, _, err = call_main(score, [CASES, raw_path, atoms_path])
        self.assertEqual(code, 2)
        self.assertIn("response.body is a reply in openai's wire format, but the generator's "
                      "provider is anthropic", err)

    def test_a_run_lists_every_prompt_it_used(self):
        doc = self.grounding_result(stand_in=True)  # an example: the shape is what is checked
        self.assertEqual(resultfile.problems(doc), [])
        one = copy.deepcopy(doc)
        one["run"]["prompt_versions"] = one["run"]["prompt_versions"][:1]
        self.assertTrue(any("uses one prompt of each of explain, staff-questions" in p
                            for p in resultfile.problems(one)), resultfile.problems(one))

    def test_a_relabelled_local_run_is_no_hosted_run(self):
        doc = self.grounding_result()
        doc["run"].update(status="recorded_live_run", endpoint="https://api.openai.com/v1",
                          git_commit="1" * 40, git_dirty=False)
        found = resultfile.problems(doc)
        self.assertTrue(any("serves its maker's models only" in p for p in found), found)
        doc["run"].update(provider="anthropic", endpoint="https://api.anthropic.com")
        found = resultfile.problems(doc)
        self.assertTrue(any("not one of anthropic's" in p for p in found), found)

    def grounding_result(self, stand_in=False):
        from tests.test_ai_eval import model as grounding_model
        self.server("openai", reply=grounding_model, stand_in=stand_in, served_model="qwen2.5-7b")
        out = os.path.join(self.tmp, "g.json")
        code, _, err = call_main(ai_eval, ["grounding", "--cases",
                                           os.path.join(AI, "grounding-cases.json"),
                                           "--output", out, "--raw", os.path.join(self.tmp, "g.jsonl"),
                                           "--provider", "openai", "--model", "qwen2.5-7b",
                                           "--quiet"])
        with open(out, encoding="utf-8") as fh:
            return json.load(fh)

    def test_the_same_model_under_two_names(self):
        arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
        for a, b in (("gpt-4", "gpt-4-32k"), ("gpt-4-turbo", "gpt-4-1106-preview"),
                     (arn, "anthropic.claude-3-5-sonnet-20241022-v2:0"),
                     ("gemini-2.5-pro", "gemini-2.5-pro-preview-05-06"),
                     ("gpt-oss:120b", "openai.gpt-oss-120b-1:0")):
            with self.subTest(f"{a} / {b}"):
                self.assertIsNotNone(families.same_family(a, b))
                self.assertIsNotNone(families.same_family(b, a))
        self.assertIsNone(families.same_family("openai:gpt-4o", "openai:gpt-4-turbo"))
        self.assertEqual(families.same_family("openai:gpt-4o", "gpt-4o-2024-08-06"), "gpt4o")

    def test_closed_weights(self):
        closed = families.closed_weights
        self.assertTrue(closed("claude-sonnet-4-5") and closed("gpt-4o-mini")
                        and closed("gemini-2.5-pro") and closed("o3-mini"))
        self.assertFalse(closed("gpt-oss:120b") or closed("gemma3:4b") or closed("qwen2.5:7b"))


class ToolCallIds(EnvTestCase):
    """Item 6: against a loopback OpenAI-compatible server, calls without an
    id, or two under one id, one of them malformed."""

    def loop(self, *calls):
        srv = self.server("openai", reply=conversation(calling(*calls), {"answer": "done"}))
        from evalkit.asking.lookups import TOOLS, Lookups
        from evalkit.scenario.corpus import Corpus
        lookups = Lookups(Corpus(os.path.join(ROOT, "tests", "fixtures", "code-mini.json")))
        client = providers.get("openai", srv.environ())
        reply = client.call_with_tools(providers.Request(
            system="s", user="u", model="m", schema={"type": "object", "required": ["answer"]},
            timeout=5), TOOLS, lookups.call)
        return reply, srv.requests[1]["json"]["messages"]

    def test_calls_without_an_id_go_back_under_the_loops_ids(self):
        reply, messages = self.loop((None, "search_code", {"query": "fence"}),
                                    ("", "read_section", {"section_id": "RCC 17.28.010"}))
        history = messages[-3]["tool_calls"]
        results = [m["tool_call_id"] for m in messages[-2:]]
        self.assertEqual([c["id"] for c in history], results)
        self.assertEqual(len(set(results)), 2)
        self.assertEqual(reply.data, {"answer": "done"})

    def test_two_calls_under_one_id_and_the_fix_by_position(self):
        reply, messages = self.loop(("call_1", "search_code", "{\"query\": "),
                                    ("call_1", "search_code", {"query": "fence"}))
        history = messages[-3]["tool_calls"]
        results = [m["tool_call_id"] for m in messages[-2:]]
        self.assertEqual([c["id"] for c in history], results)
        self.assertEqual(len(set(results)), 2)
        self.assertEqual(history[0]["function"]["arguments"], "{}")  # the malformed one
        self.assertEqual(json.loads(history[1]["function"]["arguments"]), {"query": "fence"})
        self.assertIn("error", json.loads(messages[-2]["content"]))
        self.assertNotIn("error", messages[-1]["content"][:20])
        self.assertEqual(reply.exchange[0]["tool_calls"][1]["given_id"], "call_1")


class Smaller(Pipeline):
    """Item 7."""

    def test_atomize_needs_the_scenario_file(self):
        raw_path = self.generate()
        srv = self.server("openai", reply=atoms_reply(REAL))
        code, _, err = call_main(atomize, [raw_path, os.path.join(self.tmp, "a.jsonl"),
                                           "--provider", "openai", "--model", "judge-1"])
        self.assertEqual((code, srv.requests), (2, []))
        self.assertIn("--cases", err)

    def test_a_failing_endpoint_suggests_no_quarters_target(self):
        srv = self.server("openai")
        srv.queue(*[error("openai", 400, "invalid_request_error", "the server is broken")] * 2)
        out = os.path.join(self.tmp, "raw.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", "gen-1",
                                       "--quiet"])
        self.assertEqual(code, 1, err)
        self.assertNotIn("make retry", err)
        self.assertIn("the same run.py command with --retry-failed", err)

    def test_cited_gives_no_credit_to_a_phone_number_written_as_a_section(self):
        table = SourceTable(os.path.join(PERMITS, "sources.json"))
        answer = answer_form("Call BDS at 503.823.7300 before you build.")
        self.assertEqual(table.given("RCC 503.823.7300", answer), ("none", ["RCC 503.823.7300"]))
        self.assertEqual(table.bucket("RCC 503.823.7300"), "non-authoritative")
        self.assertEqual(table.bucket("BDS, 503.823.7300"), "authoritative")

    def test_cited_gives_no_credit_to_a_source_the_answer_warns_against(self):
        answer = answer_form("Do not rely on Zillow for zoning; RivertonMaps is outdated, so "
                             "ask the city.")
        self.assertFalse(given_in("Zillow", answer))
        self.assertFalse(given_in("RivertonMaps", answer))
        self.assertTrue(given_in("RivertonMaps", answer_form("Look the lot up on RivertonMaps.")))
        self.assertTrue(given_in("RCC 33.205.040", answer_form(
            "You must not exceed the 800 square feet of RCC 33.205.040.")))


class Issue40(Pipeline):
    """Moved from issue 40: what a per-case line and the demo say."""

    def test_a_grounding_case_line_says_what_happened(self):
        self.server("openai", reply=lambda r: {"claims": [], "questions": []})
        code, _, err = call_main(ai_eval, ["grounding", "--cases",
                                           os.path.join(AI, "grounding-cases.json"), "--output",
                                           os.path.join(self.tmp, "g.json"), "--raw",
                                           os.path.join(self.tmp, "g.jsonl"), "--provider",
                                           "openai", "--model", "m", "--limit", "1"])
        self.assertEqual(code, 1, err)
        self.assertIn("g-1 error: explain: the reply's claims list is empty; staff questions: "
                      "the reply's questions list is empty", err)
        self.assertNotIn("g-1 ok", err)

    def test_the_scenario_demo_says_where_its_dashboard_is(self):
        from tests import scenario_demo
        out = os.path.join(self.tmp, "demo")
        code, stdout, err = call_main(scenario_demo, ["--out", out])
        self.assertEqual(code, 0, err)
        page = os.path.abspath(os.path.join(out, "index.html"))
        self.assertIn(f"the dashboard: {page}", err)
        self.assertTrue(os.path.isfile(page))
        self.assertTrue(stdout.startswith("# Scenario results"))


class PublishedRun(Pipeline):
    """The published local-model run carries the new columns and reproduces."""

    def test_it_has_the_checks_and_settings_and_reproduces(self):
        folder = os.path.join(PERMITS, "results", "2026-12-01-local-cpu")
        with open(os.path.join(folder, "results.json"), encoding="utf-8") as fh:
            result = json.load(fh)
        self.assertTrue(all("scored" in row and "empty" in row
                            for row in result["cross_evaluation"]["table"]))
        self.assertTrue(all("atom_checks" in c for c in result["cells"] if c["error"] is None))
        self.assertTrue(result["provenance"]["settings"])
        # reproduce.py re-makes it byte for byte (tests/test_real_runs.py, every run)
        code, out, err = call_main(reproduce, [folder])
        self.assertEqual(code, 0, out + err)
