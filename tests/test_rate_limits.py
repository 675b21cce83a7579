"""Rate budgets and adaptive concurrency (issue 19): --rpm and --tpm (or
<PROVIDER>_RPM / _TPM) keep a run under a provider's rate with a token bucket
shared by its threads, every wait recorded as the attempt's waited_ms; without
them, a 429 halves the calls in flight and successes grow them back, bounded
by --concurrency, and once one call in flight is still too many, a 429
lengthens a pace between request starts (issue 26); in a run, a 429 is not
counted against a call's attempts, which time bounds instead. The buckets and
the pace are checked on a clock the test moves; the runs, against a loopback
server that enforces a rate limit as the APIs do.

No assertion here depends on how fast this machine is: where a run must
meet 429s, the server's clock stands still (no token comes back) until the
client has answered them; where a run must not, the run and the server share
a clock that only the run's waits move. HANG bounds only a broken run."""

import json
import os
import tempfile
import threading
import time
import types
import unittest
from unittest import mock

from tests import support
from tests.model_servers import ModelServer, error, ratelimit, raw, success
from tests.support import FIXTURES, HANG, call_main, read_lines

import run  # noqa: E402
from evalkit.asking import budget, http, providers  # noqa: E402
from evalkit.asking.providers import Policy, Request  # noqa: E402

CASES = os.path.join(FIXTURES, "scenarios-mini.json")


class Clock:
    """A clock that only ``sleep`` moves."""

    def __init__(self):
        self.now = 100.0
        self.slept = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(round(seconds, 6))
        self.now += seconds


class HeldClock:
    """A loopback server's clock that stands still until ``release()`` is
    true, then runs as time.monotonic. While it stands no token comes back,
    so the client meets 429s however slowly this machine sends. It runs
    anyway after ``most`` readings (one a request): a client that never
    answers the 429s then fails its test rather than waiting for ever."""

    def __init__(self, release, most=200):
        self.release = release
        self.left = most
        self.still = time.monotonic()
        self.running = False

    def __call__(self):
        if not self.running:
            self.left -= 1
            self.running = self.release() or self.left <= 0
        return time.monotonic() if self.running else self.still


def server_clock(test, clock):
    """The loopback model servers read ``clock`` for their rate limits (the
    bucket of tools/bench/ratelimit.py), for the rest of ``test``."""
    patch = mock.patch.object(ratelimit, "time", types.SimpleNamespace(monotonic=clock))
    patch.start()
    test.addCleanup(patch.stop)


class Buckets(unittest.TestCase):
    def test_rpm_spaces_requests_evenly_with_no_burst(self):
        clock = Clock()
        limiter = budget.Limiter(8, rpm=600, clock=clock, sleep=clock.sleep)
        tickets = [limiter.acquire() for _ in range(4)]
        self.assertEqual(clock.slept, [0.1, 0.1, 0.1])  # 600 a minute: one each 0.1 s
        self.assertEqual([round(t.waited_s, 3) for t in tickets], [0.0, 0.1, 0.1, 0.1])

    def test_an_idle_spell_does_not_save_up_a_burst(self):
        clock = Clock()
        limiter = budget.Limiter(8, rpm=600, clock=clock, sleep=clock.sleep)
        limiter.acquire()
        clock.now += 60
        limiter.acquire()
        limiter.acquire()
        self.assertEqual(clock.slept, [0.1])

    def test_tpm_reserves_an_estimate_and_the_reply_corrects_it(self):
        clock = Clock()
        limiter = budget.Limiter(8, tpm=6000, clock=clock, sleep=clock.sleep)  # 100 a second
        first = limiter.acquire(estimate=50)
        self.assertEqual(clock.slept, [])
        limiter.release(first, throttled=False, tokens=250)  # 200 more than reserved
        limiter.acquire(estimate=50)
        # 100 - 250 - 50 = -200 tokens: two seconds of the rate.
        self.assertEqual(clock.slept, [2.0])

    def test_a_call_larger_than_the_bucket_waits_for_what_it_lacks(self):
        clock = Clock()
        limiter = budget.Limiter(8, tpm=60, clock=clock, sleep=clock.sleep)  # 1 a second
        limiter.acquire(estimate=5)
        self.assertEqual(clock.slept, [4.0])


class Burst(unittest.TestCase):
    """--rpm with the provider's burst (issue 41): --burst N, else the
    rate-limit headers of the provider's first reply; a bucket of one when
    neither says (the tests above)."""

    def test_a_burst_given_goes_at_once_then_the_rate(self):
        # 60 a minute holding 10: nine at once, the tenth 0.05 s behind (the
        # bucket runs BURST_LAG of its rate behind the provider's), then one a second.
        clock = Clock()
        limiter = budget.Limiter(32, rpm=60, burst=10, clock=clock, sleep=clock.sleep)
        tickets = [limiter.acquire() for _ in range(12)]
        self.assertEqual(clock.slept, [0.05, 1.0, 1.0])
        self.assertEqual([t.paced for t in tickets], [False] * 12)
        clock.now += 3600  # an idle hour fills it again, to the burst and no more
        limiter.acquire()
        self.assertEqual(limiter.requests.level, 10 - budget.BURST_LAG - 1)

    def test_the_first_reply_states_the_burst(self):
        for limit, left in budget.BURST_HEADERS:
            with self.subTest(limit):
                clock = Clock()
                limiter = budget.Limiter(32, rpm=60, burst=None, clock=clock, sleep=clock.sleep)
                first = limiter.acquire()
                limiter.release(first, throttled=False, headers={limit: "10", left: "9"})
                for _ in range(9):  # the nine its bucket has left go at once
                    limiter.acquire()
                self.assertEqual(clock.slept, [])
                limiter.acquire()
                self.assertEqual(clock.slept, [1.0])
                self.assertEqual(limiter.requests.capacity, 10 - budget.BURST_LAG)

    def test_headers_that_state_nothing_leave_a_bucket_of_one(self):
        for headers in ({}, {"x-ratelimit-limit-requests": "ten"},
                        {"x-ratelimit-limit-requests": "0", "x-ratelimit-remaining-requests": "5"}):
            with self.subTest(headers=headers):
                clock = Clock()
                limiter = budget.Limiter(32, rpm=60, burst=None, clock=clock, sleep=clock.sleep)
                limiter.release(limiter.acquire(), throttled=False, headers=headers)
                limiter.acquire()
                self.assertEqual(clock.slept, [1.0])

    def test_the_first_reply_holds_the_others_back_no_longer_than_the_rate_would(self):
        # 600 a minute: the second request waits for the first reply at most
        # 0.1 s, as a bucket of one would hold it anyway; here no reply comes.
        limiter = budget.Limiter(8, rpm=600, burst=None)
        limiter.acquire()
        second = Call(limiter)
        self.assertTrue(second.sent.wait(HANG))
        self.assertEqual(limiter.probe, 1)  # still awaited: its reply may yet state the burst

    def test_the_others_go_when_the_first_reply_comes(self):
        limiter = budget.Limiter(8, rpm=1, burst=None)  # a bucket of one would hold them a minute
        first = limiter.acquire()
        others = [Call(limiter) for _ in range(3)]
        self.assertFalse(any(call.sent.wait(0.05) for call in others))
        limiter.release(first, throttled=False, headers={"x-ratelimit-limit-requests": "4",
                                                         "x-ratelimit-remaining-requests": "3"})
        self.assertTrue(all(call.sent.wait(HANG) for call in others))


class Call:
    """A call's turn at the limiter on a thread of its own: ``sent`` is set
    once ``limiter.acquire`` has given it its ``ticket``."""

    def __init__(self, limiter):
        self.sent = threading.Event()
        self.ticket = None

        def acquire():
            self.ticket = limiter.acquire()
            self.sent.set()
        self.thread = threading.Thread(target=acquire, daemon=True)
        self.thread.start()


def ask_together(client, calls, threads):
    """``calls`` calls made by ``threads`` threads at once: ``(replies, failures)``."""
    replies, failures, lock = [], [], threading.Lock()
    todo = list(range(calls))

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                todo.pop()
            try:
                reply = client.call(Request(system="s", user="u", model="m", timeout=5))
            except providers.ProviderError as exc:
                with lock:
                    failures.append(str(exc))
                continue
            with lock:
                replies.append(reply)
    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return replies, failures


class Adaptive(unittest.TestCase):
    def test_a_429_halves_once_per_round_and_successes_grow_it_back(self):
        clock = Clock()
        limiter = budget.Limiter(8, clock=clock, sleep=clock.sleep)
        sent_together = [limiter.acquire() for _ in range(8)]
        limiter.release(sent_together[0], throttled=True)
        self.assertEqual(limiter.limit, 4)
        for ticket in sent_together[1:4]:  # sent before the cut: the same overload
            limiter.release(ticket, throttled=True)
        self.assertEqual(limiter.limit, 4)
        for ticket in sent_together[4:7]:
            limiter.release(ticket, throttled=False)
        self.assertEqual(limiter.limit, 7)  # by one a success up to 7/8 of 8
        limiter.release(sent_together[7], throttled=False)
        self.assertEqual(limiter.limit, 7)  # then by one a round: 7 successes
        for _ in range(6):
            limiter.release(limiter.acquire(), throttled=False)
        self.assertEqual(limiter.limit, 8)
        later = limiter.acquire()
        limiter.release(later, throttled=True)
        self.assertEqual(limiter.limit, 4)
        for _ in range(200):
            limiter.release(limiter.acquire(), throttled=False)
        self.assertEqual(limiter.limit, 8)  # never past --concurrency
        for _ in range(10):
            limiter.release(limiter.acquire(), throttled=True)
        self.assertEqual(limiter.limit, 1)  # never under one: the pace takes over
        self.assertEqual((limiter.cuts, limiter.rises), (5, 7))

    def test_calls_in_flight_never_pass_the_limit(self):
        # At --concurrency 2, two calls go at once; a third waits in acquire
        # (seen waiting there, not guessed from a time) until one ends.
        limiter = budget.Limiter(2)
        calls = [Call(limiter) for _ in range(3)]
        self.assertTrue(all(call.sent.wait(HANG) for call in calls[:2]))
        deadline = time.monotonic() + HANG
        while not (calls[2].sent.is_set() or support.in_a_wait(calls[2].thread)):
            if time.monotonic() > deadline:
                self.fail("the third call neither went nor waited")
            time.sleep(0.001)
        self.assertFalse(calls[2].sent.is_set())
        self.assertEqual(limiter.in_flight, 2)
        limiter.release(calls[0].ticket, throttled=False)
        self.assertTrue(calls[2].sent.wait(HANG))
        self.assertEqual(limiter.in_flight, 2)

    def test_against_a_server_that_rate_limits_no_call_fails(self):
        # 60 calls at 16 in flight against 6000 a minute (burst 4), each
        # answered after 20 ms: 16 in flight ask 800 a second, the server
        # allows 100. Without the limiter (issue 19) calls gave up after 5
        # attempts; with it, every call gets its reply. The waits asked
        # (retry-after: 1) are waited half as long here: waited a tenth as
        # long, calls came back before the server's bucket had refilled (10
        # requests' worth a wait), unlike a client that waits as asked, and
        # one run in about fifteen saw a call give up (0 in 30 at a half).
        # The server's clock stands still until the limiter has cut the calls
        # in flight: 16 sent together meet a bucket of 4 however they arrive.
        with ModelServer("openai", rate=(6000, 4), delay=0.02) as srv:
            client = providers.get("openai", srv.environ(), Policy())
            client.sleep = lambda seconds: time.sleep(seconds / 2)
            client.limiter = budget.Limiter(16)
            server_clock(self, HeldClock(lambda: client.limiter.cuts > 0))
            replies, failures = ask_together(client, 60, 16)
            throttled = srv.httpd.throttled
        self.assertEqual(failures, [])
        self.assertEqual(len(replies), 60)
        self.assertGreater(client.limiter.cuts, 0)
        self.assertEqual(client.meter.throttled, throttled)

    def test_at_a_rate_one_call_in_flight_exceeds_no_call_fails(self):
        # Issue 26: 1200 a minute with a burst of 1 (one request each 50 ms),
        # each answered after 20 ms: one call at a time asks 50 a second, the
        # server allows 20. Halving stops at one call in flight, so only a
        # pace between request starts keeps under the rate; and the 429s met
        # while it is learned are not counted against the 5 attempts. Before
        # (halving alone, every 429 an attempt), 24 or 25 of the 40 calls gave
        # up after 5 attempts (five runs; 24 to 29 with the waits made in
        # full). The waits asked are waited half as long, as above: the pace,
        # not the retry's wait, spaces the requests.
        # The server's clock stands still until the pace has risen once: the
        # limiter meets 429s down to one call in flight and then at one,
        # however slowly this machine sends.
        with ModelServer("openai", rate=(1200, 1), delay=0.02) as srv:
            client = providers.get("openai", srv.environ(), Policy())
            client.sleep = lambda seconds: time.sleep(seconds / 2)
            client.limiter = budget.Limiter(16)
            server_clock(self, HeldClock(lambda: client.limiter.rises > 0))
            replies, failures = ask_together(client, 40, 16)
            throttled = srv.httpd.throttled
        self.assertEqual(failures, [])
        self.assertEqual(len(replies), 40)
        self.assertTrue(client.limiter.pacing)
        self.assertGreater(client.limiter.rises, 0)
        self.assertEqual(client.meter.throttled, throttled)


class Pace(unittest.TestCase):
    """The pace, on a clock the test moves (budget.py's docstring has the rule)."""

    def test_once_one_call_in_flight_meets_a_429_the_pace_answers_the_next(self):
        clock = Clock()  # at 100.0
        limiter = budget.Limiter(2, clock=clock, sleep=clock.sleep)
        first, second = limiter.acquire(), limiter.acquire()
        limiter.release(first, throttled=True)   # halved to one call in flight
        limiter.release(second, throttled=True)  # sent with it: the same overload
        self.assertEqual((limiter.limit, limiter.pacing, limiter.pace), (1, True, 0.0))
        clock.now += 0.25
        # Starts at 100, 100, 100.25: 0.125 s apart on average, no reply yet:
        # the pace is twice that.
        limiter.release(limiter.acquire(), throttled=True)
        self.assertEqual((limiter.limit, limiter.pace), (1, 0.25))
        # Held back to 100.5, a 429 again with no reply: twice the pace, and
        # a reply will shorten it quickly only down to 9/8 of 0.25.
        limiter.release(limiter.acquire(), throttled=True)
        self.assertEqual((limiter.pace, limiter.floor), (0.5, 0.28125))
        limiter.release(limiter.acquire(), throttled=False)  # at 101.0: by 1/8
        self.assertEqual(limiter.pace, 0.4375)
        # A 429 after a reply: 9/8 of the pace it met, which is also where
        # the quick shortening stops; from there, by 1/128 a reply.
        limiter.release(limiter.acquire(), throttled=True)  # at 101.4375
        self.assertEqual((limiter.pace, limiter.floor), (0.4921875, 0.4921875))
        limiter.release(limiter.acquire(), throttled=False)  # at 101.9296875
        self.assertEqual(limiter.pace, 0.4921875 * 127 / 128)
        self.assertEqual(clock.slept, [0.25, 0.5, 0.4375, round(0.4921875, 6)])
        self.assertEqual(limiter.limit, 1)  # replies the pace held back do not grow it

    def test_a_reply_the_pace_did_not_hold_back_grows_the_calls_in_flight(self):
        clock = Clock()
        limiter = budget.Limiter(4, clock=clock, sleep=clock.sleep)
        for _ in range(3):  # halved to 2, then 1; then a pace
            limiter.release(limiter.acquire(), throttled=True)
        self.assertEqual((limiter.limit, limiter.cuts, limiter.rises), (1, 2, 1))
        clock.now += 10  # a slow reply: the next attempt need not wait for the pace
        ticket = limiter.acquire()
        self.assertFalse(ticket.paced)
        limiter.release(ticket, throttled=False)
        self.assertEqual(limiter.limit, 2)  # 7/8 of the 2 that met the last cut
        pace = limiter.pace
        limiter.release(limiter.acquire(), throttled=True)
        self.assertEqual(limiter.limit, 2)  # no cut once pacing: the pace answers
        self.assertGreater(limiter.pace, pace)


class Attempts(unittest.TestCase):
    """In a run (a client with a limiter), 429s are not attempts: time bounds them."""

    def throttled(self, milliseconds):
        return error("openai", 429, "rate_limit_exceeded", "Rate limit reached for requests",
                     headers={"retry-after-ms": str(milliseconds)}, code="rate_limit_exceeded")

    def test_a_429_is_not_one_of_the_attempts_of_a_call_in_a_run(self):
        with ModelServer("openai") as srv:
            srv.queue(*[self.throttled(1)] * 6)
            client = providers.get("openai", srv.environ(), Policy(max_attempts=3))
            clock = Clock()
            client.limiter = budget.Limiter(4, clock=clock, sleep=clock.sleep)
            client.sleep = lambda seconds: None
            reply = client.call(Request(system="s", user="u", model="m", timeout=5))
        self.assertEqual([a["status"] for a in reply.attempts], [429] * 6 + [200])

    def test_without_a_limiter_a_429_is_an_attempt_as_before(self):
        with ModelServer("openai") as srv:
            srv.queue(*[self.throttled(1)] * 6)
            client = providers.get("openai", srv.environ(), Policy(max_attempts=3))
            client.sleep = lambda seconds: None
            with self.assertRaises(providers.ProviderError) as ctx:
                client.call(Request(system="s", user="u", model="m", timeout=5))
        self.assertTrue(str(ctx.exception).endswith("gave up after 3 attempts)"), str(ctx.exception))

    def test_other_failures_are_counted_and_the_429s_are_said(self):
        with ModelServer("openai") as srv:
            srv.queue(self.throttled(1), error("openai", 500, "server_error", "boom"),
                      self.throttled(1), error("openai", 500, "server_error", "boom"))
            client = providers.get("openai", srv.environ(), Policy(max_attempts=2))
            clock = Clock()
            client.limiter = budget.Limiter(4, clock=clock, sleep=clock.sleep)
            client.sleep = lambda seconds: None
            with self.assertRaises(providers.ProviderError) as ctx:
                client.call(Request(system="s", user="u", model="m", timeout=5))
        self.assertEqual(str(ctx.exception), f"openai: HTTP 500: server_error: boom (POST {srv.base}"
                         "/v1/chat/completions; gave up after 2 attempts besides 2 answered 429)")

    def test_a_call_that_meets_only_429s_is_bounded_by_time_with_the_reason(self):
        # Waits of 0.2 s asked, 0.5 s a call: after the third attempt, 0.4 s
        # spent and 0.2 s more would pass it. The limiter's waits behind
        # other calls are not counted (the run's queue); its pace after the
        # call's own attempt is (budget.Ticket.own_s).
        # On a clock that only the waits move: the time the requests take on
        # this machine is not what is counted here.
        clock = Clock()
        patch = mock.patch.object(providers.base, "time", types.SimpleNamespace(monotonic=clock))
        patch.start()
        self.addCleanup(patch.stop)
        with ModelServer("openai") as srv:
            srv.queue(*[self.throttled(200)] * 5)
            client = providers.get("openai", srv.environ(), Policy(max_total_s=0.5))
            client.limiter = budget.Limiter(1, clock=clock, sleep=clock.sleep)
            client.sleep = clock.sleep
            with self.assertRaises(providers.ProviderError) as ctx:
                client.call(Request(system="s", user="u", model="m", timeout=5))
            self.assertEqual(len(srv.requests), 3)
        self.assertTrue(str(ctx.exception).endswith(
            "gave up after 3 attempts (3 answered 429): waiting 0.2 s more would pass the 0.5 s "
            "one call may take)"), str(ctx.exception))
        self.assertFalse(ctx.exception.fatal)


class Scripts(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        for name in ("OPENAI", "ANTHROPIC", "BEDROCK"):
            os.environ.pop(f"{name}_RPM", None)
            os.environ.pop(f"{name}_TPM", None)

    def generate(self, flavour, *extra, **server):
        srv = ModelServer(flavour, reply=lambda r: "Yes, with a permit.", **server)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        out = os.path.join(self.tmp, "raw.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", flavour, "--model", "gen-1",
                                       "--quiet", "--concurrency", "1"] + list(extra))
        return srv, code, err, read_lines(out) if os.path.exists(out) else []

    def on_one_clock(self):
        """The run's limiter, the waits of its retries and the loopback
        server's rate limit on one Clock, which only those waits move: each
        request reaches the server at the time the run let it go, however
        slow this machine is. Concurrency 1, so that the order is the run's."""
        clock = Clock()
        limiter = budget.Limiter
        for patch in (mock.patch.object(budget, "Limiter", lambda *args: limiter(
                          *args, clock=clock, sleep=clock.sleep)),
                      mock.patch.object(http, "pause", clock.sleep)):
            patch.start()
            self.addCleanup(patch.stop)
        server_clock(self, clock)
        return clock

    def waits(self, lines):
        return [line["attempts"][0]["waited_ms"] for line in lines]

    def test_rpm_keeps_under_the_servers_limit_and_records_the_wait(self):
        # 300 a minute, burst 1: two calls one after the other, the second
        # 429s. At --rpm 250 the second waits 0.24 s and gets its reply.
        self.on_one_clock()
        srv, code, err, lines = self.generate("anthropic", "--rpm", "250", rate=(300, 1))
        self.assertEqual(code, 0, err)
        self.assertEqual(srv.httpd.throttled, 0)
        self.assertEqual(self.waits(lines), [0, 240])

    def test_without_a_rate_the_second_call_meets_the_429(self):
        # What the --rpm above prevents, on the same clock.
        clock = self.on_one_clock()
        srv, code, err, lines = self.generate("anthropic", rate=(300, 1))
        self.assertEqual(code, 0, err)
        self.assertEqual(srv.httpd.throttled, 1)
        self.assertEqual([a["status"] for a in lines[1]["attempts"]], [429, 200])
        self.assertEqual(clock.slept, [1.0])  # the retry-after asked, no limiter wait

    def test_the_rate_from_the_environment_per_provider(self):
        self.on_one_clock()
        os.environ["BEDROCK_RPM"] = "250"
        os.environ["OPENAI_RPM"] = "1"  # another provider's: not read
        srv, code, err, lines = self.generate("bedrock", rate=(300, 1))
        self.assertEqual(code, 0, err)
        self.assertEqual(srv.httpd.throttled, 0)
        self.assertEqual(self.waits(lines), [0, 240])

    def test_burst_goes_at_once_and_is_refused_without_a_rate(self):
        # Two calls one after the other at 60 a minute: with --burst 2 both
        # go at once (the second 0.05 s behind), where a bucket of one holds
        # the second a second; the server allows them, a burst of 2.
        self.on_one_clock()
        srv, code, err, lines = self.generate("openai", "--rpm", "60", "--burst", "2",
                                              rate=(60, 2))
        self.assertEqual(code, 0, err)
        self.assertEqual(self.waits(lines), [0, 50])
        self.assertEqual(srv.httpd.throttled, 0)
        srv, code, err, lines = self.generate("openai", "--burst", "2")
        self.assertEqual((code, err), (2, "run.py: --burst 2 needs a rate of requests: --rpm or "
                                          "OPENAI_RPM\n"))
        self.assertEqual(srv.requests, [])

    def test_the_burst_the_provider_states_is_used(self):
        # The first reply says the bucket holds 2 and has 1 left: the
        # second call goes at once (read from the response's headers, on
        # the thread that made the request: http.received_headers).
        self.on_one_clock()
        with ModelServer("openai", rate=(60, 2)) as srv:
            body = json.dumps(success("openai", {"model": "gen-1"}, "Yes, with a permit.")).encode()
            srv.queue(raw(200, body, {"Content-Type": "application/json",
                                      "x-ratelimit-limit-requests": "2",
                                      "x-ratelimit-remaining-requests": "1"}))
            os.environ.update(srv.environ())
            out = os.path.join(self.tmp, "raw.jsonl")
            code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", "gen-1",
                                           "--quiet", "--concurrency", "1", "--rpm", "60"])
        self.assertEqual(code, 0, err)
        self.assertEqual(self.waits(read_lines(out)), [0, 0])

    def test_a_flag_overrides_the_environment(self):
        self.on_one_clock()
        os.environ["OPENAI_RPM"] = "1"  # one a minute would wait 60 s
        srv, code, err, lines = self.generate("openai", "--rpm", "6000")
        self.assertEqual(code, 0, err)
        self.assertEqual(self.waits(lines), [0, 10])  # 6000 a minute: 0.01 s apart

    def test_a_rate_that_is_not_a_positive_number_is_refused(self):
        os.environ["OPENAI_TPM"] = "lots"
        srv, code, err, lines = self.generate("openai")
        self.assertEqual((code, err), (2, "run.py: OPENAI_TPM: must be a number from 1 to "
                                          "1000000000000, not 'lots' (tokens per minute)\n"))
        self.assertEqual(srv.requests, [])
        del os.environ["OPENAI_TPM"]
        for rpm in ("0", "1e-300", "nan", "inf"):  # 1e-300 once overflowed the clock
            srv, code, err, lines = self.generate("openai", "--rpm", rpm)
            self.assertEqual((code, err), (2, "run.py: argument --rpm: must be a number from 0.01 "
                                              f"to 1000000000, not {rpm!r} (see --help)\n"))
            self.assertEqual(srv.requests, [])

    def test_a_website_assistant_is_not_given_a_rate(self):
        code, _, err = call_main(run, [os.path.join(FIXTURES, "questions-mini.json"),
                                       os.path.join(self.tmp, "raw.jsonl"), "--rpm", "60",
                                       "--endpoint", "http://127.0.0.1:9/api/query"])
        self.assertEqual(code, 2)
        self.assertIn("--rpm is for model cases", err)


if __name__ == "__main__":
    unittest.main()
