"""Amazon Bedrock Converse API, signed with SigV4 (sigv4.py).

``POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse``
(the endpoint can be set with AWS_ENDPOINT_URL_BEDROCK_RUNTIME or
AWS_ENDPOINT_URL, as the AWS tools do). Credentials from AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and optional AWS_SESSION_TOKEN (signed); region from
AWS_REGION (or AWS_DEFAULT_REGION). Signing service name ``bedrock``. Each
attempt is signed afresh. JSON replies through a forced tool in ``toolConfig``
(``toolChoice.tool``), read from the ``toolUse`` block's ``input``.

Errors carry ``x-amzn-ErrorType`` and ``{"message": ...}``; throttling,
service-unavailable, model-not-ready and internal errors are retried.
"""

import json
from datetime import datetime, timezone
from urllib.parse import quote, urlsplit

from ..responses import bedrock_text
from .base import Client, ProviderError, Reply
from .sigv4 import sign

RETRYABLE = {"ThrottlingException", "ServiceUnavailableException", "ModelNotReadyException",
             "InternalServerException", "ModelTimeoutException"}


class Bedrock(Client):
    name = "bedrock"

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
            raise ProviderError(f"no provider configured: bedrock needs {', '.join(missing)}")
        self.secrets = [s for s in (self.secret, self.token, self.access) if s]
        self.base = (environ.get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME") or environ.get("AWS_ENDPOINT_URL")
                     or f"https://bedrock-runtime.{self.region}.amazonaws.com").rstrip("/")

    def url_for(self, model):
        return f"{self.base}/model/{quote(model, safe='')}/converse"

    def error_of(self, status, headers, body):
        kind = (headers.get("x-amzn-errortype") or "").split(":")[0] or None
        try:
            message = json.loads(body).get("message") or json.loads(body).get("Message")
        except (ValueError, AttributeError, RecursionError):
            message = body[:200] if body else None
        retryable = True if kind in RETRYABLE else (False if kind else None)
        return kind, message, retryable

    def body(self, req):
        body = {"messages": [{"role": "user", "content": [{"text": req.user}]}],
                "system": [{"text": req.system}],
                "inferenceConfig": {"maxTokens": req.max_tokens}}
        if req.temperature is not None:
            body["inferenceConfig"]["temperature"] = req.temperature
        if req.schema is not None:
            body["toolConfig"] = {
                "tools": [{"toolSpec": {"name": req.schema_name,
                                        "description": "Record the reply in this exact structure.",
                                        "inputSchema": {"json": req.schema}}}],
                "toolChoice": {"tool": {"name": req.schema_name}}}
        return body

    def call(self, req):
        def headers(url, data):
            amz_date = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
            host = urlsplit(url).netloc
            signed, _creq, _sts = sign("POST", url, {"Host": host, "Content-Type": "application/json"},
                                       data, self.access, self.secret, self.region, "bedrock",
                                       amz_date, self.token)
            return signed  # Host included: the one signed is the one sent, port and all

        doc, raw, attempts = self.post(self.url_for(req.model), headers, self.body(req),
                                       req.timeout)
        try:
            content = doc["output"]["message"]["content"]
            if not isinstance(content, list):
                raise TypeError
        except (KeyError, TypeError):
            raise ProviderError("bedrock: HTTP 200 but no output.message.content in the reply",
                                attempts, 200, raw) from None
        usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
        usage = {"input_tokens": usage.get("inputTokens"), "output_tokens": usage.get("outputTokens")}
        stop = doc.get("stopReason")
        text = bedrock_text(doc)
        if req.schema is None:
            return Reply(text, None, usage, raw, attempts, req.model, stop)
        tool = next((b["toolUse"] for b in content if isinstance(b, dict)
                     and isinstance(b.get("toolUse"), dict)), None)
        if tool is None or not isinstance(tool.get("input"), dict):
            return Reply(text, None, usage, raw, attempts, req.model, stop,
                         "no toolUse block with an object input in the reply")
        if stop == "max_tokens":
            return Reply(json.dumps(tool["input"], ensure_ascii=False), None, usage, raw, attempts,
                         req.model, stop, "reply cut off at maxTokens")
        return Reply(json.dumps(tool["input"], ensure_ascii=False, sort_keys=True), tool["input"],
                     usage, raw, attempts, req.model, stop)
