"""OpenAI Chat Completions, and the servers that speak it (Ollama, vLLM,
llama.cpp's server, LM Studio): ``POST {base}/chat/completions``.

Base URL from OPENAI_BASE_URL (default https://api.openai.com/v1); the key
from OPENAI_API_KEY, sent as ``Authorization: Bearer``, required only for the
OpenAI API itself (local servers may need none). JSON replies through
``response_format``: ``json_object`` by default (widely supported; the prompt
must say JSON), or ``json_schema`` with OPENAI_JSON_MODE=json_schema where the
server supports it; with OPENAI_JSON_MODE=none no ``response_format`` is sent
and the JSON is asked for in the prompt and read from the text, as for a
Bedrock model without a forced tool (jsonprompt.py). The token limit is sent as ``max_completion_tokens`` to
the OpenAI API (its current models refuse ``max_tokens``) and as
``max_tokens`` to other servers, which know that name.

Errors read in every shape such servers use (errors.json_error). Fatal, with
the fix named: 401 and 403 (the key), a model the server says does not
exist (OpenAI's ``model_not_found``, Ollama's and vLLM's "model ... not
found / does not exist"), a 404 for the endpoint (a base URL without
``/v1``), and a server that refuses the ``response_format`` sent (set the
other OPENAI_JSON_MODE), which no retry cures. A server or model that says it
takes no tools is neither retried nor fatal: the tool loop raises
toolloop.ToolsUnsupported, for the caller to fall back on. A reply that
stopped at the token limit (``finish_reason: length``) is marked ``truncated``.
"""

import re

from . import jsonprompt
from .base import Client, ProviderError, parse_json_text
from .messages import Reply, usage_record
from .errors import Failure, FatalProviderError, checked_base, json_error
from .toolloop import checked_call

DEFAULT_BASE = "https://api.openai.com/v1"
# A model the server does not have: Ollama's 'model "x" not found, try pulling
# it first', vLLM's 'The model `x` does not exist.', the OpenAI API's 400
# 'invalid model ID'.
_NO_MODEL = re.compile(r"\bmodel\b.*\b(not found|does not exist)|\binvalid model\b", re.IGNORECASE)
# A server that refuses the response_format sent: llama.cpp, LM Studio and
# others name the field or the type, and say it is not supported or must be
# another; llama-cpp-python's FastAPI says it "should be" 'text' or 'json_object'.
_JSON_MODE_REFUSED = re.compile(r"json_schema|json_object|response_format", re.IGNORECASE)
_REFUSAL = re.compile(r"not supported|unsupported|not implemented|unknown|must be|should be|"
                      r"is not one of|only supports|not allowed|invalid value", re.IGNORECASE)
# A server or model that takes no tools: Ollama's "... does not support tools",
# vLLM's '"auto" tool choice requires --enable-auto-tool-choice', llama.cpp's
# "tools param requires --jinja flag". A retry does not cure it; the caller
# falls back to passages in the prompt (toolloop.ToolsUnsupported).
_TOOLS_REFUSED = re.compile(r"\b(tools?|tool[ _]choice|function calling)\b.*\b(not supported|"
                            r"not support|unsupported|requires|not enabled|not implemented)|"
                            r"\b(does not|doesn't) support (tools|tool use|function)",
                            re.IGNORECASE)


# OPENAI_JSON_MODE: response_format json_object or json_schema, or none: no
# response_format, the JSON asked for in the prompt (jsonprompt.py), for a
# server that takes neither.
JSON_MODES = ("json_object", "json_schema", "none")


class OpenAI(Client):
    name = "openai"

    def __init__(self, environ, policy=None):
        super().__init__(environ, policy)
        self.base = checked_base("OPENAI_BASE_URL",
                                 (environ.get("OPENAI_BASE_URL") or DEFAULT_BASE).rstrip("/"))
        self.key = environ.get("OPENAI_API_KEY") or None
        self.official = self.base == DEFAULT_BASE
        if self.official and not self.key:
            raise FatalProviderError("no provider configured: openai needs OPENAI_API_KEY "
                                     "(or OPENAI_BASE_URL for a local server)")
        self.secrets = [self.key] if self.key else []
        self.refuse_unsendable("OPENAI_API_KEY", self.key, "the Authorization header")
        self.json_mode = environ.get("OPENAI_JSON_MODE") or "json_object"
        if self.json_mode not in JSON_MODES:
            raise FatalProviderError("OPENAI_JSON_MODE must be json_object, json_schema or none")
        self.key_hint = ("check OPENAI_API_KEY" if self.key else
                         "the server wants a key: set OPENAI_API_KEY")

    @property
    def url(self):
        return self.base + "/chat/completions"

    def error_of(self, status, headers, body):
        kind, message = json_error(body)
        text = f"{kind or ''} {message or ''}"
        if status in (400, 422, 500, 501) and _TOOLS_REFUSED.search(text):
            return Failure(kind, message, retryable=False, fatal=False,
                           hint="the server or model takes no tools")
        if "insufficient_quota" in text:
            return Failure(kind, message, retryable=False)  # a 429 that waiting does not cure
        if kind == "model_not_found" or (status in (400, 404) and _NO_MODEL.search(text)):
            return Failure(kind, message, fatal=True,
                           hint="check the model name (--model or BENCH_MODEL)")
        if _JSON_MODE_REFUSED.search(text) and _REFUSAL.search(text):
            other = "json_object" if self.json_mode == "json_schema" else "json_schema"
            return Failure(kind, message, fatal=True,
                           hint=f"the server does not take response_format {self.json_mode}: "
                                f"set OPENAI_JSON_MODE={other} (or none: JSON asked for in the "
                                "prompt)")
        if status == 404:
            hint = (f"OPENAI_BASE_URL usually ends in /v1: try {self.base}/v1"
                    if not self.base.endswith("/v1") else "check OPENAI_BASE_URL")
            return Failure(kind, message, fatal=True, hint=hint)
        return Failure(kind, message)

    def usage_of(self, doc):
        """``usage.prompt_tokens`` (cached ones included), ``completion_tokens``
        and ``prompt_tokens_details.cached_tokens``, as the OpenAI API and the
        servers that speak it report them (Ollama and llama.cpp: the first two)."""
        api = doc.get("usage")
        usage = api if isinstance(api, dict) else {}
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        return usage_record(api, usage.get("prompt_tokens"), usage.get("completion_tokens"), cached)

    def json_mode_of(self, req):
        return None if req.schema is None else self.json_mode

    def body(self, req):
        user = req.user
        if req.schema is not None and self.json_mode == "none":
            user += jsonprompt.instruction(req.schema)
        body = {"model": req.model,
                "messages": [{"role": "system", "content": req.system},
                             {"role": "user", "content": user}]}
        body["max_completion_tokens" if self.official else "max_tokens"] = req.max_tokens
        if req.temperature is not None:
            body["temperature"] = req.temperature
        if req.schema is not None and self.json_mode != "none":
            if self.json_mode == "json_schema":
                body["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": req.schema_name, "schema": req.schema, "strict": False}}
            else:
                body["response_format"] = {"type": "json_object"}
        return body

    def headers(self, url, data):
        out = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.key:
            out["Authorization"] = f"Bearer {self.key}"
        return out

    def url_for(self, model):
        return self.url

    def call(self, req):
        doc, raw, attempts, usage = self.post(self.url, self.headers, self.body(req), req.timeout)
        return self.reply_of(req, doc, raw, attempts, usage)

    def reply_of(self, req, doc, raw, attempts, usage):
        """The Reply of a success body (the plain call's, and a tool loop's last)."""
        try:
            choice = doc["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise ProviderError("openai: HTTP 200 but no choices[0].message in the reply "
                                f"({self.where(self.url)})", attempts, 200, raw) from None
        text = message.get("content") if isinstance(message, dict) else None
        stop = choice.get("finish_reason")
        if not isinstance(text, str):
            refusal = message.get("refusal") if isinstance(message, dict) else None
            return Reply("", None, usage, raw, attempts, doc.get("model"), stop,
                         f"no text in the reply{': refusal: ' + refusal if refusal else ''}",
                         stop == "length")
        data, problem = (None, None)
        truncated = stop == "length"
        if req.schema is not None:
            data, problem = self.read_json(text, req)
            if truncated:
                data, problem = None, "reply cut off at the token limit"
        return Reply(text, data, usage, raw, attempts, doc.get("model"), stop, problem, truncated)

    # The tool loop (toolloop.py) in Chat Completions' words: ``tools`` of type
    # function, the assistant's ``tool_calls`` (arguments as a JSON text), one
    # ``role: tool`` message per call with its ``tool_call_id``.

    def check_tools(self, req):
        pass  # a server that takes no tools says so (tools_refused)

    def tools_refused(self, exc):
        return bool(exc.status in (400, 422, 500, 501) and
                    _TOOLS_REFUSED.search(" ".join(str(x) for x in json_error(exc.raw or "") if x)))

    def tools_body(self, req, tools):
        body = self.body(req)
        # JSON only where no tool can be called (force_answer): offered tools
        # and asked for a JSON reply at once, a model writes its "call" as
        # JSON text instead of calling (Qwen2.5 on llama.cpp, every time).
        body.pop("response_format", None)
        body["tools"] = [{"type": "function",
                          "function": {"name": t["name"], "description": t["description"],
                                       "parameters": t["input"]}} for t in tools]
        body["tool_choice"] = "auto"
        return body

    def force_answer(self, body, req):
        body["tool_choice"] = "none"
        if "response_format" in self.body(req):
            body["response_format"] = self.body(req)["response_format"]

    def unreadable_answer(self, req, doc):
        if req.schema is None:
            return False
        try:
            text = doc["choices"][0]["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            return False  # reply_of says what is wrong with the body
        return isinstance(text, str) and self.read_json(text, req)[0] is None

    def read_json(self, text, req):
        """``(data, problem)`` of a reply's text: the JSON object of
        response_format, or with OPENAI_JSON_MODE=none the one asked for in
        the prompt (a Markdown fence around it allowed, jsonprompt.read)."""
        return jsonprompt.read(text, req.schema) if self.json_mode == "none" \
            else parse_json_text(text)

    def ask_for_answer(self, body, doc, note):
        body["messages"].append({"role": "assistant",
                                 "content": doc["choices"][0]["message"]["content"]})
        body["messages"].append({"role": "user", "content": note})

    def tool_calls(self, req, doc):
        try:
            message = doc["choices"][0]["message"]
            calls = message.get("tool_calls") or []
        except (KeyError, IndexError, TypeError, AttributeError):
            return []  # reply_of says what is wrong with the body
        out = []
        for call in calls if isinstance(calls, list) else []:
            call = call if isinstance(call, dict) else {}
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            out.append(checked_call(call.get("id"), function.get("name"),
                                    function.get("arguments"), as_text=True))
        return out

    def add_results(self, body, doc, calls, note):
        message = doc["choices"][0]["message"]
        # What every server takes back: a text content, never null
        # (llama-cpp-python's server answers null with HTTP 500), and the
        # arguments of a malformed call as "{}" (vLLM, llama.cpp and SGLang
        # answer a history holding them with HTTP 400); the exchange keeps
        # the reply as received, and the model gets the call's error. Each
        # call goes back by position (tool_calls made one per item), under
        # the id its result carries (toolloop.own_ids).
        body["messages"].append({"role": "assistant", "content": message.get("content") or "",
                                 "tool_calls": [sent_back(original, call) for original, call
                                                in zip(message["tool_calls"], calls)]})
        body["messages"] += [{"role": "tool", "tool_call_id": c["id"], "content": c["result"]}
                             for c in calls]
        if note:
            body["messages"].append({"role": "user", "content": note})


def sent_back(original, call):
    """The model's tool call ``original`` as the history sends it back: under
    the id of its ``call`` (the loop's), its arguments replaced by ``{}``
    when they were not a JSON object; else as received, byte for byte."""
    entry = dict(original) if isinstance(original, dict) else {"type": "function"}
    if entry.get("id") != call["id"]:
        entry["id"] = call["id"]
    if call["error"] is not None:
        function = entry.get("function") if isinstance(entry.get("function"), dict) else {}
        entry["function"] = dict(function, arguments="{}")
    return entry
