"""Headless Chromium for the tests that run a page's script, driven through
its DevTools protocol with the standard library only.

The standard library has no browser: where no Chromium is installed
(``CHROMIUM`` is None) those tests skip. ``Chromium`` starts one on a
profile of its own in a temporary folder (``--remote-debugging-port=0``: the
port it took is read from the DevToolsActivePort file it writes there) and
speaks the protocol over one WebSocket (RFC 6455: the HTTP upgrade, each
frame the client sends masked). ``Tab`` is a page of its own: open a URL,
reload, evaluate a script, type text as a keyboard does, set the viewport's
width, take a screenshot, close. Only loopback is contacted: the pages are
``file://`` or a loopback server's, and the flags turn off what Chromium
would fetch by itself.
"""

import base64
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time

from tests.support import HANG

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
# RFC 6455: the server proves it read the key by hashing it with this.
WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class DevToolsError(Exception):
    """Chromium did not start, answered with an error, or a script threw."""


class WebSocket:
    """A client WebSocket over one socket: text messages out (masked),
    messages in (fragments joined, a ping answered)."""

    def __init__(self, port, path):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=HANG)
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           ).encode("ascii"))
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        accept = base64.b64encode(hashlib.sha1((key + WEBSOCKET_GUID).encode("ascii"))
                                  .digest()).decode("ascii")
        accepted = {k.lower(): v for k, v in headers.items()}.get("sec-websocket-accept")
        if " 101 " not in lines[0] + " " or accepted != accept:
            raise DevToolsError(f"no WebSocket upgrade: {lines[0]}")

    def _recv(self):
        data = self.sock.recv(1 << 16)
        if not data:
            raise DevToolsError("Chromium closed the connection")
        return data

    def _read(self, n):
        while len(self.buffer) < n:
            self.buffer += self._recv()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _frame(self, opcode, payload):
        n = len(payload)
        length = (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
                  if n < 1 << 16 else bytes([0x80 | 127]) + struct.pack("!Q", n))
        mask = os.urandom(4)
        keys = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(keys, "big")).to_bytes(n, "big")
        self.sock.sendall(bytes([0x80 | opcode]) + length + mask + masked)

    def send(self, text):
        self._frame(0x1, text.encode("utf-8"))

    def receive(self):
        """The next text message."""
        parts = []
        while True:
            first, second = self._read(2)
            n = second & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._read(8))
            data = self._read(n)  # a server's frames are not masked
            opcode = first & 0x0F
            if opcode == 0x8:
                raise DevToolsError("Chromium closed the WebSocket")
            if opcode == 0x9:
                self._frame(0xA, data)
            elif opcode in (0x0, 0x1, 0x2):
                parts.append(data)
                if first & 0x80:
                    return b"".join(parts).decode("utf-8")

    def close(self):
        self.sock.close()


class Chromium:
    """One headless Chromium on a profile of its own; ``close`` ends it and
    removes the profile. Its profile outlives a tab: what a page stored in
    the browser is there for the next tab, as after a closed tab."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="chromium-")
        profile = os.path.join(self.folder, "profile")
        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, "--remote-debugging-port=0", f"--user-data-dir={profile}",
             "about:blank"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        self.socket, self.events, self.last_id = None, [], 0
        try:
            self.socket = WebSocket(*self._port(os.path.join(profile, "DevToolsActivePort")))
        except BaseException:
            self.close()
            raise

    def _port(self, path):
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DevToolsError(f"Chromium ended at start (exit {self.process.returncode})")
            try:
                with open(path, encoding="utf-8") as fh:
                    lines = fh.read().split("\n")
                if len(lines) >= 2 and lines[1]:
                    return int(lines[0]), lines[1]
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise DevToolsError(f"Chromium wrote no {path} in {HANG} s")

    def call(self, method, session=None, **params):
        """The result of one command (of a tab's ``session``)."""
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        while True:
            reply = json.loads(self.socket.receive())
            if reply.get("id") == self.last_id:
                if "error" in reply:
                    raise DevToolsError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method, session):
        """The next event ``method`` of ``session``."""
        while True:
            for event in self.events:
                if event["method"] == method and event.get("sessionId") == session:
                    self.events.remove(event)
                    return event
            reply = json.loads(self.socket.receive())
            if "method" in reply:
                self.events.append(reply)

    def tab(self, width=1280, height=900):
        return Tab(self, width, height)

    def close(self):
        if self.socket:
            try:
                self.call("Browser.close")
            except (DevToolsError, OSError):
                pass
            self.socket.close()
        try:
            self.process.wait(HANG)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)  # its own session: its own processes
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class Tab:
    """A page of its own in ``browser``, its viewport ``width`` CSS pixels."""

    def __init__(self, browser, width, height):
        self.browser = browser
        self.target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = browser.call("Target.attachToTarget", targetId=self.target,
                                    flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def call(self, method, **params):
        return self.browser.call(method, self.session, **params)

    def _loaded(self, method, **params):
        self.browser.events = [ev for ev in self.browser.events
                               if ev.get("sessionId") != self.session]
        result = self.call(method, **params)
        if result.get("errorText"):
            raise DevToolsError(f"{method} {params}: {result['errorText']}")
        self.browser.wait_for("Page.loadEventFired", self.session)

    def open(self, url):
        """Load ``url`` and wait for its load event."""
        self._loaded("Page.navigate", url=url)

    def reload(self):
        self._loaded("Page.reload")

    def follow(self, expression):
        """Run ``expression`` (a click on a link, a form sent) and wait for
        the page it loads."""
        self._loaded("Runtime.evaluate", expression=expression)

    def evaluate(self, expression):
        """The value of ``expression`` (JSON-like), awaited if a promise."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise DevToolsError(details.get("exception", {}).get("description")
                                or details.get("text"))
        return result["result"].get("value")

    def type(self, text):
        """``text`` typed into the focused element, as a keyboard's input."""
        self.call("Input.insertText", text=text)

    def screenshot(self, path):
        """The whole page as a PNG at ``path``."""
        data = self.call("Page.captureScreenshot", format="png",
                         captureBeyondViewport=True)["data"]
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(data))

    def close(self):
        self.browser.call("Target.closeTarget", targetId=self.target)
