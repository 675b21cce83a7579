"""Loopback servers that speak the real wire formats of the model APIs.

``ModelServer(flavour)`` listens on 127.0.0.1 (port 0) and answers
``POST /v1/chat/completions`` (openai), ``POST /v1/messages`` (anthropic) or
``POST /model/{id}/converse`` (bedrock) with success bodies shaped as each API
shapes them, built from ``reply(request_json) -> text or dict``. Tests queue
scripted replies first (``script``): an error body exactly as the API shapes
it (``error(...)``), retry headers, a slow reply, a malformed one. The
bedrock flavour verifies the SigV4 signature of every request it receives
and answers 403 InvalidSignatureException when it does not match.

Options, off by default: ``strict_paths`` answers a path the API does not
have with 404, as the servers do (FastAPI's ``{"detail": "Not Found"}`` for
openai, the API's ``not_found_error`` for anthropic, a bare 404 for
bedrock); ``forced_tool=False`` plays a Bedrock model without
``toolChoice.tool`` (Llama, Mistral, Titan), which answers a request that
forces a tool with 400 ValidationException in the service's words. A JSON
reply to a Bedrock request without a tool comes back as text. Success
bodies carry each API's usage object in its own fields (``USAGE``);
``usage=None`` plays a server that reports none, a dict another usage.
``rate=(rpm, burst)`` enforces a rate limit as the APIs do: a TokenBucket
(tools/bench/ratelimit.py, which the bench's rate-limited provider keeps too)
of ``rpm`` requests a minute holding at most ``burst``; a request past it is
answered 429 in the API's shape with ``retry-after`` (whole seconds until
the next token, at least 1), and counted in ``throttled``. ``delay`` is the
seconds before each success reply, or a function of no arguments that
returns them, called for each success reply under the server's lock: a
model's latency, drawn from a seeded ``random.Random`` in the seed's
sequence.

Every success body says it comes from a stand-in: ``"stand_in": true`` at its
top level, a field no real API sends, so that ai_eval.py labels a run it
answered ``example`` (evalkit/aieval/resultfile.py). The ``model`` it reports is the
one asked for, as Ollama and llama.cpp's server report it. To play a real
model server on this machine (a local run), pass ``stand_in=False`` and,
for a server that reports another name than the one asked for,
``served_model="..."``.

Tool use, in each API's own shape: a reply of ``calling((id, name,
arguments), ...)`` is a turn in which the model calls those tools (OpenAI's
``tool_calls`` with the arguments as a JSON text, Anthropic's ``tool_use``
blocks, Converse's ``toolUse`` blocks; stop reason ``tool_calls`` or
``tool_use``). A str of arguments is sent as it is (a malformed call), a name
of None is left out. ``conversation(turn, ...)`` is a ``reply`` that plays
the turns in order, one per request, the last again past the end (a model
that never stops calling tools). A dict reply to an Anthropic or Bedrock
request whose tool choice names no tool calls the last tool offered (where
the tool loop puts the answer tool). ``tools=False`` plays a model that takes
no tools: Ollama's 400 "does not support tools" for openai, the service's
400 ValidationException for bedrock.
"""

import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler

from tests.support import ROOT, LoopbackServer
from evalkit.asking.providers.sigv4 import sign

sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import ratelimit  # noqa: E402  (the bench's rate-limited provider keeps the same limit)

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


def error(flavour, status, kind, message, headers=None, code=None):
    """A scripted error reply in the API's own shape."""
    headers = dict(headers or {})
    if flavour == "openai":
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    elif flavour == "anthropic":
        body = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        headers["x-amzn-ErrorType"] = f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"
        body = {"message": message}
    return {"status": status, "headers": headers, "body": json.dumps(body).encode()}


def raw(status, body, headers=None, delay=0.0):
    return {"status": status, "headers": headers or {}, "body": body, "delay": delay}


# Each API's usage object, in its own fields, as a reply without a prompt
# cache carries it (11 tokens in, 7 out).
USAGE = {"openai": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18,
                    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                                  "accepted_prediction_tokens": 0,
                                                  "rejected_prediction_tokens": 0}},
         "anthropic": {"input_tokens": 11, "output_tokens": 7, "cache_creation_input_tokens": 0,
                       "cache_read_input_tokens": 0, "service_tier": "standard"},
         "bedrock": {"inputTokens": 11, "outputTokens": 7, "totalTokens": 18}}


def success(flavour, request, content, stop=None, usage=True, stand_in=True, served_model=None):
    """The API's success body for ``content`` (a str, or a dict for a tool/JSON reply).
    ``usage``: True for USAGE, a dict for another usage object, or None for
    none (a server that reports no usage: llama.cpp's older builds, say).
    ``stand_in``: the body says it is a stand-in's; ``served_model``: the
    model it reports instead of the one asked for (Bedrock reports none)."""
    body = _success(flavour, request, content, stop)
    usage = json.loads(json.dumps(USAGE[flavour])) if usage is True else usage
    if usage is None:
        del body["usage"]
    else:
        body["usage"] = usage
    if served_model is not None and "model" in body:
        body["model"] = served_model
    if stand_in:
        body["stand_in"] = True
    return body


class ToolCalls(list):
    """A scripted turn in which the model calls tools: ``(id, name, arguments)`` each."""


def calling(*calls):
    return ToolCalls(calls)


def conversation(*turns):
    """A ``reply`` that plays ``turns`` in order, the last one again past the end."""
    played = []

    def reply(request):
        turn = turns[min(len(played), len(turns) - 1)]
        played.append(turn)
        return turn
    return reply


def _tool_call_body(flavour, request, calls):
    """The success body of a turn that calls tools, in the API's own shape."""
    model = request.get("model", "model-from-path")
    if flavour == "openai":
        tool_calls = [{"id": i, "type": "function", "function": dict(
            {"arguments": a if isinstance(a, str) else json.dumps(a)},
            **({"name": n} if n is not None else {}))} for i, n, a in calls]
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": None,
                                                     "tool_calls": tool_calls},
                             "finish_reason": "tool_calls"}], "usage": {}}
    if flavour == "anthropic":
        blocks = [dict({"type": "tool_use", "id": i, "input": a},
                       **({"name": n} if n is not None else {})) for i, n, a in calls]
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": "tool_use", "stop_sequence": None,
                "usage": {}}
    blocks = [{"toolUse": dict({"toolUseId": i, "input": a}, **({"name": n} if n is not None
                                                                 else {}))} for i, n, a in calls]
    return {"output": {"message": {"role": "assistant", "content": blocks}},
            "stopReason": "tool_use", "usage": {}, "metrics": {"latencyMs": 5}}


def _answer_tool(flavour, request):
    """The tool a dict reply calls: the one the tool choice names, else the last offered."""
    if flavour == "anthropic":
        return request["tool_choice"].get("name") or request["tools"][-1]["name"]
    choice = request["toolConfig"].get("toolChoice") or {}
    return (choice.get("tool") or {}).get("name") or \
        request["toolConfig"]["tools"][-1]["toolSpec"]["name"]


def _success(flavour, request, content, stop):
    if isinstance(content, ToolCalls):
        return _tool_call_body(flavour, request, content)
    model = request.get("model", "model-from-path")
    if flavour == "openai":
        text = content if isinstance(content, str) else json.dumps(content)
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": stop or "stop"}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}
    if flavour == "anthropic":
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}]
        else:
            blocks = [{"type": "tool_use", "id": "toolu_1",
                       "name": _answer_tool(flavour, request), "input": content}]
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": stop or ("end_turn" if isinstance(content, str)
                                                           else "tool_use"),
                "stop_sequence": None, "usage": {"input_tokens": 11, "output_tokens": 7}}
    if isinstance(content, str) or "toolConfig" not in request:
        blocks = [{"text": content if isinstance(content, str) else json.dumps(content)}]
    else:
        name = _answer_tool(flavour, request)
        blocks = [{"toolUse": {"toolUseId": "tooluse_1", "name": name, "input": content}}]
    return {"output": {"message": {"role": "assistant", "content": blocks}},
            "stopReason": stop or ("tool_use" if "toolUse" in blocks[0] else "end_turn"),
            "usage": {"inputTokens": 11, "outputTokens": 7, "totalTokens": 18},
            "metrics": {"latencyMs": 5}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status, headers, body, delay=0.0):
        if delay:
            time.sleep(delay)
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(status)
        headers = dict(headers)
        headers.setdefault("Content-Type", "application/json")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _signature_problem(self, body):
        auth = self.headers.get("Authorization", "")
        try:
            fields = dict(part.strip().split("=", 1) for part in auth[len("AWS4-HMAC-SHA256 "):].split(","))
            access, date, region, service, _ = fields["Credential"].split("/")
            signed_names = fields["SignedHeaders"].split(";")
        except (ValueError, KeyError):
            return "no SigV4 Authorization header"
        if service != "bedrock":
            return f"signed for service {service}, not bedrock"
        headers = {name: self.headers.get(name, "") for name in signed_names
                   if name not in ("x-amz-date", "x-amz-security-token")}
        token = self.headers.get("X-Amz-Security-Token")
        url = f"http://{self.headers['Host']}{self.path}"
        expected, _creq, _sts = sign("POST", url, headers, body, access, AWS_SECRET, region,
                                     "bedrock", self.headers.get("X-Amz-Date", ""), token,
                                     sign_token="x-amz-security-token" in signed_names)
        if expected["Authorization"] != auth:
            return "The request signature we calculated does not match the signature you provided."
        return None

    def _refusal(self, request):
        """The reply of a real server to a path it does not have, or to a
        forced tool its model does not take; None when neither."""
        server = self.server
        if server.strict_paths and not _PATHS[server.flavour](self.path):
            if server.flavour == "openai":
                return raw(404, {"detail": "Not Found"})
            if server.flavour == "anthropic":
                return error("anthropic", 404, "not_found_error", "Not Found")
            return raw(404, b"", {"Content-Type": "text/plain"})
        if not server.tools and (request.get("tools") or request.get("toolConfig")):
            if server.flavour == "openai":
                return raw(400, {"error": f"registry.ollama.ai/library/{request.get('model')} "
                                          "does not support tools"})
            return error("bedrock", 400, "ValidationException",
                         "This model doesn't support tool use.")
        tool = ((request.get("toolConfig") or {}).get("toolChoice") or {}).get("tool")
        if server.flavour == "bedrock" and not server.forced_tool and tool:
            return error("bedrock", 400, "ValidationException",
                         "This model doesn't support the toolConfig.toolChoice.tool field. "
                         "Remove toolConfig.toolChoice.tool and try again.")
        return None

    def _over_the_rate(self):
        """The 429 of a request past the rate limit, or None."""
        server = self.server
        if server.bucket is None:
            return None
        with server.lock:
            wait = server.bucket.take()
            if wait is None:
                return None
            server.throttled += 1
        kind = {"openai": "rate_limit_exceeded", "anthropic": "rate_limit_error",
                "bedrock": "ThrottlingException"}[server.flavour]
        return error(server.flavour, 429, kind, "Rate limit reached for requests",
                     headers={"retry-after": str(wait)}, code=kind)

    def do_POST(self):
        server = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            request = json.loads(body)
        except ValueError:
            request = {}
        with server.lock:
            server.requests.append({"path": self.path,
                                    "headers": {k.lower(): v for k, v in self.headers.items()},
                                    "json": request, "body": body})
            refusal = self._refusal(request)
            scripted = server.script.pop(0) if server.script and refusal is None else None
        if server.flavour == "bedrock":
            problem = self._signature_problem(body)
            if problem:
                server.bad_signatures += 1
                reply = error("bedrock", 403, "InvalidSignatureException", problem)
                return self._send(reply["status"], reply["headers"], reply["body"])
        if not isinstance(request, dict) or "messages" not in request:
            # What a real API says of a body that is no chat request: a
            # client killed mid-send (tests/test_crash) leaves half a body.
            scripted = scripted or error(server.flavour, 400, "invalid_request_error",
                                         "the body is not a chat request")
        scripted = refusal or scripted or self._over_the_rate()
        if scripted is not None:
            return self._send(scripted["status"], scripted.get("headers", {}), scripted["body"],
                              scripted.get("delay", 0.0))
        content = server.reply(request)
        with server.lock:
            delay = server.delay() if callable(server.delay) else server.delay
        return self._send(200, {}, success(server.flavour, request, content, usage=server.usage,
                                           stand_in=server.stand_in,
                                           served_model=server.served_model), delay)


_PATHS = {"openai": lambda path: path == "/v1/chat/completions",
          "anthropic": lambda path: path == "/v1/messages",
          "bedrock": lambda path: path.startswith("/model/") and path.endswith("/converse")}


class ModelServer(LoopbackServer):
    def __init__(self, flavour, reply=None, script=None, delay=0.0, port=0, strict_paths=False,
                 forced_tool=True, usage=True, rate=None, tools=True, stand_in=True,
                 served_model=None):
        self.flavour = flavour
        super().__init__(_Handler, port=port, flavour=flavour, script=list(script or []),
                         stand_in=stand_in, served_model=served_model,
                         reply=reply or (lambda request: "Hello from the loopback model."),
                         bad_signatures=0, delay=delay, strict_paths=strict_paths,
                         forced_tool=forced_tool, usage=usage, throttled=0, tools=tools,
                         bucket=ratelimit.TokenBucket(*rate) if rate else None)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def queue(self, *replies):
        with self.httpd.lock:
            self.httpd.script.extend(replies)

    def environ(self):
        """The environment that points a provider at this server (fake keys)."""
        if self.flavour == "openai":
            return {"OPENAI_BASE_URL": self.base + "/v1", "OPENAI_API_KEY": "sk-test-FAKEKEY0123456789"}
        if self.flavour == "anthropic":
            return {"ANTHROPIC_BASE_URL": self.base, "ANTHROPIC_API_KEY": "sk-ant-test-FAKEKEY0123456789"}
        return {"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": self.base, "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
                "AWS_SECRET_ACCESS_KEY": AWS_SECRET, "AWS_SESSION_TOKEN": "FAKE-SESSION-TOKEN-42",
                "AWS_REGION": "us-east-1"}
