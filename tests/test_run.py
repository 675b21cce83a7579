"""run.py against a real loopback widget server: what is sent, what is kept,
retries, failures, resuming, and refusals."""

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler
from unittest import mock

from tests import support, test_docs
from tests.support import FIXTURES, LoopbackServer, WidgetServer, call_main, read_lines

import run  # noqa: E402  (tools/eval-benchmark is on sys.path through support)
import server  # noqa: E402  (tools/demo-assistant, on sys.path through test_docs)
from evalkit.asking import http, siterun  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")


def questions():
    with open(QUESTIONS, encoding="utf-8") as fh:
        return json.load(fh)["questions"]


class _FixedBody(BaseHTTPRequestHandler):
    """Answers every POST with the server's ``body``, byte for byte, or with
    nothing at all (the connection closed) when ``body`` is None."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = self.server.body
        if body is None:
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class RunTestCase(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.out = os.path.join(self.tmp, "raw.jsonl")

    def server(self, **kwargs):
        server = WidgetServer(**kwargs)
        server.__enter__()
        self.addCleanup(server.__exit__)
        return server

    def fixed_body_server(self, body):
        """``(server, url)``: a loopback endpoint that answers with ``body``."""
        server = LoopbackServer(_FixedBody, body=body)
        server.__enter__()
        self.addCleanup(server.__exit__)
        return server, f"http://127.0.0.1:{server.httpd.server_address[1]}/api/query"

    def run_main(self, *args, endpoint=None, check=False):
        """run.py on the mini questions; without its endpoint check (tested
        in EndpointCheck), so that the server sees only the questions."""
        argv = [QUESTIONS, self.out, "--retry-pause", "0", "--quiet"] + list(args)
        if not check:
            argv.append("--skip-endpoint-check")
        if endpoint:
            argv += ["--endpoint", endpoint]
        return call_main(run, argv)


class Asking(RunTestCase):
    def test_every_question_once_with_the_widget_body(self):
        srv = self.server()
        code, out, err = self.run_main(endpoint=srv.url)
        self.assertEqual((code, out, err), (0, "", ""))
        lines = read_lines(self.out)
        self.assertEqual([l["id"] for l in lines], [q["id"] for q in questions()])
        first = srv.requests[0]["body"]
        self.assertEqual(first, {"question": "How much is a first consultation?",
                                 "page_url": "http://mini.example/en/", "key": "pk_mini_en"})
        self.assertEqual(sorted(srv.counts.values()), [1] * len(questions()))

    def test_the_raw_line(self):
        srv = self.server(answers={"How much is a first consultation?": {
            "answer": "It is $120.", "sources": [{"url": "http://mini.example/en/prices/"}],
            "grounded": True}})
        self.run_main("--only", "mini-en-01", endpoint=srv.url)
        (line,) = read_lines(self.out)
        self.assertEqual(line["format"], 1)
        self.assertEqual(line["set"], "mini")
        self.assertEqual(line["target"]["url"], srv.url)
        self.assertEqual(len(line["attempts"]), 1)
        attempt = line["attempts"][0]
        self.assertEqual(attempt["status"], 200)
        self.assertIsNone(attempt["error"])
        self.assertRegex(attempt["started_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertIsInstance(attempt["latency_ms"], int)
        body = json.loads(line["response"]["body"])
        self.assertEqual(body["answer"], "It is $120.")
        self.assertEqual(line["response"]["headers"]["x-assistant-version"], "fake-widget 1.0")
        self.assertEqual(line["derived"]["sources"], ["http://mini.example/en/prices/"])
        with open(QUESTIONS, "rb") as fh:
            self.assertEqual(line["run"]["cases_sha256"], hashlib.sha256(fh.read()).hexdigest())
        for key in ("run_id", "tool_version", "git_commit", "git_dirty", "python", "concurrency"):
            self.assertIn(key, line["run"])

    def test_body_kept_exactly_as_received(self):
        srv = self.server(answers={"How much is a first consultation?": {
            "answer": "שלום\u200f — ₪120", "sources": []}})
        self.run_main("--only", "mini-en-01", endpoint=srv.url)
        (line,) = read_lines(self.out)
        self.assertEqual(line["response"]["body"],
                         json.dumps({"answer": "שלום\u200f — ₪120", "sources": []},
                                    ensure_ascii=False))

    def test_body_never_re_serialised(self):
        # Spacing, key order, escapes (\u00e9, \/) and the final newline are
        # all lost if the body is parsed and dumped again on its way to the line.
        sent = (b'{ "sources" :[ {"url":"http:\\/\\/mini.example\\/en\\/prices\\/"} ],\n'
                b'  "grounded": true,   "answer":"Caf\\u00e9: it is $120."}\n')
        _, url = self.fixed_body_server(sent)
        code, _, err = self.run_main("--only", "mini-en-01", endpoint=url)
        self.assertEqual((code, err), (0, ""))
        (line,) = read_lines(self.out)
        self.assertEqual(line["response"]["body"], sent.decode("utf-8"))
        self.assertEqual(line["response"]["bytes"], len(sent))
        self.assertEqual(line["derived"]["answer"], "Caf\u00e9: it is $120.")
        self.assertEqual(line["derived"]["sources"], ["http://mini.example/en/prices/"])

    def test_limit_and_only(self):
        srv = self.server()
        self.run_main("--limit", "2", endpoint=srv.url)
        self.assertEqual([l["id"] for l in read_lines(self.out)], ["mini-en-01", "mini-en-02"])
        os.unlink(self.out)
        self.run_main("--only", "mini-ru-02,mini-he-01", endpoint=srv.url)
        self.assertEqual(sorted(l["id"] for l in read_lines(self.out)),
                         ["mini-he-01", "mini-ru-02"])

    def test_concurrency_keeps_every_question_once(self):
        srv = self.server()
        code, _, _ = self.run_main("--concurrency", "8", endpoint=srv.url)
        self.assertEqual(code, 0)
        ids = [l["id"] for l in read_lines(self.out)]
        self.assertEqual(sorted(ids), sorted(q["id"] for q in questions()))
        self.assertEqual(read_lines(self.out)[0]["run"]["concurrency"], 8)

    def test_endpoint_from_the_environment(self):
        srv = self.server()
        os.environ["BENCH_ENDPOINT"] = srv.url
        self.addCleanup(os.environ.pop, "BENCH_ENDPOINT", None)
        code, _, err = self.run_main("--limit", "1")
        self.assertEqual((code, err), (0, ""))

    def test_progress_lines(self):
        srv = self.server()
        code, _, err = call_main(run, [QUESTIONS, self.out, "--endpoint", srv.url,
                                       "--limit", "2"])
        self.assertEqual(code, 0)
        lines = err.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertRegex(lines[0], r"^\[1/2\] mini-en-01 200 \d+ ms$")
        self.assertEqual(lines[2], f"run.py: {self.out}: 2 asked, 2 answered, 0 failed; "
                                   "0 skipped as already in the file")

    def test_the_run_ends_with_what_it_asked_answered_failed_and_skipped(self):
        # Issue 40: a site run ended without a summary.
        srv = self.server(modes={"How much is a first consultation?": "http500"})
        code, _, err = call_main(run, [QUESTIONS, self.out, "--endpoint", srv.url, "--limit", "3"])
        self.assertEqual(code, 1, err)
        code, _, err = call_main(run, [QUESTIONS, self.out, "--endpoint", srv.url, "--limit", "5"])
        self.assertEqual(code, 1, err)
        self.assertEqual(err.splitlines()[-1], f"run.py: {self.out}: 2 asked, 2 answered, 0 failed; "
                                               "3 skipped as already in the file")
        code, _, err = call_main(run, [QUESTIONS, self.out, "--endpoint", srv.url, "--limit", "5"])
        self.assertIn(f"run.py: {self.out}: already complete: 5 answer(s), nothing to ask\n", err)
        self.assertNotIn(" asked, ", err)   # nothing was: said once
        code, _, err = call_main(run, [QUESTIONS, self.out, "--endpoint", srv.url, "--quiet",
                                       "--limit", "6"])
        self.assertNotIn(" asked, ", err)   # --quiet: only what went wrong


class Transport(RunTestCase):
    def test_one_connection_per_question_with_urllibs_headers(self):
        srv = self.server()
        self.run_main("--limit", "1", endpoint=srv.url)
        headers = {k.lower(): v for k, v in srv.requests[0]["headers"].items()}
        self.assertEqual(headers["connection"], "close")
        self.assertRegex(headers["user-agent"], r"^Python-urllib/3\.\d+$")
        self.assertEqual(headers["host"], srv.url.split("/")[2])
        self.assertEqual(headers["content-type"], "application/json")  # the profile's
        self.assertEqual(srv.requests[0]["path"], "/api/query")

    def test_a_body_without_content_type_gets_urllibs_default(self):
        srv = self.server()
        attempt, _ = http.send("POST", srv.url, {}, b'{"question": "q"}', 5)
        self.assertEqual(attempt["status"], 200)
        headers = {k.lower(): v for k, v in srv.requests[0]["headers"].items()}
        self.assertEqual(headers["content-type"], "application/x-www-form-urlencoded")
        self.assertEqual(headers["content-length"], "17")

    def test_through_the_environments_proxy(self):
        # The stand-in is the proxy: the request names the site in absolute
        # form and the proxy answers it, so nothing beyond loopback is reached.
        support.isolate_environ(self)
        proxy = self.server()
        for name in ("no_proxy", "NO_PROXY", "HTTP_PROXY"):
            os.environ.pop(name, None)
        os.environ["http_proxy"] = "http://" + proxy.url.split("/")[2]
        code, _, err = self.run_main("--limit", "1", endpoint="http://widget.example/api/query?v=1")
        self.assertEqual((code, err), (0, ""))
        (line,) = read_lines(self.out)
        self.assertEqual(line["attempts"][0]["status"], 200)
        self.assertEqual(proxy.requests[0]["path"], "http://widget.example/api/query?v=1")
        self.assertEqual(proxy.requests[0]["headers"]["Host"], "widget.example")

    def test_loopback_never_through_the_proxy(self):
        support.isolate_environ(self)
        proxy = self.server()
        srv = self.server()
        for name in ("no_proxy", "NO_PROXY", "HTTP_PROXY", "HTTPS_PROXY"):
            os.environ.pop(name, None)
        os.environ["http_proxy"] = os.environ["https_proxy"] = "http://" + proxy.url.split("/")[2]
        code, _, err = self.run_main("--limit", "1", endpoint=srv.url)
        self.assertEqual((code, err), (0, ""))
        self.assertEqual((len(srv.requests), proxy.requests), (1, []))


class Failures(RunTestCase):
    def only(self, mode, **kwargs):
        q = questions()[0]
        srv = self.server(modes={q["question"]: mode}, **kwargs)
        code, out, err = self.run_main("--only", q["id"], *kwargs.pop("args", ()),
                                       endpoint=srv.url)
        (line,) = read_lines(self.out)
        return srv, code, err, line, q

    def test_one_retry_after_a_failed_request(self):
        srv, code, err, line, q = self.only("fail_once")
        self.assertEqual(code, 0)
        self.assertEqual([a["status"] for a in line["attempts"]], [500, 200])
        self.assertEqual(srv.counts[q["question"]], 2)

    def test_no_more_than_one_retry(self):
        srv, code, err, line, q = self.only("http500")
        self.assertEqual(code, 1)
        self.assertEqual([a["status"] for a in line["attempts"]], [500, 500])
        self.assertEqual(srv.counts[q["question"]], 2)
        self.assertIn("mini-en-01", err)
        self.assertEqual(line["response"]["status"], 500)

    def test_503(self):
        _, code, _, line, _ = self.only("http503")
        self.assertEqual((code, [a["error"] for a in line["attempts"]]), (1, ["HTTP 503"] * 2))

    def test_no_retry_for_a_bad_answer(self):
        for mode in ("invalid_json", "wrong_shape", "empty", "invisible", "not_utf8"):
            with self.subTest(mode=mode):
                if os.path.exists(self.out):
                    os.unlink(self.out)
                srv, code, _, line, q = self.only(mode)
                self.assertEqual(code, 1)
                self.assertEqual(len(line["attempts"]), 1)
                self.assertEqual(srv.counts[q["question"]], 1)

    def test_not_utf8_kept_losslessly(self):
        _, _, _, line, _ = self.only("not_utf8")
        self.assertIsNone(line["response"]["body"])
        self.assertEqual(base64.b64decode(line["response"]["body_base64"]),
                         b'{"answer": "caf\xe9 \xff", "sources": []}')

    def test_timeout(self):
        q = questions()[0]
        srv = self.server(modes={q["question"]: "timeout"}, sleep=2.0)
        code, _, _ = self.run_main("--only", q["id"], "--timeout", "0.5", endpoint=srv.url)
        (line,) = read_lines(self.out)
        self.assertEqual(code, 1)
        self.assertEqual([a["error"] for a in line["attempts"]], ["timeout", "timeout"])
        self.assertIsNone(line["response"])

    def test_slow_body_is_cut_at_the_timeout(self):
        q = questions()[0]
        srv = self.server(modes={q["question"]: "slow_body"}, sleep=0.4)
        code, _, _ = self.run_main("--only", q["id"], "--timeout", "0.6", endpoint=srv.url)
        (line,) = read_lines(self.out)
        self.assertEqual(code, 1)
        # A byte every 0.1 s, the whole body in 3.3 s: no read waits past the
        # timeout, yet each attempt is cut there, the head read, the body not.
        self.assertEqual([(a["status"], a["error"]) for a in line["attempts"]],
                         [(200, "timeout")] * 2)
        self.assertIsNone(line["response"])

    def test_reset_connection(self):
        for mode in ("reset", "reset_after_headers"):
            with self.subTest(mode=mode):
                if os.path.exists(self.out):
                    os.unlink(self.out)
                srv, code, _, line, q = self.only(mode)
                self.assertEqual(code, 1)
                self.assertEqual(len(line["attempts"]), 2)
                self.assertIsNone(line["response"])  # no whole response came
                self.assertEqual([a["error"] for a in line["attempts"]], [{
                    "reset": "connection reset",
                    "reset_after_headers": "connection closed in the middle of the body",
                }[mode]] * 2)

    def test_closed_before_a_response(self):
        _, url = self.fixed_body_server(None)
        code, _, _ = self.run_main("--only", "mini-en-01", endpoint=url)
        (line,) = read_lines(self.out)
        self.assertEqual(code, 1)
        self.assertEqual([a["error"] for a in line["attempts"]],
                         ["connection closed before a response"] * 2)
        self.assertIsNone(line["response"])

    def test_oversized_body(self):
        q = questions()[0]
        srv = self.server(big=5000)
        srv.httpd.modes[q["question"]] = "oversized"
        code, _, _ = self.run_main("--only", q["id"], "--max-bytes", "1000", endpoint=srv.url)
        (line,) = read_lines(self.out)
        self.assertEqual(code, 1)
        self.assertTrue(line["response"]["truncated"])
        self.assertEqual(line["response"]["bytes"], 1000)
        self.assertEqual(len(line["attempts"]), 1)

    def test_redirect_is_not_followed(self):
        srv, code, _, line, q = self.only("redirect")
        self.assertEqual(code, 1)
        self.assertEqual([a["status"] for a in line["attempts"]], [302, 302])

    def test_connection_refused(self):
        srv = WidgetServer()
        url = srv.url
        srv.httpd.server_close()  # the port is now closed: nothing listens
        code, _, _ = self.run_main("--only", "mini-en-01", endpoint=url)
        (line,) = read_lines(self.out)
        self.assertEqual(code, 1)
        self.assertEqual([a["error"] for a in line["attempts"]], ["connection refused"] * 2)


class EndpointCheck(RunTestCase):
    """One greeting before the first question: a wrong endpoint stops the run
    at once, with exit 2, before any question is asked."""

    def demo_server(self):
        httpd = server.make_server(quiet=True)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    def refused(self, endpoint, expected, greetings=1):
        """run.py refuses ``endpoint`` at once: one greeting sent (none for a
        URL it cannot send to), not retried, and no question asked."""
        sent, send = [], http.send

        def counted(method, url, headers, data, *args):
            sent.append(json.loads(data)["question"])
            return send(method, url, headers, data, *args)
        with mock.patch.object(http, "send", counted):
            code, _, err = self.run_main(endpoint=endpoint, check=True)
        self.assertEqual(sent, [siterun.PROBE] * greetings)
        self.assertEqual(code, 2, err)
        self.assertIn(expected, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertFalse(os.path.exists(self.out))   # a refused command leaves no file behind

    def test_the_url_the_demo_server_prints(self):
        self.refused(self.demo_server() + "/",
                     "HTTP 404 to a test question (the URL has no path: the query endpoint "
                     "usually has one, such as /api/query")

    def test_not_an_http_url(self):
        self.refused("htp://127.0.0.1:9/api/query", "not an http:// or https:// URL", greetings=0)

    def test_nothing_listening(self):
        srv = WidgetServer()
        url = srv.url
        srv.httpd.server_close()
        self.refused(url, "connection refused to a test question")

    def test_an_answer_of_another_shape(self):
        _, url = self.fixed_body_server(b"<html>hello</html>")
        self.refused(url, "HTTP 200, but not in the shape of the target profile")

    def test_a_good_endpoint_gets_one_greeting_and_every_question_once(self):
        srv = self.server()
        code, _, err = self.run_main(endpoint=srv.url, check=True)
        self.assertEqual(code, 0, err)
        self.assertEqual(srv.counts.pop(siterun.PROBE), 1)
        self.assertEqual(sorted(srv.counts.values()), [1] * len(questions()))
        self.assertNotIn(siterun.PROBE, [line["question"] for line in read_lines(self.out)])

    def test_the_first_questions_failing_alike_stop_the_run(self):
        srv = self.server(modes={q["question"]: "http503" for q in questions()})
        code, _, err = self.run_main(endpoint=srv.url, check=True)
        self.assertEqual(code, 2, err)
        self.assertIn("the first 5 questions all failed the same way (HTTP 503)", err)
        self.assertIn("--retry-failed", err)
        self.assertEqual(len(read_lines(self.out)), 5)  # kept, on record
        self.assertEqual(sum(srv.counts.values()), 1 + 5 * 2)

    def test_make_run_marks_nothing_done_for_a_wrong_endpoint(self):
        project = os.path.join(self.tmp, "project")
        test_docs.copy_project(project)
        env = dict(os.environ)
        for var in ("MAKEFLAGS", "MAKELEVEL", "BENCH_ENDPOINT"):
            env.pop(var, None)
        proc = subprocess.run(["make", "run", "QUARTER=trial", f"PY={sys.executable}",
                               f"ENDPOINT={self.demo_server()}"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=60)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("nothing was asked", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(project, "build", "trial", "run.done")))


class RetryFailed(RunTestCase):
    """--retry-failed asks again, once, exactly the questions whose request
    failed, and keeps every earlier attempt in their lines."""

    def test_asks_again_the_failed_requests_only(self):
        q = questions()
        srv = self.server(modes={q[1]["question"]: "http500", q[2]["question"]: "empty"})
        code, _, err = self.run_main("--limit", "4", endpoint=srv.url)
        self.assertEqual(code, 1)
        self.assertIn("1 of them because the request failed", err)
        self.assertIn("--retry-failed", err)
        with open(self.out, encoding="utf-8") as fh:
            before = fh.read().splitlines()
        srv.httpd.modes.pop(q[1]["question"])
        counts = dict(srv.counts)
        code, _, err = self.run_main("--limit", "4", "--retry-failed", endpoint=srv.url)
        self.assertEqual(code, 1, err)  # the empty answer is not asked again
        self.assertEqual({k: srv.counts[k] - counts.get(k, 0) for k in srv.counts
                          if srv.counts[k] != counts.get(k, 0)}, {q[1]["question"]: 1})
        with open(self.out, encoding="utf-8") as fh:
            after = fh.read().splitlines()
        self.assertEqual([a for n, a in enumerate(after) if n != 1],
                         [b for n, b in enumerate(before) if n != 1])
        line = json.loads(after[1])
        self.assertEqual(line["id"], q[1]["id"])
        self.assertEqual([a["status"] for a in line["attempts"]], [500, 500, 200])
        self.assertEqual([r["status"] for r in line["earlier_responses"]], [500])
        self.assertTrue(line["redone"])
        self.assertFalse(os.path.exists(self.out + ".redo"))

    def test_never_a_third_time(self):
        q = questions()[0]
        srv = self.server(modes={q["question"]: "http500"})
        self.assertEqual(self.run_main("--only", q["id"], endpoint=srv.url)[0], 1)
        self.assertEqual(self.run_main("--only", q["id"], "--retry-failed",
                                       endpoint=srv.url)[0], 1)
        code, _, err = self.run_main("--only", q["id"], "--retry-failed", endpoint=srv.url)
        self.assertEqual(code, 1)
        self.assertIn("already complete", err)
        self.assertEqual(srv.counts[q["question"]], 4)
        (line,) = read_lines(self.out)
        self.assertEqual(len(line["attempts"]), 4)

    def test_a_finished_run_says_so(self):
        srv = self.server()
        self.assertEqual(self.run_main("--limit", "2", endpoint=srv.url)[0], 0)
        code, _, err = self.run_main("--limit", "2", endpoint=srv.url)
        self.assertEqual(code, 0)
        self.assertIn("already complete: 2 answer(s), nothing to ask", err)


class Resuming(RunTestCase):
    def test_questions_already_present_are_not_asked_again(self):
        q = questions()
        srv = self.server(modes={q[1]["question"]: "http500"})
        self.assertEqual(self.run_main("--limit", "3", endpoint=srv.url)[0], 1)
        before = dict(srv.counts)
        code, _, err = self.run_main(endpoint=srv.url)
        self.assertEqual(code, 1)  # mini-en-02 failed and is not asked again
        self.assertIn("mini-en-02", err)
        for item in q[:3]:
            self.assertEqual(srv.counts[item["question"]], before[item["question"]])
        self.assertEqual(sorted(l["id"] for l in read_lines(self.out)), sorted(i["id"] for i in q))

    def test_a_torn_last_line_is_asked_again(self):
        srv = self.server()
        self.run_main("--limit", "3", endpoint=srv.url)
        with open(self.out, "rb") as fh:
            data = fh.read()
        with open(self.out, "wb") as fh:
            fh.write(data[:-40])  # the third line loses its end, as in a crash
        code, _, err = self.run_main("--limit", "3", endpoint=srv.url)
        self.assertEqual(code, 0)
        self.assertIn("cut off", err)
        ids = [l["id"] for l in read_lines(self.out)]
        self.assertEqual(ids, ["mini-en-01", "mini-en-02", "mini-en-03"])
        self.assertEqual(srv.counts[questions()[2]["question"]], 2)
        self.assertEqual(srv.counts[questions()[0]["question"]], 1)

    def test_another_question_file_refuses_to_append(self):
        srv = self.server()
        self.run_main("--limit", "1", endpoint=srv.url)
        other = os.path.join(self.tmp, "questions-other.json")
        shutil.copy(QUESTIONS, other)
        with open(other, "a", encoding="utf-8") as fh:
            fh.write("\n")
        code, out, err = call_main(run, [other, self.out, "--endpoint", srv.url])
        self.assertEqual(code, 2)
        self.assertEqual(len(err.splitlines()), 1)
        self.assertIn("another question file", err)


class Refusals(RunTestCase):
    def test_no_endpoint(self):
        os.environ.pop("BENCH_ENDPOINT", None)
        code, _, err = self.run_main()
        self.assertEqual(code, 2)
        self.assertEqual(err, "run.py: no endpoint: pass --endpoint URL, set BENCH_ENDPOINT, "
                              "or give a target profile with a url\n")

    def test_unknown_only_id(self):
        code, _, err = self.run_main("--only", "nope", endpoint="http://127.0.0.1:9/")
        self.assertEqual(code, 2)
        self.assertIn("no question with id nope", err)

    def test_bad_arguments_are_one_line(self):
        for args in (["--limit", "0"], ["--concurrency", "0"], ["--timeout", "x"]):
            with self.subTest(args=args):
                code, _, err = self.run_main(*args, endpoint="http://127.0.0.1:9/")
                self.assertEqual(code, 2)
                self.assertEqual(len(err.splitlines()), 1, err)

    def test_through_a_real_interpreter(self):
        srv = self.server()
        proc = support.run_script("run.py", QUESTIONS, self.out, "--endpoint", srv.url,
                                  "--limit", "2", "--quiet")
        self.assertEqual((proc.returncode, proc.stdout, proc.stderr), (0, "", ""))


if __name__ == "__main__":
    unittest.main()
