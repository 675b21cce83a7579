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
Every JSON text the tools read, a file or a body a server sent, is read by one
rule (``decode``), the same on every Python from 3.10: numbers that JSON cannot
carry (NaN, Infinity) and numbers no float can hold (1e999, an integer of 400
digits) are refused, so that no later arithmetic overflows and no integer meets
Python 3.11's limit on digits; a document nested deeper than MAX_DEPTH levels
is refused too, whatever the interpreter's recursion limit (3.13 parses 5,000
levels that 3.10 refuses, and every recursive walk after it would then fail).
A string that is not Unicode text is refused in a file: JSON escapes UTF-16
code units, and ``"\\ud800"`` parses to half of a surrogate pair on its own,
which no UTF-8 file, request or page can hold. The project never writes one,
so a file that holds one was written by hand and is refused, naming the place
(``questions[2].facts[0][1]``), before any script goes on with it. (A body a
server sent is another matter: it is recorded as received, and the text
derived from it has U+FFFD in the place: evalkit/responses.py.)

A file is read only when it is a regular file (or a link to one): a FIFO, a
device or a socket in a run or quarter folder is refused in one line instead
of being waited on for ever (``open_regular``).
"""

import codecs
import hashlib
import json
import math
import os
import re
import stat
from typing import NamedTuple, Optional

from . import BadInput

try:
    import fcntl
except ImportError:  # Windows: no lock (OneWriter)
    fcntl = None


# The deepest nesting of arrays and objects any JSON text may have: ten
# times what any file or reply of the project holds, and far from the depth
# at which a recursive walk of the parsed value meets the recursion limit.
MAX_DEPTH = 100


class TooDeep(ValueError):
    """A JSON text nested deeper than MAX_DEPTH."""

    def __init__(self):
        super().__init__(f"JSON nested too deeply (more than {MAX_DEPTH} levels)")


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:20]} is too large for a number")
    return value


def _whole_number(text):
    """An integer, unless no float can hold it: refused by its length before
    int() is called, so an integer of 5,000 digits gets the same refusal on
    3.10 as on 3.11+, where int() has a limit of digits."""
    return int(text) if len(text) <= 300 or math.isfinite(float(text)) else _too_large(text)


def _too_large(text):
    raise ValueError(f"{text[:20]}... ({len(text.lstrip('-'))} digits) is too large for a number")


_NUMBERS = {"parse_constant": _refuse_constant, "parse_float": _finite_float,
            "parse_int": _whole_number}
_DECODER = json.JSONDecoder(**_NUMBERS)


def _object_of_unique_keys(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} is given twice in one object")
        seen.add(key)
    return dict(pairs)


_UNIQUE_DECODER = json.JSONDecoder(**_NUMBERS, object_pairs_hook=_object_of_unique_keys)


def decode(text, decoder=_DECODER, text_only=False):
    """One JSON text read by the project's one rule (above): the value, or
    ValueError (json.JSONDecodeError for a syntax error, TooDeep past
    MAX_DEPTH, or deeper than the parser itself goes). With ``text_only`` (a
    file's rule) a lone surrogate is refused too (_NotText); else it is the
    caller's (responses.parse_received)."""
    if text.startswith("\ufeff"):  # what json.loads says of it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        value = decoder.decode(text)
    except RecursionError:
        raise TooDeep() from None
    # Only a text with more brackets than MAX_DEPTH can be nested deeper:
    # most lines are not walked at all.
    if text.count("[") + text.count("{") > MAX_DEPTH and _deeper_than(value, MAX_DEPTH):
        raise TooDeep()
    if text_only and SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogate(value)
    return value


def _deeper_than(value, most):
    """Whether ``value`` nests arrays and objects more than ``most`` deep;
    walked level by level, without recursion."""
    level = [value]
    for _ in range(most):
        level = [child for item in level for child in (item.values() if type(item) is dict else item)
                 if isinstance(child, (dict, list))]
    return bool(level)


# Only a text that escapes a surrogate can parse to a lone one: the walk
# below is made for those alone (evalkit/responses.py reads bodies so too).
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
SURROGATE = re.compile("[\ud800-\udfff]")


class _NotText(ValueError):
    """A string or key of the document is half of a surrogate pair."""


def _refuse_lone_surrogate(value):
    place = _lone_surrogate(value, "")
    if place is not None:
        raise _NotText(f"{place or 'the document'} holds half of a surrogate pair on its "
                       "own (an escape from \\ud800 to \\udfff), which is no character")


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
    return _decoded(text, _DECODER, where, "{where}: not valid JSON: {what} (line {line}, "
                                           "column {column})")


def _decoded(text, decoder, where, syntax):
    """``decode(text)`` of a file's text, or BadInput naming ``where``; a
    syntax error in the words of ``syntax`` (its {where}, {line}, {column}
    and {what})."""
    try:
        return decode(text, decoder, text_only=True)
    except json.JSONDecodeError as exc:
        line, column, what = _syntax_error(text, exc, decoder)
        raise BadInput(syntax.format(where=where, line=line, column=column, what=what)) from None
    except (_NotText, TooDeep) as exc:
        raise BadInput(f"{where}: {exc}") from None
    except ValueError as exc:
        raise BadInput(f"{where}: not valid JSON: {exc}") from None


def open_regular(path):
    """``path`` opened for reading, in binary, when it is a regular file (a
    link to one is followed); BadInput naming what else it is (a FIFO, a
    device, a socket), IsADirectoryError for a folder, OSError as open().
    A FIFO is not waited on for a writer (O_NONBLOCK), and the kind is that
    of the file opened, not of whatever had the name a moment before."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        _not_regular(fd, path, mode)
    return os.fdopen(fd, "rb")


def _not_regular(fd, path, mode):
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", path)
    raise BadInput(f"{path}: is {file_kind(mode)}, not a regular file: nothing was read from it")


def file_kind(mode):
    """What a file of this ``st_mode`` is, in words, for a refusal."""
    for test, words in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
                        (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a regular file"


def read_text(path):
    """The file's text; refuses a file that is missing or not UTF-8."""
    return read_file(path)[1]


def read_file(path):
    """``(bytes, text)`` of a file; refuses one that is missing or not UTF-8."""
    try:
        with open_regular(path) as fh:
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


_SPACE = re.compile(r"[ \t\n\r]*")


def declared(path, key):
    """The value of ``key`` at the top of the JSON object in ``path`` (a case
    file's ``"suite"``), read key by key: the values before it are parsed
    only to step over them, and none after it. None when the file cannot be
    read, is no JSON object or has no such key: its loader says why, in its
    words. What a script reads to choose the loader, never a check."""
    try:
        text = read_text(path)
        at = _SPACE.match(text, 0).end()
        if text[at:at + 1] != "{":
            return None
        at = _SPACE.match(text, at + 1).end()
        while text[at:at + 1] == '"':
            name, at = json.decoder.scanstring(text, at + 1)
            at = _SPACE.match(text, at).end()
            if text[at:at + 1] != ":":
                return None
            value, at = _DECODER.raw_decode(text, _SPACE.match(text, at + 1).end())
            if name == key:
                return value
            at = _SPACE.match(text, at).end()
            if text[at:at + 1] != ",":
                return None  # the end of the object, or not JSON
            at = _SPACE.match(text, at + 1).end()
    except (BadInput, ValueError, RecursionError):
        pass
    return None


def sha256_of(data):
    """The sha256 of bytes, or of a text's UTF-8, as 64 hex digits: the one
    digest every file, answer and prompt is recorded by."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    """The sha256 of a file's bytes, read a block at a time."""
    digest = hashlib.sha256()
    with open_regular(path) as fh:
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
    return _decoded(text, decoder, path, "{where}:{line}:{column}: not valid JSON: {what}"), sha256


def iter_jsonl(path):
    """Yield ``(line_number, object)`` for every line of a JSON Lines file.

    A blank line, a line that is not a JSON object, or a last line without its
    newline (a line torn by a crash) is an error naming the line.
    """
    try:
        fh = open_regular(path)
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


class OneWriter:
    """The lock that lets one process at a time write ``path`` (a file the
    same command continues): held on ``path + ".lock"``, a file beside it,
    from before ``path`` is read until the run ends. A second process is
    refused at once, in one line naming the first one's pid.

    An OS lock (fcntl.flock), so the kernel releases it when its process
    ends, however it ends: a crash or SIGKILL never leaves it stuck (the
    lock file may stay, unlocked; the next run takes it and removes it).
    Where fcntl is missing (Windows) no lock is taken, and two runs on one
    file are not refused there."""

    SUFFIX = ".lock"

    def __init__(self, path):
        self.path, self.fh = path + self.SUFFIX, None
        taken = fcntl is None  # nothing to take
        while not taken:
            taken = self._take(path)
        if self.fh is not None:
            self.fh.seek(0)
            self.fh.truncate()
            self.fh.write(f"{os.getpid()}\n")
            self.fh.flush()

    def _take(self, path):
        """Open the lock file and lock it (``self.fh``): True when done, or
        when the file system takes no lock (NFS without locking: then none);
        False when the file locked was removed meanwhile by the process that
        held it, so that another may be made: to be tried again."""
        try:
            fh = open(self.path, "a+", encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"{path}: cannot write: {exc.strerror}") from None
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read(20).strip()
            fh.close()
            pid = f" (pid {holder})" if holder.isdigit() else ""
            raise BadInput(f"{path}: another process{pid} is writing it now ({self.path} is "
                           "locked): wait for it to end, or write to another file") from None
        except OSError:
            fh.close()
            return True
        try:
            same = os.path.samestat(os.fstat(fh.fileno()), os.stat(self.path))
        except FileNotFoundError:
            same = False
        if not same:
            fh.close()
            return False
        self.fh = fh
        return True

    def release(self):
        """Remove the lock file, then let the lock go (in this order, so
        that no process locks a file that is about to be removed)."""
        if self.fh is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        self.fh.close()
        self.fh = None


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


class TornLine(NamedTuple):
    """What an interrupted run left after the last newline of a file it
    appends to: the line's ``number``, the ``offset`` it begins at (where the
    file is cut back to), and ``line``, the object when only the newline was
    lost (to be checked like any line), else None."""
    number: int
    offset: int
    line: Optional[dict]


def read_resumable(path):
    """``(lines, torn)`` of a JSON Lines file being continued: ``[(number,
    object)]`` of its whole lines and the TornLine after them (None when the
    file ends with its newline or is not there). The file is only read: the
    caller checks that every line is one of its records before it cuts a
    torn line off (cut_torn), so a file the tool did not write is never
    changed.

    A torn line is what a crash leaves of a record being appended
    (dumps_line): its first bytes, cut anywhere, a character in two
    included, without the newline. So it is the beginning of one JSON
    object, text that JSON text could complete; when it is a whole object
    (the newline alone lost) the caller checks it too. Anything else after
    the last newline is no part of a record and refused naming its line, as
    is any whole line that is not a JSON object: a foreign file (an .env
    file, a JSON file saved without its last newline, a file of other lines)
    is refused and left byte for byte as it was.
    """
    if not os.path.exists(path):
        return [], None
    with open_regular(path) as fh:
        data = fh.read()
    good_end = data.rfind(b"\n") + 1
    out = []
    for number, raw in enumerate(data[:good_end].splitlines(), 1):
        out.append((number, _resumed_line(raw, f"{path}:{number}")))
    if good_end == len(data):
        return out, None
    return out, _torn_line(data[good_end:], f"{path}:{len(out) + 1}", len(out) + 1, good_end)


def _resumed_line(raw, where):
    """The object of one whole line of a file being continued."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{where}: not UTF-8; this is not a file this tool wrote") from None
    line = loads(text, where)
    if not isinstance(line, dict):
        raise BadInput(f"{where}: a line must be a JSON object")
    return line


def _torn_line(raw, where, number, offset):
    """The TornLine of the bytes after the last newline, or BadInput when
    they cannot be the beginning of a record."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        text = decoder.decode(raw)  # not final: a character cut at the end waits
    except UnicodeDecodeError:
        text = None
    if text is not None and decoder.getstate()[0]:
        # The first bytes of a character: one only a string can hold.
        text += "\ufffd"
    found = None if text is None else _object_prefix(text)
    if found is None:
        raise BadInput(f"{where}: the last line has no newline and is not the beginning of a "
                       "line this tool writes, so this is not a file it wrote; nothing was "
                       "changed (name another file)")
    return TornLine(number, offset, loads(text, where) if found == "whole" else None)


def cut_torn(path, torn):
    """Cut the torn line off ``path``: the file ends with its last whole line."""
    with open(path, "r+b") as fh:
        fh.truncate(torn.offset)


# A torn line's tokens, with JSON's white space before each: a string
# (unclosed only at the end), a number, a word (true, false, null or, at the
# end, the start of one), a mark; the end. _token_ok holds each to JSON.
_TOKEN = re.compile(r'[ \t\r]*(?:(?P<string>"(?:[^"\\]|\\.)*(?:"|\\?\Z))'
                    r'|(?P<number>[-0-9][-+.eE0-9]*)|(?P<word>[a-z]+)|(?P<mark>[][{}:,])'
                    r'|(?P<end>\Z))', re.S)
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_WORDS = ("true", "false", "null")
# What completes a token cut at the end: a string cut after its backslash
# takes \" and a quote, one cut in a \u escape the rest of its hex digits.
_COMPLETIONS = {"string": ('"', '""', '0"', '00"', '000"', '0000"'), "number": ("0",)}
# JSON's grammar as (state, token) -> state: "value" awaits a value, "item"
# a value or ], "member" a key or }, "key" a key, "colon" the colon, and
# after a value "next{" or "next[" a comma or the closing mark. The line
# must open an object.
_GRAMMAR = {("start", "{"): "member", ("member", "string"): "colon", ("key", "string"): "colon",
            ("colon", ":"): "value", ("next{", ","): "key", ("next[", ","): "value",
            ("member", "}"): "next", ("next{", "}"): "next",
            ("item", "]"): "next", ("next[", "]"): "next"}
for _awaits in ("value", "item"):
    _GRAMMAR.update({(_awaits, "{"): "member", (_awaits, "["): "item",
                     (_awaits, "string"): "next", (_awaits, "scalar"): "next"})


def _object_prefix(text):
    """``"whole"`` when ``text`` (no newline in it) is one JSON object,
    ``"begun"`` when it is the beginning of one that more text could
    complete, else None. Scanned token by token, without parsing."""
    state, stack, pos = "start", [], 0
    while True:
        found = _TOKEN.match(text, pos)
        if found is None or found.lastgroup == "end":
            break
        pos = found.end()
        kind, token = found.lastgroup, found.group(found.lastgroup)
        if not _token_ok(kind, token, pos == len(text)):
            return None
        step = token if kind == "mark" else ("string" if kind == "string" else "scalar")
        state = _GRAMMAR.get((state + stack[-1] if state == "next" else state, step))
        if state is None:
            return None
        if step in ("{", "["):
            stack.append(step)
        elif step in ("}", "]"):
            stack.pop()
            state = "next" if stack else "whole"
    if found is None or state == "start":
        return None
    return "whole" if state == "whole" else "begun"


def _token_ok(kind, token, last):
    """True when ``token`` is one JSON takes, or, ``last`` in the text, the
    beginning of one."""
    if kind == "mark":
        return True
    if kind == "word":
        return token in _WORDS or (last and any(word.startswith(token) for word in _WORDS))
    endings = ("",) + (_COMPLETIONS[kind] if last else ())
    full = _STRING if kind == "string" else _NUMBER
    return any(full.fullmatch(token + ending) for ending in endings)
