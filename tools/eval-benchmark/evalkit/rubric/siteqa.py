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

from .. import BadInput, whole_number
from ..provenance import host_of, is_local_host
from ..cli import same_file
from ..fields import brief, check, check_format, shown, utc_time
from ..jsonl import dumps_file, iter_jsonl, read_json, sha256_file, sha256_of
from ..responses import derive
from .cases import load_site_qa
from .measures import MEASURES, judge
from .passes import PassReview, asked as asked_measures
from .quarter import HISTORY
from .report import Tally
from .reviews import load_reviews
from .rulebook import rules_as_of
from .sampling import WholeAnswers

SCORER = "score.py"
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


def read_answer(line, where):
    """Check one raw line's shape; return what scoring needs of it, with the
    answer derived again from the recorded body. The checks are written out
    here rather than given to the record checker (fields.py): scoring reads
    every raw line of a run, and through the checker it took 8 % more
    instructions on make bench's answers, which then missed the scoring
    target (2026-12-02, Documents/performance/README.md)."""
    def bad(reason):
        raise BadInput(f"{where}: {reason}")

    check_format(line, where)
    if not isinstance(line.get("id"), str) or not line["id"]:
        bad("no id")
    # run.py writes suite site-qa into every line it asks from a question
    # file (schemas.RAW_LINE); a line without one (written by hand, as the
    # worked examples are) is read as before.
    if line.get("suite", "site-qa") != "site-qa":
        bad(f"suite {shown(line['suite'])}: not a site-qa raw line (score.py scores a "
            "scenario's raw lines with its scenario file)")
    run, target, spec = _run_and_target(line, bad)
    attempts = line.get("attempts")
    last = _last_attempt(attempts, bad)
    latency = last.get("latency_ms")
    if latency is not None and (not whole_number(latency) or latency < 0):
        bad("latency_ms must be a non-negative integer")
    response = line.get("response")
    status = platform = None
    if response is not None:
        status, platform = _response_status(response, bad), _platform_version(target, response, bad)
    derived = derive(response, spec)
    return {"id": line["id"], "cases_sha256": run["cases_sha256"], "run": run, "target": target,
            "body_sha256": None if response is None else sha256_of(
                response.get("body") if response.get("body") is not None
                else response.get("body_base64") or ""),
            "status": status, "answer": derived["answer"], "sources": derived["sources"],
            "grounded": derived["grounded"], "latency_ms": latency,
            "problem": (last.get("error") or "no response") if response is None
            else derived["problem"],
            "attempts": len(attempts), "started_at": last.get("started_at"),
            "platform_version": platform}


def _last_attempt(attempts, bad):
    """The last of a raw line's attempts, once each is an object whose
    started_at, when given, is a time as run.py writes it: the run dates
    published are read from it, so "yesterday" is refused, not cut to a date."""
    if not isinstance(attempts, list) or not attempts or \
            not all(isinstance(attempt, dict) for attempt in attempts):
        bad("attempts must be a non-empty list of objects")
    for index, attempt in enumerate(attempts):
        if "started_at" in attempt and not utc_time(attempt["started_at"]):
            bad(f"attempts[{index}].started_at {shown(attempt['started_at'])} is not a UTC time "
                "as run.py writes it (YYYY-MM-DDTHH:MM:SS.mmmZ)")
    return attempts[-1]


def _run_and_target(line, bad):
    """A raw line's run, target and the target's paths to the answer."""
    run = line.get("run")
    if not isinstance(run, dict) or not isinstance(run.get("cases_sha256"), str):
        bad("no run.cases_sha256: this line does not say which question file it answers")
    if not isinstance(run.get("tool"), (str, type(None))):
        bad("run.tool must be a string")
    target = line.get("target")
    spec = target.get("response") if isinstance(target, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("answer"), str):
        bad("no target.response.answer: cannot tell where the answer is in the body")
    for key in ("sources", "source_url", "grounded"):
        if not isinstance(spec.get(key), (str, type(None))):
            bad(f"target.response.{key} must be a path in the body (a string) or absent")
    return run, target, spec


def _response_status(response, bad):
    """The HTTP status of a recorded response, once its fields are checked."""
    if not isinstance(response, dict):
        bad("response must be an object or null")
    status = response.get("status")
    if not whole_number(status):
        bad("response.status must be an integer")
    for key in ("body", "body_base64"):
        if not isinstance(response.get(key), (str, type(None))):
            bad("response.body and body_base64 must be strings or null")
    if not isinstance(response.get("truncated", False), bool):
        bad("response.truncated must be true or false")
    return status


def _platform_version(target, response, bad):
    """The assistant's version, from the response header the profile names."""
    header = target.get("version_header")
    headers = response.get("headers")
    if not isinstance(header, str) or not isinstance(headers, dict):
        return None
    value = headers.get(header.lower())
    if not isinstance(value, (str, type(None))):
        bad(f"response.headers.{brief(header.lower())} must be a string")
    return value


def needs_review(kind, mechanical, flags):
    """The rubric: every answer to a not-on-site question, and every
    answerable one that failed a measure, is read by a person; from
    2026-12-01 also a passing one with a review flag (measures.FLAGS)."""
    return kind == "not_on_site" or any(value is False for value in mechanical.values()) \
        or bool(flags)


def make_row(question, answer, mechanical, details, review, keep_detail, asked=None):
    """One question's row: the mechanical verdicts, and beside them the
    verdicts after review (a reviewer's entry replaces one verdict, with its
    reason; a faulty question is left out of every score). ``asked`` (rules
    of 2026-12-03 on): the measures a person is asked to judge; the row is
    reviewed once each has an entry."""
    after = dict(mechanical)
    changes = {}
    for measure, (value, reason) in review["verdicts"].items():
        after[measure] = value
        if value != mechanical[measure]:
            changes[measure] = (value, reason)
    row = {"id": question["id"], "set": question["set"], "lang": question["lang"],
           "kind": question["kind"], "latency_ms": answer["latency_ms"],
           "problem": answer["problem"], "mechanical": mechanical, "after_review": after,
           "review_changes": changes, "faulty": review["faulty"] is not None,
           "review_required": needs_review(question["kind"], mechanical, details.get("flags")),
           "reviewed": review is not NO_REVIEW}
    if asked is not None:
        row.update(asked=asked, review_required=bool(asked), reviewed=review["faulty"] is not None
                   or all(measure in review["verdicts"] for measure in asked))
    if "flags" in details:  # rules of 2026-12-01 on
        row["flags"] = details["flags"]
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
    sample = sample_of(rules)

    def count(question, answer, where=None):
        verdicts, details = judge(question, answer, rules)
        review = reviews.get(question["id"], NO_REVIEW)
        row = make_row(question, answer, verdicts, details, review, keep_detail,
                       asked_of(rules, question, verdicts, details))
        tally.add(row)
        if keep_detail or listed_in_table(row):
            rows[question["id"]] = row
        if sample:
            sample.add(row, answer, review, where)

    for index, path in enumerate(raw_files):
        _given_once(path, raw_files[:index])
        for number, line in iter_jsonl(path):
            where = f"{path}:{number}"
            answer = read_answer(line, where)
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
    if sample:
        result["sampled_review"] = sample.block(ordered, result["groups"], sets)
    return result


def asked_of(rules, question, verdicts, details):
    """The measures a person is asked to judge (rules of 2026-12-03 on:
    passes.asked), or None under older rules, which read whole answers."""
    if not rules.measure_review:
        return None
    return asked_measures(question["kind"], verdicts, details.get("flags"))


def sample_of(rules):
    """What gathers the sampled review of passes under ``rules``: the passes
    of each measure (2026-12-03 on: evalkit/rubric/passes.py), the whole
    answers no rule sends to a person (2026-12-02: evalkit/rubric/sampling.py),
    or nothing before."""
    if rules.measure_review:
        return PassReview()
    return WholeAnswers() if rules.sampled_review else None


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


class RunFacts:
    """What the provenance needs from the raw lines, gathered as they are
    read: the runs, tools, targets, providers, models, platform versions and
    dates they name."""

    def __init__(self):
        self.runs = {}
        self.tools = set()
        self.targets = set()
        self.urls = set()
        self.providers = set()
        self.models = set()
        self.platforms = set()
        self.dates = set()
        self.lines = 0

    def add(self, answer):
        run, target = answer["run"], answer["target"]
        self.lines += 1
        self.runs.setdefault(str(run.get("run_id")), {
            "git_commit": run.get("git_commit"), "git_dirty": run.get("git_dirty"),
            "python": run.get("python")})
        self.tools.add(run.get("tool"))
        self.targets.add(f"{target.get('kind')} at {target.get('url')}")
        if isinstance(target.get("url"), str):
            self.urls.add(target["url"])
        if target.get("provider"):
            self.providers.add(str(target["provider"]))
        if target.get("model"):
            self.models.add(str(target["model"]))
        if answer["platform_version"]:
            self.platforms.add(answer["platform_version"])
        if isinstance(answer["started_at"], str):
            self.dates.add(answer["started_at"][:10])


def provenance(sets, facts, reviews_path, reviews, rules, other_inputs):
    """Where the numbers come from: the runs as their raw lines describe
    them, the question files, the reviews, the rules' date, the scorer
    version those rules' output is (evalkit/rubric/rulebook.py),
    and the sha256 of every input file (by file name: no folder, so that the
    same files score the same wherever they are)."""
    commits = sorted({(str(run.get("git_commit") or ""), bool(run.get("git_dirty")))
                      for run in facts.runs.values()})
    return {
        "run": {"status": run_status(facts, rules)},
        "target": "; ".join(sorted(facts.targets)) or "none",
        "provider": _one_or_all(facts.providers),
        "model": _one_or_all(facts.models),
        "prompt_versions": [],
        "platform_versions": sorted(facts.platforms),
        "run_dates": sorted(facts.dates),
        "run_ids": sorted(facts.runs),
        "run_git_commits": [{"commit": c or None, "dirty": d} for c, d in commits],
        "python_of_runs": sorted({str(run.get("python")) for run in facts.runs.values()}),
        "cases": [{"file": os.path.basename(qset.path), "set": qset.set,
                   "sha256": qset.sha256} for qset in sets],
        "reviews": {"file": os.path.basename(reviews_path) if reviews_path else None,
                    "entries": sum(len(r["verdicts"]) + (r["faulty"] is not None)
                                   for r in reviews.values())},
        "decline_list_date": rules.rules_date,
        "scorer": {"tool": SCORER, "version": rules.version},
        "inputs": _inputs(sets, other_inputs),
    }


def run_status(facts, rules):
    """recorded_live_run when run.py asked every line, not_run else; from
    the rules of 2026-12-03, recorded_local_run when an answer was asked from
    this machine or a private network (provenance.is_local_host, as written),
    as the scenario and intake suites say."""
    if not facts.lines or facts.tools != {"run.py"}:
        return "not_run"
    if rules.local_runs and any(is_local_host(host_of(url)) for url in facts.urls):
        return "recorded_local_run"
    return "recorded_live_run"


def _one_or_all(names):
    """A name the raw lines all give, the sorted list of several, or None."""
    names = sorted(names)
    return names[0] if len(names) == 1 else (names or None)


def _inputs(sets, other_inputs):
    """Every input file by name, role and sha256: the question files, then
    the raw files, reviews and history."""
    return [{"file": os.path.basename(qset.path), "role": "questions", "sha256": qset.sha256}
            for qset in sets] + \
        [{"file": os.path.basename(path), "role": role, "sha256": sha256_file(path)}
         for path, role in other_inputs]


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
