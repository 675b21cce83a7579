"""Keeping secrets out of every text a run writes or prints.

A run knows its secrets as one explicit list: a provider's keys (each client's
``secrets``) and the ``{env:NAME}`` values a target profile filled into a
request (target.build_request returns them). The list goes with the request
to evalkit/asking/http.py, which passes every text of the response through
``redact`` before anything else reads it: the body, the headers, the error
text. What is derived from a response later (an answer, its sources, an
evaluator's atoms, a provider's error message) is read from those texts, so a
secret a server echoes back reaches no file and no line of stderr.

``redact(text, secrets)`` replaces by ``[redacted]`` every spelling of a
secret of these forms:

- as it is, and with its white space folded (a message folded to one line, a
  key stripped of its newline);
- JSON-escaped, Python's repr of the text and of its bytes (``secret_forms``);
- percent-encoded, either case of hex digit, ``+`` or ``%20`` for a space;
- every stretch of ``text`` that spells a secret through escapes, whichever
  characters are escaped and however they are mixed, up to ``LEVELS`` deep:
  JSON's ``\\u0074`` and ``\\/``, a percent-encoded ASCII byte, an HTML
  character reference (``&#116;``, ``&#x74;``). A model's reply is JSON
  inside JSON (its text is a string of a JSON body), so the atoms an
  evaluator writes are two levels down: ``\\\\u0074`` is ``\\u0074`` after one
  reading and ``t`` after two. The whole stretch is replaced, escapes and
  all, so that no reading of the result spells the secret;
- each of them in any ASCII case (``SK-ABC`` for ``sk-abc``): a server that
  upper-cases what it echoes, a header name in lower case.

It takes about twice the text's size in memory (the text it writes, once,
and its pieces) and time linear in it, whatever the text holds: the text is
searched a block of ``BLOCK`` characters at a time, and its escapes are read
a block at a time too, every level at once, so that no level is ever held
whole; only the blocks where a secret was spelled through escapes are read
again, to work its place back to the text's (a 20 MB reply with a secret:
``make bench``, tools/bench).

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

What it does not find (its limits): a secret in base64 or any other
encoding than these escapes, reversed, or split in two (across two strings
a reader joins, such as two text blocks of one Anthropic reply, or with
other text between its parts); a letter outside ASCII in another case; an
escape nested deeper than ``LEVELS``. Secrets shorter than ``MIN_SECRET``
characters are not looked for: replacing them would garble every message.
"""

import functools
import json
import re
from bisect import bisect_right
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
# The characters the escapes are read a block at a time in: a few of them
# at every level is all the memory reading them takes.
BLOCK = 1 << 16
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
    UTF-8 and Latin-1 bytes, JSON-escaped, and percent-encoded (``+`` or
    ``%20`` for a space; the case of the hex digits is ASCII case, which
    every form is matched in)."""
    forms = set()
    for text in {secret, " ".join(secret.split())}:
        forms.update({text, repr(text)[1:-1], ascii(text)[1:-1],
                      text.encode("unicode_escape").decode("ascii"),
                      json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1],
                      quote(text, safe=""), quote(text), quote_plus(text)})
        for encoding in ("utf-8", "latin-1"):
            try:
                forms.add(repr(text.encode(encoding))[2:-1])
            except UnicodeEncodeError:
                pass
    return frozenset(form for form in forms if len(form) >= MIN_SECRET)


def forms_of(secrets):
    """The forms (``secret_forms``) of every secret, longest first, so that a
    form holding another is matched whole."""
    return sorted({form for secret in usable(secrets) for form in secret_forms(secret)},
                  key=lambda form: (-len(form), form))


@functools.lru_cache(maxsize=64)
def _finder(spellings, as_bytes=False):
    """One pattern matching any of ``spellings`` (longest first) in any
    ASCII case: in text, or (``as_bytes``) the UTF-8 and Latin-1 bytes of
    each in lower case, in bytes put in lower case (bytes.lower() lowers
    ASCII only)."""
    if as_bytes:
        alternatives = sorted({s.encode(e).lower() for s in spellings for e in ("utf-8", "latin-1")
                               if _encodes(s, e)}, key=lambda b: (-len(b), b))
        return re.compile(b"|".join(map(re.escape, alternatives)))
    return re.compile("|".join(map(re.escape, spellings)), re.IGNORECASE | re.ASCII)


def _encodes(text, encoding):
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False  # a form Latin-1 cannot spell is not in Latin-1 bytes either
    return True


def _spelled(spellings, text, step=None):
    """``(start, end)`` of every spelling of ``spellings`` (longest first)
    in ``text`` (str or bytes), overlapping ones too, in any ASCII case; a
    ``step`` of characters at a time when given, each searched with the
    longest spelling's length past it for the spellings that begin in it.
    ASCII text is searched as bytes in lower case: a pattern that ignores
    case steps through the text a character at a time, five times slower."""
    step = step or max(len(text), 1)
    reach = len(spellings[0]) - 1
    spans = []
    for at in range(0, len(text), step):
        part = text[at:at + step + reach]
        if isinstance(part, str) and part.isascii():
            part = part.encode("ascii")
        lowered = isinstance(part, bytes)
        found = _every(_finder(spellings, lowered), part.lower() if lowered else part)
        spans += [(at + start, at + end) for start, end in found if start < step]
    return spans


def redact(text, secrets):
    """``text`` with every secret of ``secrets`` replaced by ``[redacted]``,
    in every form and through every escape (see the module's docstring)."""
    if text is None:
        return None
    return _redacted(str(text), usable(secrets))


def redact_bytes(data, secrets):
    """``data`` (bytes in any encoding) with every secret of ``secrets``
    replaced by ``[redacted]``: each form (``secret_forms``) as UTF-8 and as
    Latin-1 bytes, then every stretch that spells a secret through escapes,
    as ``redact`` finds them in text (Latin-1 reads each byte as one
    character, so the stretches found are the same stretches of the bytes)."""
    return _redacted(data, usable(secrets))


def _redacted(text, secrets):
    """``text`` (str or bytes) without ``secrets`` (``usable`` ones). Each
    spelling as it is becomes a ``[redacted]`` of its own, and each
    spelling through escapes one, with those it touches: the text is
    written once, whatever was found (a copy of it at most, besides)."""
    if not secrets:
        return text
    spans = _spelled(tuple(forms_of(secrets)), text, BLOCK)
    escapes = ("\\", "%", "&") if isinstance(text, str) else (b"\\", b"%", b"&")
    if any(mark in text for mark in escapes):  # else there is no escape to read
        spans += _merged(escaped_spans(text, secrets), touching=True)
    if not spans:
        return text
    pieces, at = [], 0
    for start, end in _merged(spans, touching=False):
        pieces += [text[at:start], REDACTED if isinstance(text, str) else REDACTED.encode()]
        at = end
    pieces.append(text[at:])
    return text[:0].join(pieces)


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


def _every(pattern, text):
    """``(start, end)`` of every match of ``pattern`` in ``text``,
    overlapping ones too (the longest at each place)."""
    spans = []
    match = pattern.search(text)
    while match:
        spans.append(match.span())
        match = pattern.search(text, match.start() + 1)
    return spans


def _merged(spans, touching):
    """``spans`` in order, those that overlap (or touch, when ``touching``) as one."""
    merged = []
    for start, end in sorted(spans):
        if merged and (start < merged[-1][1] or touching and start == merged[-1][1]):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


# ---- spellings through escapes -----------------------------------------------------------

def escaped_spans(text, secrets):
    """The ``(start, end)`` stretches of ``text`` (str, or bytes read as
    Latin-1) that spell one of ``secrets`` once escapes are read, one level
    after another, each in any ASCII case."""
    wanted = sorted({w for secret in secrets for w in (secret, " ".join(secret.split()))},
                    key=lambda w: (-len(w), w))
    reading = _Reading(text)
    found = reading.found(tuple(wanted))
    # Worked back a level at a time to the text's: a stretch of a level
    # (its first and last characters) starts where its first character is
    # spelled in the level above, and ends where its last one's spelling ends.
    for level in range(LEVELS, 0, -1):
        stretches = found.pop(level, [])
        if stretches:
            above = reading.places_above(level, {p for stretch in stretches for p in stretch})
            found.setdefault(level - 1, []).extend(
                (above[first][0], above[last][1] - 1) for first, last in stretches)
    return [(first, last + 1) for first, last in found.get(0, [])]


class _Reading:
    """A text's escapes read level after level (1 to LEVELS), a BLOCK of it
    at a time (bytes read as Latin-1): ``found`` searches every level once,
    noting where each block's reading began and ended, so that
    ``places_above`` reads again only the blocks a place was found in."""

    def __init__(self, text):
        self.text = text
        self.readers = [_Reader() for _ in range(LEVELS)]
        self.marks = []  # before each block: where each level's reading was
        self.made = [[] for _ in range(LEVELS)]  # after each block: each level's characters

    def block(self, number):
        """``(block, last)``: the text's block ``number``."""
        at = number * BLOCK
        block = self.text[at:at + BLOCK]
        return (block if isinstance(block, str) else block.decode("latin-1")), \
            at + BLOCK >= len(self.text)

    def found(self, wanted):
        """``{level: [(first, last)]}``: the characters of each level that
        spell one of ``wanted`` (longest first). Each level is searched with
        the characters of the block before that a spelling ending in this
        one can begin in (a spelling across two blocks is found, once).
        A spelling is kept only where its level read an escape inside it (or
        it begins in the block before): else the level above spells it too,
        and it is found there (or, in the text, as it is), as the reading
        before stopped at a level with no escapes."""
        tails, found = [""] * LEVELS, {}
        for number in range(-(-len(self.text) // BLOCK)):
            self.marks.append([reader.mark() for reader in self.readers])
            block, last = self.block(number)
            for level, reader in enumerate(self.readers, 1):
                given, before = block, reader.mark()
                block = reader.read(given, last)
                self.made[level - 1].append(reader.made)
                tail = tails[level - 1]
                searched, begins = tail + block, before[2] - len(tail)
                spans = [(begins + start, begins + end - 1) for start, end in
                         _spelled(wanted, searched) if end > len(tail)]
                if spans:  # where this level read escapes: the block read again
                    reader.back(before)
                    places = [out for out, _start, _end in reader.read(given, last, [])[1]]
                    spans = [(first, end) for first, end in spans
                             if first < before[2] or _inside(places, first, end + 1)]
                found.setdefault(level, []).extend(spans)
                tails[level - 1] = searched[max(0, len(searched) - len(wanted[0]) + 1):]
        return found

    def places_above(self, level, places):
        """``{place: (start, end)}``: where each character ``place`` of
        ``level`` is spelled in the level above it (level 0 is the text):
        the blocks that made them read again, each from where its reading
        began, noting where the escapes of ``level`` are."""
        above, made = {}, self.made[level - 1]
        by_block = {}
        for place in places:
            by_block.setdefault(bisect_right(made, place), []).append(place)
        for number, wanted in sorted(by_block.items()):
            for reader, mark in zip(self.readers, self.marks[number]):
                reader.back(mark)
            block, last = self.block(number)
            for reader in self.readers[:level - 1]:
                block = reader.read(block, last)
            reader = self.readers[level - 1]
            begins, first = reader.taken, reader.made
            escapes = reader.read(block, last, [])[1]
            outs = [out for out, _start, _end in escapes]
            for place in wanted:
                k = bisect_right(outs, place) - 1  # the last escape at or before it
                if k >= 0 and outs[k] == place:
                    above[place] = escapes[k][1:]
                else:  # a character as it is: as far past the escape before as it is here
                    start = escapes[k][2] + place - outs[k] - 1 if k >= 0 else \
                        begins + place - first
                    above[place] = (start, start + 1)
        return above


def _inside(places, start, end):
    """Whether one of ``places`` (in order) is from ``start`` to before ``end``."""
    k = bisect_right(places, start - 1)
    return k < len(places) and places[k] < end


class _Reader:
    """Reads the escapes of one level of a text that comes a block at a
    time: what it cannot yet tell (the last LONGEST_ESCAPE - 1 characters,
    which may begin an escape the next block ends) waits for the next
    block. ``taken``: the place in the level above of the first character
    waiting; ``made``: the characters read out so far."""

    def __init__(self):
        self.waiting = ""
        self.taken = 0
        self.made = 0

    def mark(self):
        """Where the reading is: ``back`` takes it there again."""
        return self.waiting, self.taken, self.made

    def back(self, mark):
        self.waiting, self.taken, self.made = mark

    def read(self, block, last, escapes=None):
        """The characters ``block`` (and what waited) reads as, as far as
        they can be told (all of them when ``last``). Given a list of
        ``escapes``: ``(characters, escapes)``, each escape read put on it
        as ``(its place read out, its start and end in the level above)``."""
        text = self.waiting + block
        done = len(text) if last else _told(text, len(text) - LONGEST_ESCAPE + 1)
        if escapes is None:
            out = _ESCAPE.sub(_read, text[:done])
        else:
            shorter = [self.made, 0]  # where the reading starts; how much shorter it is

            def one(match):
                start, end = match.span()
                escapes.append((shorter[0] + start - shorter[1], self.taken + start,
                                self.taken + end))
                shorter[1] += end - start - 1
                return _read(match)
            out = _ESCAPE.sub(one, text[:done])
        self.waiting = text[done:]
        self.taken += done
        self.made += len(out)
        return out if escapes is None else (out, escapes)


def _told(text, sure):
    """How far the escapes of ``text`` can be read without what follows it:
    to ``sure`` (the first place where an escape may begin that the next
    block ends), or past it to the end of an escape that begins before it.

    Which escapes there are near ``sure`` is read from where the reading is
    known to be in step with the whole text's: a place that is no
    backslash's after another (an escape holds a backslash, ``%`` or ``&``
    only at its start, but for the second of ``\\\\``), found at most back to
    the text's start (a block's, which is in step)."""
    if sure <= 0:
        return 0
    at = max(0, sure - LONGEST_ESCAPE)
    while at > 0 and text[at - 1] == "\\":
        at -= 1
    done = sure
    for match in _ESCAPE.finditer(text, at):
        if match.start() >= sure:
            break
        done = max(done, match.end())
    return done


def _read(match):
    return _character(match.group())


@functools.lru_cache(maxsize=4096)
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
