#!/usr/bin/env python3
"""Score raw answers by fixed, deterministic rules.

    python tools/eval-benchmark/score.py QUESTIONS RAW.jsonl [RAW2.jsonl ...]
        [--reviews FILE] [--out results.md] [--json results.json] [--html index.html]
        [--decline-as-of YYYY-MM-DD]
    python tools/eval-benchmark/score.py SCENARIOS.json RAW.jsonl ... ATOMS.jsonl ...
        [--sources FILE] [--jargon FILE] [--out results.md] [--json results.json]
        [--html-dir DIR] [--example]

A site-qa question file is scored by the rubric's measures (below). A
scenario file is scored from atoms on four 0-3 dimensions, Accurate,
Complete, Cited and Useful (evalkit/atomscore.py), never combined.

Positional files ending in .json are question files, those ending in .jsonl
are raw answer files; give at least one of each. Every raw line is matched to
its question file by the question file's sha256 recorded in the line:
questions are frozen, so a raw line recorded against another version of the
file is refused. A question with no raw line counts as not delivered.

No model judges a model here: the measures are the rubric's section 4, the
text rules are those of DESIGN section 6, the DECLINE list is dated below.
Without --out or --json, the markdown table is printed on stdout.

Exit codes: 0 scored; 2 could not score (bad arguments or a bad input file).
"""

import contextlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, cli, one_line, schemas  # noqa: E402

PROG = "score.py"

# The DECLINE list: phrases that mark an answer as a decline, added by date and
# language. A phrase states that the answer is not known or not on the site;
# "please call us" alone is not a decline (an invented answer may end with it).
# The list changes only between runs; a results file records the date of
# the list it used, and --decline-as-of scores with the list as it stood then.
DECLINE = (
    ("2026-10-28", "en", (
        "i don't know", "i don’t know", "i do not know",
        "i couldn't find", "i couldn’t find", "i could not find",
        "i can't find", "i can’t find", "i cannot find",
        "not on our website", "not on the website", "not on this website",
        "no information", "don't have information", "don’t have information",
        "do not have information", "isn't mentioned", "isn’t mentioned", "is not mentioned",
        "not able to answer", "unable to answer",
    )),
    ("2026-10-28", "he", (
        "אין לי מידע", "אין מידע", "לא מצאתי", "לא הצלחתי למצוא", "איני יודע", "אינני יודע",
        "אני לא יודע", "לא ידוע לי", "לא מופיע", "אין באתר", "אין לי תשובה",
    )),
    ("2026-10-28", "ru", (
        "не знаю", "нет информации", "нет данных", "не нашёл", "не нашел", "не нашла",
        "не удалось найти", "не могу ответить", "на сайте нет", "не упоминается",
    )),
    # After the 2026-Q4 run: 13 plain declines in that run carried none of the
    # phrases above (rubric section 5).
    ("2026-11-05", "en", (
        "does not provide", "doesn't provide", "doesn’t provide",
        "does not specify", "doesn't specify", "doesn’t specify",
        "does not cover", "doesn't cover", "doesn’t cover",
    )),
    ("2026-11-05", "he", (
        "אינו מספק", "אינה מספקת", "לא מספק", "לא מספקת",
        "אינו מפרט", "אינה מפרטת", "לא מפרט", "לא מפרטת",
        "אינו מכסה", "אינה מכסה", "לא מכסה", "לא מתייחס", "אינו מתייחס",
    )),
    ("2026-11-05", "ru", (
        "не предоставляет", "не приводит", "не указывает", "не указано", "не уточняет",
        "не охватывает", "не освещает", "не рассматривает",
    )),
)

# Raw files of this many bytes in all are judged by one process per core.
PARALLEL_BYTES = 64 << 20

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def decline_dates():
    return sorted({date for date, _lang, _phrases in DECLINE})


def decline_list(as_of=None):
    """``(list date, phrases)`` of the DECLINE list as it stood on ``as_of``.

    Without ``as_of``, the newest list. The phrases of every language apply to
    every answer: a decline in the wrong language is still a decline, and the
    language measure catches the language.
    """
    dates = decline_dates()
    if as_of is None:
        as_of = dates[-1]
    if not _DATE.match(as_of):
        raise BadInput(f"--decline-as-of {as_of!r}: give a date as YYYY-MM-DD")
    if as_of < dates[0]:
        raise BadInput(f"--decline-as-of {as_of}: the DECLINE list begins on {dates[0]}")
    used = max(date for date in dates if date <= as_of)
    phrases = []
    for date, _lang, items in DECLINE:
        if date <= as_of:
            phrases.extend(items)
    return used, phrases


def parse_args(argv):
    parser = cli.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        epilog=schemas.SCORE_HELP)
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="question files (.json) and raw answer files (.jsonl)")
    parser.add_argument("--reviews", help="reviews-{quarter}.json to apply")
    parser.add_argument("--out", help="write the markdown table here")
    parser.add_argument("--json", dest="json_out", help="write results.json here")
    parser.add_argument("--html", dest="html_out", help="write the results page (index.html) here")
    parser.add_argument("--history", metavar="FILE",
                        help="earlier quarters' figures (history.json) for the page's trend chart")
    parser.add_argument("--review-sheet", metavar="FILE",
                        help="write the answers a person must read (markdown), with an "
                             "entry to fill in for each")
    parser.add_argument("--sources", help="scenario suite: the source-authority table "
                                          "(default: sources.json beside the scenario file)")
    parser.add_argument("--jargon", help="scenario suite: the jargon table "
                                         "(default: jargon.json beside the scenario file)")
    parser.add_argument("--html-dir", help="scenario suite: write the dashboard and detail pages here")
    parser.add_argument("--example", action="store_true",
                        help="label the results an example (run.status not_run), e.g. a run "
                             "against loopback stand-ins")
    parser.add_argument("--jobs", type=int, metavar="N",
                        help="processes that judge the answers (default: one per core, up to 8, "
                             "for raw files of 64 MB or more, else 1); the results are the same "
                             "for any N")
    parser.add_argument("--decline-as-of", metavar="YYYY-MM-DD",
                        help="score with the DECLINE list as it stood on this date "
                             f"(default: the newest, {decline_dates()[-1]})")
    return parser.parse_args(argv)


def split_files(files):
    """``(question files, raw files)`` of the positional arguments."""
    question_files = [f for f in files if f.endswith(".json")]
    raw_files = [f for f in files if f.endswith(".jsonl")]
    other = [f for f in files if f not in question_files and f not in raw_files]
    if other:
        raise BadInput(f"{other[0]}: name a question file (.json) or a raw file (.jsonl)")
    if not question_files or not raw_files:
        raise BadInput("give at least one question file (.json) and one raw file (.jsonl)")
    return question_files, raw_files


def load_questions(question_files):
    """The question sets, each checked, no question id in two of them."""
    from evalkit.cases import load_site_qa
    sets = []
    owner = {}
    for path in question_files:
        qset = load_site_qa(path)
        for other_set in sets:
            if other_set.sha256 == qset.sha256:
                raise BadInput(f"{path}: the same question file as {other_set.path}")
        for q in qset.questions:
            if q["id"] in owner:
                raise BadInput(f"{path}: {q['id']}: also in {owner[q['id']].path}")
            owner[q["id"]] = qset
        sets.append(qset)
    return sets


def provenance(sets, facts, reviews_path, review_count, list_date):
    from evalkit import VERSION
    commits = sorted({(str(run.get("git_commit") or ""), bool(run.get("git_dirty")))
                      for run in facts.runs.values()})
    providers, models = sorted(facts.providers), sorted(facts.models)
    return {
        "run": {"status": "recorded_live_run" if facts.lines and facts.tools == {"run.py"}
                else "not_run"},
        "target": "; ".join(sorted(facts.targets)) or "none",
        "provider": providers[0] if len(providers) == 1 else (providers or None),
        "model": models[0] if len(models) == 1 else (models or None),
        "prompt_versions": [],
        "platform_versions": sorted(facts.platforms),
        "run_dates": sorted(facts.dates),
        "run_ids": sorted(facts.runs),
        "run_git_commits": [{"commit": c or None, "dirty": d} for c, d in commits],
        "python_of_runs": sorted({str(run.get("python")) for run in facts.runs.values()}),
        "cases": [{"file": os.path.basename(qset.path), "set": qset.set,
                   "sha256": qset.sha256} for qset in sets],
        "reviews": {"file": os.path.basename(reviews_path) if reviews_path else None,
                    "entries": review_count},
        "decline_list_date": list_date,
        "scorer": {"tool": PROG, "version": VERSION},
    }


def needs_review(kind, mechanical):
    """The rubric: every answer to a not-on-site question, and every
    answerable one that failed a measure, is read by a person."""
    # Verdicts are True, False or None, so "in" (==) finds exactly a False.
    return kind == "not_on_site" or False in mechanical.values()


def coverage(rows):
    required = 0
    missing = []
    for row in rows:
        if row["review_required"]:
            required += 1
            if not row["reviewed"]:
                missing.append(row["id"])
    return {"required": required, "reviewed": required - len(missing), "missing": missing}


def review_sheet(result):
    """A markdown sheet of the answers a person must read, each with a
    reviews entry to copy into reviews-{quarter}.json once the reason is
    written (a reason left as TODO is refused)."""
    from evalkit.measures import APPLIES, MEASURES
    lines = ["# Review sheet", "",
             "Read each answer below. For each, copy its entry into the reviews file "
             "(`{\"format\": 1, \"reviews\": [...]}`), set `value` to your verdict "
             "and write a one-line `reason`. An entry whose value equals the mechanical "
             "verdict records that you read it and agree; use "
             "`{\"id\": ..., \"faulty\": true, \"reason\": ...}` for a faulty question.", ""]
    rows = [row for row in result["questions"] if row["review_required"]]
    coverage_ = result["review_coverage"]
    lines.append(f"{coverage_['required']} answers to read; {coverage_['reviewed']} already "
                 "have an entry.")
    for row in rows:
        lines += ["", f"## {row['id']} ({row['kind']}){' - reviewed' if row['reviewed'] else ''}",
                  "", f"- Question: {row['question']}"]
        if row.get("evidence"):
            lines.append(f"- Evidence: {row['evidence']} ({row['source_url']})")
        if row.get("must_not_include"):
            lines.append(f"- Must not include: {', '.join(row['must_not_include'])}")
        answer = row["answer"] if row["answer"] is not None else f"(no answer: {row['problem']})"
        lines.append(f"- Answer: {' '.join(answer.split())}")
        lines.append(f"- Sources: {', '.join(row['sources']) or 'none'}; "
                     f"grounded: {json.dumps(row['grounded'])}")
        verdicts = ", ".join(f"{m} {json.dumps(row['mechanical'][m])}" for m in MEASURES
                             if m in APPLIES[row["kind"]])
        lines.append(f"- Mechanical: {verdicts}")
        measure = ("declined_when_not_on_site" if row["kind"] == "not_on_site" else next(
            (m for m in MEASURES if row["mechanical"][m] is False), "correct_facts"))
        entry = {"id": row["id"], "measure": measure, "value": row["mechanical"][measure],
                 "reason": "TODO"}
        lines += ["", "    " + json.dumps(entry, ensure_ascii=False) + ","]
    return "\n".join(lines) + "\n"


def load_history(path):
    """history.json: earlier quarters' overall figures (see evalkit.quarter)."""
    from evalkit.jsonl import read_json
    from evalkit.measures import MEASURES
    doc = read_json(path)
    quarters = doc.get("quarters") if isinstance(doc, dict) and doc.get("format") == 1 else None
    if not isinstance(quarters, list):
        raise BadInput(f"{path}: a history file is {{format: 1, quarters: [...]}}")
    for index, entry in enumerate(quarters):
        try:
            if not isinstance(entry["quarter"], str):
                raise ValueError
            for group in entry["groups"]:
                for measure in MEASURES:
                    fig = group["figures"][measure]
                    if not all(isinstance(fig[k], int) and not isinstance(fig[k], bool)
                               and fig[k] >= 0 for k in ("passed", "applicable")):
                        raise ValueError
        except (KeyError, TypeError, ValueError):
            raise BadInput(f"{path}: quarters[{index}]: needs quarter and groups with "
                           "passed/applicable counts for every measure") from None
    return quarters


def auto_jobs(raw_files):
    """Processes for judging: one per core for runs large enough to gain
    from more than one (a worker process costs up to 0.1 s to start)."""
    total = 0
    for path in raw_files:
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    return max(1, min(os.cpu_count() or 1, 8)) if total >= PARALLEL_BYTES else 1


def score(files, reviews_path=None, decline_as_of=None, history_path=None, keep_detail=True,
          jobs=None):
    """The whole results document (a dict), from the files given.

    Without ``keep_detail`` the rows hold the verdicts only (no answers, no
    details): enough for the markdown table, and light for large runs."""
    with no_cycle_collector():
        return _score(files, reviews_path, decline_as_of, history_path, keep_detail, jobs)


@contextlib.contextmanager
def no_cycle_collector():
    """The cyclic collector off, then back as it was. Scoring builds one large
    structure that holds no reference cycles; the collector would walk all of
    it again and again as it grows (a third of the time on 100,000 answers),
    and once more while it is rendered (60 ms), for nothing to collect."""
    import gc
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _score(files, reviews_path, decline_as_of, history_path, keep_detail, jobs):
    from evalkit import answers, parallel
    from evalkit.measures import MEASURES, decline_matchers, judge
    from evalkit.report import Tally
    from evalkit.reviews import load_reviews

    list_date, phrases = decline_list(decline_as_of)
    phrases = decline_matchers(phrases)
    question_files, raw_files = split_files(files)
    jobs = auto_jobs(raw_files) if jobs is None else jobs
    chunks = answers.plan(raw_files, jobs)
    no_review = {"faulty": None, "verdicts": {}}
    no_changes = {}
    loaded = {}

    def local_state():
        # Checked here, before any line counts, while the workers start.
        loaded["sets"] = sets = load_questions(question_files)
        loaded["by_sha"] = {qset.sha256: qset for qset in sets}
        loaded["reviews"] = load_reviews(reviews_path, {q["id"]: q for qset in sets
                                                        for q in qset.questions}) \
            if reviews_path else {}
        if not keep_detail:
            # Only the table is asked for, which shows no question's text:
            # let the texts go (30 MB at 100,000 questions), for the rows.
            for qset in sets:
                for q in qset.questions:
                    del q["question"], q["page_url"]
                    q.pop("evidence", None)
        return answers.State(phrases, keep_detail)

    def make_row(q, got, mechanical, details):
        review = loaded["reviews"].get(q["id"], no_review)
        after = mechanical
        changes = no_changes  # one empty dict for every row without a review: never changed
        if review["verdicts"]:
            changes = {}
            after = dict(mechanical)
            for measure, (value, reason) in review["verdicts"].items():
                after[measure] = value
                if value != mechanical[measure]:
                    changes[measure] = (value, reason)
        row = {"id": q["id"], "set": q["set"], "lang": q["lang"], "kind": q["kind"],
               "latency_ms": got["latency_ms"], "problem": got["problem"],
               "mechanical": mechanical, "after_review": after, "review_changes": changes,
               "faulty": review["faulty"] is not None,
               "review_required": needs_review(q["kind"], mechanical),
               "reviewed": review is not no_review}
        if keep_detail:
            row.update({
                "question": q["question"], "evidence": q.get("evidence"),
                "source_url": q.get("source_url"), "must_not_include": q.get("must_not_include"),
                "answer": got["answer"], "sources": list(got["sources"]),
                "grounded": got["grounded"], "attempts": got["attempts"], "details": details,
                "reviews": [{"measure": m, "value": v, "reason": r}
                            for m, (v, r) in sorted(review["verdicts"].items())]})
        return row

    # The chunks in file order: the first bad line, or the second answer to a
    # question, is reported as one process reading the files would find it.
    located = answers.Chunked(chunks)
    facts = answers.RunFacts()
    seen = {}
    judged = {}
    tally = Tally()

    def take(index, result):
        by_sha = loaded["by_sha"]
        named = [by_sha.get(sha) for sha in result["shas"]]
        reread = None
        for (qid, number, sha, status, answer, sources, grounded, latency, problem, attempts,
             *analysis) in result["answers"]:
            qset = named[sha]
            if qset is None:
                raise BadInput(
                    f"{located.where(index, number)}: answers a question file with sha256 "
                    f"{result['shas'][sha][:12]}, which matches none of the files given; "
                    "questions are frozen: score against the exact file that was asked")
            q = qset.by_id.get(qid)
            if q is None:
                raise BadInput(f"{located.where(index, number)}: {qid} is not a question of "
                               f"{qset.path}")
            if qid in seen:
                raise BadInput(f"{located.where(index, number)}: a second answer to {qid} "
                               f"(first at {located.where(*seen[qid])})")
            seen[qid] = (index, number)
            if answer is False and (keep_detail or analysis[2] != q["lang"]):
                reread = reread or answers.Reread(chunks[index])
                answer = reread.answer(number)
            got = {"status": status, "answer": answer, "sources": sources, "grounded": grounded,
                   "latency_ms": latency, "problem": problem, "attempts": attempts}
            mechanical, details = judge(q, got, phrases, analysis)
            judged[qid] = row = make_row(q, got, mechanical, details if keep_detail else None)
            tally.add(row)
        if result["error"]:
            raise BadInput(located.error(index, result["error"]))
        facts.merge(result["facts"])

    parallel.map_chunks(answers.read_chunk, chunks, jobs, answers.worker_state,
                        (phrases, keep_detail), local_state, take)
    sets, reviews = loaded["sets"], loaded["reviews"]
    not_asked = {"status": None, "answer": None, "sources": [], "grounded": None,
                 "latency_ms": None, "problem": "not asked", "attempts": 0}
    rows = []
    for qset in sets:
        for q in qset.questions:
            row = judged.pop(q["id"], None)
            if row is None:
                row = make_row(q, not_asked, *judge(q, not_asked, phrases))
                tally.add(row)
            rows.append(row)
    review_count = sum(len(r["verdicts"]) + (r["faulty"] is not None) for r in reviews.values())
    result = {
        "format": 1,
        "suite": "site-qa",
        "measures": list(MEASURES),
        "provenance": provenance(sets, facts, reviews_path, review_count, list_date),
        "groups": tally.groups([qset.set for qset in sets]),
        "faulty": [{"id": row["id"], "reason": reviews[row["id"]]["faulty"]}
                   for row in rows if row["faulty"]],
        "review_coverage": coverage(rows),
        "questions": rows,
    }
    if history_path:
        result["history"] = load_history(history_path)
    return result


def to_json(result):
    """results.json: the review changes are kept as lists, not tuples."""
    from evalkit.jsonl import dumps_file
    out = dict(result)
    out["questions"] = [
        {k: v for k, v in row.items() if k != "review_changes"} for row in result["questions"]]
    return dumps_file(out)


def write_outputs(result, folder):
    """results.md, results.json and index.html of a quarter folder."""
    from evalkit.jsonl import write_atomic
    from evalkit.htmlpage import render_html
    from evalkit.report import render_markdown
    write_atomic(os.path.join(folder, "results.md"), render_markdown(result))
    write_atomic(os.path.join(folder, "results.json"), to_json(result))
    write_atomic(os.path.join(folder, "index.html"), render_html(result))


def is_atoms_file(path):
    """An atoms file's lines carry atoms or an evaluator; a raw file's neither."""
    from evalkit.jsonl import iter_jsonl
    for _number, line in iter_jsonl(path):
        return "evaluator" in line or "atoms" in line
    return False


def main_scenario(args):
    from evalkit import scenario_pages, scenario_score
    from evalkit.jsonl import dumps_file, write_atomic
    try:
        cases = [f for f in args.files if f.endswith(".json")]
        lines = [f for f in args.files if f.endswith(".jsonl")]
        if len(cases) != 1 or not lines or len(cases) + len(lines) != len(args.files):
            raise BadInput("the scenario suite takes one scenario file (.json), raw files and "
                           "atoms files (.jsonl)")
        from evalkit.scenarios import load_scenarios
        scenarios = load_scenarios(cases[0])  # a bad scenario file is named before anything else
        atoms = [f for f in lines if is_atoms_file(f)]
        raws = [f for f in lines if f not in atoms]
        if not raws or not atoms:
            raise BadInput("give the raw answers (run.py) and the atoms (atomize.py)")
        folder = os.path.dirname(cases[0])
        result = scenario_score.score(scenarios, raws, atoms,
                                      args.sources or os.path.join(folder, "sources.json"),
                                      args.jargon or os.path.join(folder, "jargon.json"),
                                      args.example)
    except BadInput as exc:
        print(f"{PROG}: {one_line(exc)}", file=sys.stderr)
        return 2
    markdown = scenario_pages.render_markdown(result)
    try:
        if args.out:
            write_atomic(args.out, markdown)
        if args.json_out:
            write_atomic(args.json_out, dumps_file(result))
        if args.html_dir:
            scenario_pages.write_pages(result, args.html_dir, write_atomic)
    except OSError as exc:
        print(f"{PROG}: {exc.filename}: cannot write: {exc.strerror}", file=sys.stderr)
        return 2
    if not (args.out or args.json_out or args.html_dir):
        sys.stdout.write(markdown)
    return 0


def main(argv=None):
    args = parse_args(argv)
    with no_cycle_collector():  # for the rendering too
        return _main(args)


def _main(args):
    from evalkit.cases import OtherSuite
    from evalkit.jsonl import write_atomic
    from evalkit.report import render_markdown
    try:
        result = score(args.files, args.reviews, args.decline_as_of, args.history,
                       keep_detail=bool(args.json_out or args.html_out or args.review_sheet),
                       jobs=args.jobs)
    except OtherSuite as exc:
        if exc.suite == "scenario":
            return main_scenario(args)
        print(f"{PROG}: {one_line(exc)}", file=sys.stderr)
        return 2
    except BadInput as exc:
        print(f"{PROG}: {one_line(exc)}", file=sys.stderr)
        return 2
    markdown = render_markdown(result)
    try:
        if args.out:
            write_atomic(args.out, markdown)
        if args.json_out:
            write_atomic(args.json_out, to_json(result))
        if args.html_out:
            from evalkit.htmlpage import render_html
            write_atomic(args.html_out, render_html(result))
        if args.review_sheet:
            write_atomic(args.review_sheet, review_sheet(result))
    except OSError as exc:
        print(f"{PROG}: {exc.filename}: cannot write: {exc.strerror}", file=sys.stderr)
        return 2
    if not (args.out or args.json_out or args.html_out or args.review_sheet):
        sys.stdout.write(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
