"""Anthropic Messages API: ``POST {base}/v1/messages``.

Headers ``x-api-key`` (ANTHROPIC_API_KEY) and ``anthropic-version``
(2023-06-01); ``max_tokens`` is always sent, as the API requires. JSON replies
come through a forced tool (``tools`` with the schema as ``input_schema`` and
``tool_choice`` of type ``tool``), read from the ``tool_use`` block's
``input``; not through a prefilled assistant turn, which some models reject.
Base URL from ANTHROPIC_BASE_URL (default https://api.anthropic.com).
Error bodies are ``{"type": "error", "error": {"type", "message"}}``; 529
(overloaded) is retried like a 5xx. Fatal, with the fix named: 401 and 403
(the key), a 404 (``not_found_error``: the model, when its message names
one, else the URL: ANTHROPIC_BASE_URL is the host, without ``/v1``). A reply
that stopped at ``max_tokens`` (or at the model's context window) is marked
``truncated``.
"""

import json

from ...responses import anthropic_text, parse_received
from .base import Client, ProviderError
from .messages import Reply, count_or_zero, is_count, usage_record
from .errors import Failure, FatalProviderError, checked_base, fold
from .toolloop import NOT_A_CALL, checked_call, resent

# Both say the reply was cut off before the model finished it.
CUT_OFF = ("max_tokens", "model_context_window_exceeded")

DEFAULT_BASE = "https://api.anthropic.com"
VERSION = "2023-06-01"


class Anthropic(Client):
    name = "anthropic"
    key_hint = "check ANTHROPIC_API_KEY"

    def __init__(self, environ, policy=None):
        super().__init__(environ, policy)
        self.base = checked_base("ANTHROPIC_BASE_URL",
                                 (environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE).rstrip("/"))
        self.key = environ.get("ANTHROPIC_API_KEY") or None
        if not self.key:
            raise FatalProviderError("no provider configured: anthropic needs ANTHROPIC_API_KEY")
        self.secrets = [self.key]
        self.refuse_unsendable("ANTHROPIC_API_KEY", self.key, "the x-api-key header")

    def json_mode_of(self, req):
        return None if req.schema is None else "forced_tool"

    def error_of(self, status, headers, body):
        try:
            error = parse_received(body).get("error") or {}
            kind, message = error.get("type"), fold(error.get("message"))
        except (ValueError, AttributeError, RecursionError):
            kind, message = None, fold(body) or None
        if status != 404:
            return Failure(kind, message)
        if (message or "").startswith("model:"):  # the API's words for a model it does not have
            return Failure(kind, message, fatal=True,
                           hint="check the model name (--model or BENCH_MODEL)")
        hint = ("ANTHROPIC_BASE_URL is the host, without /v1: try " + self.base[:-3]
                if self.base.endswith("/v1") else "check ANTHROPIC_BASE_URL")
        return Failure(kind, message, fatal=True, hint=hint)

    def usage_of(self, doc):
        """``usage.input_tokens`` counts only the input after the last cache
        breakpoint: every input token is it plus ``cache_read_input_tokens``
        and ``cache_creation_input_tokens``."""
        api = doc.get("usage")
        usage = api if isinstance(api, dict) else {}
        fresh, read, write = (usage.get(k) for k in ("input_tokens", "cache_read_input_tokens",
                                                      "cache_creation_input_tokens"))
        total = fresh + count_or_zero(read) + count_or_zero(write) if is_count(fresh) else None
        return usage_record(api, total, usage.get("output_tokens"), read, write)

    def body(self, req):
        body = {"model": req.model, "max_tokens": req.max_tokens, "system": req.system,
                "messages": [{"role": "user", "content": req.user}]}
        if req.temperature is not None:
            body["temperature"] = req.temperature
        if req.schema is not None:
            body["tools"] = [{"name": req.schema_name,
                              "description": "Record the reply in this exact structure.",
                              "input_schema": req.schema}]
            body["tool_choice"] = {"type": "tool", "name": req.schema_name}
        return body

    def headers(self, url, data):
        return {"Content-Type": "application/json", "x-api-key": self.key,
                "anthropic-version": VERSION}

    def url_for(self, model):
        return self.base + "/v1/messages"

    def call(self, req):
        doc, raw, attempts, usage = self.post(self.url_for(req.model), self.headers,
                                              self.body(req), req.timeout)
        return self.reply_of(req, doc, raw, attempts, usage)

    def reply_of(self, req, doc, raw, attempts, usage):
        """The Reply of a success body (the plain call's, and a tool loop's last)."""
        content = doc.get("content") if isinstance(doc, dict) else None
        if not isinstance(content, list):
            raise ProviderError("anthropic: HTTP 200 but no content list in the reply "
                                f"({self.where(self.url_for(req.model))})", attempts, 200, raw)
        stop = doc.get("stop_reason")
        cut = stop in CUT_OFF
        text = anthropic_text(doc)
        if req.schema is None:
            return Reply(text, None, usage, raw, attempts, doc.get("model"), stop, truncated=cut)
        tool = next((b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"
                     and b.get("name") == req.schema_name), None)
        if tool is None or not isinstance(tool.get("input"), dict):
            return Reply(text, None, usage, raw, attempts, doc.get("model"), stop,
                         "no tool_use block with an object input in the reply", cut)
        if cut:
            return Reply(json.dumps(tool["input"], ensure_ascii=False), None, usage, raw,
                         attempts, doc.get("model"), stop, f"reply cut off at {stop}", True)
        return Reply(json.dumps(tool["input"], ensure_ascii=False, sort_keys=True), tool["input"],
                     usage, raw, attempts, doc.get("model"), stop)

    # The tool loop (toolloop.py) in the Messages API's words: ``tools`` with an
    # ``input_schema``, the reply's ``tool_use`` blocks, then one user message
    # of ``tool_result`` blocks (``is_error`` on a call not run). With a schema
    # the answer tool is offered last and ``tool_choice: any`` makes the model
    # end by calling it; without one it ends with text.

    def check_tools(self, req):
        pass  # every current model takes tools

    def tools_body(self, req, tools):
        body = self.body(req)
        answer = body.get("tools", [])
        body["tools"] = [{"name": t["name"], "description": t["description"],
                          "input_schema": t["input"]} for t in tools] + answer
        body["tool_choice"] = {"type": "any" if answer else "auto"}
        return body

    def force_answer(self, body, req):
        body["tool_choice"] = ({"type": "tool", "name": req.schema_name}
                               if req.schema is not None else {"type": "none"})

    def tool_calls(self, req, doc):
        """The lookups asked for; none once the answer tool is called."""
        content = doc.get("content") if isinstance(doc, dict) else None
        blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
            if isinstance(content, list) else []
        if req.schema is not None and any(b.get("name") == req.schema_name for b in blocks):
            return []
        return [checked_call(b.get("id"), b.get("name"), b.get("input")) for b in blocks]

    def add_results(self, body, doc, calls, note):
        results = [dict({"type": "tool_result", "tool_use_id": c["id"], "content": c["result"]},
                        **({"is_error": True} if c["error"] else {})) for c in calls]
        if note:
            results.append({"type": "text", "text": note})  # after the results, as the API asks
        # The tool_use blocks go back by position, under their results' ids.
        content = resent(doc["content"], calls,
                         lambda b: b.get("id") if isinstance(b, dict) and
                         b.get("type") == "tool_use" else NOT_A_CALL,
                         lambda b, call_id: dict(b, id=call_id))
        body["messages"] += [{"role": "assistant", "content": content},
                             {"role": "user", "content": results}]
