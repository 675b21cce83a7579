"""Scoring a site-qa run: question files + raw answers (+ reviews) -> results.

``score`` reads each raw file once, line by line: it checks the line
(``read_answer``), derives the answer again from the body as received
(``responses.derive``), finds its question, judges it by the rubric's rules
(``measures.judge``), puts the reviewer's verdicts beside the mechanical ones
(``make_row``) and counts the row (``report.Tally``). A question with no raw
line counts as not delivered. Memory grows with the question set and the rows
kept (``keep_detail``), not with the raw files.

Under the rules of 2026-12-02, the rows no rule sends to a person are the
candidates of the sampled review of passes (evalkit/rubric/sampling.py): once every
line is counted, a sample of them is drawn, each row says whether it was
(``sampled``), a sampled row is ``reviewed`` once every measure that applies
to it has an entry, and results.json holds the sample and its false-pass
rates (``sampled_review``). Under those of 2026-12-03 on, every measure is
read on its own (evalkit/rubric/passes.py): a row names the measures a person
is asked to judge (``asked``), each pass no person is asked about is a
candidate of its measure, a row names the measures sampled (``sampled``, a
list), and ``sampled_review`` holds the sample, the rates and, beside each
figure, how many of its passes are true (``estimates``).

Refused with one line naming the file and the place (``BadInput``): a raw line
of the wrong shape, of a suite other than site-qa, or with a started_at that
is no time as run.py writes it (the run dates are read from it), a line
recorded against a question file with another sha256 (questions are frozen),
an id that is not a question of that file, a second answer to a question, a
raw file given twice, two question files of one set, and every bad input file.

A raw line's ``lang`` and ``kind`` are copied from its question when it is
asked; were they changed, the question still decides.
"""

import os

from .. import BadInput
from ..cli import same_file
from ..fields import Worded, brief, check, check_format, shown, wrong_field
from ..jsonl import dumps_file, iter_jsonl, read_json
from ..responses import derive
from .cases import load_site_qa
from .measures import MEASURES, judge
from .quarter import HISTORY
from .report import Tally
from .reviews import load_reviews
from .rulebook import rules_as_of
from .runs import RunFacts, provenance

NO_REVIEW = {"faulty": None, "verdicts": {}}
NOT_ASKED = {"status": None, "answer": None, "sources": [], "grounded": None, "latency_ms": None,
             "problem": "not asked", "attempts": 0}


def load_questions(paths):
    """The question sets, each checked, no question id in two of them."""
    sets = []
    owner = {}
    for path in paths:
        qset = load_site_qa(path)
        for other in sets:
            if other.sha256 == qset.sha256:
                raise BadInput(f"{path}: the same question file as {other.path}")
            if other.set == qset.set:
                # The table counts a set's questions as one group, once.
                raise BadInput(f"{path}: a second question file of set {shown(qset.set)} "
                               f"(the first: {other.path}); a set's questions are one file")
        for q in qset.questions:
            if q["id"] in owner:
                raise BadInput(f"{path}: {brief(q['id'])}: also in {owner[q['id']].path}")
            owner[q["id"]] = qset
        sets.append(qset)
    return sets


# What scoring reads of a site-qa raw line (schemas.RAW_LINE), checked by the
# one record checker before it is read, each refusal in the words it has had
# (those the checker words itself now add what the value was instead); the
# line's other fields are its writer's.
_NO_QUESTIONS = "no run.cases_sha256: this line does not say which question file it answers"
_NO_ANSWER = "no target.response.answer: cannot tell where the answer is in the body"
_PATH = Worded("string|null", "{place} must be a path in the body (a string) or absent")
_ATTEMPTS = "attempts must be a non-empty list of objects"
_BODY = Worded("string|null", "response.body and body_base64 must be strings or null")
RAW_ANSWER = {
    "id": Worded("text", "no id"),
    # run.py writes suite site-qa into every line it asks from a question
    # file; a line without one (written by hand, as the worked examples are)
    # is read as before.
    "suite?": Worded(("site-qa",), "suite {value}: not a site-qa raw line (score.py scores a "
                                   "scenario's raw lines with its scenario file)"),
    "run": Worded({"cases_sha256": Worded("string", _NO_QUESTIONS), "tool?": "string|null",
                   "*": "any"}, _NO_QUESTIONS),
    "target": Worded({"response": Worded({"answer": Worded("string", _NO_ANSWER),
                                          "sources?": _PATH, "source_url?": _PATH,
                                          "grounded?": _PATH, "*": "any"}, _NO_ANSWER),
                      "*": "any"}, _NO_ANSWER),
    # The run dates published are read from started_at: "yesterday" is refused, not cut to a date.
    "attempts": Worded([Worded({
        "started_at?": Worded("utc_time", "{place} {value} is not a UTC time as run.py writes "
                                          "it (YYYY-MM-DDTHH:MM:SS.mmmZ)"),
        "latency_ms?": Worded("count|null", "latency_ms must be a non-negative integer"),
        "*": "any"}, _ATTEMPTS), ...], _ATTEMPTS),
    "response?": Worded({"status": "integer", "body?": _BODY, "body_base64?": _BODY,
                         "truncated?": "boolean", "*": "any"},
                        "response must be an object or null", null=True),
}


# A run's lines repeat its run and target blocks: they are checked once a run.
_RAW_OF_RUN = {key: rule for key, rule in RAW_ANSWER.items() if key not in ("run", "target")}


def read_answer(line, where, known=()):
    """What scoring needs of one raw line, once the line is checked
    (RAW_ANSWER): its run and target, the answer derived again from the
    recorded body, the last attempt's latency and time, and the platform's
    version from the header the profile names. ``known``: the run and target
    of a line already checked; a line whose blocks equal them is checked
    without them (what the check reads of them is strings and null, which
    only strings and null equal: the check would find what it found)."""
    check_format(line, where)
    same = known == (line.get("run"), line.get("target"))
    problem = wrong_field(line, _RAW_OF_RUN if same else RAW_ANSWER)
    if problem is not None:
        raise BadInput(f"{where}: {problem}")
    target, response, last = line["target"], line.get("response"), line["attempts"][-1]
    derived = derive(response, target["response"])
    return {"id": line["id"], "cases_sha256": line["run"]["cases_sha256"], "run": line["run"],
            "target": target, "status": None if response is None else response["status"],
            "body": None if response is None else response.get("body")
            if response.get("body") is not None else response.get("body_base64") or "",
            "answer": derived["answer"], "sources": derived["sources"],
            "grounded": derived["grounded"], "latency_ms": last.get("latency_ms"),
            "problem": (last.get("error") or "no response") if response is None
            else derived["problem"],
            "attempts": len(line["attempts"]), "started_at": last.get("started_at"),
            "platform_version": _platform_version(target, response, where)}


def _platform_version(target, response, where):
    """The assistant's version, from the response header the profile names
    (a field held to another: the checker's spec cannot name it)."""
    header = target.get("version_header")
    headers = response.get("headers") if response is not None else None
    if not isinstance(header, str) or not isinstance(headers, dict):
        return None
    value = headers.get(header.lower())
    if not isinstance(value, (str, type(None))):
        raise BadInput(f"{where}: response.headers.{brief(header.lower())} must be a string")
    return value


def make_row(question, answer, mechanical, details, review, keep_detail, rules):
    """One question's row: the mechanical verdicts, and beside them the
    verdicts after review (a reviewer's entry replaces one verdict, with its
    reason; a faulty question is left out of every score), and who reads it
    (``rules.review_state``: the flags, whether a person must read it and
    whether it is reviewed)."""
    after = {**mechanical, **{measure: value for measure, (value, _) in review["verdicts"].items()}}
    changes = {measure: (value, reason) for measure, (value, reason) in review["verdicts"].items()
               if value != mechanical[measure]}
    row = {"id": question["id"], "set": question["set"], "lang": question["lang"],
           "kind": question["kind"], "latency_ms": answer["latency_ms"],
           "problem": answer["problem"], "mechanical": mechanical, "after_review": after,
           "review_changes": changes, "faulty": review["faulty"] is not None,
           **rules.review_state(question["kind"], mechanical, details.get("flags"), review)}
    if keep_detail:
        row.update({
            "question": question["question"], "evidence": question.get("evidence"),
            "source_url": question.get("source_url"),
            "must_not_include": question.get("must_not_include"),
            "answer": answer["answer"], "sources": list(answer["sources"]),
            "grounded": answer["grounded"], "attempts": answer["attempts"], "details": details,
            "reviews": [{"measure": m, "value": v, "reason": r}
                        for m, (v, r) in sorted(review["verdicts"].items())]})
    return row


def score(question_files, raw_files, reviews_path=None, rules_date=None, history_path=None,
          keep_detail=True):
    """The results document (a dict) of a run, as results.json holds it.

    Without ``keep_detail`` every row is counted but only those the markdown
    table lists are kept (faulty, set by review, not reviewed, not asked),
    without answers or details: light for a large run. ``rules_date`` picks
    the rules in force on that date (evalkit/rubric/rulebook.py; the newest without it)."""
    rules = rules_as_of(rules_date)
    sets = load_questions(question_files)
    by_sha = {qset.sha256: qset for qset in sets}
    reviews = load_reviews(reviews_path, {q["id"]: q for qset in sets for q in qset.questions}) \
        if reviews_path else {}
    seen = {}
    rows = {}
    facts = RunFacts()
    tally = Tally()
    sample = rules.sampler()

    def count(question, answer, where=None):
        verdicts, details = judge(question, answer, rules)
        review = reviews.get(question["id"], NO_REVIEW)
        row = make_row(question, answer, verdicts, details, review, keep_detail, rules)
        tally.add(row)
        if keep_detail or listed_in_table(row):
            rows[question["id"]] = row
        sample.add(row, answer, review, where)

    known = ()  # the run and target blocks checked last (read_answer)
    for index, path in enumerate(raw_files):
        _given_once(path, raw_files[:index])
        for number, line in iter_jsonl(path):
            where = f"{path}:{number}"
            answer = read_answer(line, where, known)
            known = (answer["run"], answer["target"])
            question = _question_of(answer, by_sha, seen, where)
            facts.add(answer)
            count(question, answer, where)
    for qset in sets:
        for question in qset.questions:
            if question["id"] not in seen:
                count(question, NOT_ASKED)
    ordered = [rows[q["id"]] for qset in sets for q in qset.questions if q["id"] in rows]
    result = results_document(sets, ordered, tally, facts, rules,
                              raw_files, reviews_path, reviews, history_path)
    sample.finish(result, sets)
    return result


def results_document(sets, ordered, tally, facts, rules,
                     raw_files, reviews_path, reviews, history_path):
    """The results document of the rows ``ordered``, counted in ``tally``."""
    other_inputs = [(path, "raw") for path in raw_files] + \
        [(path, role) for path, role in ((reviews_path, "reviews"), (history_path, "history"))
         if path]
    set_order = [qset.set for qset in sets]
    result = {
        "format": 1,
        "suite": "site-qa",
        "measures": list(MEASURES),
        "provenance": provenance(sets, facts, reviews_path, reviews, rules, other_inputs),
        "groups": tally.groups(set_order),
        "faulty": [{"id": row["id"], "reason": reviews[row["id"]]["faulty"]}
                   for row in ordered if row["faulty"]],
        "review_coverage": review_coverage(tally, ordered),
        "questions": ordered,
    }
    if history_path:
        result["history"] = load_history(history_path)
    return result


def review_coverage(tally, rows):
    """How many answers the rubric requires a person to read, how many have
    a review entry, and the ids of those without one."""
    return {"required": tally.review_required,
            "reviewed": tally.review_required - tally.review_missing,
            "missing": [row["id"] for row in rows if row["review_required"] and not row["reviewed"]]}


def listed_in_table(row):
    """Rows the markdown table names: faulty, a verdict set by review, an
    answer a person must read that has no review, a question not asked."""
    return row["faulty"] or bool(row["review_changes"]) or row["problem"] == "not asked" or \
        (row["review_required"] and not row["reviewed"])


def _given_once(path, earlier):
    """Refuse a raw file given twice (its second reading would answer every
    question again, naming the file against itself)."""
    for other in earlier:
        if same_file(path, other):
            raise BadInput(f"{path}: the same raw file as {other}, given twice")


def _question_of(answer, by_sha, seen, where):
    """The question a raw line answers; refuses a line of another question
    file, an unknown id and a second answer to one question."""
    qset = by_sha.get(answer["cases_sha256"])
    if qset is None:
        raise BadInput(
            f"{where}: answers a question file with sha256 {answer['cases_sha256'][:12]}, "
            "which matches none of the files given; questions are frozen: score against "
            "the exact file that was asked")
    question = qset.by_id.get(answer["id"])
    if question is None:
        raise BadInput(f"{where}: {brief(answer['id'])} is not a question of {qset.path}")
    if answer["id"] in seen:
        raise BadInput(f"{where}: a second answer to {brief(answer['id'])} (first at "
                       f"{seen[answer['id']]})")
    seen[answer["id"]] = where
    return question


def load_history(path):
    """history.json: earlier quarters' overall figures (evalkit.rubric.quarter.HISTORY)."""
    doc = read_json(path)
    check(doc, HISTORY, path)
    return doc["quarters"]


def results_json(result):
    """results.json: each row without its review changes, which its
    ``reviews`` say as a list."""
    out = dict(result)
    out["questions"] = [{k: v for k, v in row.items() if k != "review_changes"}
                        for row in result["questions"]]
    return dumps_file(out)


def score_quarter(folder, scoring):
    """Score a quarter folder's inputs as its manifest's ``scoring`` block
    names them (file names in the folder; evalkit/rubric/quarter.py)."""
    def path(name):
        return os.path.join(folder, name) if name else None

    return score([path(name) for name in scoring["questions"]],
                 [path(name) for name in scoring["raw"]],
                 path(scoring["reviews"]), scoring["decline_as_of"], path(scoring["history"]))
