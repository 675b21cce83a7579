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
from ..fields import check
from ..jsonl import read_json
from ..schemas import REVIEWS_FILE
from .measures import APPLIES, MEASURES

ENTRY_KEYS = {"id", "measure", "value", "reason", "faulty"}


def load_reviews(path, questions_by_id):
    """``{id: {"faulty": reason or None, "verdicts": {measure: (value, reason)}}}``.

    Every entry is checked before anything is refused, and the refusal names
    every problem at once, each with the entries that have it, so that a
    reviewer mends the whole file in one go."""
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
        raise BadInput(f"{path}: " + "; ".join(
            f"{what}: {', '.join(where)}" for what, where in problems.items()))
    return out


class _Problem(Exception):
    def __init__(self, where, what):
        super().__init__(what)
        self.where, self.what = where, what


def _add_entry(out, entry, index, questions_by_id):
    """Check one entry and add it to ``out``; _Problem names what is wrong."""
    def bad(what):
        raise _Problem(where, what)

    where = f"reviews[{index}]"
    extra = sorted(set(entry) - ENTRY_KEYS)
    if extra:
        bad(f"unknown key(s) {', '.join(extra)}")
    qid = entry.get("id")
    if not isinstance(qid, str) or qid not in questions_by_id:
        bad(f"unknown question id {qid!r}")
    where = qid if "measure" not in entry else f"{qid} {entry['measure']}"
    reason = entry.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        bad("reason must be a non-empty line")
    if reason.splitlines() != [reason]:  # every line break Unicode has, U+2028 too
        bad("reason must be one line")
    if reason.strip().upper() == "TODO":
        bad("reason is still TODO (write what you read)")
    record = out.setdefault(qid, {"faulty": None, "verdicts": {}})
    if "faulty" in entry:
        if entry["faulty"] is not True or "measure" in entry or "value" in entry:
            bad("a faulty entry is {id, faulty: true, reason}")
        if record["faulty"] is not None:
            bad("marked faulty twice")
        record["faulty"] = reason.strip()
    else:
        measure = entry.get("measure")
        if measure not in MEASURES:
            bad(f"unknown measure {measure!r} (known: {', '.join(MEASURES)})")
        kind = questions_by_id[qid]["kind"]
        if measure not in APPLIES[kind]:
            bad(f"{measure} does not apply to a {kind} question")
        if not isinstance(entry.get("value"), bool):
            bad("value must be true or false")
        if measure in record["verdicts"]:
            bad(f"two entries for {measure}")
        record["verdicts"][measure] = (entry["value"], reason.strip())
    if record["faulty"] is not None and record["verdicts"]:
        bad("a faulty question is out of every score; it cannot also have verdict entries")
