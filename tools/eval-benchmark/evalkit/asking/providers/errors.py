"""What a failed response says, in one short line, and what it means.

``ProviderError`` is every failure of a call; ``FatalProviderError``, its
subclass, one the whole run would meet again (``fatal`` is True on it).

``Failure`` holds the provider's error type and message, whether to try
again (None: decide by the status), whether the failure is fatal (the same
for every call of the run: a key refused, a model that does not exist, a
URL that is wrong) and the one-line fix to name. Each provider's
``error_of`` fills one in from its own error shape; ``json_error`` reads
the shapes OpenAI-compatible servers use. ``fold`` keeps a message to one
line: whitespace folded (a server's message, or a model's key names, may
hold newlines), a Python stack trace left out, long text shortened.

What it does not do: decide the wait (retry.py), or send anything.
"""

import re
from urllib.parse import urlsplit, urlunsplit

from ..http import url_problem
from ...responses import parse_received

MAX_DETAIL = 300
_TRACE = re.compile(r"Traceback \(most recent call last\)", re.IGNORECASE)


class ProviderError(Exception):
    """One line: provider, status, the provider's error type and message, the
    URL tried and, where it is recognisable, the fix.

    ``attempts`` holds every attempt made, so a caller can record them;
    ``fatal`` is False: the next call may well succeed."""

    fatal = False
    interrupted = False

    def __init__(self, message, attempts=(), status=None, raw=None):
        super().__init__(" ".join(str(message).split()))
        self.attempts = list(attempts)
        self.status = status
        self.raw = raw


class FatalProviderError(ProviderError):
    """A failure every call of the run would meet: the key or credentials
    refused (401, 403), a model the provider says does not exist, a URL that
    is wrong or a JSON mode the server does not take. Never retried; the
    message ends with what to fix. ``fatal`` is True."""

    fatal = True


class CallInterrupted(ProviderError):
    """Ctrl-C cut the call (http.interrupt): ``attempts`` holds the requests
    that were sent, perhaps none. ``interrupted`` is True."""

    interrupted = True


class Failure:
    def __init__(self, kind=None, message=None, retryable=None, fatal=None, hint=None):
        self.kind = kind              # the provider's error type or code
        self.message = message        # its message, folded
        self.retryable = retryable    # True, False, or None: by the status
        self.fatal = fatal            # True: stop the run; None: by the status
        self.hint = hint              # what to fix, one clause, or None


def fold(text, limit=MAX_DETAIL):
    """``text`` on one line, without a stack trace, at most ``limit`` characters."""
    if text is None:
        return None
    text = str(text)
    trace = _TRACE.search(text)
    if trace:
        text = text[:trace.start()] + " (stack trace left out)"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def json_error(body):
    """``(kind, message)`` of an error body in the shapes OpenAI-compatible
    servers use: OpenAI's and llama.cpp's ``{"error": {...}}``, Ollama's
    ``{"error": "..."}``, vLLM's top-level ``{"object": "error", "message",
    "type"}``, and FastAPI's ``{"detail": ...}`` (a validation error lists
    each field's place and problem). Anything else: its text, folded."""
    try:
        doc = parse_received(body)
    except (ValueError, RecursionError):
        return None, fold(body) or None
    if not isinstance(doc, dict):
        return None, fold(body) or None
    error = doc.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        kind = code if isinstance(code, str) and code else error.get("type")
        return (str(kind) if kind else None), fold(error.get("message"))
    if error is not None:
        return None, fold(error)
    if isinstance(doc.get("message"), str):
        return (str(doc["type"]) if doc.get("type") else None), fold(doc["message"])
    return None, fold(_detail(doc.get("detail"))) if "detail" in doc else fold(body)


def _detail(detail):
    if not isinstance(detail, list):
        return detail
    parts = []
    for item in detail:
        if isinstance(item, dict):
            place = ".".join(str(p) for p in item.get("loc") or [])
            parts.append(f"{place}: {item.get('msg')}" if place else str(item.get("msg")))
        else:
            parts.append(str(item))
    return "; ".join(parts)


def shown_url(url):
    """The URL as a message may show it: no user:password, query or fragment."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def checked_base(variable, value):
    """``value`` when it is an http:// or https:// URL with a host; else a
    FatalProviderError that says how to write it (urllib would say only
    "unknown url type"), or, for a URL holding what no URL can carry (a
    line break, a space: urlsplit would drop a line break unseen), what it
    holds, without the value (it may hold a user and password)."""
    problem = url_problem(value, path=False)
    if problem:
        raise FatalProviderError(f"{variable} holds {problem}: check the variable")
    parts = urlsplit(value)
    if parts.scheme in ("http", "https") and parts.netloc:
        return value
    shown = shown_url(value) if parts.netloc else value.rpartition("@")[2]
    raise FatalProviderError(f"{variable} {shown!r} is not an http:// or https:// URL: "
                             f"write it with its scheme, such as http://{shown.split('://')[-1]}")
