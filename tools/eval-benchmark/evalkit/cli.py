"""The command-line layer shared by the scripts.

Every script's ``main(argv=None) -> int`` is ``cli.run(PROG, argv, parse_args,
command)``: the one place where a user's error becomes a message.

  exit 2    a refusal: ``BadInput`` (a file or argument the user can fix), an
            ``OSError`` (a path that cannot be read or written), or an argparse
            error; one line on stderr, ``prog: file: what``
  exit 130  Ctrl-C: ``prog: interrupted`` on stderr (what was written stays
            whole: every output is written line by line or renamed into place)
  else      what ``command(args)`` returns

The parser's errors are one line too (``run.py: --limit must be at least 1
(see --help)``), and its help keeps the schema prose as written.
"""

import argparse
import sys

from . import BadInput, one_line


class ArgumentParser(argparse.ArgumentParser):
    def __init__(self, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(**kwargs)

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {one_line(message)} (see --help)\n")
        sys.exit(2)


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
        message = one_line(exc)
    except OSError as exc:
        message = one_line(describe_os_error(exc))
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    sys.stderr.write(f"{prog}: {message}\n")
    return 2


def fail(prog, message, code=2):
    """Print one line on stderr and return ``code``: for a refusal found
    outside an exception."""
    sys.stderr.write(f"{prog}: {one_line(message)}\n")
    return code
