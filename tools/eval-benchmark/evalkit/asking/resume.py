"""Do each case once, into a JSON Lines file that the same command continues.

What run.py's two programs (siterun.py, modelrun.py), atomize.py and
ai_eval.py loop over their pending cases with:

    out = resume.Output(PROG, path, cases, key_of, belongs, describe, meter)
    with out:
        run_jobs(out.pending, do_job, out, concurrency)   # runner.py
    records = out.finish()

A case whose key (``key_of(line)``) is on a line of OUT, whatever its
outcome, is not done again; a last line cut off by a crash is dropped and its
case done again (jsonl.read_resumable); a line another run wrote, or one
edited by hand, is refused by the script's ``belongs(where, line)``, and a
key on two lines here, before anything is written and before a torn line
is cut: a file that is not the tool's own is never changed (read_done).
One process at a time: a second one on the same OUT (another terminal, a
cron job, make run twice) is refused in one line before it reads it
(jsonl.OneWriter, a lock the system releases when its process ends).
Left to the script: what a case and its record are, which failed, and what
comes before or after.
"""

import os

from .. import BadInput, cli
from ..jsonl import LineWriter, OneWriter, cut_torn, dumps_line, read_resumable, write_atomic
from .progress import Progress


# Said after "interrupted" when Ctrl-C stops a run: the same command continues.
CONTINUE = "run the same command again to continue"
# The side file beside OUT that the cases done again go to (Output's redo).
REDO = ".redo"


def read_done(prog, path, key_of, belongs):
    """``{key: line}`` of the lines already in ``path`` (none if it is not there).

    The file is changed only once it is known to be this tool's: every whole
    line ``belongs`` and has a key of its own, and what follows the last
    newline is the beginning of a record (a whole one belongs too). Only then
    is a line torn by a crash cut off (said on stderr) and its case done
    again; a refusal leaves the file byte for byte as it was."""
    lines, torn = read_resumable(path)
    done = {}
    for number, line in lines:
        where = f"{path}:{number}"
        belongs(where, line)
        key = key_of(line)
        if key in done:
            raise BadInput(f"{where}: {key} is already on an earlier line")
        done[key] = line
    if torn is not None:
        if torn.line is not None:
            belongs(f"{path}:{torn.number}", torn.line)
        cut_torn(path, torn)
        cli.say(prog, f"{path}: the last line was cut off by an interrupted run; "
                      "dropping it and doing that case again")
    return done


class Output:
    """The file ``path`` continued for ``cases`` (``{key: case}``): ``pending``,
    the cases it holds no line for; ``write(record)`` (run_jobs calls it)
    appends a flushed line and, with ``describe``, says ``[done/total]
    describe(record)`` on stderr over a progress line (progress.py; calls from
    ``meter``). Opened before anything is asked, so that an OUT that cannot be
    written is the first refusal; ``discard`` removes a file it made. With
    ``redo(line)``, the cases are those whose line fails it, never one already
    ``"redone"``, their lines kept in a side file (``path + REDO``, continued
    like ``path``) until ``finish``. As ``with``, Ctrl-C is raised again as
    KeyboardInterrupt(CONTINUE) once the cases in flight are written."""

    def __init__(self, prog, path, cases, key_of, belongs, describe=None, meter=None,
                 redo=None):
        # One process at a time continues ``path``: two would each ask what
        # the file lacks, and write every case twice.
        self.lock = OneWriter(path)
        try:
            self._open(prog, path, cases, key_of, belongs, describe, meter, redo)
        except BaseException:
            self.lock.release()
            raise

    def _open(self, prog, path, cases, key_of, belongs, describe, meter, redo):
        if redo is not None and not os.path.exists(path):
            raise BadInput(f"{path}: no such file, so nothing to do again (run it first)")
        self.path, self.order, self.key_of, self.describe = path, list(cases), key_of, describe
        self.lines = self.done = read_done(prog, path, key_of, belongs)
        self.redone = None   # with redo, the cases done again
        if redo is not None:
            self.redone = cases = {key: case for key, case in cases.items() if key in self.lines
                                   and redo(self.lines[key]) and not self.lines[key].get("redone")}
            path += REDO
            self.done = read_done(prog, path, key_of, belongs) if cases else {}
        self.pending = [case for key, case in cases.items() if key not in self.done]
        self.total, self.count = len(cases), len(cases) - len(self.pending)
        self.made, self.file = not os.path.exists(path), None
        if redo is None or cases:  # nothing to redo: no side file
            try:
                self.file = LineWriter(path)
            except OSError as exc:
                raise BadInput(f"{path}: cannot write: {exc.strerror}") from None
        self.progress = Progress(self.total, self.count, meter) if describe is not None else None

    def write(self, record):
        self.file.write(record)
        self.done[self.key_of(record)] = record
        self.count += 1
        if self.progress is not None:
            self.progress.case(f"[{self.count}/{self.total}] {self.describe(record)}", self.count)

    def discard(self):
        self.file.close()
        if self.made:
            os.unlink(self.file.path)
        self.lock.release()

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, traceback):
        # The cases in flight were written (recorded as their scripts decide).
        if self.file is not None:
            self.file.close()
        if self.progress is not None:
            self.progress.close()
        if kind is not None:  # no finish follows
            self.lock.release()
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            raise KeyboardInterrupt(CONTINUE) from None

    def finish(self, merge=None):
        """``{key: line}`` of the cases, in their order. After a redo, ``path``
        is rewritten at once (write_atomic) with ``merge(old, new)`` in place
        of each line done again, then the side file removed: a crash leaves
        ``path`` as it was and the side file to continue from."""
        try:
            if self.redone:
                new = {key: self.done[key] for key in self.redone if key in self.done}
                self.lines = {key: merge(line, new[key]) if key in new else line
                              for key, line in self.lines.items()}
                write_atomic(self.path, "".join(dumps_line(line) + "\n"
                                                for line in self.lines.values()))
                os.unlink(self.path + REDO)
        finally:
            self.lock.release()
        return {key: self.lines[key] for key in self.order if key in self.lines}


def exit_code(prog, failed, total, what):
    """0 when ``failed`` is empty; else one line on stderr, ``prog: 2 of 10
    case(s) got no answer: a, b``, and 1."""
    if not failed:
        return 0
    cli.say(prog, f"{len(failed)} of {total} {what}: {', '.join(failed)}")
    return 1
