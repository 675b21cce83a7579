"""A provider's rate limit, as the model APIs keep one: a token bucket of
``rpm`` requests a minute holding at most ``burst``, full at the start.

The bench's rate-limited provider (bench.py, ``--stand-in ... --rate``) and
the tests' loopback model servers (tests/model_servers.py) both answer a
request past it with 429 and ``retry-after``; the provider also states its
bucket on every reply, in OpenAI's rate-limit headers (``stated``)."""

import math
import time


class TokenBucket:
    """A rate limit as the APIs keep one: ``rpm`` tokens a minute, holding
    at most ``burst``, full at the start. Time is read from ``clock``
    (seconds; a test passes a clock it moves itself), by default
    ``time.monotonic`` as it is at each reading (a test may replace the
    ``time`` of the module that uses the bucket: test_rate_limits.server_clock)."""

    def __init__(self, rpm, burst, clock=None):
        self.rpm, self.burst = rpm, burst
        self.clock = clock or (lambda: time.monotonic())
        self.level, self.at = float(burst), self.clock()

    def take(self):
        """None when a token was taken; else the request's ``retry-after``:
        whole seconds until the next token, at least 1, as the APIs round it."""
        now = self.clock()
        self.level = min(self.burst, self.level + (now - self.at) * self.rpm / 60.0)
        self.at = now
        if self.level >= 1:
            self.level -= 1
            return None
        return max(1, math.ceil((1 - self.level) * 60.0 / self.rpm))

    def stated(self):
        """The bucket in OpenAI's rate-limit headers: the requests it holds
        and those left in it (whole ones), as it is after the last ``take``."""
        return {"x-ratelimit-limit-requests": str(self.burst),
                "x-ratelimit-remaining-requests": str(int(self.level))}
