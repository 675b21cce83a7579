"""The command-line layer shared by the scripts.

Every script's ``main(argv=None) -> int`` is ``cli.run(PROG, argv, parse_args,
command)``: the one place where a user's error becomes a message.

  exit 2    a refusal: ``BadInput`` (a file or argument the user can fix), an
            ``OSError`` (a path that cannot be read or written), or an argparse
            error; one line on stderr, ``prog: file: what``
  exit 130  Ctrl-C: ``prog: interrupted`` on stderr (what was written stays
            whole: every output is written line by line or renamed into place);
            a run that continues where it stopped (run.py, atomize.py,
            ai_eval.py) adds ``: run the same command again to continue``
  else      what ``command(args)`` returns

Every line it prints goes through ``printable``: folded to one line, with
every control character (an escape sequence's ESC included) and every bidi
override written as a Python escape, so that a file name or a server's error
text can neither move the cursor, retitle the terminal nor reorder the line
(``score.py: \\x1b[31mq.json: No such file or directory``). The scripts,
the progress lines, the providers' notes, resume's and budget's lines use
it too, and every line of a listing on stdout that names a file or holds a
file's text goes through ``escaped``, the same escapes without the folding
(reproduce.py, compare.py, lint_questions.py, quarters.py).

The parser's errors are one line too (``run.py: give both --price-in and
--price-out (see --help)``); its --help ends with two or three example
command lines and fits a screen (60 lines at most), and --help-formats
prints the formats of evalkit/schemas.py as written. A numeric
option takes its ``type`` from ``number``, which refuses NaN, infinities and
values out of the option's range while parsing (``run.py: argument
--timeout: must be a number above 0 and at most 86400, not 'inf' (see
--help)``), so no such value reaches a socket, a sleep or a rate limit; it
takes ASCII digits alone, as every number the project reads.

An output named as one of a command's inputs (``score.py q.json raw.jsonl
--out raw.jsonl``, or a link to it) is refused before anything is written
(``refuse_overwriting``): the scripts that write files call it.
"""

import argparse
import math
import os
import re
import sys

from . import BadInput, one_line


# The bounds the scripts share: a request may take a day at most, and a
# model may be asked for a million tokens at most (none writes more).
MAX_SECONDS = 24 * 60 * 60
MAX_TOKENS = 1_000_000

# C0 and C1 control characters and DEL (ESC, BEL, CSI ...); the bidi
# embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which
# reorder what follows them on the line; and lone surrogates (a file name's
# bytes that are not UTF-8), which no terminal can be sent.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text):
    r"""``text`` as one line a terminal shows as it is: folded to one line
    (every run of white space, line breaks included, one space), then each
    control character, bidi override and lone surrogate written as its
    escape, ``\x1b``, ``\u202e``, ``\udcff``. Other text, backslashes
    included, is left as it is.

    >>> printable("bad \x1b]0;owned\x07 name\n\u202eevil")
    'bad \\x1b]0;owned\\x07 name \\u202eevil'
    """
    return escaped(one_line(text))


def escaped(text):
    r"""``text`` with each control character (line breaks too), bidi
    override and lone surrogate written as its escape, and nothing else
    changed (its spaces kept): a line of a listing on stdout that holds a
    name from a folder or a file.

    >>> escaped("differs    a\x1b[2Jb\n")
    'differs    a\\x1b[2Jb\\x0a'
    """
    return _UNPRINTABLE.sub(lambda found: _escape(found.group()), text)


def _escape(char):
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's, with room for an option and its value before its help
    (``--concurrency N``), so that --help stays short."""

    def __init__(self, prog):
        super().__init__(prog, max_help_position=32)


class ArgumentParser(argparse.ArgumentParser):
    """The scripts' parser: errors in one line; a usage line of the
    positional arguments alone (``run.py questions out [options]``); the
    ``examples`` command lines at the end of --help, and with ``formats``
    (a text of evalkit/schemas.py) a --help-formats option that prints it:
    --help stays within a screen, the field reference one option away."""

    def __init__(self, examples=(), formats=None, formatter_class=_Formatter, **kwargs):
        super().__init__(formatter_class=formatter_class, **kwargs)
        self.examples = examples
        self.formats = formats
        if formats:
            self.add_argument("--help-formats", action=_PrintFormats, formats=formats,
                              help="the formats of the files read and written")

    def format_help(self):
        # The usage line and the epilog are made here, for --help alone.
        if self.usage is None:
            formatter = self._get_formatter()
            names = [formatter._format_args(action, action.dest)  # as argparse names them
                     for action in self._get_positional_actions()]
            self.usage = " ".join(["%(prog)s"] + names + ["[options]"])
        if self.epilog is None:
            tail = ["examples:"] + [f"  {line}" for line in self.examples] + [""] \
                if self.examples else []
            if self.formats:
                tail.append(f"{self.prog} --help-formats prints the formats of the files it "
                            "reads and writes (evalkit/schemas.py).")
            tail.append("Exit codes and the rest: tools/eval-benchmark/README.md.")
            self.epilog = "\n".join(tail)
        return super().format_help()

    def error(self, message):
        say(self.prog, f"{message} (see --help)")
        sys.exit(2)


class _PrintFormats(argparse.Action):
    """--help-formats: print the formats and stop, as --help does."""

    def __init__(self, option_strings, dest, formats, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.formats = formats

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(self.formats.rstrip("\n") + "\n")
        parser.exit()


# The numbers an option takes, in ASCII alone (int() and float() would also
# take other scripts' digits, ١ for 1, and 1_0 for 10): an optional sign and
# decimal digits; for a fraction, a point and an exponent as float() writes
# them. White space around is allowed, as int() and float() allow it.
_WHOLE = re.compile(r"[ \t\n\r\f\v]*[-+]?[0-9]+[ \t\n\r\f\v]*")
_FRACTION = re.compile(r"[ \t\n\r\f\v]*[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
                       r"[ \t\n\r\f\v]*")


def number(minimum=None, maximum=None, above=None, integer=False):
    """An argparse ``type`` for a numeric option: a finite number (a whole
    one with ``integer``) of at least ``minimum`` (or more than ``above``)
    and at most ``maximum``, written in ASCII digits (no ``1_0``, no ``١``;
    inf and nan are no numbers either); anything else is refused with the
    range."""
    wanted = _wanted(minimum, maximum, above, integer)

    def parse(text):
        refused = argparse.ArgumentTypeError(
            f"must be {wanted}, not {text if len(text) <= 40 else text[:37] + '...'!r}")
        if not (_WHOLE if integer else _FRACTION).fullmatch(text):
            raise refused
        try:
            value = int(text) if integer else float(text)
        except ValueError:  # a whole number of more digits than int() converts
            raise refused from None
        if not math.isfinite(value) or (minimum is not None and value < minimum) or \
                (above is not None and value <= above) or \
                (maximum is not None and value > maximum):
            raise refused
        return value
    return parse


def _wanted(minimum, maximum, above, integer):
    """The range ``number`` takes, in words, for its refusal: ``a number
    above 0 and at most 86400``."""
    what = "a whole number" if integer else "a number"
    if above is not None:
        return f"{what} above {above}" + ("" if maximum is None else f" and at most {maximum}")
    if minimum is not None:
        return f"{what} of at least {minimum}" if maximum is None \
            else f"{what} from {minimum} to {maximum}"
    return f"a finite {what[2:]}" if maximum is None else f"{what} of at most {maximum}"


def same_file(one, other):
    """True when two paths name one file: os.path.samefile when both are
    there (a link to the other, a hard link, another spelling), else the
    same real absolute path (a file not written yet)."""
    if os.path.exists(one) and os.path.exists(other):
        try:
            return os.path.samefile(one, other)
        except OSError:
            pass  # not to be looked at (no permission): its path decides
    return os.path.realpath(one) == os.path.realpath(other)


def refuse_overwriting(outputs, inputs):
    """Refuse (BadInput, one line naming both) an output that is one of the
    inputs, before anything is written: writing it would replace what the
    command reads, or reads again the next time, with what it writes.
    ``outputs`` are ``(what, path)`` (``("--out", "results.md")``),
    ``inputs`` paths; a path that is None (an option not given) is none."""
    for what, output in outputs:
        for given in inputs:
            if output is not None and given is not None and same_file(output, given):
                raise BadInput(f"{output}: {what} is the same file as the input {given}: "
                               "writing it would change that input, so nothing was written "
                               "(name another file)")


def refuse_writing_into(outputs, folder):
    """Refuse (BadInput) an output path inside ``folder``, a folder whose
    every file the command reads (a corpus): a file written there would
    replace one, or be read as one the next time. None is no output."""
    real = os.path.realpath(folder)
    for output in outputs:
        if output is not None and (os.path.realpath(output) + os.sep).startswith(real + os.sep):
            raise BadInput(f"{output}: inside {folder}, whose every file is read as an input: "
                           "nothing was written (name another place)")


def describe_os_error(exc):
    """``file: what went wrong`` of an OSError, without a traceback."""
    what = exc.strerror or type(exc).__name__
    if exc.filename is None:
        return what
    if exc.filename2 is not None:
        return f"{exc.filename} -> {exc.filename2}: {what}"
    return f"{exc.filename}: {what}"


def run(prog, argv, parse_args, command):
    """Parse ``argv``, run ``command(args)``, and turn every user error into
    one line on stderr with its exit code."""
    try:
        return command(parse_args(argv))
    except BadInput as exc:
        message = exc
    except OSError as exc:
        message = describe_os_error(exc)
    except KeyboardInterrupt as exc:
        # A run that continues where it stopped says so (evalkit/asking/resume.py).
        say(prog, f"interrupted: {exc}" if str(exc) else "interrupted")
        return 130
    return fail(prog, message)


def fail(prog, message, code=2):
    """Print one line on stderr and return ``code``: for a refusal found
    outside an exception."""
    say(prog, message)
    return code


def say(prog, message):
    """``prog: message`` on stderr, as one printable line: every line the
    scripts print there goes through here."""
    sys.stderr.write(f"{prog}: {printable(message)}\n")
