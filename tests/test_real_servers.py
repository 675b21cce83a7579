"""Tool use as real OpenAI-compatible servers and small models do it.

The loopback server here plays what was met with llama.cpp's server and
Qwen2.5 instruct models on it (2026-12-01): offered tools AND asked for a
JSON-only reply, the model writes its "call" as JSON text and never calls;
a history holding a call whose arguments are not JSON is answered with
llama.cpp's own HTTP 500 ("Failed to parse tool call arguments as JSON");
an assistant message whose content is null with HTTP 500, as
llama-cpp-python's server does; it reports the model it serves, whatever
name was asked for. Also: an answer given as prose in a round offered tools
gets one more round asking for the JSON; a server that says the JSON format
"should be" another stops at once with the hint; an evaluator that never
looks anything up is reported, and --passages gives it the passages."""

import json
import os
import tempfile
import unittest
from http.server import BaseHTTPRequestHandler

from tests import support
from tests.model_servers import ModelServer
from tests.support import FIXTURES, LoopbackServer, call_main, read_lines, write_json
from tests.test_evaluator_context import SCENARIOS

import atomize  # noqa: E402
from evalkit.asking import providers  # noqa: E402
from evalkit.scenario.corpus import Corpus  # noqa: E402
from evalkit.asking.lookups import TOOLS, Lookups  # noqa: E402
from evalkit.asking.providers import Policy, ProviderError, Request  # noqa: E402

MINI = os.path.join(FIXTURES, "code-mini.json")
FAST = Policy(max_attempts=3, base_delay=0.01, max_delay=0.02, retry_after_cap=2.0, min_delay=0.01)
ATOMS = {"atoms": [{"text": "A shed may have 120 square feet.", "correctness": "correct",
                    "verified_truth": "Up to 120 square feet [RCC 33.205.040].",
                    "citation": None, "topic": "size", "specificity": 0.8,
                    "actionability": 0.6, "importance": 4}]}
SEARCH = {"id": "call_1", "type": "function",
          "function": {"name": "search_code", "arguments": json.dumps({"query": "shed size"})}}
# llama.cpp's own words for a history whose tool-call arguments are not JSON.
LLAMA_CPP_ARGUMENTS = ("Failed to parse tool call arguments as JSON: [json.exception.parse_error"
                       ".101] parse error at line 1, column 11: syntax error while parsing value")


def history_problem(request):
    """What the real servers refuse in a request's history, in their words."""
    for message in request.get("messages", []):
        if message.get("role") != "assistant":
            continue
        if message.get("content") is None:
            return "assistant message content must be a string, not null"
        for call in message.get("tool_calls") or []:
            try:
                json.loads(call["function"]["arguments"])
            except ValueError:
                return LLAMA_CPP_ARGUMENTS
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            server.requests.append(request)
            turn = len(server.requests)
        problem = history_problem(request)
        if problem:
            return self.send(500, {"error": {"code": 500, "message": problem,
                                             "type": "server_error"}})
        message = server.model(request, turn)
        return self.send(200, {
            "id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1796149016,
            "model": server.served, "system_fingerprint": "b0-unknown",
            "choices": [{"index": 0, "message": dict({"role": "assistant"}, **message),
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
            "usage": {"completion_tokens": 7, "prompt_tokens": 11, "total_tokens": 18}})

    def send(self, status, doc):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def small_model(answer=ATOMS, calls=(SEARCH,), prose_first=False):
    """A model as Qwen2.5 on llama.cpp behaved: JSON text instead of a call
    when a JSON reply is asked for beside the tools; else ``calls`` in its
    first round, then ``answer`` (as prose first when ``prose_first``)."""
    def model(request, turn):
        offered = request.get("tools") and request.get("tool_choice") != "none"
        if offered and "response_format" in request:
            return {"content": json.dumps({"name": "search_code",
                                           "arguments": {"query": "shed"}})}
        if offered and calls and not any(m["role"] == "tool" for m in request["messages"]):
            return {"content": None, "tool_calls": list(calls)}
        if offered and prose_first:
            return {"content": "A shed may have 120 square feet, so you need no permit."}
        return {"content": json.dumps(answer)}
    return model


class LlamaLike(LoopbackServer):
    def __init__(self, model, served="qwen2.5-coder-1.5b-instruct"):
        super().__init__(_Handler, model=model, served=served)

    def environ(self):
        port = self.httpd.server_address[1]
        return {"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}


SCHEMA = {"type": "object", "properties": {"atoms": {"type": "array"}}, "required": ["atoms"]}


class ToolLoopOnARealServer(unittest.TestCase):
    def loop(self, model, **request):
        srv = LlamaLike(model)
        srv.__enter__()
        self.addCleanup(srv.__exit__, None, None, None)
        client = providers.get("openai", srv.environ(), FAST)
        req = Request(system="You verify claims.", user="Check: a shed may have 120 sq ft.",
                      model="qwen2.5-coder-1.5b-instruct", schema=SCHEMA, schema_name="record",
                      timeout=5, **request)
        return client.call_with_tools(req, TOOLS, Lookups(Corpus(MINI)).call), srv

    def test_json_is_asked_for_only_where_no_tool_can_be_called(self):
        reply, srv = self.loop(small_model())
        self.assertEqual(reply.data, ATOMS)
        self.assertEqual(reply.exchange[0]["tool_calls"][0]["name"], "search_code")
        first = srv.requests[0]
        self.assertNotIn("response_format", first)
        self.assertEqual(first["tool_choice"], "auto")

    def test_the_history_sent_back_is_what_every_server_takes(self):
        bad = {"id": "call_9", "type": "function",
               "function": {"name": "search_code", "arguments": "{\"query\": "}}
        reply, srv = self.loop(small_model(calls=(bad,)))
        self.assertEqual(reply.data, ATOMS)
        sent = srv.requests[1]["messages"][2]
        self.assertEqual(sent["content"], "")   # never null
        self.assertEqual(sent["tool_calls"][0]["function"]["arguments"], "{}")
        result = srv.requests[1]["messages"][3]
        self.assertIn("not JSON", json.loads(result["content"])["error"])
        # The exchange keeps what the model sent.
        self.assertEqual(reply.exchange[0]["tool_calls"][0]["input"], "{\"query\": ")

    def test_an_answer_in_prose_gets_one_more_round_asking_for_the_json(self):
        reply, srv = self.loop(small_model(prose_first=True))
        self.assertEqual(reply.data, ATOMS)
        self.assertEqual(len(srv.requests), 3)
        last = srv.requests[2]
        self.assertEqual(last["tool_choice"], "none")
        self.assertEqual(last["response_format"], {"type": "json_object"})
        self.assertIn("120 square feet", last["messages"][-2]["content"])

    def test_the_model_the_server_reports_is_the_replys(self):
        reply, _ = self.loop(small_model())
        self.assertEqual(reply.model, "qwen2.5-coder-1.5b-instruct")


class JsonSchemaRefused(unittest.TestCase):
    def test_a_format_that_should_be_another_stops_at_once_with_the_hint(self):
        # llama-cpp-python's server (FastAPI) on response_format json_schema.
        detail = {"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"],
                              "msg": "Input should be 'text' or 'json_object'",
                              "input": "json_schema"}]}
        from tests.model_servers import raw
        for status in (422, 500):
            with self.subTest(status), ModelServer(
                    "openai", script=[raw(status, json.dumps(detail).encode())] * 5) as srv:
                env = dict(srv.environ(), OPENAI_JSON_MODE="json_schema")
                client = providers.get("openai", env, FAST)
                with self.assertRaises(ProviderError) as caught:
                    client.call(Request(system="s", user="u", model="m", schema=SCHEMA,
                                        schema_name="record", timeout=5))
                self.assertTrue(caught.exception.fatal)
                self.assertIn("OPENAI_JSON_MODE=json_object", str(caught.exception))
                self.assertEqual(len(srv.requests), 1)


class AtomizeOnARealServer(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.cases = os.path.join(self.tmp, "scenarios.json")
        write_json(self.cases, SCENARIOS)

    def raw_file(self, asked, reported):
        """A raw line of a generator asked for ``asked`` whose server said
        ``reported`` answered."""
        path = os.path.join(self.tmp, "raw.jsonl")
        body = json.dumps({"model": reported, "choices": [{"message": {
            "role": "assistant", "content": "Yes, up to 120 square feet."}}]})
        line = {"format": 1, "suite": "scenario", "id": "shed", "question": "May I?",
                "target": {"kind": "model", "provider": "openai", "model": asked,
                           "url": "http://127.0.0.1:9/v1"},
                "attempts": [], "derived": {"answer": "Yes, up to 120 square feet.",
                                            "problem": None},
                "response": {"status": 200, "body": body, "body_base64": None,
                             "truncated": False, "model": reported, "stop": "stop",
                             "cut_off": False}}
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
        return path

    def atomize(self, srv, raw_path, model, *extra):
        os.environ.update(srv.environ())
        out = os.path.join(self.tmp, "atoms.jsonl")
        code, _, err = call_main(atomize, [raw_path, out, "--provider", "openai", "--model", model,
                                           "--cases", self.cases] + list(extra))
        return code, err, out

    def test_a_server_serving_the_generators_model_is_refused(self):
        # Asked for a Gemma judge; the server serves Qwen, which wrote the answer.
        raw_path = self.raw_file("llama3.1:8b", "qwen2.5-coder-1.5b-instruct")
        with LlamaLike(small_model()) as srv:
            code, err, out = self.atomize(srv, raw_path, "gemma-3-270m-it")
        self.assertEqual(code, 2, err)
        self.assertIn("server reported qwen2.5-coder-1.5b-instruct", err)
        self.assertFalse(os.path.exists(out) and read_lines(out))

    def test_the_generators_reported_model_is_checked_before_any_call(self):
        raw_path = self.raw_file("llama3.1:8b", "qwen2.5-coder-1.5b-instruct")
        with LlamaLike(small_model()) as srv:
            code, err, _ = self.atomize(srv, raw_path, "qwen2.5-coder:1.5b")
            self.assertEqual(srv.requests, [])
        self.assertEqual(code, 2)
        self.assertIn("one model family", err)

    def test_the_served_model_is_recorded(self):
        raw_path = self.raw_file("gemma-3-270m-it", "gemma-3-270m-it")
        with LlamaLike(small_model()) as srv:
            code, err, out = self.atomize(srv, raw_path, "qwen", "--quiet")
        self.assertEqual(code, 0, err)
        self.assertEqual(read_lines(out)[0]["served_model"], "qwen2.5-coder-1.5b-instruct")

    def test_an_evaluator_that_never_looked_anything_up_is_reported(self):
        raw_path = self.raw_file("gemma-3-270m-it", "gemma-3-270m-it")
        with LlamaLike(small_model(calls=())) as srv:
            code, err, out = self.atomize(srv, raw_path, "qwen", "--lookups", "--corpus", MINI)
        self.assertEqual(code, 0, err)
        self.assertIn("1 of 1 answer(s): the evaluator was offered the lookups and made none",
                      err)
        self.assertEqual(read_lines(out)[0]["lookups"]["calls"], [])

    def test_passages_instead_of_tools_when_asked(self):
        raw_path = self.raw_file("gemma-3-270m-it", "gemma-3-270m-it")
        with LlamaLike(small_model()) as srv:
            code, err, out = self.atomize(srv, raw_path, "qwen", "--lookups", "--passages",
                                          "--corpus", MINI, "--quiet")
            self.assertNotIn("tools", srv.requests[0])
        self.assertEqual(code, 0, err)
        lookups = read_lines(out)[0]["lookups"]
        self.assertEqual(lookups["mode"], "passages")
        self.assertEqual(lookups["why"], "asked for (--passages)")
        self.assertTrue(lookups["sections"])

    def test_passages_without_lookups_is_refused(self):
        raw_path = self.raw_file("gemma-3-270m-it", "gemma-3-270m-it")
        with LlamaLike(small_model()) as srv:
            code, err, _ = self.atomize(srv, raw_path, "qwen", "--passages")
        self.assertEqual(code, 2)
        self.assertIn("--passages is a way of --lookups", err)


if __name__ == "__main__":
    unittest.main()


class ScoringALocalRun(unittest.TestCase):
    """score.py on a run whose models were served on this machine: labelled a
    local run with the models the servers reported, and held to the family
    rule by those models too."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.cases = os.path.join(self.tmp, "scenarios.json")
        write_json(self.cases, SCENARIOS)
        self.raw = os.path.join(self.tmp, "raw.jsonl")
        self.atoms = os.path.join(self.tmp, "atoms.jsonl")
        import run  # noqa: E402
        with LlamaLike(lambda request, turn: {"content": "Yes, up to 120 square feet."},
                       served="smollm2-135m-instruct") as gen:
            os.environ.update(gen.environ())
            code, _, err = call_main(run, [self.cases, self.raw, "--provider", "openai",
                                           "--model", "smollm2-135m-instruct", "--quiet"])
        self.assertEqual(code, 0, err)
        with LlamaLike(small_model()) as judge:
            os.environ.update(judge.environ())
            code, _, err = call_main(atomize, [self.raw, self.atoms, "--provider", "openai",
                                               "--model", "qwen2.5-coder-1.5b-instruct",
                                               "--cases", self.cases, "--quiet"])
        self.assertEqual(code, 0, err)

    def score(self):
        import score  # noqa: E402
        out = os.path.join(self.tmp, "results.json")
        code, _, err = call_main(score, [self.cases, self.raw, self.atoms, "--json", out,
                                         "--sources", os.path.join(FIXTURES, "sources.json"),
                                         "--jargon", os.path.join(FIXTURES, "jargon.json")])
        if code:
            return code, err, None
        with open(out, encoding="utf-8") as fh:
            return code, err, json.load(fh)

    def test_a_run_served_on_this_machine_is_a_local_run(self):
        code, err, result = self.score()
        self.assertEqual(code, 0, err)
        provenance = result["provenance"]
        self.assertEqual(provenance["run"]["status"], "recorded_local_run")
        import score  # noqa: E402
        code, markdown, err = call_main(score, [self.cases, self.raw, self.atoms, "--sources",
                                                os.path.join(FIXTURES, "sources.json"),
                                                "--jargon", os.path.join(FIXTURES, "jargon.json")])
        self.assertIn("Run status: recorded_local_run: a measurement of models served", markdown)
        self.assertEqual(provenance["served_models"], [
            {"role": "evaluator", "asked": "openai:qwen2.5-coder-1.5b-instruct",
             "served": "qwen2.5-coder-1.5b-instruct", "reduced": False},
            {"role": "generator", "asked": "openai:smollm2-135m-instruct",
             "served": "smollm2-135m-instruct", "reduced": False}])

    def test_atoms_whose_server_served_the_generators_family_are_refused(self):
        lines = read_lines(self.atoms)
        lines[0]["served_model"] = "SmolLM2-135M-Instruct.Q4_1.gguf"
        with open(self.atoms, "w", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(line) + "\n" for line in lines))
        code, err, _ = self.score()
        self.assertEqual(code, 2)
        self.assertIn("as the servers reported them: smollm2-135m-instruct and "
                      "SmolLM2-135M-Instruct.Q4_1.gguf", err)

    def test_an_answer_cut_off_at_the_token_limit_is_listed(self):
        lines = read_lines(self.raw)
        lines[0]["response"]["cut_off"] = True   # as run.py records finish_reason "length"
        with open(self.raw, "w", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(line) + "\n" for line in lines))
        code, err, result = self.score()
        self.assertEqual(code, 0, err)
        self.assertEqual(result["cut_off"], ["shed (openai:smollm2-135m-instruct)"])
