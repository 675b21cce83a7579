"""The shared call shape, the error type, and one JSON POST with retries."""

import json
import re
import time

from .. import http
from .retry import Policy, delay_for


class ProviderError(Exception):
    """One line: provider, status, the provider's error type and message.

    ``attempts`` holds every attempt made, so a caller can record them."""

    def __init__(self, message, attempts=(), status=None, raw=None):
        super().__init__(" ".join(str(message).split()))
        self.attempts = list(attempts)
        self.status = status
        self.raw = raw


class Request:
    def __init__(self, system, user, model, schema=None, schema_name="record",
                 max_tokens=2048, temperature=None, timeout=120.0):
        self.system = system
        self.user = user
        self.model = model
        self.schema = schema
        self.schema_name = schema_name
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.timeout = timeout


class Reply:
    def __init__(self, text, data, usage, raw, attempts, model=None, stop=None, problem=None):
        self.text = text          # the reply's text (for a schema reply, its JSON text)
        self.data = data          # the parsed JSON object, or None
        self.usage = usage        # tokens in and out, as the API reports them
        self.raw = raw            # the response body exactly as received (text)
        self.attempts = attempts
        self.model = model
        self.stop = stop          # why generation stopped, as the API says
        self.problem = problem    # why data is None when a schema was asked for


# Shapes of keys that must never reach a message, even when an API echoes them.
_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|sk-ant-[A-Za-z0-9_\-]{6,}|A[SK]IA[0-9A-Z]{12,})")


def redact(text, secrets):
    text = str(text)
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return _KEYLIKE.sub("[redacted]", text)


class Client:
    """A provider: ``name``, ``secrets`` (to redact), ``policy``; subclasses
    build the request and read the reply."""

    name = "?"

    def __init__(self, environ, policy=None):
        self.environ = environ
        self.policy = policy or Policy()
        self.secrets = []
        self.sleep = time.sleep

    def error_of(self, status, headers, body):
        """``(error type, message, retryable or None)`` of an error response."""
        return None, None, None

    def post(self, url, headers_for_attempt, body_obj, timeout):
        """POST JSON with retries; ``(document, raw text, attempts)``."""
        data = json.dumps(body_obj, ensure_ascii=False).encode("utf-8")
        attempts = []
        rng = self.policy.rng()
        start = time.monotonic()
        while True:
            headers = headers_for_attempt(url, data)
            attempt, response = http.send("POST", url, headers, data, timeout, self.policy.max_bytes)
            attempts.append(attempt)
            status = response["status"] if response else None
            raw = http_text(response)
            if status == 200 and raw is not None:
                try:
                    return json.loads(raw), raw, attempts
                except (ValueError, RecursionError):
                    raise ProviderError(f"{self.name}: HTTP 200 but the body is not JSON",
                                        attempts, status, raw) from None
            kind, message, retryable = (None, None, None)
            if response is not None:
                kind, message, retryable = self.error_of(status, response["headers"], raw or "")
            if retryable is None:
                retryable = response is None or status in (408, 409, 429) or (status or 0) >= 500
            elapsed = time.monotonic() - start
            wait = delay_for(self.policy, len(attempts),
                             response["headers"] if response else {}, rng)
            attempt["retry_in_s"] = round(wait, 3) if retryable else None
            if not retryable or len(attempts) >= self.policy.max_attempts or \
                    elapsed + wait > self.policy.max_total_s:
                attempt["retry_in_s"] = None
                what = f"HTTP {status}" if status else attempt["error"]
                detail = ": ".join(x for x in (kind, message) if x)
                note = "" if not retryable else f" (gave up after {len(attempts)} attempts)"
                raise ProviderError(redact(f"{self.name}: {what}{': ' + detail if detail else ''}"
                                           f"{note}", self.secrets), attempts, status,
                                    redact(raw or "", self.secrets))
            self.sleep(wait)


def http_text(response):
    if response is None or response.get("truncated") or response.get("body") is None:
        return None
    return response["body"]


def parse_json_text(text):
    """``(data, problem)`` of a reply that should be one JSON object."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:
        return None, f"reply is not JSON ({type(exc).__name__})"
    if not isinstance(data, dict):
        return None, "reply is JSON but not an object"
    return data, None
