"""The tool loop of each provider against its loopback server, in each API's
own tool-use wire format: lookups over several rounds ending in an answer,
several calls in one round, a malformed call and an unknown tool answered
with an error while the loop goes on, the bound on rounds, usage summed, the
exchange recorded in order, and the signal to fall back when the model or
server takes no tools."""

import json
import os
import unittest

from tests.support import FIXTURES
from tests.model_servers import ModelServer, calling, conversation, error, raw
from evalkit.asking import providers
from evalkit.scenario.corpus import Corpus
from evalkit.asking.lookups import TOOLS, Lookups
from evalkit.asking.providers import Policy, ProviderError, Request
from evalkit.asking.providers.toolloop import ANSWER_NOW, MAX_ROUNDS, ToolsUnsupported

MINI = os.path.join(FIXTURES, "code-mini.json")
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}},
          "required": ["answer"]}
FAST = Policy(max_attempts=3, base_delay=0.01, max_delay=0.02, retry_after_cap=2.0, min_delay=0.01)
FLAVOURS = ("openai", "anthropic", "bedrock")
# A model the Bedrock provider knows takes a forced toolChoice.
MODEL = {"openai": "test-model", "anthropic": "claude-test",
         "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0"}
SEARCH = ("call_1", "search_code", {"query": "ADU rear setback"})
READ = ("call_2", "read_section", {"section_id": "RCC 33.205.040"})
PARCEL = ("call_3", "lookup_parcel", {"address": "4127 SE Wrenfield Court, Riverton"})
ANSWER = {"answer": "Rear setback 5 ft (RCC 33.205.040)."}


def request(flavour, schema=SCHEMA):
    return Request(system="You verify claims.", user="Check: the ADU may sit 5 ft from the "
                   "rear line.", model=MODEL[flavour], schema=schema, schema_name="record",
                   timeout=5)


def results_sent(flavour, body):
    """``[(call id, text, marked error)]`` of the tool results in a request body."""
    messages = body["messages"]
    if flavour == "openai":
        tail = []
        for message in reversed(messages):
            if message["role"] != "tool":
                if tail:
                    break
                continue
            tail.insert(0, (message["tool_call_id"], message["content"], False))
        return tail
    blocks = messages[-1]["content"]
    if flavour == "anthropic":
        return [(b["tool_use_id"], b["content"], b.get("is_error", False))
                for b in blocks if b["type"] == "tool_result"]
    return [(b["toolResult"]["toolUseId"], b["toolResult"]["content"][0]["text"],
             b["toolResult"].get("status") == "error") for b in blocks if "toolResult" in b]


class Loop(unittest.TestCase):
    def run_loop(self, flavour, turns, schema=SCHEMA, max_rounds=None, **server):
        srv = ModelServer(flavour, reply=conversation(*turns), **server)
        srv.__enter__()
        self.addCleanup(srv.__exit__, None, None, None)
        lookups = Lookups(Corpus(MINI))
        client = providers.get(flavour, srv.environ(), FAST)
        reply = client.call_with_tools(request(flavour, schema), TOOLS, lookups.call, max_rounds)
        return reply, srv, lookups

    def test_two_rounds_of_lookups_end_in_the_answer(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, srv, lookups = self.run_loop(
                    flavour, [calling(SEARCH), calling(READ), ANSWER])
                self.assertEqual(reply.data, ANSWER)
                self.assertIsNone(reply.problem)
                self.assertEqual(reply.rounds, 3)
                self.assertEqual(len(srv.requests), 3)
                self.assertEqual([c["tool"] for c in lookups.exchange],
                                 ["search_code", "read_section"])
                self.assertEqual(results_sent(flavour, srv.requests[2]["json"]),
                                 [("call_2", json.dumps(lookups.exchange[1]["output"],
                                                        ensure_ascii=False, sort_keys=True),
                                   False)])

    def test_the_tools_in_each_wire_format(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                _reply, srv, _ = self.run_loop(flavour, [calling(SEARCH), ANSWER])
                first, second = (r["json"] for r in srv.requests)
                if flavour == "openai":
                    self.assertEqual(first["tools"][0], {"type": "function", "function": {
                        "name": "search_code", "description": TOOLS[0]["description"],
                        "parameters": TOOLS[0]["input"]}})
                    self.assertEqual(first["tool_choice"], "auto")
                    # JSON is asked for only where no tool can be called.
                    self.assertNotIn("response_format", first)
                    self.assertEqual(second["messages"][2]["tool_calls"][0]["id"], "call_1")
                elif flavour == "anthropic":
                    self.assertEqual([t["name"] for t in first["tools"]],
                                     ["search_code", "read_section", "lookup_parcel", "record"])
                    self.assertEqual(first["tools"][0]["input_schema"], TOOLS[0]["input"])
                    self.assertEqual(first["tool_choice"], {"type": "any"})
                    self.assertEqual(second["messages"][1]["content"][0]["type"], "tool_use")
                else:
                    config = first["toolConfig"]
                    self.assertEqual([t["toolSpec"]["name"] for t in config["tools"]],
                                     ["search_code", "read_section", "lookup_parcel", "record"])
                    self.assertEqual(config["tools"][0]["toolSpec"]["inputSchema"],
                                     {"json": TOOLS[0]["input"]})
                    self.assertEqual(config["toolChoice"], {"any": {}})
                    self.assertIn("toolUse", second["messages"][1]["content"][0])

    def test_several_calls_in_one_round_run_in_order(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, srv, lookups = self.run_loop(
                    flavour, [calling(SEARCH, READ, PARCEL), ANSWER])
                self.assertEqual(reply.data, ANSWER)
                self.assertEqual([c["tool"] for c in lookups.exchange],
                                 ["search_code", "read_section", "lookup_parcel"])
                sent = results_sent(flavour, srv.requests[1]["json"])
                self.assertEqual([s[0] for s in sent], ["call_1", "call_2", "call_3"])
                self.assertEqual([s[1] for s in sent],
                                 [c["result"] for c in reply.exchange[0]["tool_calls"]])

    def test_a_malformed_call_is_answered_with_an_error_and_the_loop_goes_on(self):
        for flavour in FLAVOURS:
            bad = "{\"query\": " if flavour == "openai" else "ADU setback"
            with self.subTest(flavour):
                reply, srv, lookups = self.run_loop(flavour, [
                    calling(("call_1", "search_code", bad), ("call_2", None, {"query": "x"})),
                    calling(READ), ANSWER])
                self.assertEqual(reply.data, ANSWER)
                self.assertEqual([c["tool"] for c in lookups.exchange], ["read_section"])
                sent = results_sent(flavour, srv.requests[1]["json"])
                self.assertEqual([s[0] for s in sent], ["call_1", "call_2"])
                self.assertIn("not JSON" if flavour == "openai" else "not a JSON object",
                              json.loads(sent[0][1])["error"])
                self.assertIn("no name", json.loads(sent[1][1])["error"])
                if flavour != "openai":
                    self.assertEqual([s[2] for s in sent], [True, True])
                calls = reply.exchange[0]["tool_calls"]
                self.assertTrue(all(c["error"] for c in calls))

    def test_an_unknown_tool_gets_the_error_text_of_run_tool(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, srv, lookups = self.run_loop(
                    flavour, [calling(("call_1", "delete_code", {"query": "x"})), ANSWER])
                self.assertEqual(reply.data, ANSWER)
                text = results_sent(flavour, srv.requests[1]["json"])[0][1]
                self.assertIn("no tool 'delete_code'", json.loads(text)["error"])
                self.assertEqual(lookups.exchange[0]["tool"], "delete_code")

    def test_the_last_round_tells_the_model_to_answer_now(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, srv, _ = self.run_loop(
                    flavour, [calling(SEARCH), calling(READ), ANSWER], max_rounds=3)
                self.assertEqual(reply.data, ANSWER)
                last = srv.requests[2]["json"]
                if flavour == "openai":
                    self.assertEqual(last["tool_choice"], "none")
                    self.assertEqual(last["messages"][-1], {"role": "user", "content": ANSWER_NOW})
                elif flavour == "anthropic":
                    self.assertEqual(last["tool_choice"], {"type": "tool", "name": "record"})
                    self.assertEqual(last["messages"][-1]["content"][-1],
                                     {"type": "text", "text": ANSWER_NOW})
                else:
                    self.assertEqual(last["toolConfig"]["toolChoice"], {"tool": {"name": "record"}})
                    self.assertEqual(last["messages"][-1]["content"][-1], {"text": ANSWER_NOW})

    def test_a_model_that_never_stops_is_cut_off_at_the_bound(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, srv, lookups = self.run_loop(flavour, [calling(SEARCH)])
                self.assertEqual(len(srv.requests), MAX_ROUNDS)
                self.assertEqual(reply.rounds, MAX_ROUNDS)
                self.assertIsNone(reply.data)
                self.assertIn("still called tools", reply.problem)
                self.assertEqual(len(lookups.exchange), MAX_ROUNDS - 1)  # the last not run

    def test_usage_is_summed_over_the_rounds(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, _srv, _ = self.run_loop(flavour, [calling(SEARCH), calling(READ), ANSWER])
                self.assertEqual({k: reply.usage[k] for k in ("input_tokens", "output_tokens",
                                                              "reported")},
                                 {"input_tokens": 33, "output_tokens": 21, "reported": True})
                self.assertEqual([r["usage"]["input_tokens"] for r in reply.exchange], [11] * 3)
            with self.subTest(flavour, usage=None):
                reply, _srv, _ = self.run_loop(flavour, [calling(SEARCH), ANSWER], usage=None)
                self.assertFalse(reply.usage["reported"])
                self.assertIsNone(reply.usage["input_tokens"])

    def test_the_exchange_is_recorded_in_order_as_sent_and_received(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, srv, _ = self.run_loop(flavour, [calling(SEARCH), calling(READ), ANSWER])
                self.assertEqual([r["round"] for r in reply.exchange], [1, 2, 3])
                self.assertEqual([r["request"] for r in reply.exchange],
                                 [r["json"] for r in srv.requests])
                self.assertEqual([[c["name"] for c in r["tool_calls"]] for r in reply.exchange],
                                 [["search_code"], ["read_section"], []])
                self.assertEqual(reply.raw, reply.exchange[-1]["reply"])
                self.assertIn("call_2", reply.exchange[1]["reply"])
                self.assertEqual(len(reply.attempts), 3)

    def test_without_a_schema_the_answer_is_text(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                reply, srv, _ = self.run_loop(flavour, [calling(SEARCH), "It is 5 ft."],
                                              schema=None)
                self.assertEqual(reply.text, "It is 5 ft.")
                self.assertIsNone(reply.data)
                if flavour == "anthropic":
                    self.assertEqual(srv.requests[0]["json"]["tool_choice"], {"type": "auto"})
                if flavour == "bedrock":
                    self.assertEqual(srv.requests[0]["json"]["toolConfig"]["toolChoice"],
                                     {"auto": {}})


class Machinery(unittest.TestCase):
    """Each round goes through the client's retries; a failure keeps the rounds made."""

    def serve(self, flavour, turns):
        srv = ModelServer(flavour, reply=conversation(*turns))
        srv.__enter__()
        self.addCleanup(srv.__exit__, None, None, None)
        return srv, providers.get(flavour, srv.environ(), FAST)

    def queue_on_first_lookup(self, srv, scripted, lookups):
        """A run_tool that queues ``scripted`` as the reply to round 2."""
        def run_tool(name, arguments):
            if not lookups.exchange:
                srv.queue(scripted)
            return lookups.call(name, arguments)
        return run_tool

    def test_a_throttled_round_is_retried(self):
        kinds = {"openai": "rate_limit_exceeded", "anthropic": "rate_limit_error",
                 "bedrock": "ThrottlingException"}
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                srv, client = self.serve(flavour, [calling(SEARCH), ANSWER])
                lookups = Lookups(Corpus(MINI))
                throttled = error(flavour, 429, kinds[flavour], "slow down",
                                  headers={"retry-after-ms": "10"})
                reply = client.call_with_tools(request(flavour), TOOLS,
                                               self.queue_on_first_lookup(srv, throttled, lookups))
                self.assertEqual(reply.data, ANSWER)
                self.assertEqual([len(r["attempts"]) for r in reply.exchange], [1, 2])
                self.assertEqual(len(reply.attempts), 3)
                self.assertEqual(client.meter.calls, 2)
                self.assertEqual(client.meter.throttled, 1)

    def test_a_failed_round_carries_the_rounds_made(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                srv, client = self.serve(flavour, [calling(SEARCH), ANSWER])
                lookups = Lookups(Corpus(MINI))
                bad = error(flavour, 400, "ValidationException" if flavour == "bedrock"
                            else "invalid_request_error", "messages: bad")
                with self.assertRaises(ProviderError) as caught:
                    client.call_with_tools(request(flavour), TOOLS,
                                           self.queue_on_first_lookup(srv, bad, lookups))
                self.assertNotIsInstance(caught.exception, ToolsUnsupported)
                self.assertEqual([r["round"] for r in caught.exception.exchange], [1])
                self.assertEqual(len(srv.requests), 2)

    def test_a_body_without_a_reply_carries_every_round_received(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour):
                srv, client = self.serve(flavour, [calling(SEARCH), ANSWER])
                lookups = Lookups(Corpus(MINI))
                odd = raw(200, {"unexpected": True})
                with self.assertRaises(ProviderError) as caught:
                    client.call_with_tools(request(flavour), TOOLS,
                                           self.queue_on_first_lookup(srv, odd, lookups))
                self.assertIn("HTTP 200 but no", str(caught.exception))
                self.assertEqual([r["reply"] for r in caught.exception.exchange][1:],
                                 ['{"unexpected": true}'])


class Fallback(unittest.TestCase):
    """The signal a caller falls back on: ToolsUnsupported, not fatal, not retried."""

    def test_an_openai_compatible_server_without_tools(self):
        with ModelServer("openai", tools=False) as srv:
            client = providers.get("openai", srv.environ(), FAST)
            with self.assertRaises(ToolsUnsupported) as caught:
                client.call_with_tools(request("openai"), TOOLS, Lookups(Corpus(MINI)).call)
            self.assertFalse(caught.exception.fatal)
            self.assertIsInstance(caught.exception, ProviderError)
            self.assertIn("does not support tools", str(caught.exception))
            self.assertEqual(len(srv.requests), 1)  # not retried
            self.assertEqual(client.call(request("openai")).data, None)  # plain calls still go

    def test_vllm_and_llama_cpp_without_tools(self):
        refusals = [raw(400, {"object": "error", "message": "\"auto\" tool choice requires "
                              "--enable-auto-tool-choice and --tool-call-parser to be set",
                              "type": "BadRequestError", "param": None, "code": 400}),
                    raw(500, {"error": {"code": 500, "message": "tools param requires --jinja flag",
                                        "type": "server_error"}})]
        for refusal in refusals:
            with self.subTest(refusal["status"]), ModelServer("openai", script=[refusal]) as srv:
                client = providers.get("openai", srv.environ(), FAST)
                with self.assertRaises(ToolsUnsupported):
                    client.call_with_tools(request("openai"), TOOLS, Lookups(Corpus(MINI)).call)
                self.assertEqual(len(srv.requests), 1)  # a 500 too: no retry cures it

    def test_a_bedrock_model_without_forced_tool_choice_sends_nothing(self):
        with ModelServer("bedrock", forced_tool=False) as srv:
            client = providers.get("bedrock", srv.environ(), FAST)
            req = request("bedrock")
            req.model = "meta.llama3-1-70b-instruct-v1:0"
            with self.assertRaises(ToolsUnsupported) as caught:
                client.call_with_tools(req, TOOLS, Lookups(Corpus(MINI)).call)
            self.assertIn("meta.llama3-1-70b-instruct-v1:0", str(caught.exception))
            self.assertEqual(srv.requests, [])
            self.assertEqual(caught.exception.exchange, [])

    def test_a_bedrock_model_the_service_says_takes_no_tools(self):
        with ModelServer("bedrock", tools=False) as srv:
            client = providers.get("bedrock", srv.environ(), FAST)
            with self.assertRaises(ToolsUnsupported) as caught:
                client.call_with_tools(request("bedrock"), TOOLS, Lookups(Corpus(MINI)).call)
            self.assertIn("doesn't support tool use", str(caught.exception))
            self.assertEqual(len(srv.requests), 1)

    def test_max_rounds_must_be_at_least_one(self):
        with ModelServer("openai") as srv:
            client = providers.get("openai", srv.environ(), FAST)
            with self.assertRaises(ValueError):
                client.call_with_tools(request("openai"), TOOLS, Lookups(Corpus(MINI)).call, 0)


if __name__ == "__main__":
    unittest.main()
