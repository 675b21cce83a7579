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

from .. import SCRIPTS_DIR, BadInput
from . import http
from ..fields import check, check_format
from ..jsonl import read_json
from ..schemas import TARGET_FIELDS

RESPONSE_KEYS = ("answer", "grounded", "source_url", "sources")
_PLACEHOLDER = re.compile(r"\{(question|page_url|widget_key|lang|id|env:[A-Za-z_][A-Za-z0-9_]*)\}")
_ANY_BRACE = re.compile(r"\{[^{}]*\}")

DEFAULT_PROFILE = os.path.join(SCRIPTS_DIR, "targets", "widget.json")
URL = "the URL"


def load_profile(path):
    doc = read_json(path)
    return parse_profile(doc, path)


def parse_profile(doc, path):
    """The profile ``doc`` read from ``path``, its fields checked
    (schemas.TARGET_FIELDS, beside the format's prose) and its templates."""
    if not isinstance(doc, dict):
        raise BadInput(f"{path}: a target profile must be a JSON object")
    check_format(doc, path)
    check(doc, TARGET_FIELDS, path)
    headers, response = doc.get("headers", {}), doc["response"]
    for name, value in sorted(headers.items()):
        problem = http.header_problem(name) or http.header_problem(value)
        if problem:
            raise BadInput(f"{path}: the {name!r} header holds {problem}")
    _check_templates(doc.get("body"), path)
    for value in list(headers.values()) + [doc.get("url") or ""]:
        _check_templates(value, path)
    return {
        "name": doc["name"], "kind": doc["kind"], "url": doc.get("url"),
        "method": doc["method"], "headers": dict(headers), "body": doc.get("body"),
        "response": {k: response.get(k) for k in RESPONSE_KEYS},
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
