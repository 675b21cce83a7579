"""OpenAI Chat Completions, and the servers that speak it (Ollama, vLLM,
llama.cpp's server, LM Studio): ``POST {base}/chat/completions``.

Base URL from OPENAI_BASE_URL (default https://api.openai.com/v1); the key
from OPENAI_API_KEY, sent as ``Authorization: Bearer``, required only for the
OpenAI API itself (local servers may need none). JSON replies through
``response_format``: ``json_object`` by default (widely supported; the prompt
must say JSON), or ``json_schema`` with OPENAI_JSON_MODE=json_schema where the
server supports it. The token limit is sent as ``max_completion_tokens`` to
the OpenAI API (its current models refuse ``max_tokens``) and as
``max_tokens`` to other servers, which know that name.
"""

import json

from .base import Client, ProviderError, Reply, parse_json_text

DEFAULT_BASE = "https://api.openai.com/v1"


class OpenAI(Client):
    name = "openai"

    def __init__(self, environ, policy=None):
        super().__init__(environ, policy)
        self.base = (environ.get("OPENAI_BASE_URL") or DEFAULT_BASE).rstrip("/")
        self.key = environ.get("OPENAI_API_KEY") or None
        self.official = self.base == DEFAULT_BASE
        if self.official and not self.key:
            raise ProviderError("no provider configured: openai needs OPENAI_API_KEY "
                                "(or OPENAI_BASE_URL for a local server)")
        self.secrets = [self.key] if self.key else []
        self.json_mode = environ.get("OPENAI_JSON_MODE") or "json_object"
        if self.json_mode not in ("json_object", "json_schema"):
            raise ProviderError("OPENAI_JSON_MODE must be json_object or json_schema")

    @property
    def url(self):
        return self.base + "/chat/completions"

    def error_of(self, status, headers, body):
        try:
            error = json.loads(body).get("error") or {}
        except (ValueError, AttributeError, RecursionError):
            return None, body[:200] if body else None, None
        if not isinstance(error, dict):
            return None, str(error)[:200], None
        kind = error.get("code") or error.get("type")
        retryable = False if "insufficient_quota" in (error.get("code"), error.get("type")) else None
        return kind, error.get("message"), retryable

    def body(self, req):
        body = {"model": req.model,
                "messages": [{"role": "system", "content": req.system},
                             {"role": "user", "content": req.user}]}
        body["max_completion_tokens" if self.official else "max_tokens"] = req.max_tokens
        if req.temperature is not None:
            body["temperature"] = req.temperature
        if req.schema is not None:
            if self.json_mode == "json_schema":
                body["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": req.schema_name, "schema": req.schema, "strict": False}}
            else:
                body["response_format"] = {"type": "json_object"}
        return body

    def call(self, req):
        def headers(url, data):
            out = {"Content-Type": "application/json", "Accept": "application/json"}
            if self.key:
                out["Authorization"] = f"Bearer {self.key}"
            return out

        doc, raw, attempts = self.post(self.url, headers, self.body(req), req.timeout)
        try:
            choice = doc["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise ProviderError("openai: HTTP 200 but no choices[0].message in the reply",
                                attempts, 200, raw) from None
        text = message.get("content") if isinstance(message, dict) else None
        stop = choice.get("finish_reason")
        usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
        usage = {"input_tokens": usage.get("prompt_tokens"),
                 "output_tokens": usage.get("completion_tokens")}
        if not isinstance(text, str):
            refusal = message.get("refusal") if isinstance(message, dict) else None
            return Reply("", None, usage, raw, attempts, doc.get("model"), stop,
                         f"no text in the reply{': refusal: ' + refusal if refusal else ''}")
        data, problem = (None, None)
        if req.schema is not None:
            data, problem = parse_json_text(text)
            if stop == "length":
                data, problem = None, "reply cut off at the token limit"
        return Reply(text, data, usage, raw, attempts, doc.get("model"), stop, problem)
