"""Structure-aware mutations of valid input files, for tests/test_fuzz.py.

Each ``mutate_*`` function takes a ``random.Random`` and a valid file and
returns one ``Mutant``: a label saying what was changed and where
(``questions[1].facts[0]: a list``), the file's new bytes (or FOLDER: a
folder in the file's place; MISSING: no file), and ``must_refuse``, true
when no tool may accept the result (a file that is not UTF-8 JSON, a number
JSON cannot carry, a format that is not the whole number it was). Any other
mutant may still be valid; the fuzz then expects exit 0 or 1 and no harm.

JSON documents are mutated where they have structure: a node is picked among
all of them (the root, every value, every list item), and deleted, given a
value of each wrong JSON type, emptied, given a huge number, a NaN-ish token,
a key twice, a lone surrogate, a control character or an unknown key beside
it; a string that holds JSON itself (a response body as received) may get a
lone surrogate's escape inside, as a server that cuts an emoji in half
sends it. Whole-file mutations break the file itself: empty, truncated, latin-1 or
UTF-16 bytes, a BOM, nesting past any parser, trailing garbage, a folder in
its place. JSON Lines files get the same per line and their own: a blank
line, a torn last line, a line twice, lines swapped, a line that is no
object. What a mutation does not do: make a file valid in a new way on
purpose; nothing here knows the formats beyond their JSON.
"""

import collections
import json
import re

FOLDER = "FOLDER"    # the file's path becomes a folder
MISSING = "MISSING"  # the file is not there

Mutant = collections.namedtuple("Mutant", "label data must_refuse")

# Nested past what a JSON parser takes (refused), and deep but parseable
# (what the code that walks a value must survive).
TOO_DEEP = 100_000
DEEP = 400

# Values of every JSON type, for a field that had another.
WRONG_VALUES = (
    ("null", None), ("true", True), ("false", False), ("0", 0), ("-1", -1), ("1.5", 1.5),
    ("1.0", 1.0), ("a string", "x"), ("an empty string", ""), ("a blank string", " \t "),
    ("an empty list", []), ("a list of a number", [1]), ("a list of a list", [["x"]]),
    ("a list of an object", [{"x": 1}]), ("an empty object", {}), ("an object", {"x": 1}),
    ("a deep list", "DEEP"))
# Tokens written into the text as they are: numbers that are huge, or no number.
HUGE = (("1e308", "1e308", False), ("-1e308", "-1e308", False),
        ("30 digits", "123456789012345678901234567890", False), ("2**64", str(2 ** 64), False),
        ("5,000 digits", "9" * 5000, False), ("1e999", "1e999", True),
        ("-1e999", "-1e999", True), ("tiny", "1e-400", False), ("-0", "-0", False))
NAN_TOKENS = ("NaN", "Infinity", "-Infinity", "nan", "inf")
NAN_STRINGS = ("NaN", "nan", "inf", "-Infinity", "1e999")
CONTROL = (("a NUL", "\x00"), ("a line break", "\n"), ("CR LF", "\r\n"), ("an escape", "\x1b[31m"),
           ("a line separator", "\u2028"), ("DEL", "\x7f"), ("a tab", "\t"),
           ("zero-width marks", "\u200b\u200f"), ("a BOM", "\ufeff"), ("a bell", "\x07"))
SURROGATES = ("\ud800", "\udfff", "\udc00x")

# Where the defects are (issue 41): the 64 failures the first fuzz found on
# 4b94a4a were all at a leaf (a string, a number) or a whole file, none at a
# list or an object as a whole, and most from a value of another type, a lone
# surrogate or a format. So a case changes a leaf most of the time, with
# those operators weighted up.
LEAF_SHARE = 0.85
OPERATORS, WEIGHTS = zip(("wrong", 4), ("surrogate", 3), ("received", 2), ("control", 1),
                         ("string", 1), ("huge", 1), ("nan", 1), ("duplicate key", 1),
                         ("number text", 1), ("delete", 1), ("empty", 1), ("unknown key", 1),
                         ("twice", 1))

_PLACE = "\u0000PLACE{}\u0000"
_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text):
    """JSON text with each lone surrogate written as its \\u escape: what a
    file holding one looks like (no UTF-8 encoder writes the character)."""
    return _SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def dump(doc, tokens=(), compact=False):
    """``doc`` as UTF-8 JSON bytes, on one line (json's C encoder: a deep
    list is slow to indent); each ``_PLACE`` string of ``tokens`` (index ->
    raw text) replaced by its raw text."""
    if compact:
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    else:
        text = json.dumps(doc, ensure_ascii=False) + "\n"
    for index, raw in tokens:
        text = text.replace(json.dumps(_PLACE.format(index)), raw, 1)
    return escape_surrogates(text).encode("utf-8")


def nodes(doc, path=()):
    """``(path, value)`` of every node, the root first."""
    yield path, doc
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from nodes(value, path + (key,))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from nodes(value, path + (index,))


def show(path):
    """``questions[1].facts[0]`` of a path; ``(the whole file)`` of the root."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(the whole file)"


def _copy(doc):
    return json.loads(json.dumps(doc))


def _set(doc, path, value):
    """``doc`` with the node at ``path`` replaced (the root: the value itself)."""
    if not path:
        return value
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return doc


def _get(doc, path):
    for part in path:
        doc = doc[part]
    return doc


def _embedded(value):
    """The JSON document a string holds (a response body), or None."""
    if not isinstance(value, str) or not value.startswith(("{", "[")):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def _type_name(value):
    if value is None or isinstance(value, bool):
        return repr(value)
    return type(value).__name__


def _deep_list():
    value = ["x"]
    for _ in range(DEEP):
        value = [value]
    return value


def mutate_doc(rng, doc, compact=False):
    """One structural mutation of a parsed JSON document: a Mutant."""
    doc = _copy(doc)
    every = list(nodes(doc))
    leaves = [(p, v) for p, v in every if not isinstance(v, (dict, list)) or not v]
    path, value = rng.choice(leaves if leaves and rng.random() < LEAF_SHARE else every)
    where = show(path)
    is_format = bool(path) and path[-1] == "format"
    op = rng.choices(OPERATORS, WEIGHTS)[0]
    if op == "received":
        # A string that is itself JSON (a response body as received) gets a
        # lone surrogate's escape inside, as a server that cuts an emoji in
        # half sends it: valid JSON, recorded as received.
        bodies = [(p, _embedded(v)) for p, v in nodes(doc) if _embedded(v) is not None]
        strings = [(p, inner, at) for p, inner in bodies
                   for at, v in nodes(inner) if isinstance(v, str)]
        if strings:
            path, inner, at = rng.choice(strings)
            lone = rng.choice(SURROGATES)
            _set(inner, at, _get(inner, at) + lone)
            doc = _set(doc, path, escape_surrogates(json.dumps(inner, ensure_ascii=False)))
            return Mutant(f"{show(path)}: {show(at)} of the JSON it holds: a lone surrogate "
                          f"{lone[:1]!r}", dump(doc, compact=compact), False)
    if op == "delete" and path:
        parent = _get(doc, path[:-1])
        del parent[path[-1]]
        return Mutant(f"{where}: deleted", dump(doc, compact=compact), False)
    if op == "huge":
        label, raw, refuse = rng.choice(HUGE)
        doc = _set(doc, path, _PLACE.format(0))
        return Mutant(f"{where}: {label}", dump(doc, [(0, raw)], compact),
                      refuse or (is_format and raw != "1"))
    if op == "nan":
        token = rng.choice(NAN_TOKENS)
        doc = _set(doc, path, _PLACE.format(0))
        return Mutant(f"{where}: {token}", dump(doc, [(0, token)], compact), True)
    if op == "string":
        text = rng.choice(NAN_STRINGS + ("", "x" * 20_000, "\u05e9\u05dc\u05d5\u05dd", "e\u0301",
                                         "../../etc/passwd", "{question}", "%s%n"))
        doc = _set(doc, path, text)
        return Mutant(f"{where}: the string {text[:12]!r}", dump(doc, compact=compact),
                      is_format)
    if op == "surrogate":
        lone = rng.choice(SURROGATES)
        new = (value + lone) if isinstance(value, str) else lone
        doc = _set(doc, path, new)
        return Mutant(f"{where}: a lone surrogate {lone[:1]!r}", dump(doc, compact=compact),
                      is_format)
    if op == "control":
        label, char = rng.choice(CONTROL)
        new = (value[:len(value) // 2] + char + value[len(value) // 2:]) \
            if isinstance(value, str) else char
        doc = _set(doc, path, new)
        return Mutant(f"{where}: {label} in a string", dump(doc, compact=compact), is_format)
    if op == "duplicate key":
        objects = [(p, v) for p, v in nodes(doc) if isinstance(v, dict) and v]
        if objects:
            path, value = rng.choice(objects)
            key = rng.choice(sorted(value))
            label, other = rng.choice(WRONG_VALUES[:10])
            first = rng.random() < 0.5
            # The key twice, the wrong value first or last (a parser keeps the last).
            twice = {}
            for name, item in value.items():
                if name == key and first:
                    twice[_PLACE.format(0)] = other
                twice[name] = item
                if name == key and not first:
                    twice[_PLACE.format(0)] = other
            doc = _set(doc, path, twice)
            text = dump(doc, compact=compact).decode("utf-8")
            text = text.replace(json.dumps(_PLACE.format(0)), json.dumps(key, ensure_ascii=False),
                                1)
            return Mutant(f"{show(path + (key,))}: given twice, {label} "
                          f"{'first' if first else 'last'}", text.encode("utf-8"),
                          key == "format" and not first)
    if op == "unknown key":
        objects = [p for p, v in nodes(doc) if isinstance(v, dict)]
        if objects:
            path = rng.choice(objects)
            _get(doc, path)["zz_unknown"] = rng.choice((1, "x", None, []))
            return Mutant(f"{show(path)}: an unknown key", dump(doc, compact=compact), False)
    if op == "empty" and isinstance(value, (list, dict, str)) and value:
        doc = _set(doc, path, type(value)())
        return Mutant(f"{where}: emptied", dump(doc, compact=compact), is_format)
    if op == "twice":
        lists = [(p, v) for p, v in nodes(doc) if isinstance(v, list) and v]
        if lists:
            path, value = rng.choice(lists)
            value.append(_copy(rng.choice(value)))
            return Mutant(f"{show(path)}: an item twice", dump(doc, compact=compact), False)
    if op == "number text" and isinstance(value, (int, float)) and not isinstance(value, bool):
        doc = _set(doc, path, str(value))
        return Mutant(f"{where}: the number as text", dump(doc, compact=compact), is_format)
    # A value of another JSON type (the default of every operator that
    # found nothing to work on).
    choices = [(label, wrong) for label, wrong in WRONG_VALUES
               if wrong == "DEEP" or _type_name(wrong) != _type_name(value) or
               (is_format and wrong != value)]
    label, wrong = rng.choice(choices)
    if wrong == "DEEP":
        wrong = _deep_list()
    doc = _set(doc, path, wrong)
    refuse = is_format and not (type(wrong) is int and wrong == value)
    return Mutant(f"{where}: {label}", dump(doc, compact=compact), refuse)


def mutate_file(rng, data):
    """One mutation of a JSON file as a whole: a Mutant."""
    text = data.decode("utf-8")
    op = rng.randrange(13)
    if op == 0:
        return Mutant("empty file", b"", True)
    if op == 1:
        cut = rng.randrange(1, max(2, len(data) - 1))
        cut_data = data[:cut]
        return Mutant(f"truncated at byte {cut}", cut_data, not _parses(cut_data))
    if op == 2:
        at = text.find('"', rng.randrange(len(text)))
        at = text.find('"') if at < 0 else at
        return Mutant("a latin-1 byte in a string",
                      data[:len(text[:at + 1].encode())] + b"caf\xe9" +
                      data[len(text[:at + 1].encode()):], True)
    if op == 3:
        return Mutant("a BOM before the JSON", b"\xef\xbb\xbf" + data, False)
    if op == 4:
        return Mutant("UTF-16", text.encode("utf-16"), True)
    if op == 5:
        return Mutant("nested past any parser", b"[" * TOO_DEEP + b"]" * TOO_DEEP, True)
    if op == 6:
        return Mutant("garbage after the JSON", data + b"}{,", True)
    if op == 7:
        other = rng.choice((b"[]", b"[1, 2]", b'"text"', b"5", b"null", b"true"))
        return Mutant(f"a whole file of {other.decode()}", other, True)
    if op == 8:
        return Mutant("a folder in its place", FOLDER, True)
    if op == 9:
        return Mutant("no file", MISSING, True)
    if op == 10:
        return Mutant("white space only", b" \n\t\n", True)
    if op == 11:
        return Mutant("a NUL byte", data.replace(b"{", b"{\x00", 1), True)
    return Mutant("CR LF line ends", data.replace(b"\n", b"\r\n"), False)


def _parses(data):
    try:
        json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return True


def mutate_json(rng, data):
    """A JSON file: mostly a structural mutation, else a whole-file one."""
    if rng.random() < 0.78:
        return mutate_doc(rng, json.loads(data.decode("utf-8")))
    return mutate_file(rng, data)


def mutate_jsonl(rng, data, torn_ok=False, missing_ok=False):
    """A JSON Lines file: one line mutated, or the lines themselves.
    ``torn_ok``: a torn last line is what a crash leaves in a file being
    continued, and is dropped, not refused; ``missing_ok``: an output being
    continued may not exist yet."""
    lines = data.decode("utf-8").splitlines(keepends=True)
    number = rng.randrange(len(lines))
    if rng.random() < 0.7:
        mutant = mutate_doc(rng, json.loads(lines[number]), compact=True)
        body = mutant.data + b"\n"
        new = [line.encode("utf-8") for line in lines]
        new[number] = body
        return Mutant(f"line {number + 1}: {mutant.label}", b"".join(new), mutant.must_refuse)
    raw = [line.encode("utf-8") for line in lines]
    op = rng.randrange(13)
    if op == 0:
        raw.insert(number, b"\n")
        return Mutant(f"a blank line {number + 1}", b"".join(raw), True)
    if op == 1:
        whole = b"".join(raw)
        cut = rng.randrange(1, len(raw[-1]) - 1)
        return Mutant("the last line torn", whole[:len(whole) - cut], not torn_ok)
    if op == 2:
        raw.insert(number, raw[number])
        return Mutant(f"line {number + 1} twice", b"".join(raw), False)
    if op == 3:
        del raw[number]
        return Mutant(f"line {number + 1} left out", b"".join(raw), False)
    if op == 4:
        raw.reverse()
        return Mutant("the lines in reverse order", b"".join(raw), False)
    if op == 5:
        other = rng.choice((b"[1]", b'"x"', b"null", b"5", b"[]"))
        raw.insert(number, other + b"\n")
        return Mutant(f"line {number + 1}: {other.decode()}", b"".join(raw), True)
    if op == 6:
        raw[number] = raw[number].replace(b'"', b'"\xff', 1)
        return Mutant(f"line {number + 1}: not UTF-8", b"".join(raw), True)
    if op == 7:
        return Mutant("CR LF line ends", b"".join(line.replace(b"\n", b"\r\n") for line in raw),
                      False)
    if op == 8:
        return Mutant("a BOM before line 1", b"\xef\xbb\xbf" + b"".join(raw), True)
    if op == 9:
        return Mutant("empty file", b"", False)
    if op == 10:
        return Mutant("a folder in its place", FOLDER, True)
    if op == 11:
        return Mutant("no file", MISSING, not missing_ok)
    raw[number] = raw[number][:len(raw[number]) // 2] + b"\n"
    return Mutant(f"line {number + 1} cut in half", b"".join(raw), True)


def mutate_text(rng, data, marker=None):
    """A text file (a prompt, a policy, an answer collected by hand)."""
    op = rng.randrange(9)
    if op == 0:
        return Mutant("empty file", b"", False)
    if op == 1:
        at = rng.randrange(len(data) + 1)
        return Mutant("a latin-1 byte", data[:at] + b"caf\xe9" + data[at:], True)
    if op == 2:
        return Mutant("a folder in its place", FOLDER, True)
    if op == 3:
        return Mutant("no file", MISSING, True)
    if op == 4 and marker:
        return Mutant(f"the line {marker.decode()} left out", data.replace(marker + b"\n", b"", 1),
                      False)
    if op == 5:
        return Mutant("UTF-16", data.decode("utf-8").encode("utf-16"), True)
    if op == 6:
        at = rng.randrange(len(data) + 1)
        return Mutant("a NUL byte and control characters", data[:at] + b"\x00\x1b\x07" + data[at:],
                      False)
    if op == 7:
        at = rng.randrange(len(data) + 1)
        return Mutant("an encoded surrogate (not UTF-8)", data[:at] + b"\xed\xa0\x80" + data[at:],
                      True)
    at = rng.randrange(len(data) + 1)
    return Mutant(f"cut at byte {at}", data[:at], False)


# ---- the sweep: what every input gets once ----------------------------------------------

# A format that is not the whole number 1: each loader's check of it had its
# own hole (a string, true, an object, 1e999 taken for it).
FORMATS = (("true", True), ("the string '1'", "1"), ("a blank string", " "), ("an object", {}),
           ("a deep list", "DEEP"), ("NaN", "NaN"))


def _with_surrogates(value):
    """``value`` with a lone surrogate at the end of every string in it, and
    of every string in the JSON a string holds (a response body)."""
    if isinstance(value, dict):
        return {key: _with_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_surrogates(item) for item in value]
    if isinstance(value, str):
        inner = _embedded(value)
        if inner is not None:
            return escape_surrogates(json.dumps(_with_surrogates(inner), ensure_ascii=False))
        return value + SURROGATES[0]
    return value


def _formats(doc, compact=False):
    """The document with each of FORMATS as its format (none without one)."""
    if not isinstance(doc, dict) or "format" not in doc:
        return []
    out = []
    for label, value in FORMATS:
        tokens = [(0, value)] if value == "NaN" else []
        new = dict(doc, format=_PLACE.format(0) if tokens else
                   (_deep_list() if value == "DEEP" else value))
        out.append(Mutant(f"format: {label}", dump(new, tokens, compact), True))
    return out


# What a place is given in the sweep: a string, a list (not hashable, not a
# string); a list or an object, a number; anything else, a string with a
# line break and a NUL in it.
PLACES = 20
OTHER_THAN_TEXT, OTHER_THAN_NUMBER = ("a list of a list", [["x"]]), ("a string", "1\n\x00")
OTHER_THAN_LIST = ("-1", -1)


def _places(docs):
    """``(line, path, value)`` of the first node at each place of ``docs``
    (a place: a path with its item numbers left out), but the whole of a
    document and a format; at most PLACES of them, evenly spread over it."""
    seen, out = set(), []
    for line, doc in enumerate(docs):
        for path, value in nodes(doc):
            place = tuple("[]" if isinstance(part, int) else part for part in path)
            if not path or place in seen or path[-1] == "format":
                continue
            seen.add(place)
            out.append((line, path, value))
    return out[::-(-len(out) // PLACES)] if len(out) > PLACES else out


def _sweep(docs, compact):
    """``[(label, docs)]``: each place of another type, one at a time (a
    field a loader does not check is met, wherever it is), every string
    with a lone surrogate, the first document's format each way FORMATS has
    it. The defects the first fuzz found were all of these (issue 41)."""
    out = []
    for line, path, value in _places(docs):
        label, other = OTHER_THAN_TEXT if isinstance(value, str) else \
            OTHER_THAN_LIST if isinstance(value, (dict, list)) else OTHER_THAN_NUMBER
        new = list(docs)
        new[line] = _set(_copy(docs[line]), path, other)
        out.append((f"{show(path)}: {label}", [dump(d, compact=compact) for d in new], False))
    out.append(("every string: a lone surrogate",
                [dump(_with_surrogates(d), compact=compact) for d in docs], False))
    for m in _formats(docs[0], compact):
        out.append((m.label, [m.data] + [dump(d, compact=compact) for d in docs[1:]], True))
    return out


def sweep_json(data):
    """The sweep of a JSON file (``_sweep``), and the file nested past any parser."""
    cases = _sweep([json.loads(data.decode("utf-8"))], False)
    return [Mutant(label, texts[0], refuse) for label, texts, refuse in cases] + \
        [Mutant("nested past any parser", b"[" * TOO_DEEP + b"]" * TOO_DEEP, True)]


def sweep_jsonl(data):
    """The sweep of a JSON Lines file (``_sweep``: a leaf of any line)."""
    docs = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    return [Mutant(label, b"".join(text + b"\n" for text in texts), refuse)
            for label, texts, refuse in _sweep(docs, True)]


def sweep_text(data):
    """A text file empty, and cut in half."""
    return [Mutant("empty file", b"", False), Mutant("cut in half", data[:len(data) // 2], False)]
