"""One HTTP request, recorded as an attempt.

``send`` never raises for what the network or the server does: a refused or
reset connection, a timeout, an HTTP error status, a redirect, a body over the
size cap all come back as an attempt record, so the caller can write it down.
Redirects are not followed: a widget endpoint that redirects a POST is a failed
request, recorded with its status.

The timeout bounds the whole exchange, not one socket read: a server that
trickles a byte a second is cut off when the time is up.

Each request has its own connection, made with http.client (``Connection:
close``), its head and body written at once. Connections are not kept alive
on purpose: with a server that writes an answer's head and body apart and
leaves Nagle's algorithm on (Python's http.server does both, the demo
assistant is one), a kept-alive connection waits for the client's delayed
acknowledgement, 40 ms an answer; a new connection is acknowledged at once.

Proxies from the environment (http_proxy, https_proxy, no_proxy) are
honoured through urllib, except for loopback hosts, which are always reached
directly.
"""

import base64
import http.client
import socket
import sys
import time
from datetime import datetime, timezone
from urllib.parse import urlsplit

DEFAULT_CAP = 2 * 1024 * 1024
LOOPBACK = ("localhost", "127.0.0.1", "::1")
# What urllib sent when it made every request; kept so that a site which
# tells clients apart by User-Agent sees the same one.
USER_AGENT = "Python-urllib/%d.%d" % sys.version_info[:2]


_OPENERS = {}  # urllib openers by the proxies they go through, built when first needed


def _opener(proxies):
    # urllib is imported only here: a run against a direct or loopback URL
    # never needs it, and its imports cost start-up. The proxies are those of
    # the environment at the time of the request, as _proxy_for decided with
    # them, not as they were when an opener was first built. Sharing one
    # opener across threads is what urllib.request.urlopen does.
    key = tuple(sorted(proxies.items()))
    opener = _OPENERS.get(key)
    if opener is None:
        import urllib.request

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, req, fp, code, msg, headers, newurl):
                return None
        opener = _OPENERS[key] = urllib.request.build_opener(
            NoRedirect(), urllib.request.ProxyHandler(proxies))
    return opener


def _is_loopback(host):
    return host in LOOPBACK or host.endswith(".localhost") or host.startswith("127.")


def _proxy_for(parts):
    """True when the environment routes this URL through a proxy."""
    host = (parts.hostname or "").lower()
    if _is_loopback(host):
        return False
    import urllib.request
    if parts.scheme not in urllib.request.getproxies():
        return False
    return not urllib.request.proxy_bypass(host)


class _OneWrite:
    """Sends a request's head and body in one write. http.client writes them
    apart: on loopback the second write cost the client a system call and the
    server a second wake-up, per request."""

    _held = None

    def send(self, data):
        if self._held is None:
            super().send(data)
        else:
            self._held.append(data)

    def send_request(self, method, target, body, headers):
        self._held = []
        try:
            self.request(method, target, body=body, headers=headers)
            data = b"".join(self._held)
        finally:
            self._held = None
        self.send(data)  # connects first when the connection is new


class _HTTPConnection(_OneWrite, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_OneWrite, http.client.HTTPSConnection):
    pass


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _remaining(deadline):
    return max(deadline - time.monotonic(), 0.001)


def _read_capped(resp, sock, cap, deadline):
    """Read at most cap + 1 bytes before the deadline; ``(bytes, truncated)``."""
    chunks = []
    size = 0
    while size <= cap:
        if time.monotonic() >= deadline:
            raise TimeoutError("timed out while reading the body")
        if sock is not None:
            try:
                sock.settimeout(_remaining(deadline))
            except OSError:
                sock = None
        chunk = resp.read1(min(65536, cap + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    if len(data) > cap:
        return data[:cap], True
    return data, False


def _urllib_socket(resp):
    # urllib keeps the socket private, and on some Pythons it is already
    # detached from its file descriptor here: shortening its timeout is best
    # effort. Without it a stalled read waits at most one more timeout; a
    # trickling one is still cut at the deadline.
    return getattr(getattr(getattr(resp, "fp", None), "raw", None), "_sock", None)


def _exchange_proxied(method, url, headers, data, timeout, deadline, cap, seen):
    """Through urllib: a proxy from the environment, or a URL that is not plain
    http(s) (urllib's own error then); ``(resp, payload, truncated)``."""
    import urllib.error
    import urllib.request
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        resp = _opener(urllib.request.getproxies()).open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        resp = exc  # an error status still has headers and a body worth keeping
    seen["status"] = resp.status if hasattr(resp, "status") else resp.code
    with resp:
        payload, truncated = _read_capped(resp, _urllib_socket(resp), cap, deadline)
    return resp, payload, truncated


def _exchange_direct(method, parts, headers, data, timeout, deadline, cap, seen):
    """Over a new connection of its own: ``(resp, payload, truncated)``."""
    sent = {"User-Agent": USER_AGENT, "Connection": "close"}
    sent.update(headers)
    if data is not None and not any(name.lower() == "content-type" for name in sent):
        sent["Content-Type"] = "application/x-www-form-urlencoded"  # as urllib did
    https = parts.scheme == "https"
    # The port always given: with none, http.client would read an IPv6
    # literal's last group as one.
    conn = (_HTTPSConnection if https else _HTTPConnection)(
        parts.hostname, parts.port or (443 if https else 80), timeout=timeout)
    try:
        conn.send_request(method, (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                          data, sent)
        sock = conn.sock  # getresponse lets go of it: the server says close
        sock.settimeout(_remaining(deadline))
        resp = conn.getresponse()
        seen["status"] = resp.status
        with resp:
            payload, truncated = _read_capped(resp, sock, cap, deadline)
    finally:
        conn.close()
    return resp, payload, truncated


def body_record(data, truncated):
    """The body exactly as received: text when it is UTF-8, else base64."""
    record = {"bytes": len(data), "truncated": truncated}
    try:
        record["body"] = data.decode("utf-8")
        record["body_base64"] = None
    except UnicodeDecodeError:
        record["body"] = None
        record["body_base64"] = base64.b64encode(data).decode("ascii")
    return record


def _describe(exc):
    # urllib.error is loaded only when urllib was used: otherwise no
    # exception can be one of its kinds.
    urlerror = sys.modules.get("urllib.error")
    url_error = urlerror.URLError if urlerror else ()
    if isinstance(exc, url_error) and not isinstance(exc, urlerror.HTTPError):
        exc = exc.reason if isinstance(exc.reason, BaseException) else exc
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionResetError):
        return "connection reset"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "connection closed before a response"
    if isinstance(exc, http.client.IncompleteRead):
        return "connection closed in the middle of the body"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timeout"
    if isinstance(exc, socket.gaierror):
        return "host name not found"
    if isinstance(exc, url_error):
        return f"cannot connect: {exc.reason}"
    if isinstance(exc, http.client.HTTPException):
        return f"bad HTTP response: {type(exc).__name__}"
    return f"{type(exc).__name__}: {exc}"


def send(method, url, headers, data, timeout, cap=DEFAULT_CAP):
    """Make one request; return ``(attempt, response)``.

    ``attempt``: started_at (UTC), status (int or None), error (str or None),
    latency_ms. ``response``: None when no whole HTTP response came (the
    status may still be known when the body was cut off), else status,
    headers (lower-cased names, Set-Cookie left out) and the body record.
    """
    started_at = utc_now()
    start = time.monotonic()
    deadline = start + timeout
    seen = {}  # the status, as soon as it is known: a body cut off later keeps it
    response = None
    error = None
    try:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.hostname and not _proxy_for(parts):
            resp, payload, truncated = _exchange_direct(method, parts, headers, data, timeout,
                                                        deadline, cap, seen)
        else:
            resp, payload, truncated = _exchange_proxied(method, url, headers, data, timeout,
                                                         deadline, cap, seen)
        status = seen["status"]
        head = {k.lower(): v for k, v in resp.headers.items() if k.lower() != "set-cookie"}
        # A body cut off by the network is no response at all (response
        # stays None), so the caller retries it like a refused connection.
        declared = resp.headers.get("Content-Length")
        if not truncated and declared and declared.strip().isdigit() \
                and int(declared) != len(payload):
            raise http.client.IncompleteRead(payload, int(declared) - len(payload))
        response = {"status": status, "headers": dict(sorted(head.items()))}
        response.update(body_record(payload, truncated))
        if truncated:
            error = f"body over the size cap of {cap} bytes"
        elif status != 200:
            error = f"HTTP {status}"
    except Exception as exc:  # any network failure becomes a recorded attempt
        error = _describe(exc)
    latency_ms = int((time.monotonic() - start) * 1000 + 0.5)
    attempt = {"started_at": started_at, "status": seen.get("status"), "error": error,
               "latency_ms": latency_ms}
    return attempt, response
