"""Amazon Bedrock Converse API, signed with SigV4 (sigv4.py).

``POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse``
(the endpoint can be set with AWS_ENDPOINT_URL_BEDROCK_RUNTIME or
AWS_ENDPOINT_URL, as the AWS tools do). Credentials from AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and optional AWS_SESSION_TOKEN (signed); region from
AWS_REGION (or AWS_DEFAULT_REGION). Signing service name ``bedrock``. Each
attempt is signed afresh.

JSON replies: for the models whose ``toolChoice.tool`` the service supports
(Anthropic Claude 3 and later, Amazon Nova), through that forced tool in
``toolConfig``, read from the ``toolUse`` block's ``input``; for every other
model (Llama, Mistral, Titan, a custom model's ARN), asked for in the prompt
and read from the text (jsonprompt.py), since those answer a forced tool with
400 ValidationException.

Errors carry ``x-amzn-ErrorType`` and ``{"message": ...}``; throttling,
service-unavailable, model-not-ready and internal errors are retried, as
botocore retries them. Fatal, with the fix named: credentials refused
(401, 403, an expired token), no access to the model, a model id the service
does not know. A reply that stopped at ``max_tokens`` (or at the model's
context window) is marked ``truncated``.
"""

import json
import re
from datetime import datetime, timezone
from urllib.parse import quote, urlsplit

from ...responses import bedrock_text, parse_received
from . import jsonprompt
from .base import Client, ProviderError
from .messages import Reply, count_or_zero, is_count, usage_record
from .errors import Failure, FatalProviderError, checked_base, fold
from .sigv4 import sign
from .toolloop import NOT_A_CALL, ToolsUnsupported, checked_call, resent

# Not ModelTimeoutException (HTTP 408: the model ran past its time limit on
# this request). botocore does not retry it, and neither does this: the same
# prompt and token limit sent again most often run out of time again, each
# try costing up to the whole timeout and the tokens generated before it.
# What cures it is a smaller --max-tokens or a shorter prompt; the error says so.
RETRYABLE = {"ThrottlingException", "ServiceUnavailableException", "ModelNotReadyException",
             "InternalServerException"}
CREDENTIALS_REFUSED = {"UnrecognizedClientException", "InvalidSignatureException",
                       "ExpiredTokenException", "IncompleteSignatureException",
                       "MissingAuthenticationTokenException"}
# The service's words for a model id it does not know, and for a model that
# must be called through an inference profile.
_NO_MODEL = re.compile(r"model identifier is invalid|model not found|could not be found|"
                       r"does not exist", re.IGNORECASE)
_NEEDS_PROFILE = re.compile(r"on-demand throughput", re.IGNORECASE)
# "The Model must request the specified tool. Only supported by Anthropic
# Claude 3 and Amazon Nova models" (the ToolChoice of the Converse API
# reference); later Claude generations take it too, Claude 2 and Instant do
# not. The id may carry a region prefix (us.anthropic.) or be an ARN.
_FORCED_TOOL = re.compile(r"(^|[./])(anthropic\.claude-(?!instant|v\d|2\b)|amazon\.nova-)")
CUT_OFF = ("max_tokens", "model_context_window_exceeded")
# The service's ValidationException for a model that takes no tools at all
# ("This model doesn't support tool use.").
_NO_TOOL_USE = re.compile(r"(doesn't|does not) support tool", re.IGNORECASE)


def forced_tool_supported(model):
    return bool(_FORCED_TOOL.search(model or ""))


class Bedrock(Client):
    name = "bedrock"
    obeys_should_retry = False  # botocore does not read x-should-retry

    def __init__(self, environ, policy=None):
        super().__init__(environ, policy)
        self.access = environ.get("AWS_ACCESS_KEY_ID")
        self.secret = environ.get("AWS_SECRET_ACCESS_KEY")
        self.token = environ.get("AWS_SESSION_TOKEN") or None
        self.region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION")
        missing = [n for n, v in (("AWS_ACCESS_KEY_ID", self.access),
                                  ("AWS_SECRET_ACCESS_KEY", self.secret),
                                  ("AWS_REGION", self.region)) if not v]
        if missing:
            raise FatalProviderError(f"no provider configured: bedrock needs {', '.join(missing)}")
        self.secrets = [s for s in (self.secret, self.token, self.access) if s]
        self.refuse_unsendable("AWS_ACCESS_KEY_ID", self.access, "the Authorization header")
        self.refuse_unsendable("AWS_SECRET_ACCESS_KEY", self.secret)
        self.refuse_unsendable("AWS_SESSION_TOKEN", self.token, "the X-Amz-Security-Token header")
        region_variable = "AWS_REGION" if environ.get("AWS_REGION") else "AWS_DEFAULT_REGION"
        self.refuse_unsendable(region_variable, self.region, url=True)  # the host, and signed
        variable = next((v for v in ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL")
                         if environ.get(v)), None)
        self.base = checked_base(variable or "the Bedrock endpoint", (
            environ.get(variable) if variable else
            f"https://bedrock-runtime.{self.region}.amazonaws.com").rstrip("/"))
        self.key_hint = "check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN"

    def url_for(self, model):
        return f"{self.base}/model/{quote(model, safe='')}/converse"

    def json_mode_of(self, req):
        if req.schema is None:
            return None
        return "forced_tool" if forced_tool_supported(req.model) else "none"

    def error_of(self, status, headers, body):
        kind = (headers.get("x-amzn-errortype") or "").split(":")[0] or None
        try:
            doc = parse_received(body)
            message = fold(doc.get("message") or doc.get("Message"))
            kind = kind or (str(doc.get("__type") or "").rpartition("#")[2] or None)
        except (ValueError, AttributeError, RecursionError):
            message = fold(body) or None
        return Failure(kind, message, *self.meaning(status, kind, message or ""))

    def meaning(self, status, kind, message):
        """``(retryable, fatal, hint)`` of a Bedrock error."""
        if kind in CREDENTIALS_REFUSED:
            return False, True, self.key_hint
        if kind == "AccessDeniedException":
            return False, True, (f"these credentials may not call this model in {self.region}: "
                                 "enable access to it in the Bedrock console, or check the IAM policy")
        if kind == "ResourceNotFoundException" or \
                (kind == "ValidationException" and _NO_MODEL.search(message)):
            return False, True, (f"check the model id (--model or BENCH_MODEL) and AWS_REGION "
                                 f"({self.region})")
        if kind == "ValidationException" and _NEEDS_PROFILE.search(message):
            return False, True, "call it through an inference profile: --model us.<model id> or similar"
        if kind == "ModelTimeoutException":
            return False, False, ("not retried (nor by botocore): try a smaller --max-tokens "
                                  "or a shorter prompt")
        if status == 404:
            return False, True, "check AWS_ENDPOINT_URL_BEDROCK_RUNTIME and AWS_REGION"
        return (True if kind in RETRYABLE else (False if kind else None)), None, None

    def usage_of(self, doc):
        """Converse's ``usage.inputTokens`` leaves out the prompt cache's
        tokens (``totalTokens`` counts them): every input token is it plus
        ``cacheReadInputTokens`` and ``cacheWriteInputTokens``."""
        api = doc.get("usage")
        usage = api if isinstance(api, dict) else {}
        fresh, read, write = (usage.get(k) for k in ("inputTokens", "cacheReadInputTokens",
                                                      "cacheWriteInputTokens"))
        total = fresh + count_or_zero(read) + count_or_zero(write) if is_count(fresh) else None
        return usage_record(api, total, usage.get("outputTokens"), read, write)

    def body(self, req):
        body = {"messages": [{"role": "user", "content": [{"text": req.user}]}],
                "system": [{"text": req.system}],
                "inferenceConfig": {"maxTokens": req.max_tokens}}
        if req.temperature is not None:
            body["inferenceConfig"]["temperature"] = req.temperature
        if req.schema is not None and not forced_tool_supported(req.model):
            body["messages"][0]["content"][0]["text"] += jsonprompt.instruction(req.schema)
        elif req.schema is not None:
            body["toolConfig"] = {
                "tools": [{"toolSpec": {"name": req.schema_name,
                                        "description": "Record the reply in this exact structure.",
                                        "inputSchema": {"json": req.schema}}}],
                "toolChoice": {"tool": {"name": req.schema_name}}}
        return body

    def headers(self, url, data):
        amz_date = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        host = urlsplit(url).netloc
        signed, _creq, _sts = sign("POST", url, {"Host": host, "Content-Type": "application/json"},
                                   data, self.access, self.secret, self.region, "bedrock",
                                   amz_date, self.token)
        return signed  # Host included: the one signed is the one sent, port and all

    def call(self, req):
        doc, raw, attempts, usage = self.post(self.url_for(req.model), self.headers,
                                              self.body(req), req.timeout)
        return self.reply_of(req, doc, raw, attempts, usage)

    def reply_of(self, req, doc, raw, attempts, usage):
        """The Reply of a success body (the plain call's, and a tool loop's last)."""
        try:
            content = doc["output"]["message"]["content"]
            if not isinstance(content, list):
                raise TypeError
        except (KeyError, TypeError):
            raise ProviderError("bedrock: HTTP 200 but no output.message.content in the reply "
                                f"({self.where(self.url_for(req.model))})", attempts, 200,
                                raw) from None
        stop = doc.get("stopReason")
        cut = stop in CUT_OFF
        text = bedrock_text(doc)
        if req.schema is None:
            return Reply(text, None, usage, raw, attempts, req.model, stop, truncated=cut)
        if not forced_tool_supported(req.model):
            data, problem = jsonprompt.read(text, req.schema)
            if cut:
                data, problem = None, f"reply cut off at {stop}"
            if data is not None:
                text = json.dumps(data, ensure_ascii=False, sort_keys=True)
            return Reply(text, data, usage, raw, attempts, req.model, stop, problem, cut)
        tool = next((b["toolUse"] for b in content if isinstance(b, dict)
                     and isinstance(b.get("toolUse"), dict)
                     and b["toolUse"].get("name") == req.schema_name), None)
        if tool is None or not isinstance(tool.get("input"), dict):
            return Reply(text, None, usage, raw, attempts, req.model, stop,
                         "no toolUse block with an object input in the reply", cut)
        if cut:
            return Reply(json.dumps(tool["input"], ensure_ascii=False), None, usage, raw, attempts,
                         req.model, stop, f"reply cut off at {stop}", True)
        return Reply(json.dumps(tool["input"], ensure_ascii=False, sort_keys=True), tool["input"],
                     usage, raw, attempts, req.model, stop)

    # The tool loop (toolloop.py) in the Converse API's words: ``toolConfig``
    # with ``toolSpec``s, the reply's ``toolUse`` blocks, then one user message
    # of ``toolResult`` blocks (``status: error`` on a call not run). Only for
    # the models that take a forced ``toolChoice``: the answer tool is offered
    # last and ``toolChoice: any`` makes the model end by calling it. Others
    # (Llama, Mistral, Titan) may take tools but could not be held to the
    # answer format: ToolsUnsupported, before anything is sent.

    def check_tools(self, req):
        if not forced_tool_supported(req.model):
            raise ToolsUnsupported(f"bedrock: {req.model} takes no forced toolChoice, so the "
                                   "tool loop cannot hold it to the answer format; the caller "
                                   "falls back to passages in the prompt")

    def tools_refused(self, exc):
        return exc.status == 400 and bool(_NO_TOOL_USE.search(exc.raw or ""))

    def tools_body(self, req, tools):
        body = self.body(req)
        answer = body.get("toolConfig", {}).get("tools", [])
        body["toolConfig"] = {
            "tools": [{"toolSpec": {"name": t["name"], "description": t["description"],
                                    "inputSchema": {"json": t["input"]}}} for t in tools] + answer,
            "toolChoice": {"any": {}} if answer else {"auto": {}}}
        return body

    def force_answer(self, body, req):
        # Converse has no "none": without a schema the note after the results must do.
        if req.schema is not None:
            body["toolConfig"]["toolChoice"] = {"tool": {"name": req.schema_name}}

    def tool_calls(self, req, doc):
        """The lookups asked for; none once the answer tool is called."""
        try:
            content = doc["output"]["message"]["content"]
        except (KeyError, TypeError):
            return []  # reply_of says what is wrong with the body
        uses = [b["toolUse"] for b in content if isinstance(b, dict)
                and isinstance(b.get("toolUse"), dict)] if isinstance(content, list) else []
        if req.schema is not None and any(u.get("name") == req.schema_name for u in uses):
            return []
        return [checked_call(u.get("toolUseId"), u.get("name"), u.get("input")) for u in uses]

    def add_results(self, body, doc, calls, note):
        results = [{"toolResult": dict({"toolUseId": c["id"], "content": [{"text": c["result"]}]},
                                       **({"status": "error"} if c["error"] else {}))}
                   for c in calls]
        if note:
            results.append({"text": note})
        # The toolUse blocks go back by position, under their results' ids.
        content = resent(doc["output"]["message"]["content"], calls,
                         lambda b: b["toolUse"].get("toolUseId") if isinstance(b, dict) and
                         isinstance(b.get("toolUse"), dict) else NOT_A_CALL,
                         lambda b, call_id: dict(b, toolUse=dict(b["toolUse"], toolUseId=call_id)))
        body["messages"] += [{"role": "assistant", "content": content},
                             {"role": "user", "content": results}]
