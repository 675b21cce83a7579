"""The speed benchmark's instrument: the stand-in server (a real HTTP/1.1
server in its own process that answers every request after the fixed delay,
one connection at a time or many at once, kept alive or not, and stops when
the bench lets go of it) and the table the bench writes into README.md."""

import json
import os
import random
import socket
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from tests.support import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import bench  # noqa: E402

BODY = b'{"answer": "fixed"}'


def post(port):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/query", data=b'{"question": "q"}',
                                     headers={"Content-Type": "application/json"})
    # No proxy from the environment: nothing but 127.0.0.1 is contacted.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=5) as resp:
        return resp.status, resp.read()


class StandIn(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.server = bench.StandIn(tmp.name, BODY)
        self.addCleanup(self.server.close)

    def test_answers_each_request_after_the_delay(self):
        for _ in range(2):
            start = time.monotonic()
            self.assertEqual(post(self.server.port), (200, BODY))
            self.assertGreaterEqual(time.monotonic() - start, 0.05)

    def test_answers_requests_in_flight_together(self):
        # Eight at once must take about one delay, not eight: the ideal the
        # bench divides by at concurrency 8.
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(post(self.server.port)))
                   for _ in range(8)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(answers, [(200, BODY)] * 8)
        self.assertLess(time.monotonic() - start, 8 * 0.05)

    def test_keeps_a_connection_alive_until_asked_to_close(self):
        request = (b"POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                   b"%s\r\n{}")
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=5) as conn, \
                conn.makefile("rb") as replies:
            for last in (False, True):
                conn.sendall(request % (b"Connection: close\r\n" if last else b""))
                head = []
                while head[-1:] != [b"\r\n"]:
                    head.append(replies.readline())
                self.assertEqual(head[0], b"HTTP/1.1 200 OK\r\n")
                self.assertEqual(replies.read(len(BODY)), BODY)
            self.assertIn(b"Connection: close\r\n", head)
            self.assertEqual(replies.read(), b"")  # closed after the last answer

    def test_stops_when_let_go(self):
        self.server.close()
        self.assertEqual(self.server.proc.returncode, 0)


class RateLimitedProvider(unittest.TestCase):
    """The provider of the rate-limit measure: OpenAI's wire format, a token
    bucket of bench.RATE a minute holding bench.RATE_BURST, a 429 with
    retry-after past it, a seeded latency within 0.2 to 2 s."""

    def test_a_burst_then_429_with_retry_after(self):
        with tempfile.TemporaryDirectory() as tmp:
            server = bench.RateLimited(tmp, "A fence needs a permit.")
            self.addCleanup(server.close)
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            answers, lock = [], threading.Lock()

            def ask():
                request = urllib.request.Request(
                    f"http://127.0.0.1:{server.port}/v1/chat/completions",
                    data=b'{"model": "m", "messages": []}', headers={"Content-Type": "application/json"})
                start = time.monotonic()
                try:
                    with opener.open(request, timeout=5) as resp:
                        status, body, retry = resp.status, json.loads(resp.read()), None
                except urllib.error.HTTPError as exc:
                    status, body, retry = exc.code, json.loads(exc.read()), exc.headers["retry-after"]
                with lock:
                    answers.append((status, body, retry, time.monotonic() - start))
            threads = [threading.Thread(target=ask) for _ in range(bench.RATE_BURST + 3)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        ok = [a for a in answers if a[0] == 200]
        limited = [a for a in answers if a[0] == 429]
        self.assertEqual((len(ok), len(limited)), (bench.RATE_BURST, 3))
        self.assertTrue(all(a[3] >= 0.2 for a in ok))  # after the latency
        self.assertEqual(ok[0][1]["choices"][0]["message"]["content"], "A fence needs a permit.")
        # It names the model asked for, as the APIs do: the bench's generator and
        # evaluator are two models, and atomize.py holds the names to the family rule.
        self.assertEqual(ok[0][1]["model"], "m")
        self.assertEqual(ok[0][1]["usage"]["prompt_tokens"], 200)
        self.assertEqual({(a[1]["error"]["code"], a[2]) for a in limited},
                         {("rate_limit_exceeded", "1")})


def result(rows):
    for row in rows:
        row["pass"] = bench.passes(row)
    return {"date_utc": "2026-12-01", "seconds": 1.5, "rows": rows,
            "machine": {"cores": 2, "implementation": "CPython", "python": "3.10.13",
                        "system": "Linux", "machine": "x86_64"}}


class Table(unittest.TestCase):
    ROWS = [bench.row("ratio", 4.0, "at the target", 4, "≤"),
            bench.row("memory (MB)", 300.0, "at the target", 300, "<"),
            bench.row("asking", 1.08, "information")]

    def test_under_is_strict_at_most_is_not_information_has_no_verdict(self):
        self.assertEqual(bench.table(result([dict(r) for r in self.ROWS])["rows"]), "\n".join([
            "| Measure | Value | Target | Result |",
            "|---|--:|--:|---|",
            "| ratio (at the target) | 4.0 | ≤ 4 | pass |",
            "| memory (MB) (at the target) | 300.0 | < 300 | FAIL |",
            "| asking (information) | 1.08 | – | – |"]))

    def test_readme_gets_the_table_between_its_markers_and_nothing_else_changes(self):
        done = result([dict(r) for r in self.ROWS])
        with tempfile.TemporaryDirectory() as tmp:
            readme = os.path.join(tmp, "README.md")
            with open(readme, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(f"# Title\n\n{bench.README_BEGIN}\nold table\n{bench.README_END}\n\nProse.\n")
            bench.write_readme(readme, done)
            with open(readme, encoding="utf-8") as fh:
                written = fh.read()
            self.assertEqual(written, f"# Title\n\n{bench.readme_block(done)}\n\nProse.\n")
            self.assertIn("Measured by `make bench` on 2026-12-01: 2 cores, CPython 3.10.13 on "
                          "Linux x86_64; 1.5 s in all.\n\n| Measure |", written)
            bench.write_readme(readme, done)  # again: the same file
            with open(readme, encoding="utf-8") as fh:
                self.assertEqual(fh.read(), written)
            with open(readme, "w", encoding="utf-8") as fh:
                fh.write("# No markers\n")
            with self.assertRaises(SystemExit):
                bench.write_readme(readme, done)


class ScenarioInputs(unittest.TestCase):
    """The scenario row's synthetic answers (make bench scores SCENARIO_ANSWERS
    of them against SCENARIO_TARGET seconds): here a few, scored in process,
    every answer accounted for."""

    def test_every_answer_is_scored_or_listed(self):
        from evalkit.scenario import scenario_score
        from evalkit.scenario.scenarios import load_scenarios
        self.assertEqual((bench.SCENARIO_ANSWERS, bench.SCENARIO_TARGET), (50000, 60))
        self.assertIn("scenarios", bench.PARTS)
        with tempfile.TemporaryDirectory() as tmp:
            sfile, raws, atoms = bench.make_scenario_inputs(tmp, 200, random.Random(bench.SEED))
            folder = os.path.dirname(sfile)
            result = scenario_score.score(load_scenarios(sfile), raws, [atoms],
                                          os.path.join(folder, "sources.json"),
                                          os.path.join(folder, "jargon.json"))
        self.assertEqual(len(raws), bench.SCENARIO_GENERATORS)
        self.assertEqual(len(result["cells"]) + len(result["not_atomized"]), 200)
        self.assertTrue(result["not_atomized"])   # one answer in a hundred has no atoms line
        self.assertTrue(any(c["error"] for c in result["cells"]))
        use = result["provenance"]["evaluator_lookups"]["anthropic:bench-judge"]
        self.assertEqual(use["answers"], sum(not c["error"] for c in result["cells"]))
        self.assertGreater(use["tools_without_a_lookup"], 0)



if __name__ == "__main__":
    unittest.main()
