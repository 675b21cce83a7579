"""One HTTP request over urllib, recorded as an attempt.

``send`` never raises for what the network or the server does: a refused or
reset connection, a timeout, an HTTP error status, a redirect, a body over the
size cap all come back as an attempt record, so the caller can write it down.
Redirects are not followed: a widget endpoint that redirects a POST is a failed
request, recorded with its status.

The timeout bounds the whole exchange, not one socket read: a server that
trickles a byte a second is cut off when the time is up.

Proxies from the environment are honoured, except for loopback hosts, which
are always reached directly.
"""

import base64
import http.client
import socket
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from urllib.parse import urlsplit

DEFAULT_CAP = 2 * 1024 * 1024
LOOPBACK = ("localhost", "127.0.0.1", "::1")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


# Built once: building an opener per request cost more than the request on
# loopback. Sharing one across threads is what urllib.request.urlopen does.
_DIRECT = urllib.request.build_opener(_NoRedirect(), urllib.request.ProxyHandler({}))
_PROXIED = urllib.request.build_opener(_NoRedirect())


def _opener(url):
    host = (urlsplit(url).hostname or "").lower()
    if host in LOOPBACK or host.endswith(".localhost") or host.startswith("127."):
        return _DIRECT
    return _PROXIED


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _remaining(deadline):
    return max(deadline - time.monotonic(), 0.001)


def _read_capped(resp, cap, deadline):
    """Read at most cap + 1 bytes before the deadline; ``(bytes, truncated)``."""
    chunks = []
    size = 0
    # Shortening the socket's own timeout to the time left is best effort: the
    # socket is urllib's private object, and on some Pythons it is already
    # detached from its file descriptor here. Without it, a stalled read waits
    # at most one more timeout; a trickling one is still cut at the deadline.
    sock = getattr(getattr(getattr(resp, "fp", None), "raw", None), "_sock", None)
    while size <= cap:
        if time.monotonic() >= deadline:
            raise TimeoutError("timed out while reading the body")
        if sock is not None:
            try:
                sock.settimeout(_remaining(deadline))
            except OSError:
                sock = None
        chunk = resp.read1(min(65536, cap + 1 - size)) if hasattr(resp, "read1") \
            else resp.read(min(65536, cap + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    if len(data) > cap:
        return data[:cap], True
    return data, False


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
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
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
    if isinstance(exc, urllib.error.URLError):
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
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    status = None
    response = None
    error = None
    try:
        try:
            resp = _opener(url).open(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            resp = exc  # an error status still has headers and a body worth keeping
        with resp:
            status = resp.status if hasattr(resp, "status") else resp.code
            head = {k.lower(): v for k, v in resp.headers.items() if k.lower() != "set-cookie"}
            # A body cut off by the network is no response at all (response
            # stays None), so the caller retries it like a refused connection.
            payload, truncated = _read_capped(resp, cap, deadline)
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
    attempt = {"started_at": started_at, "status": status, "error": error,
               "latency_ms": latency_ms}
    return attempt, response
