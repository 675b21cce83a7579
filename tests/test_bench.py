"""The speed benchmark's instrument: the stand-in server (a real HTTP/1.1
server in its own process that answers every request after the fixed delay,
one connection at a time or many at once, kept alive or not, and stops when
the bench lets go of it), the rate-limited provider (the stand-in with the
token bucket of tools/bench/ratelimit.py, which the tests' ModelServer keeps
too, stating it in OpenAI's rate-limit headers, and the bench's seeded
latencies) and the table the bench writes into README.md.

No test here times anything: speed is what ``make bench`` measures. The
delays are checked as the calls the servers make (their sleep replaced, or
a clock the test moves); a wait here is only a bound on a broken run (HANG)."""

import json
import os
import random
import select
import socket
import sys
import tempfile
import threading
import types
import unittest
import urllib.error
import urllib.request
from unittest import mock

from tests.support import HANG, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import bench  # noqa: E402
from ratelimit import TokenBucket  # noqa: E402

BODY = b'{"answer": "fixed"}'
# No proxy from the environment: nothing but 127.0.0.1 is contacted.
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post(port):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/query", data=b'{"question": "q"}',
                                     headers={"Content-Type": "application/json"})
    with NO_PROXY.open(request, timeout=HANG) as resp:
        return resp.status, resp.read()


class StandIn(unittest.TestCase):
    """The stand-in in its own process, as the bench starts it."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.server = bench.StandIn(tmp.name, BODY)
        self.addCleanup(self.server.close)

    def test_keeps_a_connection_alive_until_asked_to_close(self):
        request = (b"POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                   b"%s\r\n{}")
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=HANG) as conn, \
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


class StandInConnections(unittest.TestCase):
    """The stand-in's accept loop (bench.answer_connections) in this process,
    with its ``time.sleep`` replaced by ``sleep``, which sees each delay."""

    def serve(self, sleep):
        listener = socket.create_server(("127.0.0.1", 0))
        patch = mock.patch.object(bench, "time", types.SimpleNamespace(sleep=sleep))
        patch.start()
        self.addCleanup(patch.stop)

        def accept():
            try:
                bench.answer_connections(listener, bench.after(BODY, 0.05))
            except OSError:
                pass  # the listener was shut: the test is over
        threading.Thread(target=accept, daemon=True).start()

        def stop():
            listener.shutdown(socket.SHUT_RDWR)  # ends the accept() in progress
            listener.close()
        self.addCleanup(stop)
        return listener.getsockname()[1]

    def test_answers_each_request_after_its_delay(self):
        # Each request is read whole, then the delay, then the answer: when
        # the stand-in sleeps, nothing of the answer has reached the client.
        client = None
        slept = []

        def sleep(seconds):
            answered = select.select([client], [], [], 0)[0]  # anything to read, now
            slept.append((seconds, bool(answered)))
        port = self.serve(sleep)
        request = (b"POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as client, \
                client.makefile("rb") as replies:
            for n in range(2):  # two requests on one kept-alive connection
                client.sendall(request)
                self.assertEqual(replies.readline(), b"HTTP/1.1 200 OK\r\n")
                while replies.readline() != b"\r\n":
                    pass
                self.assertEqual(replies.read(len(BODY)), BODY)
                self.assertEqual(slept, [(0.05, False)] * (n + 1))

    def test_answers_requests_in_flight_together(self):
        # Eight at once are answered together, not one after another: each
        # delay ends only once all eight requests are waiting out theirs (a
        # stand-in that answered one at a time would break the barrier).
        together = threading.Barrier(8, timeout=HANG)
        port = self.serve(lambda seconds: together.wait())
        answers, lock = [], threading.Lock()

        def ask():
            try:
                answer = post(port)
            except OSError as exc:  # urllib's errors, a closed connection among them
                answer = repr(exc)
            with lock:
                answers.append(answer)
        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(answers, [(200, BODY)] * 8)
        self.assertFalse(together.broken)


class RateLimitedProvider(unittest.TestCase):
    """The provider of the rate-limit measure (bench.rate_limited): OpenAI's
    wire format, a token bucket of bench.RATE a minute holding
    bench.RATE_BURST, a 429 with retry-after past it, a seeded latency
    within 0.2 to 2 s."""

    def test_the_bucket_lets_a_burst_through_then_one_a_token(self):
        # On a clock the test moves: 960 a minute is a token each 1/16 s (a
        # time a float holds exactly).
        clock = types.SimpleNamespace(now=100.0)
        bucket = TokenBucket(960, 5, clock=lambda: clock.now)
        self.assertEqual([bucket.take() for _ in range(7)], [None] * 5 + [1, 1])
        clock.now += 0.0625
        self.assertEqual([bucket.take(), bucket.take()], [None, 1])
        clock.now += 3600  # an idle hour saves up no more than the burst
        self.assertEqual([bucket.take() for _ in range(6)], [None] * 5 + [1])

    def test_retry_after_is_whole_seconds_until_the_next_token(self):
        # 6 a minute: a token each 10 s; 4.5 s after the burst, 5.5 s are
        # left, said as 6: whole seconds, rounded up.
        clock = types.SimpleNamespace(now=0.0)
        bucket = TokenBucket(6, 2, clock=lambda: clock.now)
        self.assertEqual([bucket.take(), bucket.take(), bucket.take()], [None, None, 10])
        clock.now = 4.5
        self.assertEqual(bucket.take(), 6)
        clock.now = 9.5
        self.assertEqual(bucket.take(), 1)   # half a second: rounded up to one
        clock.now = 10.0
        self.assertEqual([bucket.take(), bucket.take()], [None, 10])

    def test_latencies_are_seeded_and_within_their_bounds(self):
        draws = [bench.reply_latency(random.Random(bench.SEED)) for _ in range(2)]
        self.assertEqual(draws[0], draws[1])
        rng = random.Random(bench.SEED)
        many = [bench.reply_latency(rng) for _ in range(2000)]
        self.assertEqual((min(many), max(many)), (0.2, 2.0))  # both bounds are met
        self.assertGreater(len(set(many)), 1000)

    def test_the_bucket_is_stated_in_openais_headers(self):
        clock = types.SimpleNamespace(now=0.0)
        bucket = TokenBucket(60, 3, clock=lambda: clock.now)
        bucket.take()
        self.assertEqual(bucket.stated(), {"x-ratelimit-limit-requests": "3",
                                           "x-ratelimit-remaining-requests": "2"})
        bucket.take(), bucket.take(), bucket.take()
        self.assertEqual(bucket.stated()["x-ratelimit-remaining-requests"], "0")

    def test_a_latency_is_drawn_for_each_reply_and_none_for_a_429(self):
        drawn = mock.patch.object(bench, "reply_latency", wraps=bench.reply_latency)
        with drawn as latency:
            answer = bench.rate_limited_answer("A fence.", 1, bench.RATE_BURST, stated=False)
            answers = [answer(b'{"model": "m"}') for _ in range(bench.RATE_BURST + 2)]
        self.assertEqual(latency.call_count, bench.RATE_BURST)
        self.assertEqual([a[0] for a in answers],
                         [b"200 OK"] * bench.RATE_BURST + [b"429 Too Many Requests"] * 2)
        self.assertTrue(all(0.2 <= a[3] <= 2.0 for a in answers[:bench.RATE_BURST]))
        self.assertEqual([a[3] for a in answers[bench.RATE_BURST:]], [0.0, 0.0])
        self.assertEqual([a[1] for a in answers[:bench.RATE_BURST]], [{}] * bench.RATE_BURST)

    def test_a_burst_then_429_with_retry_after(self):
        # One token a minute: no token comes back while the test runs, so the
        # count does not depend on how fast the requests arrive. The burst
        # goes at once; every later request is refused.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        with bench.rate_limited(tmp.name, "A fence needs a permit.", rpm=1) as server:

            def ask():
                request = urllib.request.Request(
                    f"{server.base}/v1/chat/completions",
                    data=b'{"model": "m", "messages": []}', headers={"Content-Type": "application/json"})
                try:
                    with NO_PROXY.open(request, timeout=HANG) as resp:
                        return resp.status, json.loads(resp.read()), resp.headers
                except urllib.error.HTTPError as exc:
                    with exc:
                        return exc.code, json.loads(exc.read()), exc.headers
            burst, lock = [], threading.Lock()

            def ask_in_burst():
                answer = ask()
                with lock:
                    burst.append(answer)
            threads = [threading.Thread(target=ask_in_burst) for _ in range(bench.RATE_BURST)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            after = [ask() for _ in range(3)]
        self.assertEqual([a[0] for a in burst], [200] * bench.RATE_BURST)
        self.assertEqual(burst[0][1]["choices"][0]["message"]["content"], "A fence needs a permit.")
        # It names the model asked for, as the APIs do: the bench's generator and
        # evaluator are two models, and atomize.py holds the names to the family rule.
        self.assertEqual({a[1]["model"] for a in burst}, {"m"})
        self.assertEqual([(a[0], a[1]["error"]["code"]) for a in after],
                         [(429, "rate_limit_exceeded")] * 3)
        # Its exact value is the bucket's (above); here, a whole number of
        # seconds up to the minute one token takes.
        self.assertTrue(all(a[2]["retry-after"] in {str(s) for s in range(1, 61)} for a in after))
        # Each reply states the bucket: the burst, and what is left of it.
        self.assertEqual(sorted(a[2]["x-ratelimit-remaining-requests"] for a in burst),
                         [str(n) for n in range(bench.RATE_BURST)])
        self.assertEqual({a[2]["x-ratelimit-limit-requests"] for a in burst + after},
                         {str(bench.RATE_BURST)})


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
