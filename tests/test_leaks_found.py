"""Leaks an outside tester found in run.py's raw lines, each reproduced
against a real server on 127.0.0.1 that speaks the widget protocol (or an
OpenAI-compatible API) and echoes the secret it was sent back:

- a reply header whose name spells the secret (as sent, and in lower case:
  names are kept so, and HTTP/2 lower-cases every name);
- a body over ``--max-bytes`` whose cut falls inside the secret: the part
  before the cut was kept;
- a body that is not UTF-8 (kept as base64) holding the secret JSON-escaped
  or percent-encoded: only the plain spellings were looked for in bytes;
- a base URL (OPENAI_BASE_URL, --endpoint) with a user:password, written
  whole into the line's target.url (and the request's url).

And a reply whose Content-Length is not ASCII digits (``²``: str.isdigit()
takes it, int() does not), recorded as a ValueError's text: it is a
malformed reply, and its attempt says so.

Every file written, stdout and stderr are searched for every 8 characters
in a row of the secret, as written and with JSON and percent escapes read.
"""

import base64
import json
import os
import re
import socket
import threading
import types
import unittest
from http.server import BaseHTTPRequestHandler
from unittest import mock

from tests import support
from tests.model_servers import ModelServer
from tests.support import FIXTURES, HANG, LoopbackServer, call_main, read_lines

import atomize  # noqa: E402
import run  # noqa: E402
from evalkit.asking import http  # noqa: E402

TOKEN = "FAKE-widget-bearer-token-42"
PASSWORD = "pw-SECRET999"
QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
SCENARIOS = os.path.join(FIXTURES, "scenarios-mini.json")
# The questions of questions-mini.json each test asks, by the reply it gets.
ASKED = {"header_name": "mini-en-01", "lower_header_name": "mini-en-02", "cut": "mini-en-03",
         "json_escaped": "mini-en-04", "percent_encoded": "mini-en-16"}
# The body of the "cut" reply: the secret starts at byte CUT_AT.
CUT_PREFIX = b'{"answer": "Your token is '


def json_escaped(text):
    return "".join(f"\\u{ord(ch):04x}" for ch in text)


def percent_encoded(text):
    return "".join(f"%{ord(ch):02X}" for ch in text)


def readings(text):
    """``text``, and ``text`` with its JSON ``\\uXXXX`` and percent escapes read."""
    unescaped = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    unescaped = re.sub(r"%([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), unescaped)
    return text, unescaped


class EchoSite(BaseHTTPRequestHandler):
    """A widget endpoint that echoes the bearer token it is sent, as the
    question asks (the server's ``modes``: question text to mode)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        token = self.headers.get("Authorization", "").partition(" ")[2]
        mode = self.server.modes.get(body.get("question"), "ok")
        headers = []
        payload = b'{"answer": "We open at nine.", "sources": []}'
        if mode == "header_name":
            headers = [(f"X-Echo-{token}", "1")]
        elif mode == "lower_header_name":
            headers = [(f"x-echo-{token.lower()}", "1")]
        elif mode == "cut":
            payload = CUT_PREFIX + token.encode() + b', thanks.", "sources": []}'
        elif mode == "json_escaped":  # \xe9: Latin-1, not UTF-8
            payload = b'{"answer": "caf\xe9 ' + json_escaped(token).encode() + b'", "sources": []}'
        elif mode == "percent_encoded":
            payload = (b'{"answer": "caf\xe9", "sources": ["http://x.example/?t='
                       + percent_encoded(token).encode() + b'"]}')
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class BadLengthServer:
    """Answers every request with HTTP 200 and ``Content-Length: ²`` (the
    byte 0xB2, as Latin-1 spells it), then closes: written byte for byte,
    since http.server would not send such a head."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.served = 0

    @property
    def url(self):
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/api/query"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.sock.shutdown(socket.SHUT_RDWR)  # ends the accept() the thread waits in
        self.sock.close()
        self.thread.join(HANG)

    @staticmethod
    def whole(received):
        """Whether ``received`` holds a whole request, head and body: one
        answered before its body is read would be reset when closed."""
        head, found, body = received.partition(b"\r\n\r\n")
        length = re.search(rb"(?im)^content-length:\s*([0-9]+)", head)
        return bool(found) and len(body) >= (int(length.group(1)) if length else 0)

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed by __exit__
            with conn:
                conn.settimeout(HANG)
                received = b""
                while not self.whole(received):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: \xb2\r\nConnection: close\r\n\r\n"
                             b'{"answer": "fine", "sources": []}')
                self.served += 1


class LeakCase(support.TempDirCase):
    def setUp(self):
        super().setUp()
        for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "BENCH_ENDPOINT"):
            os.environ.pop(var, None)
        self.printed = []

    def call(self, *argv):
        code, out, err = call_main(run, list(argv))
        self.printed.append(out + err)
        return code, err

    def profile(self):
        with open(os.path.join(support.TOOLS, "targets", "widget.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["headers"]["Authorization"] = "Bearer {env:WIDGET_TOKEN}"
        return support.write_json(self.path("profile.json"), doc)

    def ask_site(self, mode, *flags):
        """The raw line of the question ``mode`` is asked as."""
        os.environ["WIDGET_TOKEN"] = TOKEN
        with open(QUESTIONS, encoding="utf-8") as fh:
            texts = {q["id"]: q["question"] for q in json.load(fh)["questions"]}
        srv = LoopbackServer(EchoSite, modes={texts[ASKED[mode]]: mode})
        out = self.path(f"raw-{mode}.jsonl")
        with srv:
            url = f"http://127.0.0.1:{srv.httpd.server_address[1]}/api/query"
            code, err = self.call(QUESTIONS, out, "--target", self.profile(), "--endpoint", url,
                                  "--only", ASKED[mode], "--skip-endpoint-check",
                                  "--retry-pause", "0", *flags)
        (line,) = read_lines(out)
        self.assertEqual(line["request"]["headers"]["Authorization"],
                         "Bearer [redacted:WIDGET_TOKEN]")
        return code, err, line

    def assert_nowhere(self, secret):
        """No 8 characters in a row of ``secret`` in any file written (the
        base64 bodies decoded), nor on stdout or stderr, escaped or not."""
        texts = list(self.printed)
        for folder, _dirs, files in os.walk(self.tmp):
            for name in files:
                with open(os.path.join(folder, name), "rb") as fh:
                    text = fh.read().decode("utf-8", "replace")
                texts.append(text)
                for found in re.findall(r'"body_base64": ?"([A-Za-z0-9+/=]+)"', text):
                    texts.append(base64.b64decode(found).decode("latin-1"))
        pieces = {secret[i:i + 8] for i in range(len(secret) - 7)}
        for text in texts:
            for reading in readings(text):
                for piece in pieces:
                    self.assertNotIn(piece, reading)


class HeaderNames(LeakCase):
    def test_a_header_name_that_spells_the_secret_is_redacted(self):
        code, err, line = self.ask_site("header_name")
        self.assertEqual(code, 0, err)
        self.assertEqual(line["response"]["headers"]["x-echo-[redacted]"], "1")
        self.assertTrue(line["response"]["redacted"])
        self.assert_nowhere(TOKEN)

    def test_a_name_in_lower_case_is_redacted_too(self):
        code, err, line = self.ask_site("lower_header_name")
        self.assertEqual(code, 0, err)
        self.assertEqual(line["response"]["headers"]["x-echo-[redacted]"], "1")
        self.assert_nowhere(TOKEN)


class CutBody(LeakCase):
    def test_a_secret_the_size_cap_cuts_leaves_no_part_of_itself(self):
        cap = len(CUT_PREFIX) + 14  # inside the token: "FAKE-widget-be" would be kept
        code, err, line = self.ask_site("cut", "--max-bytes", str(cap))
        self.assertEqual(code, 1, err)
        response = line["response"]
        self.assertTrue(response["truncated"])
        self.assertTrue(response["redacted"])
        self.assertEqual(response["bytes"], cap)
        self.assertEqual(response["body"], (CUT_PREFIX.decode() + "[redacted], thanks.")[:cap])
        self.assert_nowhere(TOKEN)
        # A cut before the secret keeps the ordinary text before it as received.
        os.remove(self.path("raw-cut.jsonl"))
        code, err, line = self.ask_site("cut", "--max-bytes", str(len(CUT_PREFIX) - 3))
        self.assertEqual(line["response"]["body"], CUT_PREFIX.decode()[:-3])
        self.assertNotIn("redacted", line["response"])


class BytesNotText(LeakCase):
    def test_a_json_escaped_secret_in_a_body_that_is_not_utf8(self):
        code, err, line = self.ask_site("json_escaped")
        body = base64.b64decode(line["response"]["body_base64"])
        self.assertEqual(body, b'{"answer": "caf\xe9 [redacted]", "sources": []}')
        self.assertTrue(line["response"]["redacted"])
        self.assert_nowhere(TOKEN)

    def test_a_percent_encoded_secret_in_a_body_that_is_not_utf8(self):
        code, err, line = self.ask_site("percent_encoded")
        body = base64.b64decode(line["response"]["body_base64"])
        self.assertEqual(body, b'{"answer": "caf\xe9", "sources": '
                               b'["http://x.example/?t=[redacted]"]}')
        self.assert_nowhere(TOKEN)


class PasswordInTheURL(LeakCase):
    def test_a_base_url_with_a_password_is_recorded_without_it(self):
        # urllib cannot send to such a URL (its host is looked up with the
        # user:password): every attempt fails, and the waits between them
        # are not slept.
        with ModelServer("openai") as srv, mock.patch.object(http, "pause", lambda seconds: None):
            port = srv.httpd.server_address[1]
            os.environ["OPENAI_BASE_URL"] = f"http://user:{PASSWORD}@127.0.0.1:{port}/v1"
            os.environ["OPENAI_API_KEY"] = "sk-test-SECRET123"
            out = self.path("raw-model.jsonl")
            code, err = self.call(SCENARIOS, out, "--provider", "openai", "--model", "m",
                                  "--timeout", "5", "--limit", "1")
        self.assertEqual(code, 1, err)
        (line,) = read_lines(out)
        self.assertEqual(line["target"]["url"], f"http://[redacted]@127.0.0.1:{port}/v1")
        self.assert_nowhere(PASSWORD)

    def test_atomize_records_the_evaluator_s_url_without_it(self):
        client = types.SimpleNamespace(base=f"http://user:{PASSWORD}@127.0.0.1:9/v1")
        record = atomize.run_record(types.SimpleNamespace(raw="raw.jsonl"), client,
                                    types.SimpleNamespace(sha256="0" * 64))
        self.assertEqual(record["url"], "http://[redacted]@127.0.0.1:9/v1")

    def test_an_endpoint_with_a_password_is_recorded_and_shown_without_it(self):
        url = f"http://user:{PASSWORD}@127.0.0.1:9/api/query"
        code, err = self.call(QUESTIONS, self.path("raw-checked.jsonl"), "--endpoint", url)
        self.assertEqual(code, 2, err)
        self.assertIn("endpoint http://[redacted]@127.0.0.1:9/api/query: ", err)
        out = self.path("raw-site.jsonl")
        self.call(QUESTIONS, out, "--endpoint", url, "--only", "mini-en-01",
                  "--skip-endpoint-check", "--retry-pause", "0")
        (line,) = read_lines(out)
        self.assertEqual(line["target"]["url"], "http://[redacted]@127.0.0.1:9/api/query")
        self.assertEqual(line["request"]["url"], "http://[redacted]@127.0.0.1:9/api/query")
        self.assert_nowhere(PASSWORD)


class ContentLength(LeakCase):
    def test_a_length_that_is_not_ascii_digits_is_a_malformed_reply(self):
        out = self.path("raw-length.jsonl")
        with BadLengthServer() as srv:
            code, err = self.call(QUESTIONS, out, "--endpoint", srv.url, "--only", "mini-en-01",
                                  "--skip-endpoint-check", "--retry-pause", "0")
        self.assertEqual(code, 1, err)
        (line,) = read_lines(out)
        self.assertEqual([a["error"] for a in line["attempts"]],
                         ["bad HTTP response: a Content-Length of '²', not a number of bytes "
                          "(ASCII digits)"] * 2)
        self.assertIsNone(line["response"])


if __name__ == "__main__":
    unittest.main()
