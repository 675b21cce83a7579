"""One HTTP request through urllib.request, recorded as an attempt.

``send`` never raises for what the network or the server does: a refused or
reset connection, a timeout, an HTTP error status, a redirect, a body over the
size cap all come back as an attempt record, so the caller can write it down.
Redirects are not followed: a widget endpoint that redirects a POST is a failed
request, recorded with its status.

The timeout bounds the whole exchange, not one socket read: a server that
trickles its body a byte a second is cut off when the time is up.

Every request goes through one urllib opener, on a connection of its own
(urllib sends ``Connection: close``), with urllib's own User-Agent and, for a
body without a Content-Type, urllib's default one. Proxies from the
environment (http_proxy, https_proxy, no_proxy) are honoured, as the
environment is at each request; loopback hosts are always reached directly.

A request that HTTP cannot carry as it is (a header value or the URL holding
a line break or another control character, a header value outside Latin-1, a
URL path outside ASCII) is not sent: the attempt's error says which header or
the URL, and what it holds, never the value (``request_problem``). Callers
that fill in secrets refuse such a value before they get here, naming the
environment variable.

Secrets never reach an error text: each value given in ``secrets``, and each
registered with ``register_secret`` (a target profile's ``{env:NAME}``
values), is replaced by ``[redacted]`` in every form a message may show it:
as it is, with its white space folded, as Python's repr of the text and of its
bytes shows it, JSON-escaped and percent-encoded (``without_secrets``).

What it does not do: keep connections alive, follow redirects, retry (the
caller decides), read more than ``cap`` bytes of a body, or cut off a head
that trickles in (urllib reads the head inside ``open``, where each socket
read waits at most the timeout).
"""

import base64
import functools
import json
import re
import socket
import threading
import time
import unicodedata
import urllib.error
import urllib.request
from datetime import datetime, timezone
from urllib.parse import quote, quote_plus, urlsplit

DEFAULT_CAP = 2 * 1024 * 1024
LOOPBACK = ("localhost", "127.0.0.1", "::1")
REDACTED = "[redacted]"
# A shorter value is no key, and replacing it would garble the message.
MIN_SECRET = 4
# What a URL carries before its path: scheme and host (urllib's own split).
_AUTHORITY = re.compile(r"^[^:/?#]*:?//[^/?#]*")
_PERCENT = re.compile(r"%[0-9A-F]{2}")


def _is_loopback(host):
    return host in LOOPBACK or host.endswith(".localhost") or host.startswith("127.")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises HTTPError with the 3xx status


class _EnvironmentProxy(urllib.request.ProxyHandler):
    """The proxies of the environment as it is at each request.

    urllib's ProxyHandler() reads the environment once, when it is built; the
    one opener here is built at import, and a caller (or a test) may set
    http_proxy later. Loopback hosts are never sent to a proxy, whatever
    no_proxy says. Returning None lets the next handler connect directly.
    """

    def __init__(self):
        super().__init__({})

    def http_open(self, req):
        return self._route(req, "http")

    def https_open(self, req):
        return self._route(req, "https")

    def _route(self, req, scheme):
        if _is_loopback((urlsplit(req.full_url).hostname or "").lower()):
            return None
        proxy = urllib.request.getproxies().get(scheme)
        if not proxy:
            return None
        return self.proxy_open(req, proxy, scheme)  # honours no_proxy


# One opener for every request and thread, as urllib.request.urlopen shares its own.
_OPENER = urllib.request.build_opener(_NoRedirect(), _EnvironmentProxy())


class _BodyCutOff(Exception):
    """The connection closed before the Content-Length the server declared."""


class _Unsendable(Exception):
    """A header or the URL holds what HTTP cannot carry (request_problem)."""


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _remaining(deadline):
    return max(deadline - time.monotonic(), 0.001)


def _socket_of(resp):
    """The response's socket, or None.

    urllib gives no public way to change a response's socket timeout after
    the head has been read; SocketIO's private ``_sock`` is the only way in,
    so this is best effort. Without it a stalled read waits at most one more
    timeout; a trickling one is still cut at the deadline by _read_capped.
    """
    if isinstance(resp, urllib.error.HTTPError):
        resp = resp.fp  # the response the error status came with
    return getattr(getattr(getattr(resp, "fp", None), "raw", None), "_sock", None)


def _read_capped(resp, cap, deadline):
    """Read at most cap + 1 bytes before the deadline; ``(bytes, truncated)``."""
    sock = _socket_of(resp)
    chunks = []
    size = 0
    while size <= cap:
        if time.monotonic() >= deadline:
            raise TimeoutError("timed out while reading the body")
        if sock is not None:
            try:
                sock.settimeout(_remaining(deadline))
            except OSError:
                sock = None  # closed once the whole body was read (Python 3.13)
        chunk = resp.read1(min(65536, cap + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    if len(data) > cap:
        return data[:cap], True
    return data, False


def body_record(data, truncated, forms=()):
    """The body exactly as received: text when it is UTF-8, else base64;
    except that a secret in it (a site that echoes its token back, say) is
    replaced by ``[redacted]``, byte for byte, and ``redacted`` is true: a
    secret reaches no file (``forms``: every_secret_form). ``bytes`` is the
    size as received."""
    record = {"bytes": len(data), "truncated": truncated}
    kept = data
    for form in forms:
        kept = kept.replace(form.encode("utf-8"), REDACTED.encode("ascii"))
    if kept != data:
        record["redacted"] = True
        data = kept
    try:
        record["body"] = data.decode("utf-8")
        record["body_base64"] = None
    except UnicodeDecodeError:
        record["body"] = None
        record["body_base64"] = base64.b64encode(data).decode("ascii")
    return record


def _named(exc, name):
    # urllib lets the exceptions of the HTTP layer under it through unwrapped
    # (RemoteDisconnected, IncompleteRead, BadStatusLine, all HTTPException).
    # They are recognised by class name, anywhere in the exception's class
    # hierarchy, so that this module needs nothing but urllib.
    return any(cls.__name__ == name for cls in type(exc).__mro__)


def control_problem(value):
    """The words for a control character when ``value`` holds one (C0, tab
    and line breaks among them, DEL, C1: Unicode's category Cc), else None."""
    if any(unicodedata.category(ch) == "Cc" for ch in str(value)):
        return "a line break or another control character"
    return None


def header_problem(value):
    """What in ``value`` an HTTP header value cannot carry, in words, or None."""
    value = str(value)
    problem = control_problem(value)
    if problem:
        return problem
    if any(ord(ch) > 255 for ch in value):
        return "a character outside Latin-1, which an HTTP header cannot carry"
    return None


def url_problem(value, path=True):
    """What in ``value`` (part of) a URL cannot carry, in words, or None.
    ``path`` False: the value may be a host name, where urllib takes
    characters outside ASCII (IDNA)."""
    problem = control_problem(value)
    if problem:
        return problem
    if " " in value:
        return "a space"
    if path and any(ord(ch) > 127 for ch in value):
        return "a character outside ASCII (percent-encode it)"
    return None


def request_problem(url, headers):
    """Why the request cannot be sent as it is, naming the header (or the
    URL) and what it holds, never the value; None when it can be sent.

    The URL is taken as urllib takes it: white space around it is dropped,
    the fragment is not sent, and the host may be outside ASCII."""
    for name, value in (headers or {}).items():
        problem = header_problem(value)
        if problem:
            return f"the {name} header holds {problem}"
    url = str(url).strip().partition("#")[0]
    authority = _AUTHORITY.match(url)
    head = url[:authority.end()] if authority else ""
    problem = url_problem(head, path=False) or url_problem(url[len(head):])
    return f"the URL holds {problem}" if problem else None


_REGISTERED = set()
_REGISTERED_LOCK = threading.Lock()


def _long_enough(value):
    return isinstance(value, str) and len(" ".join(value.split())) >= MIN_SECRET


def register_secret(value):
    """Never show ``value`` in an error text of this process (target.py
    registers every ``{env:NAME}`` value it fills in)."""
    if _long_enough(value):
        with _REGISTERED_LOCK:
            _REGISTERED.add(value)


@functools.lru_cache(maxsize=256)
def secret_forms(secret):
    """Every form of ``secret`` a message may hold: as it is,
    with its white space folded (a message folded to one line, a key
    stripped of its newline), Python's repr of the text (``\\n`` for a line
    break) and of its UTF-8 and Latin-1 bytes, JSON-escaped, and
    percent-encoded (either case of hex digit, ``+`` or ``%20`` for a space)."""
    forms = set()
    for text in {secret, " ".join(secret.split())}:
        forms.update({text, repr(text)[1:-1], ascii(text)[1:-1],
                      text.encode("unicode_escape").decode("ascii"),
                      json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]})
        for encoding in ("utf-8", "latin-1"):
            try:
                forms.add(repr(text.encode(encoding))[2:-1])
            except UnicodeEncodeError:
                pass
        for encoded in (quote(text, safe=""), quote(text), quote_plus(text)):
            forms.update({encoded, _PERCENT.sub(lambda m: m.group(0).lower(), encoded)})
    return frozenset(form for form in forms if len(form) >= MIN_SECRET)


def every_secret_form(secrets=()):
    """The forms (``secret_forms``) of each of ``secrets`` and of each
    registered secret, longest first."""
    with _REGISTERED_LOCK:
        every = set(_REGISTERED)
    every.update(s for s in secrets or () if _long_enough(s))
    # Longest first: a form that holds another is replaced whole.
    return sorted({form for secret in every for form in secret_forms(secret)},
                  key=lambda form: (-len(form), form))


def without_secrets(text, secrets=(), forms=None):
    """``text`` with every form (``secret_forms``) of each of ``secrets``, and
    of each registered secret, replaced by ``[redacted]``; ``forms``, when
    given, are those forms (``every_secret_form``), found once for many texts."""
    if text is None:
        return None
    text = str(text)
    for form in every_secret_form(secrets) if forms is None else forms:
        text = text.replace(form, REDACTED)
    return text


def _describe(exc):
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
        exc = exc.reason if isinstance(exc.reason, BaseException) else exc
    if isinstance(exc, _Unsendable):
        return str(exc)
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    # RemoteDisconnected is a ConnectionResetError: asked first.
    if _named(exc, "RemoteDisconnected"):
        return "connection closed before a response"
    if isinstance(exc, ConnectionResetError):
        return "connection reset"
    if isinstance(exc, _BodyCutOff) or _named(exc, "IncompleteRead"):
        return "connection closed in the middle of the body"
    if isinstance(exc, TimeoutError):  # socket.timeout too, its alias since 3.10
        return "timeout"
    if isinstance(exc, socket.gaierror):
        return "host name not found"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot connect: {exc.reason}"
    if _named(exc, "InvalidURL"):  # a port that is not a number, say
        return f"cannot connect: {exc}"
    if _named(exc, "HTTPException"):
        return f"bad HTTP response: {type(exc).__name__}"
    return f"{type(exc).__name__}: {exc}"


def send(method, url, headers, data, timeout, cap=DEFAULT_CAP, secrets=()):
    """Make one request; return ``(attempt, response)``.

    ``attempt``: started_at (UTC), status (int or None), error (str or None),
    latency_ms. ``response``: None when no whole HTTP response came (the
    status may still be known when the body was cut off), else status,
    headers (lower-cased names, Set-Cookie left out) and the body record.
    The error never holds one of ``secrets`` or a registered secret.
    """
    started_at = utc_now()
    start = time.monotonic()
    deadline = start + timeout
    status = None
    response = None
    error = None
    try:
        problem = request_problem(url, headers)
        if problem:
            raise _Unsendable(f"{problem}: not sent")
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            resp = _OPENER.open(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            resp = exc  # an error status still has headers and a body worth keeping
        with resp:
            status = resp.status
            payload, truncated = _read_capped(resp, cap, deadline)
        received = {k.lower(): v for k, v in resp.headers.items() if k.lower() != "set-cookie"}
        forms = every_secret_form(secrets)
        head = {k: without_secrets(v, forms=forms) for k, v in received.items()}
        # A body cut off by the network is no response at all (response
        # stays None), so the caller retries it like a refused connection.
        declared = resp.headers.get("Content-Length")
        if not truncated and declared and declared.strip().isdigit() \
                and int(declared) != len(payload):
            raise _BodyCutOff(f"{len(payload)} of {int(declared)} bytes")
        response = {"status": status, "headers": dict(sorted(head.items()))}
        response.update(body_record(payload, truncated, forms))
        if head != received:
            response["redacted"] = True
        if truncated:
            error = f"body over the size cap of {cap} bytes"
        elif status != 200:
            error = f"HTTP {status}"
    except Exception as exc:  # any network failure becomes a recorded attempt
        error = _describe(exc)
    # The one place an attempt's error is made: an exception's text may
    # quote a header or the URL, secrets and all.
    error = without_secrets(error, secrets)
    latency_ms = int((time.monotonic() - start) * 1000 + 0.5)
    attempt = {"started_at": started_at, "status": status, "error": error,
               "latency_ms": latency_ms}
    return attempt, response
