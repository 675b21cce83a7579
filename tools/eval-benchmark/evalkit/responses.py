"""Reading a recorded response: what an answer said, from its body as received.

Scoring never trusts an earlier parse: score.py and atomize.py read every
answer again from the body that run.py recorded. This module is that reading,
and nothing else: it sends no request and imports no network code, so an
auditor who follows a number from a raw line to a table never opens the code
that asked.

  derive(response, spec)      a site assistant's answer, sources and grounding
                              flag, by the target profile's paths (``spec`` is
                              the profile's ``response`` block, recorded in
                              every raw line as ``target.response``)
  answer_text(target, resp)   a model's answer, by the provider's wire format
                              (OpenAI chat.completion, Anthropic Messages,
                              Bedrock Converse), or the text itself for answers
                              collected by hand
  reply_format(doc)           which of those wire formats a body is in

  parse_received(text)        a received JSON text, parsed so that every
                              string in it can be written (below)

A JSON string may escape half of a surrogate pair on its own (``"\\ud800"``:
a server that cuts an emoji in half sends exactly this). The body is valid
JSON and is recorded as received, but Python reads the escape as a lone
surrogate, which no UTF-8 file can hold. Every text derived from a received
body has U+FFFD REPLACEMENT CHARACTER in its place, as a UTF-8 decoder has
for a byte it cannot read, and is scored so.

What it does not do: decide whether an answer is right. That is the rules'
job (evalkit/rubric/siteqa.py, evalkit/scenario/atomscore.py).
"""

# Only a body that escapes a surrogate can give a lone one (a raw line that
# holds one itself is refused when it is read): the patterns of the one
# JSON reader, whose rule for numbers and depth a body is read by too.
from .jsonl import SURROGATE, SURROGATE_ESCAPE, decode


def parse_received(text):
    """``text`` read as JSON by the one rule of every JSON the tools read
    (jsonl.decode: no NaN, no number a float cannot hold, at most
    jsonl.MAX_DEPTH levels), with every lone surrogate in its strings (keys
    too) replaced by U+FFFD. ValueError when it is not such JSON."""
    doc = decode(text)
    if SURROGATE_ESCAPE.search(text):
        doc = _writable(doc)
    return doc


def _writable(value):
    """``value`` with every lone surrogate in its strings and keys replaced
    by U+FFFD. (A pair that JSON escapes whole is read as one character and
    never gets here.)"""
    if isinstance(value, str):
        return SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_writable(item) for item in value]
    if isinstance(value, dict):
        return {_writable(key): _writable(item) for key, item in value.items()}
    return value


def follow(doc, path):
    """The value at a dotted path (``data.items.0.text``): each part a key of
    an object, or an index of a list; None as soon as one is absent. A dot
    always separates parts."""
    value = doc
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def derive(response, spec):
    """What a recorded response delivered: ``answer`` (str or None),
    ``sources`` (list of URL strings), ``grounded`` (True, False, or None when
    not reported) and ``problem`` (None, or why no answer could be read).

    Only a whole, UTF-8, HTTP 200 body is read, as JSON, by the profile's
    paths (``spec``: ``answer``, and optionally ``sources`` with the key of an
    item's URL, ``source_url``, and ``grounded``)."""
    out = {"answer": None, "sources": [], "grounded": None, "problem": _unreadable(response)}
    if out["problem"]:
        return out
    try:
        doc = parse_received(response["body"])
    except (ValueError, RecursionError):
        out["problem"] = "response body is not JSON"
        return out
    answer = follow(doc, spec["answer"])
    if answer is None:
        out["problem"] = f"response has no {spec['answer']}"
    elif not isinstance(answer, str):
        out["problem"] = f"response {spec['answer']} is not a string"
    else:
        out["answer"] = answer
    out["sources"] = _source_urls(doc, spec)
    grounded = follow(doc, spec["grounded"]) if spec.get("grounded") else None
    if isinstance(grounded, bool):
        out["grounded"] = grounded
    return out


def _unreadable(response):
    """Why a recorded response has no body to read as JSON, or None."""
    if response is None:
        return "no response"
    if response.get("truncated"):
        return "body over the size cap"
    if response.get("status") != 200:
        return f"HTTP {response.get('status')}"
    if response.get("body") is None:
        return "response body is not UTF-8"
    return None


def _source_urls(doc, spec):
    """The non-empty URL strings at the profile's ``sources`` path: each item
    a URL, or an object with its URL at ``source_url`` (default ``url``)."""
    sources = follow(doc, spec["sources"]) if spec.get("sources") else None
    urls = []
    for item in sources if isinstance(sources, list) else []:
        url = item if isinstance(item, str) else (
            follow(item, spec.get("source_url") or "url") if isinstance(item, dict) else None)
        if isinstance(url, str) and url:
            urls.append(url)
    return urls


def openai_text(doc):
    """The answer text of an OpenAI chat.completion body, or None."""
    try:
        text = doc["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return text if isinstance(text, str) else None


def anthropic_text(doc):
    """The text blocks of an Anthropic Messages body joined, or None."""
    content = doc.get("content") if isinstance(doc, dict) else None
    if not isinstance(content, list):
        return None
    return "".join(b.get("text", "") for b in content
                   if isinstance(b, dict) and b.get("type") == "text")


def bedrock_text(doc):
    """The text blocks of a Bedrock Converse body joined, or None."""
    try:
        content = doc["output"]["message"]["content"]
    except (KeyError, TypeError):
        return None
    if not isinstance(content, list):
        return None
    return "".join(b["text"] for b in content
                   if isinstance(b, dict) and isinstance(b.get("text"), str))


REPLY_TEXT = {"openai": openai_text, "anthropic": anthropic_text, "bedrock": bedrock_text}


def reply_format(doc):
    """The provider whose wire format a parsed success body is in: ``openai``
    (Chat Completions: a ``choices`` list), ``anthropic`` (Messages: ``type``
    message with a ``content`` list), ``bedrock`` (Converse:
    ``output.message``); None for anything else (an error body, say)."""
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("choices"), list):
        return "openai"
    if doc.get("type") == "message" and isinstance(doc.get("content"), list):
        return "anthropic"
    output = doc.get("output")
    return "bedrock" if isinstance(output, dict) and isinstance(output.get("message"), dict) \
        else None


def answer_text(target, response):
    """A model's answer, derived again from a raw line's recorded body. None
    when there is none: no body, not HTTP 200, not JSON, an unknown provider."""
    if not isinstance(response, dict) or not isinstance(response.get("body"), str):
        return None
    target = target or {}
    if target.get("kind") == "manual":
        return response["body"]
    if response.get("status") != 200:
        return None
    reply_text = REPLY_TEXT.get(target.get("provider"))
    if reply_text is None:
        return None
    try:
        doc = parse_received(response["body"])
    except (ValueError, RecursionError):
        return None
    return reply_text(doc)
