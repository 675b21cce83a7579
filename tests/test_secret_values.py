"""A secret that HTTP cannot carry: an ``{env:NAME}`` value of a target
profile, or a provider's key, holding a line break (a key pasted from a file
ends in one), another control character or, in a URL, a space.

Such a value is refused before anything is sent: exit 2, one line on stderr
naming the header (or the URL) and the variable, never the value, and no
request reaches the loopback server. Whatever an error text quotes of a
request is kept free of every secret, as it is and in its escaped forms
(Python's repr of the text and of its bytes, JSON, percent-encoding).
Every server is a real one on 127.0.0.1; nothing else is contacted."""

import base64
import json
import os
import re
import tempfile
import types
import unittest
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler

from tests import support
from tests.model_servers import ModelServer, error
from tests.support import FIXTURES, ROOT, WidgetServer, call_main

import ai_eval  # noqa: E402  (tools/eval-benchmark is on sys.path through support)
import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.asking import http  # noqa: E402
from evalkit import redaction  # noqa: E402  (tools/eval-benchmark is on sys.path through support)
from evalkit.asking.providers.base import redact  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
SCENARIOS = os.path.join(ROOT, "evals", "permits", "scenarios.json")
KEY_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
            "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
            "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
            "BENCH_ENDPOINT")


SCRIPTS = {"run.py": run, "atomize.py": atomize, "ai_eval.py": ai_eval, "score.py": score}


def run_script(name, *args, env=None):
    """The script's ``main`` run in process with ``env`` over the test's
    environment (put back after): its exit code, stdout and stderr, as a
    run of its own gives them, without an interpreter's start each time."""
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        code, out, err = call_main(SCRIPTS[name], list(args))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return types.SimpleNamespace(returncode=code, stdout=out, stderr=err)


def lower_hex(encoded):
    """Percent-encoding with lower-case hex digits, as some encoders write it."""
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), encoded)


class SecretCase(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        for var in KEY_VARS:
            os.environ.pop(var, None)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def written(self):
        """Every file under the test's folder: ``[(name, text)]``."""
        out = []
        for folder, _dirs, files in os.walk(self.tmp):
            for name in files:
                with open(os.path.join(folder, name), "rb") as fh:
                    out.append((name, fh.read().decode("utf-8", "replace")))
        return out

    def assert_nowhere(self, markers, proc):
        """No marker (a part of the secret every form of it holds) in any
        file written, nor on stdout or stderr."""
        places = self.written() + [("stdout", proc.stdout), ("stderr", proc.stderr)]
        for label, text in places:
            for marker in markers:
                self.assertNotIn(marker, text, f"the secret leaked into {label}")

    def assert_refused(self, proc, *names):
        """Exit 2 and one line on stderr, naming each of ``names``, no traceback."""
        self.assertEqual(proc.returncode, 2, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        for name in names:
            self.assertIn(name, lines[0])
        self.assertIn("check the variable", lines[0])
        self.assertNotIn("Traceback", proc.stderr)


class TargetProfile(SecretCase):
    """run.py with a target profile whose header or URL takes an {env:NAME}."""

    def profile(self, headers=None, url=None):
        with open(os.path.join(support.TOOLS, "targets", "widget.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["headers"].update(headers or {})
        doc["url"] = url
        return support.write_json(self.path("profile.json"), doc)

    def run_py(self, profile, env, *extra):
        return run_script("run.py", QUESTIONS, self.path("raw.jsonl"), "--target", profile,
                          "--retry-pause", "0", *extra, env=env)

    def test_a_header_value_ending_in_a_newline_is_refused_before_any_question(self):
        with WidgetServer() as widget:
            profile = self.profile({"Authorization": "Bearer {env:MY_API_KEY}"}, widget.url)
            for extra in ((), ("--skip-endpoint-check",)):
                with self.subTest(extra=extra):
                    proc = self.run_py(profile, {"MY_API_KEY": "sk-TOPSECRET-123\n"}, *extra)
                    self.assert_refused(proc, "the Authorization header", "{env:MY_API_KEY}")
                    self.assertIn("line break", proc.stderr)
                    self.assert_nowhere(["TOPSECRET"], proc)
            self.assertEqual(widget.requests, [])

    def test_a_url_value_with_a_space_or_a_control_character_is_refused(self):
        with WidgetServer() as widget:
            profile = self.profile(url=widget.url + "?key={env:MY_URL_KEY}")
            for secret, what in (("sk-TOP SECRET-456", "a space"),
                                 ("sk-TOP\x01SECRET-456", "control character"),
                                 ("sk-TOPSECRET-456\n", "line break")):
                for extra in ((), ("--skip-endpoint-check",)):
                    with self.subTest(secret=secret, extra=extra):
                        proc = self.run_py(profile, {"MY_URL_KEY": secret}, *extra)
                        self.assert_refused(proc, "the URL", "{env:MY_URL_KEY}")
                        self.assertIn(what, proc.stderr)
                        self.assert_nowhere(["SECRET-456", "sk-TOP"], proc)
            self.assertEqual(widget.requests, [])

    def test_an_error_text_that_quotes_a_secret_is_recorded_without_it(self):
        # A value HTTP can carry, but not as a port: urllib's message quotes
        # it ("nonnumeric port: '...'"), in the endpoint check's refusal, in
        # every attempt's error and in every progress line.
        profile = self.profile(url="http://127.0.0.1:{env:MY_PORT_KEY}/api/query")
        env = {"MY_PORT_KEY": "PORTSECRET-789"}
        proc = self.run_py(profile, env)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("[redacted]", proc.stderr)
        self.assert_nowhere(["PORTSECRET"], proc)
        proc = self.run_py(profile, env, "--skip-endpoint-check", "--limit", "2")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = support.read_lines(self.path("raw.jsonl"))
        self.assertEqual(len(lines), 2)
        self.assertTrue(all("[redacted]" in a["error"] for line in lines for a in line["attempts"]))
        self.assertEqual(lines[0]["request"]["url"],
                         "http://127.0.0.1:[redacted:MY_PORT_KEY]/api/query")
        self.assert_nowhere(["PORTSECRET"], proc)


    def test_a_site_that_echoes_its_token_is_recorded_without_it(self):
        # The raw answer is kept as received, but for a secret the request
        # carried: in a header or the body (UTF-8 or not) it becomes
        # [redacted], and the response says so.
        class Echo(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                token = self.headers["Authorization"]
                with self.server.lock:
                    self.server.requests.append(token)
                    odd = len(self.server.requests) % 2 == 0
                body = json.dumps({"answer": f"you sent {token}", "sources": [],
                                   "grounded": True}).encode() + (b"\xff" if odd else b"")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("X-Echo", token)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        with support.LoopbackServer(Echo) as echo:
            url = f"http://127.0.0.1:{echo.httpd.server_address[1]}/api/query"
            profile = self.profile({"Authorization": "Bearer {env:MY_ECHO_KEY}"}, url)
            proc = self.run_py(profile, {"MY_ECHO_KEY": "ECHOSECRET-2468"}, "--limit", "2",
                               "--skip-endpoint-check")
            self.assertEqual(len(echo.requests), 2)
        self.assertEqual(proc.returncode, 1, proc.stderr)  # the second body is not UTF-8
        first, second = support.read_lines(self.path("raw.jsonl"))
        self.assertTrue(first["response"]["redacted"] and second["response"]["redacted"])
        self.assertEqual(json.loads(first["response"]["body"])["answer"],
                         "you sent Bearer [redacted]")
        self.assertEqual(first["response"]["headers"]["x-echo"], "Bearer [redacted]")
        self.assertIn(b"Bearer [redacted]", base64.b64decode(second["response"]["body_base64"]))
        scored = run_script("score.py", QUESTIONS, self.path("raw.jsonl"),
                            "--json", self.path("results.json"),
                            "--review-sheet", self.path("sheet.md"))
        self.assertEqual(scored.returncode, 0, scored.stderr)
        self.assert_nowhere(["ECHOSECRET"], proc)
        self.assert_nowhere(["ECHOSECRET"], scored)

class ProviderKeys(SecretCase):
    """A provider's key ending in a newline: a fatal error, before any request."""

    def server(self, flavour, **overrides):
        srv = ModelServer(flavour)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        env = srv.environ()
        env.update(overrides)
        return srv, env

    def check_refused(self, flavour, variable, secret, marker, script="run.py"):
        srv, env = self.server(flavour, **{variable: secret})
        if script == "run.py":
            proc = run_script("run.py", SCENARIOS, self.path("out.jsonl"), "--provider", flavour,
                              "--model", "m1", "--limit", "1", env=env)
        elif script == "atomize.py":
            proc = run_script("atomize.py", os.path.join(FIXTURES, "raw-mini.jsonl"),
                              self.path("atoms.jsonl"), "--provider", flavour, "--model", "judge",
                              "--cases", os.path.join(FIXTURES, "scenarios-mini.json"), env=env)
        else:
            proc = run_script("ai_eval.py", "intake", "--cases",
                              os.path.join(ROOT, "evals", "ai", "intake-cases.json"),
                              "--provider", flavour, "--model", "m",
                              "--output", self.path("r.json"), "--raw", self.path("r.raw.jsonl"),
                              env=env)
        self.assert_refused(proc, variable)
        self.assertIn("line break", proc.stderr)
        self.assertEqual(srv.requests, [], "a request was made")
        self.assert_nowhere([marker], proc)

    def test_an_openai_key_ending_in_a_newline(self):
        self.check_refused("openai", "OPENAI_API_KEY", "MYKEY-abc123XYZ\n", "abc123XYZ")

    def test_an_anthropic_key_ending_in_a_newline(self):
        self.check_refused("anthropic", "ANTHROPIC_API_KEY", "MYKEY-ant456XYZ\n", "ant456XYZ")

    def test_bedrock_credentials_ending_in_a_newline(self):
        for variable, secret, marker in (
                ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYSECRET\n", "CYSECRET"),
                ("AWS_ACCESS_KEY_ID", "AKIDSECRETID77\n", "SECRETID77"),
                ("AWS_SESSION_TOKEN", "SESSION-TOKEN-SECRET-88\n", "SECRET-88")):
            with self.subTest(variable=variable):
                self.check_refused("bedrock", variable, secret, marker)

    def test_the_evaluator_scripts_refuse_it_too(self):
        for script in ("atomize.py", "ai_eval.py"):
            with self.subTest(script=script):
                self.check_refused("openai", "OPENAI_API_KEY", "MYKEY-abc123XYZ\n", "abc123XYZ",
                                   script)

    def test_a_key_echoed_back_percent_encoded_is_recorded_without_it(self):
        # A key HTTP can carry (AWS-like: / and +), echoed by the server in an
        # error body percent-encoded: neither the line's problem, its recorded
        # body, nor stderr holds it.
        key = "MYKEY/abc+123=XYZ"
        srv, env = self.server("openai", OPENAI_API_KEY=key)
        srv.queue(error("openai", 400, "invalid_request_error",
                        f"bad key {urllib.parse.quote(key, safe='')} in {key.encode()!r}"))
        proc = run_script("run.py", SCENARIOS, self.path("out.jsonl"), "--provider", "openai",
                          "--model", "m1", "--limit", "1", env=env)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(len(srv.requests), 1)
        line = support.read_lines(self.path("out.jsonl"))[0]
        self.assertIn("[redacted]", line["derived"]["problem"])
        self.assertIn("[redacted]", line["response"]["body"])
        self.assert_nowhere(["MYKEY", "abc%2B123", "abc+123"], proc)


class ErrorTexts(unittest.TestCase):
    """The redaction of error texts, against the texts Python really makes."""

    SECRET = "MYKEY-abc123XYZ\n"

    def real_errors(self, url):
        """What urllib and http.client raise for a header and a URL holding
        the secret (each raised before any byte is sent)."""
        texts = []
        for target, headers in ((url, {"Authorization": f"Bearer {self.SECRET}"}),
                                (f"{url}?key=MYKEY abc123XYZ\x01", {}),
                                (f"{url}?key=MYKEY-abc123XYZ\u00e9\u2014", {}),
                                (url, {"X-Key": "MYKEY-abc123XYZ\u2014"})):
            try:
                urllib.request.urlopen(urllib.request.Request(target, headers=headers), timeout=5)
            except Exception as exc:  # ValueError, UnicodeEncodeError, http.client's InvalidURL
                texts.append(f"{type(exc).__name__}: {exc}")
        return texts

    def test_every_form_of_a_secret_is_removed(self):
        secrets = [self.SECRET, "MYKEY abc123XYZ\x01", "MYKEY-abc123XYZ\u00e9\u2014",
                   "MYKEY-abc123XYZ\u2014"]
        with WidgetServer() as widget:
            texts = self.real_errors(widget.url)
            self.assertEqual(widget.requests, [])
        self.assertIn("\\n", texts[0])  # repr-escaped: "Invalid header value b'...\\n'"
        for secret in secrets:
            texts += [secret, repr(secret), ascii(secret), repr(secret.encode("utf-8")),
                      json.dumps(secret), urllib.parse.quote(secret, safe=""),
                      lower_hex(urllib.parse.quote(secret)), urllib.parse.quote_plus(secret),
                      " ".join(secret.split()), f"message: {secret.strip()}."]
        for text in texts:
            with self.subTest(text=text):
                cleaned = redaction.redact(f"cannot connect: {text}", secrets)
                self.assertNotIn("abc123XYZ", cleaned)
                if "abc123XYZ" in text:  # a codec's message quotes one character only
                    self.assertIn("[redacted]", cleaned)
                self.assertTrue(cleaned.startswith("cannot connect: "))
                self.assertNotIn("abc123XYZ", redact(text, secrets))

    def test_short_values_and_other_text_are_left_alone(self):
        self.assertEqual(redaction.redact("HTTP 500", ["500", "", None]), "HTTP 500")
        self.assertEqual(redaction.redact(None, [self.SECRET]), None)

    def test_send_records_no_secret_and_sends_nothing_it_cannot_carry(self):
        with WidgetServer() as widget:
            for headers, url in (({"Authorization": f"Bearer {self.SECRET}"}, widget.url),
                                 ({}, widget.url + "?key=MYKEY abc123XYZ")):
                for secrets in ((), (self.SECRET,)):
                    attempt, response = http.send("POST", url, headers, b"{}", 5,
                                                  secrets=secrets)
                    self.assertIsNone(response)
                    self.assertIsNone(attempt["status"])
                    self.assertIn("not sent", attempt["error"])
                    self.assertIn("the Authorization header" if headers else "the URL",
                                  attempt["error"])
                    self.assertNotIn("abc123XYZ", attempt["error"])
            # A port urllib cannot read: its message quotes the secret.
            attempt, _ = http.send("POST", "http://127.0.0.1:PORTSECRET-1/", {}, b"{}", 5,
                                   secrets=["PORTSECRET-1"])
            self.assertIn("[redacted]", attempt["error"])
            self.assertNotIn("PORTSECRET", attempt["error"])
            self.assertEqual(widget.requests, [])


if __name__ == "__main__":
    unittest.main()
