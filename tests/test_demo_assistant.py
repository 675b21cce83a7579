"""The reference assistant over real HTTP on 127.0.0.1: the widget protocol,
its refusals, determinism, serving the pages, and a clean stop on SIGTERM."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from tests.support import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "demo-assistant"))
import server  # noqa: E402

EN = "http://med.demo.localhost/demo/clinic/en/"
HE = "http://med.demo.localhost/demo/clinic/he/"
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Assistant(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.httpd = server.make_server(quiet=True)
        cls.thread = threading.Thread(target=cls.httpd.serve_forever, daemon=True)
        cls.thread.start()
        cls.base = f"http://127.0.0.1:{cls.httpd.server_address[1]}"

    @classmethod
    def tearDownClass(cls):
        cls.httpd.shutdown()
        cls.httpd.server_close()

    def post(self, body, raw=None, headers=None):
        data = raw if raw is not None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base + "/api/query", data=data, method="POST",
                                     headers=headers or {"Content-Type": "application/json"})
        try:
            with NO_PROXY.open(req, timeout=10) as resp:
                return resp.status, dict(resp.headers), json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, dict(exc.headers), json.loads(exc.read())

    def test_answers_from_the_visitors_site(self):
        status, headers, reply = self.post({"question": "are you open on saturdays?",
                                            "page_url": EN, "key": "pk_demo_med_en"})
        self.assertEqual(status, 200)
        self.assertEqual(headers["X-Assistant-Version"], "demo-assistant 0.1.0")
        self.assertTrue(reply["grounded"])
        self.assertIn("Saturday", reply["answer"])
        self.assertTrue(reply["sources"])
        for source in reply["sources"]:
            self.assertTrue(source["url"].startswith(EN), source)
            self.assertTrue(source["title"])

    def test_same_question_same_answer(self):
        body = {"question": "כמה עולה ביקור?", "page_url": HE, "key": "pk_demo_med_he"}
        first = self.post(body)[2]
        for _ in range(3):
            self.assertEqual(self.post(body)[2], first)

    def test_declines_in_the_visitors_language_with_the_phone(self):
        status, _, reply = self.post({"question": "קעקועים בלייזר?", "page_url": HE,
                                      "key": "pk_demo_med_he"})
        self.assertEqual(status, 200)
        self.assertFalse(reply["grounded"])
        self.assertEqual(reply["sources"], [])
        self.assertIn("04-0550193", reply["answer"])
        self.assertTrue(any("\u0590" <= ch <= "\u05ff" for ch in reply["answer"]))

    def test_refusals(self):
        cases = [
            ({"question": "hi", "page_url": EN, "key": "pk_wrong"}, None, 401, "invalid_key"),
            ({"question": "hi", "page_url": EN}, None, 401, "invalid_key"),
            ({"question": "", "page_url": EN, "key": "pk_demo_med_en"}, None, 400, "bad_request"),
            ({"question": "hi", "page_url": HE, "key": "pk_demo_med_en"}, None, 400, "bad_request"),
            ({"question": "hi", "page_url": "http://med.demo.localhost/elsewhere/",
              "key": "pk_demo_med_en"}, None, 400, "bad_request"),
            (None, b"{not json", 400, "bad_request"),
            (None, b"[1, 2]", 400, "bad_request"),
            (None, b"x" * (64 * 1024 + 1), 413, "too_large"),
        ]
        for body, raw, status, error in cases:
            with self.subTest(body=body, raw=(raw or b"")[:20]):
                got_status, _, reply = self.post(body, raw)
                self.assertEqual((got_status, reply["error"]), (status, error))

    def test_serves_the_pages(self):
        with NO_PROXY.open(self.base + "/demo/clinic/he/hours/", timeout=10) as resp:
            html = resp.read().decode("utf-8")
            self.assertEqual(resp.headers["Content-Type"], "text/html; charset=utf-8")
        self.assertIn('dir="rtl"', html)
        with self.assertRaises(urllib.error.HTTPError) as ctx:
            NO_PROXY.open(self.base + "/demo/clinic/../../etc/passwd", timeout=10)
        self.assertEqual(ctx.exception.code, 404)
        ctx.exception.close()


class SlowLog:
    """A stderr whose every write takes a while, as a busy machine's may."""

    def __init__(self):
        self.lines = []

    def write(self, text):
        time.sleep(0.3)
        self.lines.append(text)

    def flush(self):
        pass


class RequestLog(unittest.TestCase):
    def test_the_line_is_written_before_the_answer_leaves(self):
        # A stop right after an answer (SIGTERM, below) must not lose its
        # line: the handler threads are daemons, cut off when the server exits.
        httpd = server.make_server()
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        log = SlowLog()
        self.addCleanup(setattr, sys, "stderr", sys.stderr)
        sys.stderr = log
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        thread.start()
        req = urllib.request.Request(
            f"http://127.0.0.1:{httpd.server_address[1]}/api/query", method="POST",
            data=json.dumps({"question": "hours?", "page_url": EN,
                             "key": "pk_demo_med_en"}).encode())
        with NO_PROXY.open(req, timeout=10) as resp:
            resp.read()
        self.assertEqual(len(log.lines), 1)
        self.assertRegex(log.lines[0], r"^POST /api/query 200 \d+ ms pk_demo_med_en\n$")


class Process(unittest.TestCase):
    def test_port_file_log_and_clean_stop_on_sigterm(self):
        with tempfile.TemporaryDirectory() as tmp:
            port_file = os.path.join(tmp, "port")
            proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "demo-assistant",
                                                                  "server.py"),
                                     "--port-file", port_file],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.addCleanup(lambda: proc.poll() is None and proc.kill())
            deadline = time.monotonic() + 60  # a start-up that never comes, not a slow one
            while not os.path.exists(port_file) and time.monotonic() < deadline:
                time.sleep(0.02)
            with open(port_file, encoding="utf-8") as fh:
                port = int(fh.read())
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/query", method="POST",
                data=json.dumps({"question": "hours?", "page_url": EN,
                                 "key": "pk_demo_med_en"}).encode())
            with NO_PROXY.open(req, timeout=10) as resp:
                self.assertEqual(resp.status, 200)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=10)
            self.assertEqual(proc.returncode, 0)
            lines = err.splitlines()
            self.assertIn(f"listening on http://127.0.0.1:{port}/", lines[0])
            self.assertRegex(lines[1], r"^POST /api/query 200 \d+ ms pk_demo_med_en$")


if __name__ == "__main__":
    unittest.main()
