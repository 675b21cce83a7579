"""The edge cases of issue 19 that live in the provider layer, each against
the loopback servers speaking the real wire formats: retry headers that are
not numbers, zero or in the past; an HTTP date in the obsolete -0000 zone;
x-should-retry; a Retry-After over the cap; Bedrock models without a forced
tool and Bedrock's model timeout; fatal errors (a key refused, a model that
does not exist); a misconfigured server's messages; a reply cut off at the
token limit.

Waits go through the client's ``sleep``, replaced here by a list that
records them, so no test sleeps for what a server asks."""

import contextlib
import io
import json
import math
import os
import time
import unittest
from email.utils import formatdate

from tests import support  # noqa: F401
from tests.model_servers import AWS_SECRET, ModelServer, error, raw, success
from evalkit.asking import providers
from evalkit.asking.providers import Policy, ProviderError, Request
from evalkit.asking.providers.retry import retry_after_seconds

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
FLAVOURS = ("openai", "anthropic", "bedrock")
THROTTLED = {"openai": (429, "rate_limit_exceeded"), "anthropic": (429, "rate_limit_error"),
             "bedrock": (429, "ThrottlingException")}


def client(server, env=None, policy=None):
    """A provider pointed at ``server`` whose waits are recorded in
    ``client.waits`` instead of slept."""
    c = providers.get(server.flavour, dict(server.environ(), **(env or {})), policy or Policy())
    c.waits = []
    c.sleep = c.waits.append
    return c


def request(schema=None, model="test-model-v1:0", **kw):
    return Request(system="You are terse.", user="Say hello.", model=model, schema=schema,
                   timeout=5, **kw)


def throttled(flavour, headers):
    status, kind = THROTTLED[flavour]
    return error(flavour, status, kind, "slow down", headers=headers)


def body_of(flavour, content, stop, request_json=None):
    """A scripted 200 with the API's success body, stopped for ``stop``."""
    doc = success(flavour, request_json or {"model": "m"}, content, stop=stop)
    return {"status": 200, "headers": {}, "body": json.dumps(doc).encode()}


class RetryAfterValues(unittest.TestCase):
    def test_non_finite_or_negative_values_are_treated_as_absent(self):
        # Issue 19, item 1: nan reached time.sleep (ValueError), inf waited the cap.
        for flavour in FLAVOURS:
            for headers in ({"retry-after": "nan"}, {"retry-after-ms": "NaN"}, {"retry-after": "inf"},
                            {"retry-after-ms": "-inf"}, {"retry-after": "-5"}):
                with self.subTest(flavour=flavour, headers=headers), ModelServer(flavour) as srv:
                    srv.queue(throttled(flavour, headers))
                    c = client(srv)
                    reply = c.call(request())
                    self.assertEqual([a["status"] for a in reply.attempts], [429, 200])
                    (wait,) = c.waits
                    self.assertTrue(math.isfinite(wait), wait)
                    self.assertTrue(0.5 <= wait <= 1.0, wait)  # the first backoff, not the header
                    self.assertEqual(reply.attempts[0]["retry_in_s"], round(wait, 3))

    def test_nan_does_not_stop_the_call_with_real_sleep(self):
        with ModelServer("openai") as srv:
            srv.queue(throttled("openai", {"retry-after": "nan"}))
            policy = Policy(base_delay=0.05)
            policy.min_delay = 0.05  # set after: a keyword the code before this change refused
            c = providers.get("openai", srv.environ(), policy)
            reply = c.call(request())
            self.assertEqual([a["status"] for a in reply.attempts], [429, 200])

    def test_zero_negative_or_past_retry_after_backs_off_half_a_second(self):
        # Issue 19, item 2: these retried at once; the SDKs back off 0.5 s first.
        past = formatdate(time.time() - 30, usegmt=True)
        for flavour in FLAVOURS:
            for headers in ({"retry-after": "0"}, {"retry-after-ms": "0"}, {"retry-after": past},
                            {"retry-after-ms": "-250"}):
                with self.subTest(flavour=flavour, headers=headers), ModelServer(flavour) as srv:
                    srv.queue(throttled(flavour, headers))
                    c = client(srv)
                    c.call(request())
                    self.assertEqual(len(c.waits), 1)
                    self.assertGreaterEqual(c.waits[0], 0.5)

    def test_no_backoff_is_shorter_than_half_a_second(self):
        with ModelServer("anthropic") as srv:
            srv.queue(*[error("anthropic", 529, "overloaded_error", "Overloaded")] * 4)
            c = client(srv, policy=Policy(base_delay=0.2))  # backoffs of 0.2, 0.4, 0.8, 1.6 s at most
            c.call(request())
            self.assertEqual(len(c.waits), 4)
            self.assertTrue(all(w >= 0.5 for w in c.waits), c.waits)
            self.assertEqual(c.waits[:2], [0.5, 0.5])

    def test_a_small_positive_retry_after_is_honoured_as_asked(self):
        with ModelServer("openai") as srv:
            srv.queue(throttled("openai", {"retry-after-ms": "120"}))
            c = client(srv)
            c.call(request())
            self.assertEqual(c.waits, [0.12])


class ObsoleteZone(unittest.TestCase):
    """Issue 19, item 3: an HTTP date in the obsolete -0000 zone is UTC."""

    def in_new_york(self):
        if not hasattr(time, "tzset"):
            self.skipTest("time.tzset is not available here")
        saved = os.environ.get("TZ")

        def restore():
            if saved is None:
                os.environ.pop("TZ", None)
            else:
                os.environ["TZ"] = saved
            time.tzset()
        self.addCleanup(restore)
        os.environ["TZ"] = "America/New_York"
        time.tzset()

    def test_minus_zero_zone_is_read_as_utc(self):
        self.in_new_york()
        for date in ("Wed, 21 Oct 2015 07:28:10 -0000", "Wed, 21 Oct 2015 07:28:10 GMT",
                     "Wed, 21 Oct 2015 07:28:10 +0000"):
            with self.subTest(date):
                self.assertEqual(retry_after_seconds({"Retry-After": date}, now=1445412480.0), 10.0)

    def test_minus_zero_date_from_a_server(self):
        self.in_new_york()
        # A minute ahead (in whole seconds), "-0000": formatdate's zone for
        # UTC. Read as New York's time it would be hours off; the window below
        # leaves half a minute for the request, however busy the machine.
        date = formatdate(time.time() + 60)
        self.assertTrue(date.endswith("-0000"), date)
        with ModelServer("anthropic") as srv:
            srv.queue(throttled("anthropic", {"retry-after": date}))
            c = client(srv)
            err = io.StringIO()  # a wait of 30 s or more is said on stderr: kept from the test run's
            with contextlib.redirect_stderr(err):
                c.call(request())
            self.assertEqual(len(c.waits), 1)
            self.assertTrue(30.0 <= c.waits[0] <= 60.0, c.waits)
            self.assertIn("HTTP 429 on attempt 1", err.getvalue())


class ShouldRetryHeader(unittest.TestCase):
    """Issue 19, item 4: x-should-retry, as the OpenAI and Anthropic SDKs obey it."""

    def test_false_stops_a_retryable_status(self):
        for flavour, kind in (("openai", "server_error"), ("anthropic", "api_error")):
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(error(flavour, 500, kind, "boom", headers={"x-should-retry": "false"}))
                c = client(srv)
                with self.assertRaises(ProviderError) as ctx:
                    c.call(request())
                self.assertEqual(len(srv.requests), 1)
                self.assertEqual(c.waits, [])
                self.assertNotIn("gave up", str(ctx.exception))

    def test_true_retries_a_status_otherwise_final(self):
        for flavour, kind in (("openai", "invalid_request_error"), ("anthropic", "invalid_request_error")):
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(error(flavour, 400, kind, "try again", headers={"x-should-retry": "true"}))
                reply = client(srv).call(request())
                self.assertEqual([a["status"] for a in reply.attempts], [400, 200])

    def test_bedrock_follows_botocore_which_does_not_read_it(self):
        with ModelServer("bedrock") as srv:
            srv.queue(error("bedrock", 503, "ServiceUnavailableException", "later",
                            headers={"x-should-retry": "false"}))
            reply = client(srv).call(request())
            self.assertEqual([a["status"] for a in reply.attempts], [503, 200])


class LongRetryAfter(unittest.TestCase):
    """Issue 19, item 5: over the 60 s cap, wait what was asked (said on
    stderr) up to 300 s; beyond that, fail with the reason."""

    def test_over_the_cap_is_waited_in_full_and_said(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(throttled(flavour, {"retry-after": "90"}))
                c = client(srv)
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    reply = c.call(request())
                self.assertEqual(c.waits, [90.0])
                self.assertEqual(reply.attempts[0]["retry_in_s"], 90.0)
                lines = err.getvalue().splitlines()
                self.assertEqual(len(lines), 1, lines)
                self.assertIn(f"{flavour}: HTTP 429: the server asks to wait 90 s, over the usual 60 s; "
                              "waiting as asked (at most 300 s)", lines[0])
                self.assertIn(srv.base, lines[0])

    def test_over_the_maximum_is_an_error_with_the_reason(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(throttled(flavour, {"retry-after": "4000"}))
                c = client(srv)
                with self.assertRaises(ProviderError) as ctx:
                    c.call(request())
                self.assertEqual(len(srv.requests), 1)  # no early retry to earn another 429
                self.assertEqual(c.waits, [])
                self.assertIn("not retried: the server asks to wait 4000 s, over the longest wait "
                              "of 300 s; try again later", str(ctx.exception))
                self.assertFalse(getattr(ctx.exception, "fatal", True))

    def test_a_wait_past_the_time_one_call_may_take_is_not_made(self):
        with ModelServer("openai") as srv:
            srv.queue(throttled("openai", {"retry-after": "90"}))
            c = client(srv, policy=Policy(max_total_s=60.0))
            with self.assertRaises(ProviderError) as ctx:
                c.call(request())
            self.assertEqual(c.waits, [])
            self.assertIn("waiting 90 s more would pass the 60 s one call may take", str(ctx.exception))


class BedrockModels(unittest.TestCase):
    """Issue 19, item 6."""

    def test_a_model_without_forced_tools_is_asked_for_json_in_the_prompt(self):
        llama = "us.meta.llama3-1-70b-instruct-v1:0"
        with ModelServer("bedrock", reply=lambda r: {"answer": "hi"}, forced_tool=False) as srv:
            reply = client(srv).call(request(SCHEMA, model=llama))
            self.assertEqual(reply.data, {"answer": "hi"})
            self.assertIsNone(reply.problem)
            sent = srv.requests[0]["json"]
            self.assertNotIn("toolConfig", sent)
            text = sent["messages"][0]["content"][0]["text"]
            self.assertTrue(text.startswith("Say hello.\n\nReply with one JSON object only"), text)
            self.assertIn(json.dumps(SCHEMA, sort_keys=True), text)
            self.assertEqual(srv.httpd.bad_signatures, 0)

    def test_json_in_the_prompt_is_validated(self):
        replies = [("```json\n{\"answer\": \"fenced\"}\n```", {"answer": "fenced"}, None),
                   ("Sure! Here it is: {\"answer\": 1}", None, "not JSON"),
                   ("{\"other\": 1}", None, "lacks the required key(s) answer"),
                   ("[1, 2]", None, "not an object")]
        for text, data, problem in replies:
            with self.subTest(text), ModelServer("bedrock", reply=lambda r, t=text: t,
                                                 forced_tool=False) as srv:
                reply = client(srv).call(request(SCHEMA, model="mistral.mistral-large-2402-v1:0"))
                self.assertEqual(reply.data, data)
                if problem:
                    self.assertIn(problem, reply.problem)

    def test_forced_tool_only_for_the_families_that_take_it(self):
        forced = ["anthropic.claude-3-haiku-20240307-v1:0", "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
                  "anthropic.claude-sonnet-4-20250514-v1:0", "eu.anthropic.claude-opus-4-1-20250805-v1:0",
                  "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-sonnet-20240229-v1:0",
                  "amazon.nova-pro-v1:0", "us.amazon.nova-lite-v1:0"]
        prompted = ["anthropic.claude-v2:1", "anthropic.claude-instant-v1", "meta.llama3-8b-instruct-v1:0",
                    "mistral.mistral-7b-instruct-v0:2", "amazon.titan-text-express-v1",
                    "cohere.command-r-v1:0", "arn:aws:bedrock:us-east-1:123456789012:provisioned-model/abc"]
        with ModelServer("bedrock", reply=lambda r: {"answer": "hi"}) as srv:
            c = client(srv)
            for model in forced + prompted:
                with self.subTest(model):
                    body = c.body(request(SCHEMA, model=model))
                    self.assertEqual("toolConfig" in body, model in forced)

    def test_model_timeout_is_not_retried(self):
        with ModelServer("bedrock") as srv:
            srv.queue(error("bedrock", 408, "ModelTimeoutException",
                            "Model has timed out in processing the request. Try your request again."))
            c = client(srv)
            with self.assertRaises(ProviderError) as ctx:
                c.call(request())
            self.assertEqual(len(srv.requests), 1)
            self.assertIn("--max-tokens", str(ctx.exception))
            self.assertFalse(getattr(ctx.exception, "fatal", True))


class Fatal(unittest.TestCase):
    """Issue 19, item 7: what every call would meet again is fatal, never
    retried, and its message ends with what to fix."""

    CASES = [
        ("openai", error("openai", 401, "invalid_request_error", "Incorrect API key provided",
                         code="invalid_api_key"), "check OPENAI_API_KEY"),
        ("openai", error("openai", 403, "permission_denied", "Project does not have access"),
         "check OPENAI_API_KEY"),
        ("openai", error("openai", 404, "invalid_request_error", "The model `gpt-9` does not exist or you "
                         "do not have access to it.", code="model_not_found"), "check the model name"),
        ("openai", raw(404, {"error": {"message": "model \"llama9\" not found, try pulling it first",
                                       "type": "api_error", "param": None, "code": None}}),
         "check the model name"),
        ("openai", error("openai", 400, "invalid_request_error", "invalid model ID"), "check the model name"),
        ("openai", raw(404, {"object": "error", "message": "The model `foo` does not exist.",
                             "type": "NotFoundError", "param": None, "code": 404}), "check the model name"),
        ("anthropic", error("anthropic", 401, "authentication_error", "invalid x-api-key"),
         "check ANTHROPIC_API_KEY"),
        ("anthropic", error("anthropic", 403, "permission_error", "not allowed"), "check ANTHROPIC_API_KEY"),
        ("anthropic", error("anthropic", 404, "not_found_error", "model: claude-nope"), "check the model name"),
        ("bedrock", error("bedrock", 403, "UnrecognizedClientException", "The security token included in "
                          "the request is invalid."), "check AWS_ACCESS_KEY_ID"),
        ("bedrock", error("bedrock", 403, "AccessDeniedException", "You don't have access to the model "
                          "with the specified model ID."), "these credentials may not call this model"),
        ("bedrock", error("bedrock", 404, "ResourceNotFoundException", "Model not found."),
         "check the model id"),
        ("bedrock", error("bedrock", 400, "ValidationException", "The provided model identifier is invalid."),
         "check the model id"),
    ]

    def test_fatal_errors(self):
        for flavour, reply, fix in self.CASES:
            with self.subTest(flavour=flavour, status=reply["status"], fix=fix), ModelServer(flavour) as srv:
                reply = dict(reply, headers=dict(reply["headers"], **{"x-should-retry": "true"}))
                srv.queue(*[reply] * 3)
                c = client(srv)
                with self.assertRaises(ProviderError) as ctx:
                    c.call(request())
                exc = ctx.exception
                self.assertIs(getattr(exc, "fatal", None), True)
                self.assertEqual(type(exc).__name__, "FatalProviderError")
                self.assertEqual(len(srv.requests), 1)
                message = str(exc)
                self.assertTrue(message.startswith(f"{flavour}: HTTP {reply['status']}: "), message)
                self.assertTrue(message.split("); ")[-1].startswith(fix), message)
                self.assertNotIn("\n", message)

    def test_retryable_and_ordinary_errors_are_not_fatal(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(*[throttled(flavour, {})] * 5)
                with self.assertRaises(ProviderError) as ctx:
                    client(srv).call(request())
                self.assertIs(ctx.exception.fatal, False)

    def test_settings_refused_before_any_call_are_fatal(self):
        for name, env in (("openai", {}), ("anthropic", {}), ("bedrock", {"AWS_ACCESS_KEY_ID": "AKID"}),
                          ("openai", {"OPENAI_BASE_URL": "http://x/v1", "OPENAI_JSON_MODE": "strict"})):
            with self.subTest(name=name, env=env), self.assertRaises(ProviderError) as ctx:
                providers.get(name, env)
            self.assertIs(getattr(ctx.exception, "fatal", None), True)


class MisconfiguredServer(unittest.TestCase):
    """Issue 19, item 9: what a misconfigured server says, with the fix."""

    def test_json_schema_refused_with_a_500_is_not_retried_and_names_the_setting(self):
        trace = ("Unsupported response_format type: json_schema\nTraceback (most recent call last):\n"
                 '  File "server.py", line 88, in chat\n    raise ValueError(kind)\nValueError: json_schema')
        with ModelServer("openai") as srv:
            srv.queue(*[raw(500, {"error": {"code": 500, "message": trace, "type": "server_error"}})] * 5)
            c = client(srv, {"OPENAI_JSON_MODE": "json_schema"})
            with self.assertRaises(ProviderError) as ctx:
                c.call(request(SCHEMA))
            self.assertEqual(len(srv.requests), 1)
            message = str(ctx.exception)
            self.assertEqual(message, "openai: HTTP 500: server_error: Unsupported response_format type: "
                             f"json_schema (stack trace left out) (POST {srv.base}/v1/chat/completions); "
                             "the server does not take response_format json_schema: "
                             "set OPENAI_JSON_MODE=json_object (or none: JSON asked for in "
                             "the prompt)")

    def test_a_base_url_without_v1(self):
        with ModelServer("openai", strict_paths=True) as srv:
            c = client(srv, {"OPENAI_BASE_URL": srv.base})
            with self.assertRaises(ProviderError) as ctx:
                c.call(request())
            self.assertEqual(len(srv.requests), 1)
            self.assertEqual(str(ctx.exception), f"openai: HTTP 404: Not Found (POST {srv.base}/chat/completions); "
                             f"OPENAI_BASE_URL usually ends in /v1: try {srv.base}/v1")
        with ModelServer("anthropic", strict_paths=True) as srv:
            c = client(srv, {"ANTHROPIC_BASE_URL": srv.base + "/v1"})
            with self.assertRaises(ProviderError) as ctx:
                c.call(request())
            self.assertIn(f"(POST {srv.base}/v1/v1/messages); ANTHROPIC_BASE_URL is the host, without /v1: "
                          f"try {srv.base}", str(ctx.exception))

    def test_a_url_without_a_scheme(self):
        keys = {"openai": {}, "anthropic": {"ANTHROPIC_API_KEY": "sk-ant-test-FAKEKEY0123456789"},
                "bedrock": {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
                            "AWS_REGION": "us-east-1"}}
        with ModelServer("openai") as srv:
            port = srv.httpd.server_address[1]
            for variable, value, flavour in (("OPENAI_BASE_URL", f"127.0.0.1:{port}/v1", "openai"),
                                             ("OPENAI_BASE_URL", f"localhost:{port}/v1", "openai"),
                                             ("ANTHROPIC_BASE_URL", f"localhost:{port}", "anthropic"),
                                             ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", f"localhost:{port}",
                                              "bedrock")):
                env = dict(keys[flavour], **{variable: value})
                with self.subTest(value=value), self.assertRaises(ProviderError) as ctx:
                    providers.get(flavour, env, Policy(max_attempts=1)).call(request())
                self.assertEqual(str(ctx.exception), f"{variable} {value!r} is not an http:// or https:// URL: "
                                 f"write it with its scheme, such as http://{value}")
            self.assertEqual(srv.requests, [])

    def test_a_validation_error_is_not_retried_and_says_what(self):
        fastapi = raw(422, {"detail": [{"loc": ["body", "messages", 0, "content"], "msg": "field required",
                                        "type": "value_error.missing"}]})
        vllm = raw(400, {"object": "error", "message": "max_tokens must be at least 1, got 0.",
                         "type": "BadRequestError", "param": None, "code": 400})
        for reply, said in ((fastapi, "HTTP 422: body.messages.0.content: field required"),
                            (vllm, "HTTP 400: BadRequestError: max_tokens must be at least 1, got 0.")):
            with self.subTest(said), ModelServer("openai") as srv:
                srv.queue(*[reply] * 3)
                with self.assertRaises(ProviderError) as ctx:
                    client(srv).call(request())
                self.assertEqual(len(srv.requests), 1)
                self.assertEqual(str(ctx.exception), f"openai: {said} (POST {srv.base}/v1/chat/completions)")

    def test_every_message_names_the_url_and_is_one_line(self):
        with ModelServer("anthropic") as srv:
            srv.queue(*[error("anthropic", 500, "api_error", "line one\nline two\r\n\tline three")] * 5)
            with self.assertRaises(ProviderError) as ctx:
                client(srv).call(request())
            self.assertEqual(str(ctx.exception), "anthropic: HTTP 500: api_error: line one line two line three "
                             f"(POST {srv.base}/v1/messages; gave up after 5 attempts)")
        with ModelServer("openai") as srv:
            srv.queue(raw(200, b"<html>proxy</html>"))
            with self.assertRaises(ProviderError) as ctx:
                client(srv).call(request())
            self.assertIn(f"(POST {srv.base}/v1/chat/completions)", str(ctx.exception))
        with ModelServer("openai") as srv:
            srv.queue(raw(200, b"x" * 300))
            with self.assertRaises(ProviderError) as ctx:
                client(srv, policy=Policy(max_bytes=100)).call(request())
            self.assertEqual(str(ctx.exception), "openai: HTTP 200, body over the size cap of 100 bytes "
                             f"(POST {srv.base}/v1/chat/completions)")


class CutOff(unittest.TestCase):
    """Issue 19, item 10: a reply stopped at the token limit is marked."""

    STOPS = {"openai": ("length", "stop"), "anthropic": ("max_tokens", "end_turn"),
             "bedrock": ("max_tokens", "end_turn")}

    def test_text_reply_cut_off_is_marked_truncated(self):
        for flavour in FLAVOURS:
            cut, whole = self.STOPS[flavour]
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(body_of(flavour, "An answer that stops in the mid", cut),
                          body_of(flavour, "A whole answer.", whole))
                c = client(srv)
                first, second = c.call(request()), c.call(request())
                self.assertIs(getattr(first, "truncated", None), True)
                self.assertEqual(first.stop, cut)
                self.assertEqual(first.text, "An answer that stops in the mid")
                self.assertIs(getattr(second, "truncated", None), False)

    def test_json_reply_cut_off_is_marked_and_not_accepted(self):
        forced = {"openai": "m", "anthropic": "m", "bedrock": "anthropic.claude-3-haiku-20240307-v1:0"}
        for flavour in FLAVOURS:
            cut = self.STOPS[flavour][0]
            shape = {"tool_choice": {"name": "record"}, "toolConfig": {"toolChoice": {"tool": {"name": "record"}}}}
            with self.subTest(flavour), ModelServer(flavour) as srv:
                srv.queue(body_of(flavour, {"answer": "h"}, cut, dict(shape, model="m")))
                reply = client(srv).call(request(SCHEMA, model=forced[flavour]))
                self.assertIs(getattr(reply, "truncated", None), True)
                self.assertIsNone(reply.data)
                self.assertIn("cut off", reply.problem)


if __name__ == "__main__":
    unittest.main()
