"""Human review: verdict changes and faulty questions, never silent.

A reviews file (``schemas.REVIEWS``) holds entries that either set one
verdict of one question, with a one-line reason, or mark a question faulty
(left out of every score, listed with its reason). The mechanical verdicts are
kept beside the reviewed ones; report.py shows both.

Refused: unknown ids or measures, a measure that does not apply to the
question, an empty or multi-line reason, two entries for one id and measure, a
faulty question that also has verdict entries, a value that is not a boolean,
a key given twice in one entry (the second would silently win), a string
holding half of a surrogate pair (no page can show it).
"""

from .. import BadInput, whole_number
from ..fields import brief, check, listed, shown
from ..jsonl import read_json
from ..schemas import REVIEWS_FILE
from .measures import APPLIES, MEASURES

ENTRY_KEYS = {"id", "measure", "value", "reason", "faulty"}
# How many problems a refusal names, and entries of each (load_reviews).
PROBLEMS, ENTRIES = 5, 10


def load_reviews(path, questions_by_id):
    """``{id: {"faulty": reason or None, "verdicts": {measure: (value, reason)}}}``.

    Every entry is checked before anything is refused, and the refusal names
    every problem at once, each with the entries that have it, so that a
    reviewer mends the whole file in one go: the first PROBLEMS problems, the
    first ENTRIES entries of each, and how many more, so that a file of
    10,000 bad entries is still refused in a line one can read."""
    doc = read_json(path, unique_keys=True)
    if not isinstance(doc, dict) or not whole_number(doc.get("format")) or doc["format"] != 1:
        raise BadInput(f"{path}: a reviews file is an object with format 1 and a reviews list")
    check(doc, REVIEWS_FILE, path)
    out = {}
    problems = {}   # problem -> the entries that have it, in file order
    for index, entry in enumerate(doc["reviews"]):
        try:
            _add_entry(out, entry, index, questions_by_id)
        except _Problem as exc:
            problems.setdefault(exc.what, []).append(exc.where)
    if problems:
        shown_problems = [f"{what}: {listed(where, ENTRIES)}"
                          for what, where in list(problems.items())[:PROBLEMS]]
        more = len(problems) - PROBLEMS
        raise BadInput(f"{path}: " + "; ".join(shown_problems)
                       + (f"; and {more} more problem(s)" if more > 0 else ""))
    return out


class _Problem(Exception):
    def __init__(self, where, what):
        super().__init__(what)
        self.where, self.what = where, what


def _add_entry(out, entry, index, questions_by_id):
    """Check one entry and add it to ``out``; _Problem names what is wrong."""
    where = f"reviews[{index}]"
    extra = sorted(set(entry) - ENTRY_KEYS)
    if extra:
        raise _Problem(where, f"unknown key(s) {listed(extra)}")
    qid = entry.get("id")
    if not isinstance(qid, str) or qid not in questions_by_id:
        raise _Problem(where, f"unknown question id {shown(qid)}")
    # The entry's id and measure name it, each cut short: a question file may
    # hold an id of any length, and the measure is not yet checked.
    where = brief(qid) if "measure" not in entry else f"{brief(qid)} {brief(entry['measure'])}"
    reason = _reason(entry.get("reason"), where)
    record = out.setdefault(qid, {"faulty": None, "verdicts": {}})
    if "faulty" in entry:
        if entry["faulty"] is not True or "measure" in entry or "value" in entry:
            raise _Problem(where, "a faulty entry is {id, faulty: true, reason}")
        if record["faulty"] is not None:
            raise _Problem(where, "marked faulty twice")
        record["faulty"] = reason
    else:
        _add_verdict(record["verdicts"], entry, reason, where, questions_by_id[qid])
    if record["faulty"] is not None and record["verdicts"]:
        raise _Problem(where, "a faulty question is out of every score; it cannot also have "
                              "verdict entries")


def _reason(reason, where):
    """An entry's reason, stripped: one line that says what the reviewer read."""
    if not isinstance(reason, str) or not reason.strip():
        raise _Problem(where, "reason must be a non-empty line")
    if reason.splitlines() != [reason]:  # every line break Unicode has, U+2028 too
        raise _Problem(where, "reason must be one line")
    if reason.strip().upper() == "TODO":
        raise _Problem(where, "reason is still TODO (write what you read)")
    return reason.strip()


def _add_verdict(verdicts, entry, reason, where, question):
    """Check a verdict entry and add it to ``verdicts``: one per measure that
    applies to the question."""
    measure = entry.get("measure")
    if measure not in MEASURES:
        raise _Problem(where, f"unknown measure {shown(measure)} (known: {', '.join(MEASURES)})")
    kind = question["kind"]
    if measure not in APPLIES[kind]:
        raise _Problem(where, f"{measure} does not apply to a {kind} question")
    if not isinstance(entry.get("value"), bool):
        raise _Problem(where, "value must be true or false")
    if measure in verdicts:
        raise _Problem(where, f"two entries for {measure}")
    verdicts[measure] = (entry["value"], reason)
