"""Do each case once, into a JSON Lines file that the same command continues.

run.py, atomize.py and ai_eval.py each do one thing per case (ask a question,
atomize an answer, call a model) and append the case's record to OUT as soon
as it is done (runner.run_jobs). Run again, the same command continues:

- a case whose key is already on a line of OUT, whatever its outcome, is not
  done again (``key_of(line)`` names the case a line or a record is for);
- a last line cut off by a crash is dropped and its case done again
  (jsonl.read_resumable);
- a line that another run wrote (other cases, another evaluator) is refused
  by the script's ``belongs(where, line)``, and a key on two lines is refused
  here: continuing never writes a key twice;
- so is a line whose fields the script reads are not of their type
  (fields.wrong_field, called by ``belongs``), before anything is written: a
  line edited by hand stops the run with its file and line, not halfway.

For example, run.py's cases are its questions, keyed by id:

    records = resume.run(PROG, args.out, {q["id"]: q for q in todo}, key_of=...,
                         belongs=..., do_job=..., concurrency=..., progress=...)
    failed = [key for key in cases if key not in records or not delivered(...)]
    return resume.exit_code(PROG, failed, len(cases), "case(s) got no answer")

``exit_code`` is 0 when no case failed, else 1 with the failed cases listed
on one line of stderr. A refusal is BadInput, and Ctrl-C is KeyboardInterrupt
raised once the cases in flight are written: cli.run turns them into exit 2
and 130.

Left to the script: what a case is, what its record holds, which records
count as failed, and anything written after the cases (ai_eval.py's result
file). A failure is recorded, not redone, unless the user asks for it: ``redo``
(run.py --retry-failed) does the failed cases again once, and keeps the
earlier records in the lines that replace theirs.
"""

import os

from .. import BadInput, cli
from ..jsonl import LineWriter, dumps_line, read_resumable, write_atomic
from .progress import Progress
from .runner import run_jobs


# Said after "interrupted" when Ctrl-C stops a run: the same command continues.
CONTINUE = "run the same command again to continue"

def read_done(prog, path, key_of, belongs):
    """``{key: line}`` of the lines already in ``path`` (none if it is not there)."""
    done = {}
    for number, line in read_resumable(path, lambda message: cli.say(prog, message)):
        where = f"{path}:{number}"
        belongs(where, line)
        key = key_of(line)
        if key in done:
            raise BadInput(f"{where}: {key} is already on an earlier line")
        done[key] = line
    return done


def run(prog, path, cases, key_of, belongs, do_job, concurrency=1, progress=None,
        start=None, watch=None, meter=None):
    """Do every case of ``cases`` (``{key: case}``) that ``path`` holds no line
    for, appending each record as it is done; ``{key: record}`` of every case
    that has one, old or new, in the order of ``cases``.

    ``do_job(case)`` returns the record, or None to write nothing (run.py's
    manual answer not collected yet). ``progress(record)``, unless None, is
    the text after ``[done/total]`` on stderr once a record is written, and
    a progress line follows (progress.py; calls and retries from ``meter``,
    a budget.Meter, when the script calls a model).
    ``start(pending)``, unless None, is called with the cases to do (perhaps
    none) before any is done, and ``watch(record)`` once each is written; either
    may raise BadInput to stop the run (the cases in flight are written first).
    """
    done = read_done(prog, path, key_of, belongs)
    pending = [case for key, case in cases.items() if key not in done]
    total = len(cases)
    count = total - len(pending)
    made = not os.path.exists(path)
    try:
        writer = LineWriter(path)  # before start(): an OUT that cannot be written comes first
    except OSError as exc:
        raise BadInput(f"{path}: cannot write: {exc.strerror}") from None

    status = Progress(total, count, meter) if progress is not None else None

    def recorded(record):
        nonlocal count
        done[key_of(record)] = record
        count += 1
        if status is not None:
            status.case(f"[{count}/{total}] {progress(record)}", count)
        if watch is not None:
            watch(record)

    try:
        if start is not None:
            start(pending)
    except BadInput:
        writer.close()
        if made:  # a refused command leaves no file behind it
            os.unlink(path)
        raise
    try:
        run_jobs(pending, do_job, writer, concurrency, recorded)
    except KeyboardInterrupt:
        # Every line written stays (the cases in flight recorded as
        # interrupted): cli.run says how to go on.
        raise KeyboardInterrupt(CONTINUE) from None
    finally:
        writer.close()
        if status is not None:
            status.close()
    return {key: done[key] for key in cases if key in done}


def redo(prog, path, cases, key_of, belongs, failed, do_job, merge, concurrency=1,
         progress=None, start=None, watch=None, meter=None):
    """Do again, once, the cases whose line in ``path`` is ``failed(line)``,
    keeping every earlier record: ``merge(old, new)`` makes the line that
    replaces the old one (run.py keeps the old attempts in it). ``{key: line}``
    of every case, after the redo, in the order of ``cases``.

    The new records go first to ``path + ".redo"``, a file the same command
    continues like ``path`` itself; ``path`` is then rewritten at once, through
    a temporary file and a rename, and the side file removed. A crash leaves
    ``path`` as it was and the side file to continue from. A line that
    ``merge`` marked ``"redone": true`` is never done again."""
    side = path + ".redo"
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file, so nothing to do again (run it first)")
    lines = read_done(prog, path, key_of, belongs)
    again = {key: case for key, case in cases.items()
             if key in lines and failed(lines[key]) and not lines[key].get("redone")}
    if not again:
        if start is not None:
            start([])
        return {key: lines[key] for key in cases if key in lines}
    new = run(prog, side, again, key_of, belongs, do_job, concurrency, progress, start, watch,
              meter)
    merged = {key: merge(line, new[key]) if key in new else line for key, line in lines.items()}
    write_atomic(path, "".join(dumps_line(line) + "\n" for line in merged.values()))
    os.unlink(side)
    return {key: merged[key] for key in cases if key in merged}


def exit_code(prog, failed, total, what):
    """0 when ``failed`` is empty; else one line on stderr, ``prog: 2 of 10
    case(s) got no answer: a, b``, and 1."""
    if not failed:
        return 0
    cli.say(prog, f"{len(failed)} of {total} {what}: {', '.join(failed)}")
    return 1

