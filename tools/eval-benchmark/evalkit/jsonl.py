"""All JSON and JSON Lines I/O of the project, in one place.

Writing: one object per line, ``ensure_ascii=False, sort_keys=True`` and compact
separators, flushed line by line so that a killed process loses at most the line
in flight. JSON files are written to a temporary file beside the target and
renamed, so a crash never leaves a half-written published file; the several
outputs of one command are all written before any is renamed into place
(write_all_atomic), so they appear together or not at all.

Reading: every bad line is reported as ``file:line: reason``; nothing is skipped
silently. The two mistakes of a file written by hand (a reviews file) are named
in those words, at their own place: a comma before } or ], and a curly quote.
Numbers that JSON cannot carry (NaN, Infinity, 1e999) are refused, and a
document nested too deeply for the parser is an error, not a crash. So
is a string that is not Unicode text: JSON escapes UTF-16 code units, and
``"\\ud800"`` parses to half of a surrogate pair on its own, which no UTF-8
file, request or page can hold. The project never writes one, so a file that
holds one was written by hand and is refused, naming the place
(``questions[2].facts[0][1]``), before any script goes on with it. (A body a
server sent is another matter: it is recorded as received, and the text
derived from it has U+FFFD in the place: evalkit/responses.py.)
"""

import hashlib
import json
import os
import re

from . import BadInput


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:20]} is too large for a number")
    return value


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def _object_of_unique_keys(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} is given twice in one object")
        seen.add(key)
    return dict(pairs)


_UNIQUE_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float,
                                   object_pairs_hook=_object_of_unique_keys)

# Only a text that escapes a surrogate can parse to a lone one: the walk
# below is made for those alone (evalkit/responses.py reads bodies so too).
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
SURROGATE = re.compile("[\ud800-\udfff]")


class _NotText(ValueError):
    """A string or key of the document is half of a surrogate pair."""


def _parse(text, decoder=_DECODER):
    """json.loads with NaN, Infinity, 1e999 and lone surrogates refused."""
    if text.startswith("\ufeff"):  # what json.loads says of it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    value = decoder.decode(text)
    if SURROGATE_ESCAPE.search(text):
        place = _lone_surrogate(value, "")
        if place is not None:
            raise _NotText(f"{place or 'the document'} holds half of a surrogate pair on its "
                           "own (an escape from \\ud800 to \\udfff), which is no character")
    return value


def _lone_surrogate(value, place):
    """The place of the first string or key in ``value`` holding a lone
    surrogate (``questions[2].id``), or None."""
    if isinstance(value, str):
        return place if SURROGATE.search(value) else None
    if isinstance(value, list):
        items = ((f"{place}[{n}]", item) for n, item in enumerate(value))
    elif isinstance(value, dict):
        for key in value:
            if SURROGATE.search(key):
                return f"{place}: a key" if place else "a key"
        items = ((f"{place}.{key}" if place else key, item) for key, item in value.items())
    else:
        return None
    for where, item in items:
        found = _lone_surrogate(item, where)
        if found is not None:
            return found
    return None


# Quotes that a word processor, a mail or a chat window curls where a person
# typed ": JSON takes none of them for its own. The double ones may also end a
# string a straight quote began, to a reader's eye; the string then runs on.
_CURLY_QUOTES = "\u201c\u201d\u201e\u201f\u2018\u2019"
_CURLY_DOUBLE = re.compile("[\u201c-\u201f]")
# The curly quotes of the error's line tried as straight ones: the nearest few,
# so that a long line of quoted text costs a few parses, not one a quote.
_CURLY_TRIED = 4


def _syntax_error(text, exc, decoder=_DECODER):
    """``(line, column, what)`` of a JSON syntax error (``exc``, raised by
    ``decoder`` on ``text``). The two mistakes of a file written by hand are
    named in those words, at their own place: a comma left before } or ]
    (the parser stops at the bracket, a line later), and a curly quote.
    Any other error keeps the parser's words and place."""
    comma = exc.pos if text[exc.pos:exc.pos + 1] == "," else len(text[:exc.pos].rstrip()) - 1
    before = text[:max(comma, 0)].rstrip()[-1:]
    after = text[comma + 1:].lstrip()[:1]
    # Only a comma after a value: in {"a": ,} the value is what is missing.
    if comma >= 0 and text[comma] == "," and after in ("]", "}") and \
            (before in ('"', "]", "}", "e", "l") or before.isdigit()):
        return _place(text, comma) + (f"a comma before {after}: JSON allows none (remove it)",)
    curly = _curly_quote(text, exc, decoder)
    if curly is not None:
        return _place(text, curly) + (f'a curly quote {text[curly]}: JSON needs straight " '
                                      "quotes",)
    return exc.lineno, exc.colno, exc.msg


def _place(text, pos):
    """``(line, column)`` of ``pos``, counted as the json module counts them."""
    return text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)


def _curly_quote(text, exc, decoder):
    """The place of the curly quote that made ``exc``, or None: the one the
    parser stopped at, or one on its line that, made straight, lets the
    parser get further (the quote that was meant to end a string)."""
    if exc.pos < len(text) and text[exc.pos] in _CURLY_QUOTES:
        return exc.pos
    start = text.rfind("\n", 0, exc.pos) + 1
    end = text.find("\n", exc.pos)
    line = _CURLY_DOUBLE.finditer(text, start, len(text) if end < 0 else end)
    tried = sorted((found.start() for found in line),
                   key=lambda at: abs(at - exc.pos))[:_CURLY_TRIED]
    for at in tried:
        try:
            decoder.decode(text[:at] + '"' + text[at + 1:])
        except json.JSONDecodeError as again:
            if again.pos > exc.pos:
                return at
        except (ValueError, RecursionError):
            continue  # past the syntax, but another refusal: not proof enough
        else:
            return at
    return None


def loads(text, where):
    """Parse one JSON document; ``where`` names it in errors (``file:line``)."""
    try:
        return _parse(text)
    except RecursionError:
        raise BadInput(f"{where}: JSON nested too deeply") from None
    except json.JSONDecodeError as exc:
        line, column, what = _syntax_error(text, exc)
        raise BadInput(f"{where}: not valid JSON: {what} "
                       f"(line {line}, column {column})") from None
    except _NotText as exc:
        raise BadInput(f"{where}: {exc}") from None
    except ValueError as exc:
        raise BadInput(f"{where}: not valid JSON: {exc}") from None


def read_text(path):
    """The file's text; refuses a file that is missing or not UTF-8."""
    return read_file(path)[1]


def read_file(path):
    """``(bytes, text)`` of a file; refuses one that is missing or not UTF-8."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{path}: is a folder, not a file") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise BadInput(f"{path}:{line}: not UTF-8 (byte {exc.start}, column {col})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return data, text


def read_json(path, unique_keys=False):
    """A whole JSON file (question sets, reviews, profiles)."""
    return read_json_sha(path, unique_keys)[0]


def sha256_of(data):
    """The sha256 of bytes, or of a text's UTF-8, as 64 hex digits: the one
    digest every file, answer and prompt is recorded by."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    """The sha256 of a file's bytes, read a block at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_json_sha(path, unique_keys=False):
    """``(value, sha256 of the bytes on disk)`` of a whole JSON file. With
    ``unique_keys`` a key given twice in one object is refused (a file people
    write by hand, where the second ``"value"`` would silently win)."""
    data, text = read_file(path)
    sha256 = sha256_of(data)
    del data  # not held while the text is parsed: a question file's bytes are 30 MB at 100,000
    decoder = _UNIQUE_DECODER if unique_keys else _DECODER
    try:
        value = _parse(text, decoder)
    except RecursionError:
        raise BadInput(f"{path}: JSON nested too deeply") from None
    except json.JSONDecodeError as exc:
        line, column, what = _syntax_error(text, exc, decoder)
        raise BadInput(f"{path}:{line}:{column}: not valid JSON: {what}") from None
    except _NotText as exc:
        raise BadInput(f"{path}: {exc}") from None
    except ValueError as exc:
        raise BadInput(f"{path}: not valid JSON: {exc}") from None
    return value, sha256


def iter_jsonl(path):
    """Yield ``(line_number, object)`` for every line of a JSON Lines file.

    A blank line, a line that is not a JSON object, or a last line without its
    newline (a line torn by a crash) is an error naming the line.
    """
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror}") from None
    with fh:
        for number, raw in enumerate(fh, 1):
            if not raw.endswith(b"\n"):
                raise BadInput(f"{path}:{number}: last line is cut off (no newline): "
                               "the run that wrote it was interrupted; re-run it to finish")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise BadInput(f"{path}:{number}: not UTF-8") from None
            if text.isspace():
                raise BadInput(f"{path}:{number}: blank line")
            value = loads(text, f"{path}:{number}")
            if not isinstance(value, dict):
                raise BadInput(f"{path}:{number}: a line must be a JSON object")
            yield number, value


def dumps_line(obj):
    """One JSON Lines record, without its newline."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def dumps_file(obj):
    """A whole JSON file's text: indent 2, sorted keys, trailing newline."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def write_atomic(path, text):
    """Write ``text`` to ``path`` through a temporary file and a rename. A
    path that cannot be written is refused naming it, never the temporary
    file the user did not ask for."""
    write_all_atomic([(path, text)])


def write_all_atomic(outputs):
    """Write every ``(path, text)`` of ``outputs``, or none of them: the
    outputs of one command appear together or not at all.

    Each text goes first to a temporary file beside its target (same folder,
    so the rename cannot cross disks); only once all are written and synced
    are they renamed into place, in order (a path given twice: the last
    wins). A failure while writing (a full disk, a missing folder) removes
    every temporary file and leaves every target as it was. A target that is
    a folder is found before any rename, the one way a rename within a folder
    fails that can be seen coming; any other failed rename leaves the outputs
    renamed before it in place (not undone)."""
    staged = []
    try:
        for index, (path, text) in enumerate(outputs):
            folder = os.path.dirname(os.path.abspath(path))
            # The index keeps two outputs with one name (or one path given
            # twice) from sharing a temporary file.
            tmp = os.path.join(folder, f".{os.path.basename(path)}.tmp{os.getpid()}-{index}")
            staged.append((path, tmp))
            try:
                with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(text)
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise BadInput(f"{path}: {_cannot_write(path, folder, exc)}") from None
        for path, _tmp in staged:
            if os.path.isdir(path):
                raise BadInput(f"{path}: is a folder, not a file")
        for path, tmp in list(staged):
            try:
                os.replace(tmp, path)
            except OSError as exc:
                folder = os.path.dirname(os.path.abspath(path))
                raise BadInput(f"{path}: {_cannot_write(path, folder, exc)}") from None
            staged.remove((path, tmp))
    finally:
        for _path, tmp in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _cannot_write(path, folder, exc):
    if os.path.isdir(path):
        return "is a folder, not a file"
    if not os.path.isdir(folder):
        return "no such folder"
    return f"cannot write it ({exc.strerror or type(exc).__name__})"


class LineWriter:
    """Append JSON Lines records, flushing each so a crash tears at most one."""

    def __init__(self, path):
        self.path = path
        self._fh = open(path, "a", encoding="utf-8", newline="\n")

    def write(self, obj):
        self._fh.write(dumps_line(obj) + "\n")
        self._fh.flush()

    def close(self):
        self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_resumable(path, warn):
    """The lines of a JSON Lines file being continued: ``[(number, object)]``.

    A last line without its newline was torn by a crash: it is cut off the
    file (``warn`` says so) and its case is asked again. Any other bad line is
    an error: that is not what an interrupted run leaves.
    """
    if not os.path.exists(path):
        return []
    with open(path, "rb") as fh:
        data = fh.read()
    good_end = len(data)
    if data and not data.endswith(b"\n"):
        good_end = data.rfind(b"\n") + 1
        warn(f"{path}: the last line was cut off by an interrupted run; "
             "dropping it and doing that case again")
    out = []
    for number, raw in enumerate(data[:good_end].splitlines(), 1):
        where = f"{path}:{number}"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"{where}: not UTF-8; this is not a file this tool wrote") from None
        line = loads(text, where)
        if not isinstance(line, dict):
            raise BadInput(f"{where}: a line must be a JSON object")
        out.append((number, line))
    if good_end != len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
    return out
