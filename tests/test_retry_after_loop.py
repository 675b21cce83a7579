"""A provider that answers nothing but HTTP 429, with a Retry-After that
gives no usable wait (``nan``, a date in the past) or an absurd one, found
by an outside tester: ``run.py ... --provider openai --limit 1`` ran for
over 500 s without a word. Each 429 doubled the run's pace from a spacing
that was the call's own retry wait (1, 1.8, 3.7 ... 59.5 s and on), and the
time the pace held the call was left out of the 300 s one call may take.

Now a call retrying alone lengthens the pace from the pace, never past
budget.MAX_PACE, and that wait counts against the call: the call gives up
within its 300 s, with the reason in its raw line and on stderr, and says
on stderr that it is waiting meanwhile.

The run, the limiter, the retry waits and the provider layer's clock are on
one clock that only the waits move (test_rate_limits.Clock), so the five
minutes take no time and the bound is not this machine's speed; the
server is a real one on 127.0.0.1.
"""

import contextlib
import os
import re
import types
import unittest
from email.utils import formatdate
from unittest import mock

from tests import support
from tests.model_servers import ModelServer, error
from tests.support import FIXTURES, call_main, read_lines
from tests.test_rate_limits import Clock

import run  # noqa: E402
from evalkit.asking import budget, http, providers  # noqa: E402

CASES = os.path.join(FIXTURES, "scenarios-mini.json")
KEY = "sk-test-SECRET123"
# More than any bounded call sends: a call that is not bounded meets the
# 200 OK after them, and its test fails.
THROTTLED_REPLIES = 300


class AlwaysThrottled(support.TempDirCase):
    def setUp(self):
        super().setUp()
        for name in ("OPENAI_RPM", "OPENAI_TPM"):
            os.environ.pop(name, None)

    def on_one_clock(self, stack):
        """The run's limiter, its retry waits and the provider layer's
        clock on one Clock, until ``stack`` closes."""
        clock = Clock()
        limiter = budget.Limiter
        stack.enter_context(mock.patch.object(budget, "Limiter", lambda *args: limiter(
            *args, clock=clock, sleep=clock.sleep)))
        stack.enter_context(mock.patch.object(http, "pause", clock.sleep))
        stack.enter_context(mock.patch.object(providers.base, "time",
                                              types.SimpleNamespace(monotonic=clock)))
        return clock

    def run_against(self, headers):
        """``(clock seconds the run took, exit code, stderr, the line, requests)``."""
        with contextlib.ExitStack() as stack, ModelServer("openai") as srv:
            clock = self.on_one_clock(stack)
            srv.queue(*[error("openai", 429, "rate_limit_exceeded", "Rate limit reached",
                              headers=headers)] * THROTTLED_REPLIES)
            os.environ.update(srv.environ(), OPENAI_API_KEY=KEY)
            out = os.path.join(self.tmp, f"raw-{len(os.listdir(self.tmp))}.jsonl")
            started = clock.now
            code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", "m",
                                           "--timeout", "5", "--limit", "1"])
            requests = len(srv.requests)
        (line,) = read_lines(out)
        return clock.now - started, code, err, line, requests

    def test_a_call_that_meets_only_429s_gives_up_within_its_time(self):
        past = formatdate(1445412480.0, usegmt=True)  # 2015
        for retry_after in ("nan", past, "-5", "0.000001"):
            with self.subTest(retry_after=retry_after):
                took, code, err, line, requests = self.run_against({"Retry-After": retry_after})
                self.assertEqual(code, 1, err)
                self.assertLessEqual(took, 300.0)
                self.assertEqual(len(line["attempts"]), requests)
                self.assertEqual({a["status"] for a in line["attempts"]}, {429})
                problem = line["derived"]["problem"]
                self.assertRegex(problem, r"; gave up after \d+ attempts \(\d+ answered 429\): "
                                          r"waiting [0-9.]+ s more would pass the 300 s one call "
                                          r"may take\)$")
                # Said while it waits, and the reason once it gave up.
                waiting = re.findall(r"^openai: HTTP 429 on attempt (\d+), (\d+) s spent of the "
                                     r"300 s one call may take; trying again in ([0-9.]+) s "
                                     r"\(POST http://127\.0\.0\.1:\d+/v1/chat/completions\)$",
                                     err, re.MULTILINE)
                self.assertTrue(waiting, err)
                self.assertIn(f"\n{problem}\n", err)
                self.assertNotIn(KEY, err)


class Pace(unittest.TestCase):
    """The pace a call retrying alone meets (budget.py's docstring)."""

    def test_a_call_retrying_alone_lengthens_the_pace_from_the_pace(self):
        clock = Clock()
        limiter = budget.Limiter(1, clock=clock, sleep=clock.sleep)
        call = object()
        for _ in range(6):
            limiter.release(limiter.acquire(call=call), throttled=True)
            clock.sleep(10.0)  # its retry's wait: not a spacing the pace doubles
        # The first 429 cut the calls in flight to one; each next one
        # doubled the pace from 0.01 s: 0.02, 0.04 ... 0.32 s.
        self.assertEqual(limiter.pace, 0.32)
        self.assertEqual(clock.slept, [10.0] * 6)

    def test_the_pace_never_passes_a_minute(self):
        clock = Clock()
        limiter = budget.Limiter(2, clock=clock, sleep=clock.sleep)
        for number in range(40):  # two calls in turn, answered 429 every time
            limiter.release(limiter.acquire(call=number % 2), throttled=True)
        self.assertEqual(limiter.pace, budget.MAX_PACE)
        self.assertLessEqual(max(clock.slept), 60.0)


if __name__ == "__main__":
    unittest.main()
