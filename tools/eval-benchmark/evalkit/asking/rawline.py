"""The raw line run.py writes, as both its programs read it back: siterun.py
(a website assistant) and modelrun.py (a model, or answers collected by
hand); its fields are in evalkit/schemas.py. Here: the cases a run asks, the
check of a line continued (check_line), what counts as delivered or as a
failed request (asked again, once, by --retry-failed, keeping the earlier
attempts: merge_retry), the stop after FIRST_FAILURES failures alike, and
what stderr says. Asking, and the loop over the pending cases, are the
programs' own.
"""

import os
import uuid
from functools import partial

from .. import VERSION, BadInput, cli
from ..fields import check_format, wrong_field
from ..provenance import git_state, python_version
from ..textmatch import visible
from . import resume

# The script whose two programs these are: every message names it.
PROG = "run.py"
# Five failures alike before any answer: the endpoint is at fault, not the
# questions (a flaky one fails a question here and there, not five in a row).
FIRST_FAILURES = 5
# How a quarter's failed questions are asked again (the Makefile's target);
# a scenario run says its own (modelrun.py).
AGAIN = "make retry QUARTER=..."
# The fields of a raw line that run.py reads when it continues OUT (to tell
# what was delivered, to ask again, to keep the earlier attempts), and their
# types (fields.wrong_field).
RAW_FIELDS = {"target": "object", "attempts": "objects", "response": "object|null",
              "derived": "object", "earlier_responses?": "list", "redone?": "boolean"}


def select(cases, only, limit):
    """``{id: case}`` to ask: the file's, or those ``only`` names, the first ``limit``."""
    chosen = cases.questions if hasattr(cases, "questions") else cases.scenarios
    if only:
        wanted = [item.strip() for item in only.split(",") if item.strip()]
        unknown = [item for item in wanted if item not in cases.by_id]
        if unknown:
            raise BadInput(f"{cases.path}: no question with id {', '.join(unknown)}")
        keep = set(wanted)
        chosen = [case for case in chosen if case["id"] in keep]
    return {case["id"]: case for case in chosen[:limit]}


def run_block(args, cases):
    """The ``run`` block of every line this run writes."""
    commit, dirty = git_state()
    return {"run_id": uuid.uuid4().hex, "tool": PROG, "tool_version": VERSION,
            "git_commit": commit, "git_dirty": dirty, "python": python_version(),
            "cases_file": os.path.basename(cases.path), "cases_sha256": cases.sha256,
            "concurrency": args.concurrency}


def raw_line(case, suite, target, run, fields):
    """The line of ``case``: copied from it, then ``fields`` (perhaps a target of its own)."""
    line = {"format": 1, "id": case["id"], "suite": suite, "question": case["question"],
            "target": target, "run": run}
    line.update(fields)
    return line


def check_line(where, line, sha256):
    """Refuse a line of OUT that is no raw answer to this question file, or
    one whose fields that run.py reads (to tell what was delivered, to ask
    again, to keep the earlier attempts) are not of their type."""
    if not isinstance(line.get("id"), str):
        raise BadInput(f"{where}: not a raw answer line (no id)")
    run = line.get("run") if isinstance(line.get("run"), dict) else {}
    if run.get("cases_sha256") != sha256:
        raise BadInput(f"{where}: written for another question file "
                       f"(sha256 {str(run.get('cases_sha256'))[:12]}, this one {sha256[:12]}); "
                       "questions are frozen: write to a new file")
    check_format(line, where)
    problem = wrong_field(line, RAW_FIELDS)
    if problem is not None:
        raise BadInput(f"{where}: {line['id']}: {problem} (not a raw line run.py wrote)")


def delivered(line):
    """Whether the line delivered an answer, as score.py's newest rules say:
    HTTP 200 (or collected by hand) and an answer with a visible character
    (textmatch.visible: white space and zero-width marks alone are blank)."""
    response = line.get("response") or {}
    answer = (line.get("derived") or {}).get("answer")
    manual = (line.get("target") or {}).get("kind") == "manual"
    return (manual or response.get("status") == 200) and isinstance(answer, str) \
        and visible(answer)


def interrupted(line):
    """Ctrl-C cut the line's last request: sent, but no answer came."""
    attempts = line.get("attempts") or []
    return bool(attempts) and attempts[-1].get("error") == "interrupted"


def request_failed(line):
    """The request failed (no HTTP 200 on any attempt), as opposed to an
    answer that came and was bad; answers imported by hand never fail so."""
    if (line.get("target") or {}).get("kind") == "manual":
        return False
    return all(attempt.get("status") != 200 for attempt in line.get("attempts") or [])


def merge_retry(old, new):
    """The line of a question asked again: the new answer, with every earlier
    attempt first in ``attempts`` and every earlier response kept."""
    line = dict(new)
    line["attempts"] = old["attempts"] + new["attempts"]
    line["earlier_responses"] = old.get("earlier_responses", []) + [old.get("response")]
    line["redone"] = True
    return line


class FirstFailures:
    """Stops a run whose first FIRST_FAILURES questions all fail the same way, none
    answered: the endpoint is at fault, and the rest would record more of the same."""

    def __init__(self, out, again=None):
        self.out, self.reasons = out, []   # reasons: None once an answer was delivered
        self.again = again or AGAIN

    def __call__(self, line):
        if self.reasons is None or interrupted(line):
            return
        if delivered(line):
            self.reasons = None
            return
        self.reasons.append(failure(line))
        if len(self.reasons) == FIRST_FAILURES and len(set(self.reasons)) == 1:
            raise BadInput(f"the first {FIRST_FAILURES} questions all failed the same way "
                           f"({self.reasons[0]}), none was answered: stopped; their lines are "
                           f"kept in {self.out}: fix the endpoint, then ask them again with "
                           f"--retry-failed ({self.again})")


def failure(line):
    last = line["attempts"][-1] if line["attempts"] else {}
    return last.get("error") or line["derived"].get("problem") or "empty answer"


def progress_text(line):
    """What stderr says of a question once its line is written."""
    last = line["attempts"][-1] if line["attempts"] else {}
    status = last.get("status") if last.get("status") is not None else (
        last.get("error") or "imported")
    note = "" if delivered(line) else f"  (no answer: {failure(line)})"
    return f"{line['id']} {status} {last.get('latency_ms', 0)} ms{note}"


def output(args, cases, questions, meter=None):
    """OUT continued for ``questions`` (resume.Output), or with --retry-failed
    its side file for those whose request failed."""
    return resume.Output(PROG, args.out, questions, lambda line: line["id"],
                         partial(check_line, sha256=cases.sha256),
                         None if args.quiet else progress_text, meter,
                         redo=request_failed if args.retry_failed else None)


def say_complete(args, count):
    cli.say(PROG, f"{args.out}: already complete: {count} answer(s), nothing to ask"
                  + (" again" if args.retry_failed else ""))


def say_summary(out, asked, skipped):
    """The last line of a website assistant's run: the questions ``asked``
    now (their lines), how many were answered or failed, and the number
    ``skipped`` because OUT had them already."""
    answered = sum(1 for line in asked if delivered(line))
    cli.say(PROG, f"{out}: {len(asked)} asked, {answered} answered, {len(asked) - answered} "
                  f"failed; {skipped} skipped as already in the file")


def report(lines, cases, again=None):
    """The exit code of a run whose ``cases`` have ``lines``: 1 with the
    cases that got no answer on stderr. Then the answers cut off at the token
    limit, and which failed questions --retry-failed would ask again
    (``again``: how, AGAIN for a quarter's questions)."""
    again = again or AGAIN
    failed = [key for key in cases if key not in lines or not delivered(lines[key])]
    code = resume.exit_code(PROG, failed, len(cases), "case(s) got no answer")
    cut = [key for key, line in lines.items() if (line.get("response") or {}).get("cut_off")]
    if cut:
        cli.say(PROG, f"{len(cut)} answer(s) cut off at the token limit (--max-tokens): "
                      f"{', '.join(cut)}")
    retry = [key for key in failed if key in lines and request_failed(lines[key])
             and not lines[key].get("redone")]
    stopped = [key for key in retry if interrupted(lines[key])]
    if stopped:
        cli.say(PROG, f"{len(stopped)} of them interrupted (Ctrl-C) after the question was "
                      f"sent: {', '.join(stopped)}; ask them again, once, with --retry-failed "
                      f"({again})")
    if len(retry) > len(stopped):
        cli.say(PROG, f"{len(retry) - len(stopped)} of them because the request failed: when "
                      "the endpoint answers, ask them again, once, with --retry-failed "
                      f"({again})")
    return code
