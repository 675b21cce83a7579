"""One HTTP request through urllib.request, recorded as an attempt.

``send`` never raises for what the network or the server does: a refused or
reset connection, a timeout, an HTTP error status, a redirect, a body over the
size cap all come back as an attempt record, so the caller can write it down.
Redirects are not followed: a widget endpoint that redirects a POST is a failed
request, recorded with its status.

The timeout bounds the whole exchange: connecting, sending, the response's
head and its body. A timer shuts the connection's socket down when the time
is up, which ends any read it is blocked in, so a server that trickles its
head or its body a byte a second is cut off then (``_Watch``). Ctrl-C ends
every request in flight the same way (``interrupt``): the attempt of a
request that was sent says ``interrupted``; one not sent yet is not sent
(``Interrupted``), and ``pause``, the sleep of every retry and rate wait,
ends at once.

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

Secrets never reach a file or a message: the ``secrets`` given with a
request (the caller's explicit list: a provider's keys, a target profile's
``{env:NAME}`` values) are replaced by ``[redacted]`` in the response's
headers, names and values (a name in lower case too: names are kept so), and
body, escaped or not, text or not, and in the error text
(evalkit/redaction.py). A body over the size cap is read a little past it
(redaction.reach: as far as a secret's longest spelling) and redacted whole
before it is cut, so a secret the cut would halve leaves no part of itself in
what is kept: redacting after the cut would keep the part before it, and
redacting any end of the text that begins a secret would also take ordinary
text that happens to begin one. A redacted response is marked ``redacted``:
the one change ever made to what was received.

A response that HTTP does not frame (a Content-Length that is not ASCII
digits, such as ``²``) is no response: its attempt says ``bad HTTP
response`` and what was wrong, as for a status line that is not HTTP.

What it does not do: keep connections alive, follow redirects, retry (the
caller decides), read more than ``cap`` bytes of a body (and, with secrets,
the reach past it that redaction needs), or cut off a TLS handshake that
trickles (the watch gets the socket once the handshake is done; until then
each read waits at most the timeout).
"""

import base64
import codecs
import http.client
import re
import socket
import threading
import time
import unicodedata
import urllib.error
import urllib.request
from datetime import datetime, timezone
from urllib.parse import urlsplit

from ..fields import shown
from ..redaction import reach, redact, redact_bytes

DEFAULT_CAP = 2 * 1024 * 1024
LOOPBACK = ("localhost", "127.0.0.1", "::1")
# What a URL carries before its path: scheme and host (urllib's own split).
_AUTHORITY = re.compile(r"^[^:/?#]*:?//[^/?#]*")
# A Content-Length as HTTP writes it (RFC 9110 8.6): ASCII digits, nothing
# else; str.isdigit() takes "²" too, which int() refuses.
_LENGTH = re.compile(r"[0-9]+")


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


class _Watch:
    """The deadline of one request, and its way to be cut off.

    urllib reads a response's head inside ``open`` and each socket read
    waits at most the timeout, so a head that trickles in a byte at a time
    never times out there. The watch holds the connection's socket from the
    moment it is connected; ``cut`` (at the deadline, from a timer, or at
    Ctrl-C, from ``interrupt``) shuts it down, which ends the read or write
    it is blocked in, whatever the phase. ``why`` says what cut it: None,
    "timeout" or "interrupted"."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sock = None
        self.why = None
        self.done = False

    def connected(self, sock):
        with self.lock:
            self.sock = sock
            cut_already = self.why is not None
        if cut_already:
            _shut_down(sock)

    def cut(self, why):
        with self.lock:
            if self.done or self.why is not None:
                return
            self.why = why
            sock = self.sock
        if sock is not None:
            _shut_down(sock)

    def finish(self):
        """The exchange is over: a later cut does nothing."""
        with self.lock:
            self.done = True


def _shut_down(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except (OSError, ValueError):
        pass  # already closed: nothing left to end


class _Watched:
    """urllib's HTTP and HTTPS handlers, handing each connection's socket to
    the request's ``watch`` as soon as it is connected (and the TLS
    handshake done). urllib builds the connection from the class it is
    given; a subclass of that class, made here, reports its socket."""

    def do_open(self, http_class, req, **kwargs):
        watch = req.watch

        class WatchedConnection(http_class):
            def connect(self):
                super().connect()
                watch.connected(self.sock)

        return super().do_open(WatchedConnection, req, **kwargs)


class _WatchedHTTP(_Watched, urllib.request.HTTPHandler):
    pass


class _WatchedHTTPS(_Watched, urllib.request.HTTPSHandler):
    pass


# One opener for every request and thread, as urllib.request.urlopen shares its own.
_OPENER = urllib.request.build_opener(_NoRedirect(), _EnvironmentProxy(), _WatchedHTTP(),
                                      _WatchedHTTPS())

# The headers of the last response each thread received (received_headers).
_RECEIVED = threading.local()

# Ctrl-C: set by ``interrupt``, cleared by ``allow``; the watches of the
# requests in flight, to cut them all at once.
_INTERRUPTED = threading.Event()
_IN_FLIGHT = set()
_IN_FLIGHT_LOCK = threading.Lock()


class Interrupted(Exception):
    """Ctrl-C came before this request was sent: it was not sent."""


def interrupt():
    """Ctrl-C: cut every request in flight now (its attempt says
    "interrupted"), send none from now on (``send`` raises Interrupted) and
    end every ``pause``, until ``allow``."""
    _INTERRUPTED.set()
    with _IN_FLIGHT_LOCK:
        watches = list(_IN_FLIGHT)
    for watch in watches:
        watch.cut("interrupted")


def allow():
    """Send again after ``interrupt`` (a new run in the same process)."""
    _INTERRUPTED.clear()


def pause(seconds):
    """Sleep ``seconds``, or less when ``interrupt`` comes first."""
    if seconds > 0:
        _INTERRUPTED.wait(seconds)


class _BodyCutOff(Exception):
    """The connection closed before the Content-Length the server declared."""


class _Unsendable(Exception):
    """A header or the URL holds what HTTP cannot carry (request_problem)."""


class _Unframed(Exception):
    """The response's head does not say how long its body is in a way HTTP
    allows: a malformed reply, however much of it came."""


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _read_capped(resp, cap, deadline, past=0):
    """Read at most ``cap + max(past, 1)`` bytes before the deadline;
    ``(bytes, truncated)``, truncated when there were more than ``cap``:
    what was read past the cap is returned too, for body_record to redact
    before it cuts. A read blocked at the deadline is ended by the
    request's watch."""
    chunks = []
    size = 0
    most = cap + max(past, 1)
    while size < most:
        if time.monotonic() >= deadline:
            raise TimeoutError("timed out while reading the body")
        chunk = resp.read1(min(65536, most - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    return data, len(data) > cap


def body_record(data, truncated, secrets=(), cap=None):
    """The body exactly as received: text when it is UTF-8, else base64;
    except that a secret in it (a site that echoes its token back, say,
    plain or escaped) is replaced by ``[redacted]`` and ``redacted`` is
    true: a secret reaches no file (evalkit/redaction.py). A body cut off
    (``truncated``) keeps its first ``cap`` bytes; ``data`` may run past
    them, and is redacted whole before the cut (the module's docstring).
    ``bytes`` is the size as received, at most ``cap``."""
    cap = len(data) if cap is None else cap
    record = {"bytes": min(len(data), cap), "truncated": truncated}
    kept = _redacted(data, truncated, secrets)[:cap]
    try:
        record["body"] = kept.decode("utf-8")
        record["body_base64"] = None
    except UnicodeDecodeError:  # not UTF-8, or cut inside a character
        record["body"] = None
        record["body_base64"] = base64.b64encode(kept).decode("ascii")
    if kept != data[:cap]:
        record["redacted"] = True
    return record


def _redacted(data, truncated, secrets):
    """``data`` without its secrets: as UTF-8 text when it is text, which
    also finds a secret spelled with characters outside ASCII however it is
    escaped, else byte for byte. A body cut off may end inside a character:
    those last bytes are kept as they are (they lie past the cut)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        text = decoder.decode(data, final=not truncated)
    except UnicodeDecodeError:
        return redact_bytes(data, secrets)
    return redact(text, secrets).encode("utf-8") + decoder.getstate()[0]


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


def _describe(exc):
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
        exc = exc.reason if isinstance(exc.reason, BaseException) else exc
    if isinstance(exc, _Unsendable):
        return str(exc)
    if isinstance(exc, _Unframed):
        return f"bad HTTP response: {exc}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    # urllib lets the exceptions of the HTTP layer under it through unwrapped
    # (http.client's RemoteDisconnected, IncompleteRead, InvalidURL, all
    # HTTPException). RemoteDisconnected is a ConnectionResetError: asked first.
    if isinstance(exc, http.client.RemoteDisconnected):
        return "connection closed before a response"
    if isinstance(exc, ConnectionResetError):
        return "connection reset"
    if isinstance(exc, (_BodyCutOff, http.client.IncompleteRead)):
        return "connection closed in the middle of the body"
    if isinstance(exc, TimeoutError):  # socket.timeout too, its alias since 3.10
        return "timeout"
    if isinstance(exc, socket.gaierror):
        return "host name not found"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot connect: {exc.reason}"
    if isinstance(exc, http.client.InvalidURL):  # a port that is not a number, say
        return f"cannot connect: {exc}"
    if isinstance(exc, http.client.HTTPException):
        return f"bad HTTP response: {type(exc).__name__}"
    return f"{type(exc).__name__}: {exc}"


def _check_length(headers, payload, truncated):
    """_Unframed when the Content-Length is not ASCII digits (RFC 9112
    6.3: such a response is discarded); _BodyCutOff when a body read whole
    is shorter than it says. A body cut off by the network is no response at
    all, so the caller retries it like a refused connection."""
    declared = headers.get("Content-Length")
    if declared is None or "chunked" in (headers.get("Transfer-Encoding") or "").lower():
        return  # chunked: the chunks frame the body, whatever the length says
    value = declared.strip()
    if not _LENGTH.fullmatch(value):
        raise _Unframed(f"a Content-Length of {shown(value, 24)}, not a number of bytes "
                        "(ASCII digits)")
    if not truncated and int(value) != len(payload):
        raise _BodyCutOff(f"{len(payload)} of {int(value)} bytes")


def _head(headers, secrets):
    """``(received, kept)``: the response's headers by lower-case name,
    Set-Cookie left out, as received and without the secrets. A name may
    spell a secret too (a server that echoes it as a header of its own); it
    is redacted as received and in lower case, as it is kept."""
    lower = [secret.lower() for secret in secrets or () if isinstance(secret, str)]
    received, kept = {}, {}
    for name, value in headers.items():
        if name.lower() == "set-cookie":
            continue
        received[name.lower()] = value
        kept[redact(redact(name, secrets).lower(), lower)] = redact(value, secrets)
    return received, kept


def send(method, url, headers, data, timeout, cap=DEFAULT_CAP, secrets=()):
    """Make one request; return ``(attempt, response)``.

    ``attempt``: started_at (UTC), status (int or None), error (str or None),
    latency_ms. ``response``: None when no whole HTTP response came (the
    status may still be known when the body was cut off, or the time was
    up), else status, headers (lower-cased names, Set-Cookie left out) and
    the body record. Neither holds one of ``secrets``. Interrupted, and
    nothing sent, after ``interrupt``.
    """
    _RECEIVED.headers = {}
    if _INTERRUPTED.is_set():
        raise Interrupted("interrupted before the request was sent")
    started_at = utc_now()
    start = time.monotonic()
    watch = _Watch()
    timer = threading.Timer(timeout, watch.cut, ("timeout",))
    timer.daemon = True
    with _IN_FLIGHT_LOCK:
        _IN_FLIGHT.add(watch)
    timer.start()
    try:
        attempt, response = _exchange(method, url, headers, data, watch, start + timeout, cap,
                                      secrets)
    finally:
        timer.cancel()
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.discard(watch)
    attempt["started_at"] = started_at
    attempt["latency_ms"] = int((time.monotonic() - start) * 1000 + 0.5)
    _RECEIVED.headers = response["headers"] if response else {}
    return attempt, response


def received_headers():
    """The headers (lower-case names, secrets redacted) of the response to
    this thread's last ``send``, {} when none came: what a rate limiter
    reads a provider's stated limits from (budget.py), on the thread that
    made the request, before its next one."""
    return getattr(_RECEIVED, "headers", {})


def _exchange(method, url, headers, data, watch, deadline, cap, secrets):
    """``send``'s request and response, without its clock."""
    status = None
    response = None
    error = None
    try:
        problem = request_problem(url, headers)
        if problem:
            raise _Unsendable(f"{problem}: not sent")
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        request.watch = watch
        try:
            resp = _OPENER.open(request, timeout=max(deadline - time.monotonic(), 0.001))
        except urllib.error.HTTPError as exc:
            resp = exc  # an error status still has headers and a body worth keeping
        with resp:
            status = resp.status
            payload, truncated = _read_capped(resp, cap, deadline, reach(secrets))
            watch.finish()
        if watch.why:  # cut off: what was read may be any part of the body
            raise TimeoutError(watch.why)
        _check_length(resp.headers, payload, truncated)
        received, head = _head(resp.headers, secrets)
        response = {"status": status, "headers": dict(sorted(head.items()))}
        response.update(body_record(payload, truncated, secrets, cap))
        if head != received:
            response["redacted"] = True
        if truncated:
            error = f"body over the size cap of {cap} bytes"
        elif status != 200:
            error = f"HTTP {status}"
    except Exception as exc:  # any network failure becomes a recorded attempt
        watch.finish()
        error = watch.why or _describe(exc)
        response = None if watch.why else response
    # The one place an attempt's error is made: an exception's text may
    # quote a header or the URL, secrets and all.
    return {"status": status, "error": redact(error, secrets)}, response
