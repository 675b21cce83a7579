"""Target profiles: how to ask an assistant, and where its answer is.

A profile is a JSON file (``schemas.TARGET`` has the prose). Templates in the
URL, headers and body take ``{question}``, ``{page_url}``, ``{widget_key}``,
``{lang}``, ``{id}`` and ``{env:NAME}``. A value from the environment is a
secret by assumption: the request recorded in the raw line carries
``[redacted:NAME]`` in its place, never the value. A value that its place
cannot carry (a line break or another control character in a header or the
URL, a space in the URL: a key pasted from a file often ends in a newline) is
refused before anything is sent, naming the header (or the URL) and the
variable, never the value; and every value filled in is returned with the
request, as the secrets that evalkit/asking/http.py keeps out of the response and
of every error text.

Reading the answer back out of a recorded response is evalkit/responses.py's
job, apart from this asking code, so that scoring needs none of it.
"""

import os
import re

from .. import SCRIPTS_DIR, BadInput, whole_number
from . import http
from ..jsonl import read_json

PROFILE_KEYS = {"format", "name", "kind", "url", "method", "headers", "body", "response",
                "version_header"}
RESPONSE_KEYS = {"answer", "sources", "source_url", "grounded"}
_PLACEHOLDER = re.compile(r"\{(question|page_url|widget_key|lang|id|env:[A-Za-z_][A-Za-z0-9_]*)\}")
_ANY_BRACE = re.compile(r"\{[^{}]*\}")

DEFAULT_PROFILE = os.path.join(SCRIPTS_DIR, "targets", "widget.json")
URL = "the URL"


def load_profile(path):
    doc = read_json(path)
    return parse_profile(doc, path)


def parse_profile(doc, path):
    def bad(reason):
        raise BadInput(f"{path}: {reason}")

    if not isinstance(doc, dict):
        bad("a target profile must be a JSON object")
    if not whole_number(doc.get("format")) or doc["format"] != 1:
        bad(f"format {doc.get('format')!r} is not one this tool knows (1)")
    extra = sorted(set(doc) - PROFILE_KEYS)
    if extra:
        bad(f"unknown key(s) {', '.join(extra)}")
    for key in ("name", "kind", "method"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            bad(f"{key} must be a non-empty string")
    if doc["method"] not in ("POST", "GET", "PUT"):
        bad(f"method {doc['method']!r} is not POST, GET or PUT")
    if doc.get("url") is not None and not isinstance(doc["url"], str):
        bad("url must be a string or null (then --endpoint or BENCH_ENDPOINT gives it)")
    headers = doc.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        bad("headers must be an object of strings")
    for name, value in sorted(headers.items()):
        problem = http.header_problem(name) or http.header_problem(value)
        if problem:
            bad(f"the {name!r} header holds {problem}")
    response = doc.get("response")
    if not isinstance(response, dict):
        bad("response must be an object naming where answer, sources and grounded are")
    extra = sorted(set(response) - RESPONSE_KEYS)
    if extra:
        bad(f"response: unknown key(s) {', '.join(extra)}")
    if not isinstance(response.get("answer"), str) or not response["answer"]:
        bad("response.answer must be a path such as 'answer' or 'data.text'")
    for key in ("sources", "source_url", "grounded"):
        if response.get(key) is not None and not isinstance(response[key], str):
            bad(f"response.{key} must be a path string or null")
    if doc.get("version_header") is not None and not isinstance(doc["version_header"], str):
        bad("version_header must be a header name or null")
    _check_templates(doc.get("body"), path)
    for value in list(headers.values()) + [doc.get("url") or ""]:
        _check_templates(value, path)
    return {
        "name": doc["name"], "kind": doc["kind"], "url": doc.get("url"),
        "method": doc["method"], "headers": dict(headers), "body": doc.get("body"),
        "response": {k: response.get(k) for k in sorted(RESPONSE_KEYS)},
        "version_header": doc.get("version_header"),
    }


def _check_templates(value, path):
    if isinstance(value, str):
        for match in _ANY_BRACE.finditer(value):
            if not _PLACEHOLDER.fullmatch(match.group(0)):
                raise BadInput(f"{path}: unknown placeholder {match.group(0)} "
                               "(known: {question} {page_url} {widget_key} {lang} {id} {env:NAME})")
    elif isinstance(value, dict):
        for item in value.values():
            _check_templates(item, path)
    elif isinstance(value, list):
        for item in value:
            _check_templates(item, path)


def _fill(value, fields, environ, redact, secrets, place=None):
    """``value`` with its placeholders filled in; ``place`` names where a
    string goes (a header, "the URL", None for the body, which is JSON).
    Each ``{env:NAME}`` value filled in is added to ``secrets``."""
    if isinstance(value, str):
        def sub(match):
            name = match.group(1)
            if name.startswith("env:"):
                var = name[4:]
                if redact:
                    return f"[redacted:{var}]"
                secret = _env_value(var, environ, place)
                secrets.append(secret)
                return secret
            return fields[name]
        return _PLACEHOLDER.sub(sub, value)
    if isinstance(value, dict):
        return {k: _fill(v, fields, environ, redact, secrets, place) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, fields, environ, redact, secrets, place) for v in value]
    return value


def _env_value(var, environ, place):
    """The value of ``var``; BadInput when it is not set, or holds what
    ``place`` cannot carry (the message never holds the value)."""
    if var not in environ:
        raise BadInput(f"the target profile needs the environment variable {var}")
    value = environ[var]
    if place is not None:
        problem = http.url_problem(value) if place == URL else http.header_problem(value)
        if problem:
            raise BadInput(f"{place} holds {problem} (from {{env:{var}}}): check the variable")
    return value


def build_request(profile, url, question, widget_key, environ=None):
    """``(request to send, request to record, secrets)`` for one question.

    Both requests are dicts with method, url, headers and body (a JSON
    value); the recorded one has every ``{env:NAME}`` value replaced by
    ``[redacted:NAME]``, and ``secrets`` lists those values, for http.send.
    BadInput when an ``{env:NAME}`` is not set, or holds what its header or
    the URL cannot carry: every question would meet it, so nothing is sent.
    """
    environ = os.environ if environ is None else environ
    fields = {"question": question["question"], "page_url": question["page_url"],
              "widget_key": widget_key, "lang": question["lang"], "id": question["id"]}
    secrets = []
    out = []
    for redact in (False, True):
        out.append({
            "method": profile["method"],
            "url": _fill(url, fields, environ, redact, secrets, URL),
            "headers": {name: _fill(value, fields, environ, redact, secrets, f"the {name} header")
                        for name, value in profile["headers"].items()},
            "body": _fill(profile["body"], fields, environ, redact, secrets),
        })
    return out[0], out[1], sorted(set(secrets))
