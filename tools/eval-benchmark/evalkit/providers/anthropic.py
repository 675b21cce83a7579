"""Anthropic Messages API: ``POST {base}/v1/messages``.

Headers ``x-api-key`` (ANTHROPIC_API_KEY) and ``anthropic-version``
(2023-06-01); ``max_tokens`` is always sent, as the API requires. JSON replies
come through a forced tool (``tools`` with the schema as ``input_schema`` and
``tool_choice`` of type ``tool``), read from the ``tool_use`` block's
``input``; not through a prefilled assistant turn, which some models reject.
Base URL from ANTHROPIC_BASE_URL (default https://api.anthropic.com).
Error bodies are ``{"type": "error", "error": {"type", "message"}}``; 529
(overloaded) is retried like a 5xx.
"""

import json

from ..responses import anthropic_text
from .base import Client, ProviderError, Reply

DEFAULT_BASE = "https://api.anthropic.com"
VERSION = "2023-06-01"


class Anthropic(Client):
    name = "anthropic"

    def __init__(self, environ, policy=None):
        super().__init__(environ, policy)
        self.base = (environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE).rstrip("/")
        self.key = environ.get("ANTHROPIC_API_KEY") or None
        if not self.key:
            raise ProviderError("no provider configured: anthropic needs ANTHROPIC_API_KEY")
        self.secrets = [self.key]

    def error_of(self, status, headers, body):
        try:
            error = json.loads(body).get("error") or {}
            return error.get("type"), error.get("message"), None
        except (ValueError, AttributeError, RecursionError):
            return None, body[:200] if body else None, None

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

    def call(self, req):
        def headers(url, data):
            return {"Content-Type": "application/json", "x-api-key": self.key,
                    "anthropic-version": VERSION}

        doc, raw, attempts = self.post(self.base + "/v1/messages", headers, self.body(req),
                                       req.timeout)
        content = doc.get("content") if isinstance(doc, dict) else None
        if not isinstance(content, list):
            raise ProviderError("anthropic: HTTP 200 but no content list in the reply",
                                attempts, 200, raw)
        usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
        usage = {"input_tokens": usage.get("input_tokens"),
                 "output_tokens": usage.get("output_tokens")}
        stop = doc.get("stop_reason")
        text = anthropic_text(doc)
        if req.schema is None:
            return Reply(text, None, usage, raw, attempts, doc.get("model"), stop)
        tool = next((b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"
                     and b.get("name") == req.schema_name), None)
        if tool is None or not isinstance(tool.get("input"), dict):
            return Reply(text, None, usage, raw, attempts, doc.get("model"), stop,
                         "no tool_use block with an object input in the reply")
        if stop == "max_tokens":
            return Reply(json.dumps(tool["input"], ensure_ascii=False), None, usage, raw,
                         attempts, doc.get("model"), stop, "reply cut off at max_tokens")
        return Reply(json.dumps(tool["input"], ensure_ascii=False, sort_keys=True), tool["input"],
                     usage, raw, attempts, doc.get("model"), stop)
