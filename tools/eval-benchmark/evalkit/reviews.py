"""Human review: verdict changes and faulty questions, never silent.

A reviews file (``schemas.REVIEWS``) holds entries that either set one
verdict of one question, with a one-line reason, or mark a question faulty
(left out of every score, listed with its reason). The mechanical verdicts are
kept beside the reviewed ones; report.py shows both.

Refused: unknown ids or measures, a measure that does not apply to the
question, an empty or multi-line reason, two entries for one id and measure, a
faulty question that also has verdict entries, a value that is not a boolean.
"""

from . import BadInput
from .jsonl import read_json
from .measures import APPLIES, MEASURES

ENTRY_KEYS = {"id", "measure", "value", "reason", "faulty"}


def load_reviews(path, questions_by_id):
    """``{id: {"faulty": reason or None, "verdicts": {measure: (value, reason)}}}``."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("format") != 1 or isinstance(doc.get("format"), bool):
        raise BadInput(f"{path}: a reviews file is an object with format 1 and a reviews list")
    extra = sorted(set(doc) - {"format", "reviews"})
    if extra:
        raise BadInput(f"{path}: unknown key(s) {', '.join(extra)}")
    entries = doc.get("reviews")
    if not isinstance(entries, list):
        raise BadInput(f"{path}: reviews must be a list")
    out = {}
    for index, entry in enumerate(entries):
        where = f"{path}: reviews[{index}]"
        if not isinstance(entry, dict):
            raise BadInput(f"{where}: must be an object")
        extra = sorted(set(entry) - ENTRY_KEYS)
        if extra:
            raise BadInput(f"{where}: unknown key(s) {', '.join(extra)}")
        qid = entry.get("id")
        if not isinstance(qid, str) or qid not in questions_by_id:
            raise BadInput(f"{where}: unknown question id {qid!r}")
        where = f"{path}: {qid}"
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput(f"{where}: reason must be a non-empty line")
        if "\n" in reason or "\r" in reason:
            raise BadInput(f"{where}: reason must be one line")
        if reason.strip().upper() == "TODO":
            raise BadInput(f"{where}: reason is still TODO: write what you read")
        record = out.setdefault(qid, {"faulty": None, "verdicts": {}})
        if "faulty" in entry:
            if entry["faulty"] is not True or "measure" in entry or "value" in entry:
                raise BadInput(f"{where}: a faulty entry is {{id, faulty: true, reason}}")
            if record["faulty"] is not None:
                raise BadInput(f"{where}: marked faulty twice")
            record["faulty"] = reason.strip()
        else:
            measure = entry.get("measure")
            if measure not in MEASURES:
                raise BadInput(f"{where}: unknown measure {measure!r} "
                               f"(known: {', '.join(MEASURES)})")
            kind = questions_by_id[qid]["kind"]
            if measure not in APPLIES[kind]:
                raise BadInput(f"{where}: {measure} does not apply to a {kind} question")
            if not isinstance(entry.get("value"), bool):
                raise BadInput(f"{where}: value must be true or false")
            if measure in record["verdicts"]:
                raise BadInput(f"{where}: two entries for {measure}")
            record["verdicts"][measure] = (entry["value"], reason.strip())
        if record["faulty"] is not None and record["verdicts"]:
            raise BadInput(f"{where}: a faulty question is out of every score; "
                           "it cannot also have verdict entries")
    return out
