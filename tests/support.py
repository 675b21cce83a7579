"""Shared test helpers: paths, running the scripts, a loopback widget server.

The widget server speaks the real widget protocol over real HTTP on
127.0.0.1 (port 0), and can misbehave on request, per question text:
``{"question text": "mode"}`` with modes ok, http429, http500, http502,
http503, fail_once, timeout, reset, reset_after_headers, invalid_json,
wrong_shape, empty, oversized, big_answer, slow_body, not_utf8, redirect.
"""

import contextlib
import hashlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools", "eval-benchmark")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
# Seconds a test waits for what a broken run never does (a thread to end, a
# server to answer): only then is it reached, so it is no measure of speed.
HANG = 60
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)


def published_quarters(bench):
    """The quarters published in ``bench``: its folders with a MANIFEST.json,
    hidden ones (a stopped publish's) aside, by name. A test of every
    published quarter takes them from here, never from a list of today's."""
    return sorted(name for name in os.listdir(bench) if not name.startswith(".")
                  and os.path.isfile(os.path.join(bench, name, "MANIFEST.json")))


def example_quarter(name):
    """``(folder, skip)`` of a quarter published in the repository that a
    test takes as an example input: ``skip`` decorates the test or class so
    that the quarter's absence (an operator's repository) skips it, never
    fails it."""
    folder = os.path.join(ROOT, "Documents", "c4-benchmark", name)
    return folder, unittest.skipUnless(os.path.isfile(os.path.join(folder, "MANIFEST.json")),
                                       f"the example quarter {name} is not published here")


def script(name):
    return os.path.join(TOOLS, name)


def run_script(name, *args, env=None, cwd=None, timeout=120):
    """Run a script through a real interpreter; ``CompletedProcess`` (text)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, script(name)] + list(args), capture_output=True,
                          text=True, encoding="utf-8", env=full_env, cwd=cwd or ROOT,
                          timeout=timeout)


def call_main(module, argv):
    """Run ``module.main(argv)`` in process; ``(code, stdout, stderr)``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = module.main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


PROVIDER_SELECTORS = ("BENCH_PROVIDER", "BENCH_MODEL", "PERMIT_AI_PROVIDER", "PERMIT_AI_MODEL")


class TempDirCase(unittest.TestCase):
    """A test with a folder of its own (``tmp``, removed after it; ``path``
    names a file in it) and an environment of its own (isolate_environ)."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        isolate_environ(self)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)


def isolate_environ(test):
    """Give a test its own os.environ: restored afterwards, with no provider
    or model selected from the machine's environment."""
    saved = dict(os.environ)

    def restore():
        os.environ.clear()
        os.environ.update(saved)
    test.addCleanup(restore)
    for var in PROVIDER_SELECTORS:
        os.environ.pop(var, None)


def sigint_raises_keyboard_interrupt(test):
    """For the rest of ``test``: Ctrl-C (SIGINT) raises KeyboardInterrupt in
    this process, and the processes it starts begin with SIGINT at its
    default, so Python there raises it too; restored afterwards. A test of
    Ctrl-C needs this: a suite started with SIGINT ignored (in the
    background of a script, ``nohup make test &``) passes the ignoring on to
    every process it starts, and Python then installs no KeyboardInterrupt."""
    test.addCleanup(signal.signal, signal.SIGINT,
                    signal.signal(signal.SIGINT, signal.default_int_handler))


def in_a_wait(thread):
    """Whether ``thread`` is blocked in a threading.Condition's wait (a
    lock's, an Event's), as its stack shows: how a test sees that a thread
    waits for something rather than guess it from the time it took."""
    frame = sys._current_frames().get(thread.ident)
    return frame is not None and frame.f_code is threading.Condition.wait.__code__


def sha256_text(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_json(path, obj):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    return path


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status, body, content_type="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Assistant-Version", "fake-widget 1.0")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        try:
            self._post()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer

    def _post(self):
        server = self.server
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        question = body.get("question", "") if isinstance(body, dict) else ""
        if not isinstance(question, str):  # a profile whose body puts something else there
            question = json.dumps(question, sort_keys=True)
        with server.lock:
            server.requests.append({"body": body, "headers": dict(self.headers), "path": self.path})
            count = server.counts.get(question, 0) + 1
            server.counts[question] = count
        mode = server.modes.get(question, "ok")
        if mode == "fail_once":
            mode = "http500" if count == 1 else "ok"
        if mode == "http500":
            return self._send(500, b'{"error": "internal"}')
        if mode == "http429":
            return self._send(429, b'{"error": "slow down"}', extra=[("Retry-After", "1")])
        if mode == "http502":
            return self._send(502, b"<html>bad gateway</html>", content_type="text/html")
        if mode == "big_answer":
            answer = "A long answer. " * (1024 * 1024 // 15)
            return self._send(200, json.dumps({"answer": answer, "sources": [],
                                               "grounded": True}).encode())
        if mode == "http503":
            return self._send(503, b'{"error": "unavailable"}', extra=[("Retry-After", "1")])
        if mode == "timeout":
            time.sleep(server.sleep)
            return self._send(200, b'{"answer": "too late", "sources": []}')
        if mode == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.close_connection = True
            self.connection.close()
            return None
        if mode == "reset_after_headers":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"answer": "cut')
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return None
        if mode == "invalid_json":
            return self._send(200, b'{"answer": "unterminated')
        if mode == "wrong_shape":
            return self._send(200, b'{"reply": {"text": "hello"}}')
        if mode == "empty":
            return self._send(200, b'{"answer": "  ", "sources": []}')
        if mode == "invisible":  # a zero-width space and a right-to-left mark: blank
            return self._send(200, b'{"answer": "\\u200b \\u200f", "sources": []}')
        if mode == "oversized":
            return self._send(200, b'{"answer": "' + b"x" * (server.big) + b'"}')
        if mode == "not_utf8":
            return self._send(200, b'{"answer": "caf\xe9 \xff", "sources": []}')
        if mode == "redirect":
            return self._send(302, b"", extra=[("Location", self.path)])
        if mode == "slow_body":
            payload = b'{"answer": "slow", "sources": []}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            for byte in payload:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(server.sleep / 4)
            return None
        if server.delay:
            time.sleep(server.delay)
        answer = server.answers.get(question, {"answer": f"You asked: {question}",
                                               "sources": [], "grounded": True})
        return self._send(200, json.dumps(answer, ensure_ascii=False).encode("utf-8"))


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 for one test; use as a context
    manager. ``state`` becomes attributes of the server the handler sees."""

    def __init__(self, handler, port=0, **state):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.httpd.lock = threading.Lock()
        self.httpd.requests = []
        for name, value in state.items():
            setattr(self.httpd, name, value)
        # A short poll interval: shutdown() waits up to one interval.
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

    @property
    def requests(self):
        return self.httpd.requests

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


class WidgetServer(LoopbackServer):
    """A scripted widget endpoint on 127.0.0.1; use as a context manager."""

    def __init__(self, answers=None, modes=None, sleep=3.0, big=3 * 1024 * 1024, delay=0.0):
        super().__init__(_Handler, counts={}, answers=answers or {}, modes=modes or {},
                         sleep=sleep, big=big, delay=delay)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/api/query"

    @property
    def counts(self):
        return self.httpd.counts
