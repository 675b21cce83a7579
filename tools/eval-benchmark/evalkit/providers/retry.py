"""When to try a model call again, and how long to wait.

Retried: no response at all (refused, reset, timeout), HTTP 408, 409, 429 and
every 5xx (Anthropic's 529 overloaded among them), and the provider errors a
client marks retryable (Bedrock's throttling and unavailable errors). Not
retried: 400, 401, 403, 404 and the like, and OpenAI's ``insufficient_quota``
(a 429 that waiting does not cure). A delivered answer is never asked again.

The wait honours ``retry-after-ms`` and then ``retry-after`` (seconds or an
HTTP date), up to ``retry_after_cap``; otherwise exponential backoff with full
jitter, ``uniform(0, min(max_delay, base_delay * 2**(n-1)))``, drawn from a
``random.Random(seed)`` so a run's waits can be replayed. Attempts and the
total time are bounded.
"""

import random
import time
from email.utils import parsedate_to_datetime


class Policy:
    def __init__(self, max_attempts=5, max_total_s=300.0, base_delay=1.0, max_delay=30.0,
                 retry_after_cap=60.0, seed=0, max_bytes=8 * 1024 * 1024):
        self.max_attempts = max_attempts
        self.max_total_s = max_total_s
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.retry_after_cap = retry_after_cap
        self.seed = seed
        self.max_bytes = max_bytes

    def rng(self):
        return random.Random(self.seed)


def retry_after_seconds(headers, now=None):
    """Seconds the server asked to wait, or None."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(float(value) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    now = time.time() if now is None else now
    return max(when.timestamp() - now, 0.0)


def delay_for(policy, attempt_number, headers, rng):
    asked = retry_after_seconds(headers)
    if asked is not None:
        return min(asked, policy.retry_after_cap)
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** (attempt_number - 1))
    return rng.uniform(0, ceiling)
