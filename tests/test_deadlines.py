"""--timeout bounds the whole request, and one Ctrl-C stops any run.

A server that trickles its response head a byte at a time kept every read
of urllib's within the timeout, so a request waited as long as the server
liked. Ctrl-C waited for the requests in flight, each bounded only by that
timeout, and at concurrency 1 lost the question in flight, which the same
command then asked again. The servers here speak HTTP over real sockets on
127.0.0.1.

Nothing here is timed: a request that is not cut would take a minute (a
head of 1,200 bytes at one byte every 50 ms), so only a timeout or Ctrl-C
ends one within a test, and that is what the attempts say. HANG bounds only
a broken run.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

from tests.support import (FIXTURES, HANG, WidgetServer, call_main, isolate_environ, script,
                           sigint_raises_keyboard_interrupt)

import run  # noqa: E402  (tools/eval-benchmark is on sys.path through support)
from evalkit.asking import http, providers  # noqa: E402
from evalkit.asking.providers.retry import Policy  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
# A head of about 1,300 bytes at one byte every 50 ms: a minute for the
# whole of it, each byte well within a read's timeout.
HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: " + b"a" * 1200 +
        b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
GAP = 0.05


class TrickleServer:
    """Answers every request with HEAD, one byte every GAP seconds; counts
    the requests it has read. A context manager."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.stop = threading.Event()
        self.read = threading.Condition()
        self.requests = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/api/query"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(5)
        self.listener.close()

    def serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            threading.Thread(target=self.answer, args=(conn,), daemon=True).start()

    def answer(self, conn):
        with conn:
            conn.settimeout(5)
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                with self.read:
                    self.requests += 1
                    self.read.notify_all()
                for byte in HEAD:
                    if self.stop.wait(GAP):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return  # the client cut the connection: what the tests want

    def wait_for(self, count):
        with self.read:
            if not self.read.wait_for(lambda: self.requests >= count, HANG):
                raise AssertionError(f"the server read {self.requests} requests, not {count}")


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


class TimeoutBoundsTheHead(unittest.TestCase):
    def setUp(self):
        isolate_environ(self)
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.out = os.path.join(tmp.name, "raw.jsonl")

    def test_a_trickling_head_is_cut_at_the_timeout_in_widget_mode(self):
        with TrickleServer() as server:
            code, _, err = call_main(run, [QUESTIONS, self.out, "--endpoint", server.url,
                                           "--only", "mini-en-01", "--timeout", "0.5",
                                           "--retry-pause", "0", "--skip-endpoint-check",
                                           "--quiet"])
        self.assertEqual(code, 1, err)
        (line,) = read_lines(self.out)
        # The head would take a minute: each attempt was cut by its timeout.
        self.assertEqual([a["error"] for a in line["attempts"]], ["timeout", "timeout"])
        self.assertEqual([a["status"] for a in line["attempts"]], [None, None])
        self.assertIsNone(line["response"])

    def test_a_trickling_head_is_cut_at_the_timeout_in_model_mode(self):
        # run.py's model mode asks through the provider layer, as here; its
        # five attempts and their backoff would only make the test slow.
        fast = Policy(max_attempts=2, base_delay=0.01, max_delay=0.02, min_delay=0.01)
        with TrickleServer() as server:
            client = providers.get("openai", {"OPENAI_BASE_URL": server.url[:-len("/api/query")],
                                              "OPENAI_API_KEY": "sk-test-trickle"}, fast)
            with self.assertRaises(providers.ProviderError) as caught:
                client.call(providers.Request(system="s", user="u", model="m", timeout=0.5))
        attempts = caught.exception.attempts
        self.assertEqual([a["error"] for a in attempts], ["timeout", "timeout"])
        self.assertEqual([a["status"] for a in attempts], [None, None])


class OneCtrlC(unittest.TestCase):
    def setUp(self):
        # run.py must start with SIGINT at its default, so that Python there
        # raises KeyboardInterrupt, even when this suite runs with SIGINT
        # ignored: a process inherits an ignored signal, not a handler.
        sigint_raises_keyboard_interrupt(self)
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.out = os.path.join(tmp.name, "raw.jsonl")

    def interrupted_run(self, server, *flags):
        """run.py in a process of its own, given one SIGINT once the server
        has read ``--concurrency`` requests; ``(exit code, stderr)``."""
        proc = subprocess.Popen(
            [sys.executable, script("run.py"), QUESTIONS, self.out, "--endpoint", server.url,
             "--timeout", "600", "--skip-endpoint-check", "--quiet", *flags],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.kill)
        concurrency = int(flags[flags.index("--concurrency") + 1])
        server.wait_for(concurrency)
        proc.send_signal(signal.SIGINT)
        # Its requests would take a minute each, its timeout ten: only Ctrl-C
        # ends this run within the test, and its lines say it did.
        _, err = proc.communicate(timeout=HANG)
        return proc.returncode, err

    def test_one_ctrl_c_stops_a_run_at_concurrency_4_and_records_what_was_sent(self):
        with TrickleServer() as server:
            code, err = self.interrupted_run(server, "--concurrency", "4")
        self.assertEqual((code, err), (130, "run.py: interrupted: run the same command again to "
                                       "continue\n"))
        lines = read_lines(self.out)
        self.assertEqual(len(lines), 4)
        self.assertEqual({line["attempts"][-1]["error"] for line in lines}, {"interrupted"})
        self.assertEqual({len(line["attempts"]) for line in lines}, {1})  # no retry after it

    def test_the_question_in_flight_at_concurrency_1_is_recorded_never_asked_twice(self):
        with TrickleServer() as server:
            code, err = self.interrupted_run(server, "--concurrency", "1")
        self.assertEqual((code, err), (130, "run.py: interrupted: run the same command again to "
                                       "continue\n"))
        (first,) = read_lines(self.out)
        self.assertEqual(first["attempts"][-1]["error"], "interrupted")
        self.assertIsNone(first["response"])
        argv = [QUESTIONS, self.out, "--skip-endpoint-check", "--quiet"]
        with WidgetServer() as widget:
            code, _, err = call_main(run, argv + ["--endpoint", widget.url])
            asked = dict(widget.counts)
        self.assertEqual(code, 1)
        question = first["question"]
        self.assertNotIn(question, asked)  # not asked again unknowingly
        self.assertEqual(set(asked.values()), {1})
        self.assertIn(f"interrupted (Ctrl-C) after the question was sent: {first['id']}", err)
        # Asked again only when asked for, once.
        with WidgetServer() as widget:
            code, _, err = call_main(run, argv + ["--endpoint", widget.url, "--retry-failed"])
            self.assertEqual((code, dict(widget.counts)), (0, {question: 1}), err)


class Pause(unittest.TestCase):
    def pausing(self):
        """A pause of a day on a thread of its own; the Event set when it
        returns. Within a test, only interrupt can end it."""
        ended = threading.Event()

        def pause():
            http.pause(24 * 3600)
            ended.set()
        threading.Thread(target=pause, daemon=True).start()
        return ended

    def test_interrupt_ends_a_pause_and_sends_nothing_until_allowed(self):
        self.addCleanup(http.allow)
        ended = self.pausing()
        http.interrupt()
        self.assertTrue(ended.wait(HANG), "a pause was not ended by interrupt")
        ended = self.pausing()  # one that begins after it: ends at once
        self.assertTrue(ended.wait(HANG), "a pause begun after interrupt was not ended")
        with self.assertRaises(http.Interrupted):
            http.send("GET", "http://127.0.0.1:9/", {}, None, 1)
        http.allow()
        attempt, _ = http.send("GET", "http://127.0.0.1:9/", {}, None, 1)
        self.assertIsNotNone(attempt["error"])  # sent again (and refused: nothing listens)


if __name__ == "__main__":
    unittest.main()
