#!/usr/bin/env python3
"""The reference assistant: serves the demo sites and answers the widget protocol.

    python tools/demo-assistant/server.py [--host 127.0.0.1] [--port 0]
        [--port-file FILE] [--sites DIR] [--quiet]

GET  /demo/{site}/{lang}/[NAME/]   the demo pages, as files on disk
POST /api/query                    {"question", "page_url", "key"} ->
                                   {"answer", "sources": [{"url", "title"}], "grounded"}

It checks the site's public widget key (401 otherwise), the JSON body (400),
its size (413 over 64 KB) and the page URL (400 when it is not a page of the
key's site), retrieves only from the pages of the visitor's site and language
(retrieval.py) and answers with the best sentence(s) and their pages as
sources, or declines in the visitor's language, pointing to the phone, with
``grounded: false``. The same question always gets the same answer. Every
response carries ``X-Assistant-Version``; one line per request goes to stderr.

It binds 127.0.0.1 and port 0 (a free port) by default, prints the address
it got on stderr with its query URL as a run takes it
(``ENDPOINT=http://127.0.0.1:PORT/api/query``, for make run; the same URL
in BENCH_ENDPOINT or run.py's --endpoint) and, with --port-file, writes the
port to that file; SIGTERM and Ctrl-C stop it cleanly.
"""

import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pages  # noqa: E402
import retrieval  # noqa: E402

VERSION = "0.1.0"
NAME = f"demo-assistant {VERSION}"
MAX_BODY = 64 * 1024
DEFAULT_SITES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Documents",
                             "c4-benchmark", "sites")


class Assistant:
    """The sites and one retrieval index per site language."""

    def __init__(self, sites_dir):
        self.sites = pages.load_sites(sites_dir)
        self.by_key = {site.widget_key: site for site in self.sites}
        self.indexes = {site.widget_key: retrieval.Index(site) for site in self.sites}
        self.files = {}
        for site in self.sites:
            for page in site.pages:
                self.files[urlsplit(page.url).path] = page.path

    def page_of(self, site, page_url):
        """True when page_url is one of the site's pages (any host: the
        visitor may browse the public name or this loopback server)."""
        try:
            path = urlsplit(page_url.strip()).path or "/"
        except ValueError:
            return False
        if not path.endswith("/"):
            path += "/"
        return path.startswith(site.prefix) and path in self.files

    def query(self, body):
        """``(status, reply)`` for one parsed request body."""
        if not isinstance(body, dict):
            return 400, {"error": "bad_request", "message": "the body must be a JSON object"}
        key = body.get("key")
        site = self.by_key.get(key) if isinstance(key, str) else None
        if site is None:
            return 401, {"error": "invalid_key", "message": "unknown widget key"}
        question = body.get("question")
        if not isinstance(question, str) or not question.strip() or len(question) > 4000:
            return 400, {"error": "bad_request",
                         "message": "question must be a non-empty string of at most 4000 characters"}
        page_url = body.get("page_url")
        if not isinstance(page_url, str) or not self.page_of(site, page_url):
            return 400, {"error": "bad_request",
                         "message": "page_url is not a page of this site"}
        text, sources, grounded = retrieval.answer(self.indexes[key], site, question)
        return 200, {"answer": text, "sources": sources, "grounded": grounded}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "demo-assistant/" + VERSION

    def log_message(self, fmt, *args):
        pass  # one line per request is written by _log instead

    def _log(self, status, started, note=""):
        # Called before the reply is written: a client that has its answer
        # finds the request's line in the log, even when the server is
        # stopped right after (handler threads are daemons, cut off at exit).
        if not self.server.quiet:
            ms = int((time.monotonic() - started) * 1000 + 0.5)
            sys.stderr.write(f"{self.command} {self.path} {status} {ms} ms{note}\n")
            sys.stderr.flush()

    def _send(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Assistant-Version", NAME)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status, obj):
        self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"),
                   "application/json; charset=utf-8")

    def do_GET(self):
        started = time.monotonic()
        path = urlsplit(self.path).path
        if not path.endswith("/") and path + "/" in self.server.assistant.files:
            path += "/"
        file = self.server.assistant.files.get(path)
        if file is None:
            self._log(404, started)
            return self._send(404, b"not found\n", "text/plain; charset=utf-8")
        with open(file, "rb") as fh:
            page = fh.read()
        self._log(200, started)
        self._send(200, page, "text/html; charset=utf-8")

    do_HEAD = do_GET

    def do_POST(self):
        started = time.monotonic()
        if urlsplit(self.path).path != "/api/query":
            self._log(404, started)
            return self._json(404, {"error": "not_found", "message": "POST /api/query"})
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self.close_connection = True
            self._log(411, started)
            return self._json(411, {"error": "length_required", "message": "send Content-Length"})
        if int(length) > MAX_BODY:
            self.close_connection = True  # the body is not read, so the connection is done
            self._log(413, started)
            return self._json(413, {"error": "too_large", "message": f"at most {MAX_BODY} bytes"})
        raw = self.rfile.read(int(length))
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            self._log(400, started)
            return self._json(400, {"error": "bad_request", "message": "the body is not UTF-8 JSON"})
        status, reply = self.server.assistant.query(body)
        key = body.get("key") if isinstance(body, dict) else None
        self._log(status, started, f" {key}" if isinstance(key, str) and len(key) < 40 else "")
        self._json(status, reply)


def make_server(host="127.0.0.1", port=0, sites_dir=DEFAULT_SITES, quiet=False,
                assistant=None):
    assistant = assistant or Assistant(sites_dir)
    httpd = ThreadingHTTPServer((host, port), Handler)
    httpd.daemon_threads = True
    httpd.assistant = assistant
    httpd.quiet = quiet
    return httpd


def base_url(host, port):
    """``http://HOST:PORT/``, an IPv6 address in brackets as URLs write it."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="server.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 takes a free port (default)")
    parser.add_argument("--port-file", help="write the port here once listening")
    parser.add_argument("--sites", default=DEFAULT_SITES, help="the demo sites folder")
    parser.add_argument("--quiet", action="store_true", help="no request log")
    args = parser.parse_args(argv)
    try:
        assistant = Assistant(args.sites)
    except (OSError, ValueError, KeyError) as exc:
        print(f"server.py: {args.sites}: cannot load the demo sites: {exc}", file=sys.stderr)
        return 2
    try:
        httpd = make_server(args.host, args.port, quiet=args.quiet, assistant=assistant)
    except OSError as exc:
        print(f"server.py: cannot listen on {args.host}:{args.port}: {exc.strerror}",
              file=sys.stderr)
        return 2
    port = httpd.server_address[1]
    stop = threading.Event()

    def on_signal(signum, frame):
        # shutdown() waits for serve_forever to return, so it runs in a thread.
        if not stop.is_set():
            stop.set()
            threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(f"{port}\n")
        os.replace(tmp, args.port_file)
    base = base_url(args.host, port)
    print(f"server.py: {NAME} listening on {base}; the query URL: ENDPOINT={base}api/query",
          file=sys.stderr, flush=True)
    try:
        httpd.serve_forever(poll_interval=0.1)
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
