"""Each provider end to end against its loopback server: success, JSON mode,
retryable and non-retryable errors, retry-after honoured, timeouts; the
Bedrock server checks every signature."""

import json
import unittest

from tests import support  # noqa: F401
from tests.model_servers import ModelServer, error, raw
from evalkit.asking import providers
from evalkit.asking.providers import Policy, ProviderError, Request
from evalkit.asking.providers.retry import retry_after_seconds

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}},
          "required": ["answer"]}
FAST = Policy(max_attempts=4, base_delay=0.01, max_delay=0.05, retry_after_cap=2.0, min_delay=0.01)
FLAVOURS = ("openai", "anthropic", "bedrock")


def client(server, policy=FAST):
    c = providers.get(server.flavour, server.environ(), policy)
    return c


def request(schema=None, **kw):
    kw.setdefault("timeout", 5)
    kw.setdefault("model", "test-model-v1:0")
    return Request(system="You are terse.", user="Say hello.", schema=schema, **kw)


class Success(unittest.TestCase):
    def test_text_reply(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour), ModelServer(flavour) as srv:
                reply = client(srv).call(request())
                self.assertEqual(reply.text, "Hello from the loopback model.")
                self.assertEqual({k: reply.usage[k] for k in ("input_tokens", "output_tokens",
                                                              "reported")},
                                 {"input_tokens": 11, "output_tokens": 7, "reported": True})
                self.assertEqual(len(reply.attempts), 1)
                self.assertEqual(json.loads(reply.raw), json.loads(reply.raw))

    def test_json_reply(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour), ModelServer(flavour, reply=lambda r: {"answer": "hi"}) as srv:
                reply = client(srv).call(request(SCHEMA))
                self.assertEqual(reply.data, {"answer": "hi"})
                self.assertIsNone(reply.problem)

    def test_openai_wire_format(self):
        with ModelServer("openai", reply=lambda r: {"answer": "hi"}) as srv:
            client(srv).call(request(SCHEMA, temperature=0.2))
            sent = srv.requests[0]
            self.assertEqual(sent["path"], "/v1/chat/completions")
            self.assertEqual(sent["headers"]["authorization"], "Bearer sk-test-FAKEKEY0123456789")
            body = sent["json"]
            self.assertEqual(body["messages"][0], {"role": "system", "content": "You are terse."})
            self.assertEqual(body["response_format"], {"type": "json_object"})
            self.assertEqual(body["max_tokens"], 2048)  # not the OpenAI API: the common name
            self.assertEqual(body["temperature"], 0.2)

    def test_openai_json_schema_mode_and_official_token_field(self):
        with ModelServer("openai", reply=lambda r: {"answer": "hi"}) as srv:
            env = dict(srv.environ(), OPENAI_JSON_MODE="json_schema")
            providers.get("openai", env, FAST).call(request(SCHEMA))
            fmt = srv.requests[0]["json"]["response_format"]
            self.assertEqual(fmt["type"], "json_schema")
            self.assertEqual(fmt["json_schema"]["schema"], SCHEMA)
        body = providers.get("openai", {"OPENAI_API_KEY": "sk-x1234567"}, FAST).body(request())
        self.assertIn("max_completion_tokens", body)
        self.assertNotIn("max_tokens", body)

    def test_local_openai_server_needs_no_key(self):
        with ModelServer("openai") as srv:
            env = {"OPENAI_BASE_URL": srv.base + "/v1"}
            providers.get("openai", env, FAST).call(request())
            self.assertNotIn("authorization", srv.requests[0]["headers"])

    def test_temperature_only_when_set(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour), ModelServer(flavour) as srv:
                client(srv).call(request())
                text = json.dumps(srv.requests[0]["json"])
                self.assertNotIn("temperature", text)

    def test_anthropic_wire_format(self):
        with ModelServer("anthropic", reply=lambda r: {"answer": "hi"}) as srv:
            client(srv).call(request(SCHEMA))
            sent = srv.requests[0]
            self.assertEqual(sent["path"], "/v1/messages")
            self.assertEqual(sent["headers"]["x-api-key"], "sk-ant-test-FAKEKEY0123456789")
            self.assertEqual(sent["headers"]["anthropic-version"], "2023-06-01")
            body = sent["json"]
            self.assertEqual(body["max_tokens"], 2048)
            self.assertEqual(body["tool_choice"], {"type": "tool", "name": "record"})
            self.assertEqual(body["tools"][0]["input_schema"], SCHEMA)
            self.assertEqual(body["messages"], [{"role": "user", "content": "Say hello."}])

    def test_bedrock_wire_format_and_signature(self):
        with ModelServer("bedrock", reply=lambda r: {"answer": "hi"}) as srv:
            claude = "us.anthropic.claude-3-5-haiku-20241022-v1:0"  # a model that takes a forced tool
            reply = client(srv).call(request(SCHEMA, model=claude))
            self.assertEqual(reply.data, {"answer": "hi"})
            sent = srv.requests[0]
            self.assertEqual(sent["path"], "/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse")
            self.assertEqual(srv.httpd.bad_signatures, 0)
            self.assertIn("Credential=AKIDEXAMPLE/", sent["headers"]["authorization"])
            self.assertIn("/us-east-1/bedrock/aws4_request", sent["headers"]["authorization"])
            self.assertEqual(sent["headers"]["x-amz-security-token"], "FAKE-SESSION-TOKEN-42")
            body = sent["json"]
            self.assertEqual(body["toolConfig"]["toolChoice"], {"tool": {"name": "record"}})
            self.assertEqual(body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"], {"json": SCHEMA})
            self.assertEqual(body["inferenceConfig"], {"maxTokens": 2048})

    def test_bedrock_server_refuses_a_bad_signature(self):
        with ModelServer("bedrock") as srv:
            env = dict(srv.environ(), AWS_SECRET_ACCESS_KEY="not-the-right-secret-key")
            with self.assertRaises(ProviderError) as ctx:
                providers.get("bedrock", env, FAST).call(request())
            self.assertEqual(str(ctx.exception),
                             "bedrock: HTTP 403: InvalidSignatureException: The request signature we "
                             "calculated does not match the signature you provided. (POST "
                             f"{srv.base}/model/test-model-v1%3A0/converse); check AWS_ACCESS_KEY_ID, "
                             "AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN")
            self.assertEqual(srv.httpd.bad_signatures, 1)


class JsonModeNone(unittest.TestCase):
    def test_no_response_format_and_the_json_read_from_the_text(self):
        fenced = "```json\n" + json.dumps({"answer": "hi"}) + "\n```"
        with ModelServer("openai", reply=lambda r: fenced) as srv:
            c = providers.get("openai", dict(srv.environ(), OPENAI_JSON_MODE="none"), FAST)
            reply = c.call(request(SCHEMA))
            sent = srv.requests[0]["json"]
        self.assertNotIn("response_format", sent)
        self.assertIn("Reply with one JSON object only", sent["messages"][1]["content"])
        self.assertEqual(reply.data, {"answer": "hi"})
        self.assertEqual(c.settings(request(SCHEMA))["json_mode"], "none")

    def test_each_provider_says_how_it_holds_a_reply_to_json(self):
        for flavour, mode in (("openai", "json_object"), ("anthropic", "forced_tool"),
                              ("bedrock", "none")):  # test-model-v1:0 takes no forced tool
            with self.subTest(flavour), ModelServer(flavour) as srv:
                self.assertEqual(client(srv).settings(request(SCHEMA, max_tokens=77)),
                                 {"json_mode": mode, "max_tokens": 77, "temperature": None})
                self.assertIsNone(client(srv).settings(request())["json_mode"])


class Errors(unittest.TestCase):
    RETRYABLE = {
        "openai": [(429, "rate_limit_exceeded", None), (500, "server_error", None),
                   (503, "server_error", None), (408, "timeout", None), (409, "conflict", None)],
        "anthropic": [(529, "overloaded_error", None), (429, "rate_limit_error", None),
                      (500, "api_error", None)],
        "bedrock": [(429, "ThrottlingException", None), (503, "ServiceUnavailableException", None),
                    (500, "InternalServerException", None)],
    }
    PERMANENT = {
        "openai": [(400, "invalid_request_error", None), (401, "invalid_request_error", "invalid_api_key"),
                   (403, "permission_denied", None), (404, "not_found_error", "model_not_found"),
                   (429, "insufficient_quota", "insufficient_quota")],
        "anthropic": [(400, "invalid_request_error", None), (401, "authentication_error", None),
                      (403, "permission_error", None), (404, "not_found_error", None)],
        "bedrock": [(400, "ValidationException", None), (403, "AccessDeniedException", None),
                    (404, "ResourceNotFoundException", None)],
    }

    def test_retryable_errors_are_retried_then_succeed(self):
        for flavour in FLAVOURS:
            for status, kind, code in self.RETRYABLE[flavour]:
                with self.subTest(flavour=flavour, status=status), ModelServer(flavour) as srv:
                    srv.queue(error(flavour, status, kind, "try later", code=code))
                    reply = client(srv).call(request())
                    self.assertEqual([a["status"] for a in reply.attempts], [status, 200])
                    self.assertIsNotNone(reply.attempts[0]["retry_in_s"])

    def test_permanent_errors_are_not_retried(self):
        for flavour in FLAVOURS:
            for status, kind, code in self.PERMANENT[flavour]:
                with self.subTest(flavour=flavour, status=status, kind=kind), ModelServer(flavour) as srv:
                    srv.queue(error(flavour, status, kind, "no way", code=code))
                    with self.assertRaises(ProviderError) as ctx:
                        client(srv).call(request())
                    self.assertEqual(len(srv.requests), 1)
                    message = str(ctx.exception)
                    self.assertTrue(message.startswith(f"{flavour}: HTTP {status}: "), message)
                    self.assertIn("no way", message)
                    self.assertEqual(len(ctx.exception.attempts), 1)

    def test_bounded_attempts(self):
        with ModelServer("anthropic") as srv:
            srv.queue(*[error("anthropic", 529, "overloaded_error", "Overloaded")] * 6)
            with self.assertRaises(ProviderError) as ctx:
                client(srv).call(request())
            self.assertEqual(len(srv.requests), 4)
            self.assertEqual(str(ctx.exception),
                             f"anthropic: HTTP 529: overloaded_error: Overloaded (POST {srv.base}/v1/messages; "
                             "gave up after 4 attempts)")

    def test_retry_after_ms_and_seconds_are_honoured(self):
        # The waits go through the client's sleep (http.pause in a run),
        # recorded here: what is waited, not how long the machine took.
        for flavour, status, kind, headers, seconds in (
                ("openai", 429, "rate_limit_exceeded", {"retry-after-ms": "300"}, 0.3),
                ("anthropic", 529, "overloaded_error", {"retry-after": "1"}, 1.0)):
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(error(flavour, status, kind, "slow down", headers=headers))
                c = client(srv)
                waits = []
                c.sleep = waits.append
                reply = c.call(request())
                self.assertEqual(waits, [seconds])
                self.assertEqual([a["status"] for a in reply.attempts], [status, 200])
                self.assertEqual(reply.attempts[0]["retry_in_s"], seconds)

    def test_retry_after_over_the_maximum_is_not_waited(self):
        with ModelServer("bedrock") as srv:
            srv.queue(error("bedrock", 429, "ThrottlingException", "Too many requests",
                            headers={"Retry-After": "3600"}))
            policy = Policy(max_attempts=3, base_delay=0.01, retry_after_cap=0.2)
            with self.assertRaises(ProviderError) as ctx:
                client(srv, policy).call(request())
            self.assertEqual(len(srv.requests), 1)
            self.assertIsNone(ctx.exception.attempts[0]["retry_in_s"])
            self.assertIn("asks to wait 3600 s, over the longest wait of 300 s", str(ctx.exception))

    def test_retry_after_forms(self):
        self.assertEqual(retry_after_seconds({"Retry-After": "7"}), 7.0)
        self.assertEqual(retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}), 0.25)
        self.assertEqual(retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"},
                                             now=1445412480.0), 10.0)
        self.assertIsNone(retry_after_seconds({"Retry-After": "soon"}))
        self.assertIsNone(retry_after_seconds({}))

    def test_timeout_then_success(self):
        with ModelServer("openai") as srv:
            srv.queue(raw(200, b'{"late": true}', delay=1.5))
            reply = client(srv).call(request(timeout=0.5))
            self.assertEqual(reply.attempts[0]["error"], "timeout")
            self.assertEqual(reply.text, "Hello from the loopback model.")

    def test_connection_refused_is_retried_and_bounded(self):
        srv = ModelServer("openai")
        env = srv.environ()
        srv.httpd.server_close()
        with self.assertRaises(ProviderError) as ctx:
            providers.get("openai", env, FAST).call(request())
        self.assertEqual(len(ctx.exception.attempts), 4)
        self.assertEqual(str(ctx.exception), f"openai: connection refused (POST {srv.base}/v1/chat/completions; "
                                             "gave up after 4 attempts)")

    def test_malformed_replies(self):
        with ModelServer("openai") as srv:
            srv.queue(raw(200, b"{not json"))
            with self.assertRaises(ProviderError) as ctx:
                client(srv).call(request())
            self.assertIn("HTTP 200 but the body is not JSON", str(ctx.exception))
        with ModelServer("anthropic") as srv:
            srv.queue(raw(200, b'{"type": "message", "content": "oops"}'))
            with self.assertRaises(ProviderError):
                client(srv).call(request())
        with ModelServer("openai", reply=lambda r: "this is not json") as srv:
            reply = client(srv).call(request(SCHEMA))
            self.assertIsNone(reply.data)
            self.assertIn("not JSON", reply.problem)

    def test_cut_off_json_is_not_accepted(self):
        with ModelServer("anthropic") as srv:
            srv.queue({"status": 200, "headers": {}, "body": json.dumps({
                "id": "m", "type": "message", "role": "assistant", "model": "x",
                "content": [{"type": "tool_use", "id": "t", "name": "record", "input": {"answer": "h"}}],
                "stop_reason": "max_tokens", "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()})
            reply = client(srv).call(request(SCHEMA))
            self.assertIsNone(reply.data)
            self.assertIn("max_tokens", reply.problem)

    def test_secrets_never_in_messages(self):
        with ModelServer("openai") as srv:
            srv.queue(error("openai", 401, "invalid_request_error",
                            "Incorrect API key provided: sk-test-FAKEKEY0123456789.", code="invalid_api_key"))
            with self.assertRaises(ProviderError) as ctx:
                client(srv).call(request())
            self.assertNotIn("FAKEKEY", str(ctx.exception))
            self.assertNotIn("FAKEKEY", ctx.exception.raw)


class Configuration(unittest.TestCase):
    def test_resolve(self):
        self.assertEqual(providers.resolve(None, None, {"BENCH_PROVIDER": "openai", "BENCH_MODEL": "m"}),
                         ("openai", "m"))
        self.assertEqual(providers.resolve(None, None, {"PERMIT_AI_PROVIDER": "bedrock",
                                                        "PERMIT_AI_MODEL": "x"}), ("bedrock", "x"))
        self.assertEqual(providers.resolve("anthropic", "a", {"BENCH_PROVIDER": "openai"}),
                         ("anthropic", "a"))
        for args, env, text in [((None, None), {}, "no provider configured"),
                                (("nope", "m"), {}, "unknown provider"),
                                (("openai", None), {}, "no model configured")]:
            with self.assertRaises(ProviderError) as ctx:
                providers.resolve(*args, env)
            self.assertIn(text, str(ctx.exception))

    def test_missing_credentials(self):
        for name, env, text in [("openai", {}, "OPENAI_API_KEY"),
                                ("anthropic", {}, "ANTHROPIC_API_KEY"),
                                ("bedrock", {"AWS_ACCESS_KEY_ID": "AKID"},
                                 "AWS_SECRET_ACCESS_KEY, AWS_REGION")]:
            with self.assertRaises(ProviderError) as ctx:
                providers.get(name, env)
            self.assertIn(text, str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
