"""When to try a model call again, and how long to wait.

Retried: no response at all (refused, reset, timeout), HTTP 408, 409, 429 and
every 5xx (Anthropic's 529 overloaded among them), and the provider errors a
client marks retryable (Bedrock's throttling and unavailable errors). Not
retried: 400, 401, 403, 404, 422 and the like, OpenAI's ``insufficient_quota``
(a 429 that waiting does not cure), Bedrock's ``ModelTimeoutException`` (see
bedrock.py), and what a client marks fatal (errors.py). ``x-should-retry:
true|false`` overrides the status for OpenAI and Anthropic, as both SDKs let
it; a fatal error stays fatal. A delivered answer is never asked again.

The wait honours ``retry-after-ms`` and then ``retry-after`` (seconds or an
HTTP date; a date in the obsolete ``-0000`` zone, or in none, is UTC, as
HTTP dates are, not local time).
A value that is not a finite number of at least zero seconds (``nan``,
``inf``, ``-3``, a date in the past) is treated as absent, and so is zero, as
the SDKs do (they honour only ``0 < retry-after <= 60``). Without a usable
value: exponential backoff with jitter, ``uniform(min_delay,
max(min_delay, min(max_delay, base_delay * 2**(n-1))))``, drawn from a
``random.Random(seed)`` so a run's waits can be replayed. No backoff is
shorter than ``min_delay``, 0.5 s, the first wait of both SDKs' backoff.

A wait asked above ``retry_after_cap`` (60 s, the most the SDKs honour) is
waited in full up to ``retry_after_max`` (300 s, the time one call may take
in all), with a line on stderr saying so: retrying earlier than asked only
earns another 429. A longer wait is not made: the call fails with the reason.

A call has at most ``max_attempts`` attempts (5) and ``max_total_s`` (300 s).
In a run, whose limiter answers a 429 by slowing the run down (budget.py), a
429 is not one of the attempts: while the run learns the provider's rate, a
call is bounded by the time alone, which counts its attempts, the waits
asked and the pace that held it after its own previous attempt, not the time
the limiter held it behind other calls or the run's rates (providers/base.py,
``why_not_again``).
"""

import math
import random
import time
from datetime import timezone
from email.utils import parsedate_to_datetime


class Policy:
    def __init__(self, max_attempts=5, max_total_s=300.0, base_delay=1.0, max_delay=30.0,
                 retry_after_cap=60.0, seed=0, max_bytes=8 * 1024 * 1024, min_delay=0.5,
                 retry_after_max=300.0):
        self.max_attempts = max_attempts
        self.max_total_s = max_total_s
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.retry_after_cap = retry_after_cap
        self.seed = seed
        self.max_bytes = max_bytes
        self.min_delay = min_delay
        self.retry_after_max = retry_after_max

    def rng(self):
        return random.Random(self.seed)


def _seconds(text):
    """A finite, non-negative number of seconds, or None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


def retry_after_seconds(headers, now=None):
    """Seconds the server asked to wait (finite, at least 0), or None."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        float(value)
    except ValueError:
        pass
    else:
        return _seconds(value)  # a number, nan or inf included: never a date
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        # The obsolete "-0000" zone (and a date with none) parse as naive
        # datetimes, which .timestamp() would read as local time.
        when = when.replace(tzinfo=timezone.utc)
    now = time.time() if now is None else now
    return _seconds(when.timestamp() - now)


def should_retry_header(headers):
    """True or False when ``x-should-retry`` says so, else None."""
    value = {k.lower(): v for k, v in (headers or {}).items()}.get("x-should-retry")
    return {"true": True, "false": False}.get((value or "").strip().lower())


class Wait:
    """How long to wait before the next attempt: ``seconds``; ``asked``, what
    the server asked (or None); ``long`` when that is over the cap, so the
    caller says so; ``refused`` when it is over the maximum (not waited)."""

    def __init__(self, seconds, asked=None, long=False, refused=False):
        self.seconds = seconds
        self.asked = asked
        self.long = long
        self.refused = refused


def plan(policy, attempt_number, headers, rng):
    """The ``Wait`` before attempt ``attempt_number + 1``: what the server
    asked when it is a positive number of seconds, else a backoff."""
    asked = retry_after_seconds(headers)
    if asked is not None and asked > 0:
        if asked > policy.retry_after_max:
            return Wait(asked, asked, long=True, refused=True)
        return Wait(asked, asked, long=asked > policy.retry_after_cap)
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** (attempt_number - 1))
    return Wait(rng.uniform(policy.min_delay, max(policy.min_delay, ceiling)))
