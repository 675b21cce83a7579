"""Keeping secrets out of every text a run writes or prints.

A run knows its secrets as one explicit list: a provider's keys (each client's
``secrets``) and the ``{env:NAME}`` values a target profile filled into a
request (target.build_request returns them). The list goes with the request
to evalkit/asking/http.py, which passes every text of the response through
``redact`` before anything else reads it: the body, the headers, the error
text. What is derived from a response later (an answer, its sources, an
evaluator's atoms, a provider's error message) is read from those texts, so a
secret a server echoes back reaches no file and no line of stderr.

``redact(text, secrets)`` replaces by ``[redacted]``:

- every form of a secret a message may spell it in (``secret_forms``): as it
  is, with its white space folded, Python's repr of the text and of its
  bytes, JSON-escaped, percent-encoded;
- every stretch of ``text`` that spells a secret through escapes, whichever
  characters are escaped and however they are mixed, up to ``LEVELS`` deep:
  JSON's ``\\u0074`` and ``\\/``, a percent-encoded ASCII byte, an HTML
  character reference. A model's reply is JSON inside JSON (its text is a
  string of a JSON body), so the atoms an evaluator writes are two levels
  down: ``\\\\u0074`` is ``\\u0074`` after one reading and ``t`` after two.
  The whole stretch is replaced, escapes and all, so that no reading of the
  result spells the secret.

``redact_bytes(data, secrets)`` does the same for bytes that are not UTF-8
text (a body kept as base64): each form as UTF-8 or Latin-1 bytes, and every
escaped spelling, read from the bytes one character a byte (an escape is
ASCII, whatever the encoding around it). ``reach(secrets)`` is how many
bytes the longest spelling found can take: a caller that cuts a text (a body
over its size cap) redacts that much past the cut too, then cuts, so that no
part of a secret the cut would halve is kept (evalkit/asking/http.py).

``redact_userinfo(text)`` replaces the user:password of every URL in a text
(``http://user:pw@host/`` becomes ``http://[redacted]@host/``): a base URL
from the environment may carry one, and it is in no list of secrets. The
whole of it goes, the user too: a token is often passed as the user alone.

What it does not do: find a secret split across two strings that a reader
joins (two text blocks of one Anthropic reply, say), or spelled in another
case, base64 or any other encoding. Secrets shorter than ``MIN_SECRET``
characters are not looked for: replacing them would garble every message.
"""

import functools
import json
import re
from urllib.parse import quote, quote_plus

REDACTED = "[redacted]"
MIN_SECRET = 4
# Escapes within escapes: a reply's JSON text (1) inside the JSON body (2),
# with a percent-encoded URL in it (3). Deeper nesting is no wire format.
LEVELS = 3
# The most characters an escape of one character takes (``&#1114111;``,
# ``&#x10FFFF;``). So a spelling escaped_spans finds of a secret of n
# characters takes at most n * LONGEST_ESCAPE ** LEVELS bytes (an escape is
# ASCII, a byte a character); a form matched as it is takes far fewer (at
# most 16 a character: Python's repr of four UTF-8 bytes).
LONGEST_ESCAPE = 10
_PERCENT = re.compile(r"%[0-9A-F]{2}")
# The user:password of a URL: what stands between "//" and the last "@" before
# the host ends (urllib.parse's split, which takes the last "@").
_USERINFO = re.compile(r"(?<=//)[^/?#\s]+@")
# One escaped character: JSON's \uXXXX and \" \\ \/ \b \f \n \r \t; a
# percent-encoded ASCII byte; an HTML decimal or hexadecimal reference.
_ESCAPE = re.compile(r'\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]|%[0-7][0-9a-fA-F]'
                     r'|&#[0-9]{1,7};|&#[xX][0-9a-fA-F]{1,6};')
_JSON_LETTERS = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                 "r": "\r", "t": "\t"}


def usable(secrets):
    """The secrets worth looking for: strings of at least MIN_SECRET
    characters once their white space is folded."""
    return sorted({s for s in secrets or () if isinstance(s, str)
                   and len(" ".join(s.split())) >= MIN_SECRET})


@functools.lru_cache(maxsize=256)
def secret_forms(secret):
    """Every form of ``secret`` a message may hold: as it is, with its white
    space folded (a message folded to one line, a key stripped of its
    newline), Python's repr of the text (``\\n`` for a line break) and of its
    UTF-8 and Latin-1 bytes, JSON-escaped, and percent-encoded (either case
    of hex digit, ``+`` or ``%20`` for a space)."""
    forms = set()
    for text in {secret, " ".join(secret.split())}:
        forms.update({text, repr(text)[1:-1], ascii(text)[1:-1],
                      text.encode("unicode_escape").decode("ascii"),
                      json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]})
        for encoding in ("utf-8", "latin-1"):
            try:
                forms.add(repr(text.encode(encoding))[2:-1])
            except UnicodeEncodeError:
                pass
        for encoded in (quote(text, safe=""), quote(text), quote_plus(text)):
            forms.update({encoded, _PERCENT.sub(lambda m: m.group(0).lower(), encoded)})
    return frozenset(form for form in forms if len(form) >= MIN_SECRET)


def forms_of(secrets):
    """The forms (``secret_forms``) of every secret, longest first, so that a
    form holding another is replaced whole."""
    return sorted({form for secret in usable(secrets) for form in secret_forms(secret)},
                  key=lambda form: (-len(form), form))


def redact(text, secrets):
    """``text`` with every secret of ``secrets`` replaced by ``[redacted]``,
    in every form and through every escape (see the module's docstring)."""
    if text is None:
        return None
    text = str(text)
    secrets = usable(secrets)
    if not secrets:
        return text
    for form in forms_of(secrets):
        text = text.replace(form, REDACTED)
    spans = escaped_spans(text, secrets)
    for start, end in reversed(_merged(spans)):
        text = text[:start] + REDACTED + text[end:]
    return text


def redact_bytes(data, secrets):
    """``data`` (bytes in any encoding) with every secret of ``secrets``
    replaced by ``[redacted]``: each form (``secret_forms``) as UTF-8 and as
    Latin-1 bytes, then every stretch that spells a secret through escapes,
    as ``redact`` finds them in text."""
    secrets = usable(secrets)
    if not secrets:
        return data
    blank = REDACTED.encode("ascii")
    for form in forms_of(secrets):
        for encoding in ("utf-8", "latin-1"):
            try:
                data = data.replace(form.encode(encoding), blank)
            except UnicodeEncodeError:
                pass  # a form Latin-1 cannot spell is not in Latin-1 bytes either
    # Latin-1 reads each byte as one character, so the stretches found in
    # the text are the same stretches of the bytes.
    spans = escaped_spans(data.decode("latin-1"), secrets)
    for start, end in reversed(_merged(spans)):
        data = data[:start] + blank + data[end:]
    return data


def redact_userinfo(text):
    """``text`` with the user:password of each URL in it replaced by
    ``[redacted]`` (the module's docstring); None stays None."""
    return None if text is None else _USERINFO.sub(REDACTED + "@", str(text))


def reach(secrets):
    """The most bytes a spelling that ``redact`` or ``redact_bytes`` finds
    of one of ``secrets`` can take (0 for none): how far past a cut a secret
    begun before it can run (LONGEST_ESCAPE)."""
    longest = max((len(secret) for secret in usable(secrets)), default=0)
    return longest * LONGEST_ESCAPE ** LEVELS


def escaped_spans(text, secrets):
    """The ``(start, end)`` stretches of ``text`` that spell one of
    ``secrets`` once escapes are read, one level after another."""
    spans = []
    level = text
    starts = list(range(len(text)))        # where each character of level begins in text
    ends = list(range(1, len(text) + 1))   # and where it ends
    for _ in range(LEVELS):
        decoded, first, last = _unescape(level)
        if decoded == level:
            break
        starts = [starts[i] for i in first]
        ends = [ends[i] for i in last]
        for secret in secrets:
            for wanted in {secret, " ".join(secret.split())}:
                at = decoded.find(wanted)
                while at != -1:
                    spans.append((starts[at], ends[at + len(wanted) - 1]))
                    at = decoded.find(wanted, at + 1)
        level = decoded
    return spans


def _unescape(text):
    """``(decoded, first, last)``: ``text`` with each escape read as its
    character; the k-th character of decoded is spelled by the characters
    ``first[k]`` to ``last[k]`` of text."""
    pieces, first, last = [], [], []
    at = 0
    for match in _ESCAPE.finditer(text):
        pieces.append(text[at:match.start()])
        first.extend(range(at, match.start()))
        last.extend(range(at, match.start()))
        pieces.append(_character(match.group(0)))
        first.append(match.start())
        last.append(match.end() - 1)
        at = match.end()
    pieces.append(text[at:])
    first.extend(range(at, len(text)))
    last.extend(range(at, len(text)))
    return "".join(pieces), first, last


def _character(escape):
    if escape.startswith("\\u"):
        return chr(int(escape[2:], 16))
    if escape.startswith("\\"):
        return _JSON_LETTERS[escape[1]]
    if escape.startswith("%"):
        return chr(int(escape[1:], 16))
    number = escape[2:-1]
    code = int(number[1:], 16) if number[:1] in "xX" else int(number)
    return chr(code) if code <= 0x10FFFF else "\ufffd"


def _merged(spans):
    merged = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
