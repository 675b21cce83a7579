#!/usr/bin/env python3
"""How often the mechanical verdicts agree with a careful human.

    python3 tools/eval-benchmark/agreement.py [--questions FILE ...]
        [--rules-as-of YYYY-MM-DD] [--set DIR] [--disagreements]

Scores every answer of the labelled agreement set
(Documents/c4-benchmark/agreement/agreement-{en,he,ru}.json: an answer to a
real demo question, with the verdicts a person gave it by meaning and a
reason) through the real scorer (evalkit/rubric/siteqa.py), and prints per language
and per measure:

  strict        the mechanical verdict equals the human one
  after review  the same, or the answer is one the review sheet sends to a
                person (who then sets the verdict): a disagreement caught

A false pass that no person reads is what "after review" cannot forgive.
With --disagreements, every disagreement follows, marked caught or missed.

The set has two parts, told apart by their files: the first
(agreement-{en,he,ru}.json, labelled before the rules of 2026-12-01) and the
second (agreement-{en,he,ru}-2.json: answers written for the classes an
outside reader found that no rule caught: negation that keeps the fact's
words, the right value in the wrong relation, spellings that match something
else, short ordinary wrong answers), labelled by meaning by readers who had
not read the rules. The second part is reported on its own too, with its
unreviewed false passes (the rules pass, the person fails, no review is
required) by class and language: the error no person ever reads.

Each answer becomes one raw line, exactly as run.py records a widget's reply
(body {"answer", "sources", "grounded"}, the answer's HTTP status), so the
whole scorer runs, from reading the line to the review sheet.

Exit codes: 0 printed; 2 could not start (a bad agreement or question file).
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, cli, whole_number  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.fields import shown  # noqa: E402
from evalkit.jsonl import read_json  # noqa: E402
from evalkit.rubric.measures import APPLIES, MEASURES  # noqa: E402
from evalkit.jsonl import sha256_file  # noqa: E402

PROG = "agreement.py"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
LANGS = ("en", "he", "ru")
SPEC = {"answer": "answer", "sources": "sources", "source_url": "url", "grounded": "grounded"}


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/agreement.py",
        "python3 tools/eval-benchmark/agreement.py --disagreements --rules-as-of 2026-12-02"))
    parser.add_argument("--questions", nargs="+", metavar="FILE",
                        default=[os.path.join(BENCH, "questions-med.json"),
                                 os.path.join(BENCH, "questions-biz.json")],
                        help="the question files the answers are scored against "
                             "(default: the current ones)")
    parser.add_argument("--set", dest="folder", default=os.path.join(BENCH, "agreement"),
                        help="the folder of agreement-{en,he,ru}.json (the first part) "
                             "and agreement-{en,he,ru}-2.json (the second)")
    parser.add_argument("--rules-as-of", dest="rules_date", metavar="YYYY-MM-DD",
                        help="score with the rules of this date (default: the newest)")
    parser.add_argument("--disagreements", action="store_true",
                        help="list every disagreement after the table")
    return parser.parse_args(argv)


# The optional fields of a labelled answer: (their types, what a message calls them).
OPTIONAL = {"grounded": ((bool, type(None)), "true, false or null"),
            "class": ((str,), "a string"), "reason": ((str,), "a string")}


# The parts of the set: the file name's ending, and what a table calls it.
PARTS = (("", "first"), ("-2", "second"))


def load_answers(folder):
    """Every labelled answer of the six files, every field checked before
    it becomes a raw line: the refusal names the agreement file, never the
    raw line made of it. Each answer carries its ``part``."""
    answers = []
    seen = {}  # answer id -> the file it first stood in: an answer counts once
    for (ending, part), lang in [(part, lang) for part in PARTS for lang in LANGS]:
        path = os.path.join(folder, f"agreement-{lang}{ending}.json")
        for index, item in enumerate(read_agreement_file(path, lang)):
            if not isinstance(item, dict) or not all(
                    isinstance(item.get(key), str) for key in ("id", "question", "answer")) or \
                    not isinstance(item.get("human"), dict) or \
                    not isinstance(item.get("sources"), list):
                raise BadInput(f"{path}: answers[{index}]: needs id, question, answer, "
                               "sources and human")
            problem = answer_problem(item) or twice_problem(item, seen)
            if problem:
                raise BadInput(f"{path}: answers[{index}]: {problem}")
            seen[item["id"]] = path
            answers.append(dict(item, file=path, part=part, file_lang=lang))
    return answers


def read_agreement_file(path, lang):
    """The answers of one agreement file: an object of format 1, its
    ``lang`` the file name's."""
    doc = read_json(path)
    if not isinstance(doc, dict) or not whole_number(doc.get("format")) or \
            doc["format"] != 1 or not isinstance(doc.get("answers"), list) or \
            doc.get("lang", lang) != lang:
        raise BadInput(f"{path}: an agreement file is {{format: 1, lang: {lang!r}, "
                       "answers: [...]}")
    return doc["answers"]


def twice_problem(item, seen):
    """Why one answer would be counted twice (its id already stood in this
    file or another), or None."""
    if item["id"] in seen:
        return f"id {shown(item['id'])} is also in {seen[item['id']]}: each answer counts once"
    return None


def answer_problem(item):
    """What is wrong with the fields of one labelled answer beyond the ones
    every answer has, or None."""
    if not all(isinstance(url, str) for url in item["sources"]):
        return "sources must be a list of URLs (strings)"
    status = item.get("status", 200)
    if not whole_number(status) or not 100 <= status <= 599:
        return "status must be an HTTP status (a whole number from 100 to 599)"
    for key, (kinds, what) in OPTIONAL.items():
        if key in item and not isinstance(item[key], kinds):
            return f"{key} must be {what}"
    return None


def raw_line(item, qset):
    """The raw line run.py would have written for this answer."""
    body = json.dumps({"answer": item["answer"], "sources": [{"url": u} for u in item["sources"]],
                       "grounded": item.get("grounded")}, ensure_ascii=False)
    return {"format": 1, "id": item["question"],
            "run": {"cases_sha256": qset.sha256, "tool": "agreement.py", "run_id": "agreement"},
            "target": {"kind": "widget", "url": "agreement", "response": SPEC},
            "attempts": [{"latency_ms": 0, "status": item.get("status", 200), "error": None}],
            "response": {"status": item.get("status", 200), "body": body, "body_base64": None,
                         "truncated": False, "headers": {}}}


def score_answers(answers, question_files, rules_date):
    """``[(item, row)]``: each answer's row as the scorer made it. A raw file
    holds one answer per question, so the answers go in rounds."""
    sets = siteqa.load_questions(question_files)
    owner = {q["id"]: qset for qset in sets for q in qset.questions}
    rounds = []
    lang_of = {q["id"]: q["lang"] for qset in sets for q in qset.questions}
    for item in answers:
        if item["question"] not in owner:
            raise BadInput(f"{item['file']}: {item['id']}: {item['question']} is not a question "
                           "of the files given")
        if lang_of[item["question"]] != item["file_lang"]:
            # Its row would count under the question's language, not the file's.
            raise BadInput(f"{item['file']}: {item['id']}: {item['question']} is a question in "
                           f"{lang_of[item['question']]}, not in this file's language")
        for batch in rounds:
            if item["question"] not in batch:
                batch[item["question"]] = item
                break
        else:
            rounds.append({item["question"]: item})
    scored = []
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        for number, batch in enumerate(rounds):
            path = os.path.join(tmp, f"round-{number}.jsonl")
            with open(path, "w", encoding="utf-8") as fh:
                for item in batch.values():
                    fh.write(json.dumps(raw_line(item, owner[item["question"]]),
                                        ensure_ascii=False) + "\n")
            result = siteqa.score(question_files, [path], rules_date=rules_date)
            rows = {row["id"]: row for row in result["questions"]}
            scored += [(item, rows[qid]) for qid, item in batch.items()]
    return scored


def compare(scored, part=None):
    """Per (lang, measure): [strict agreements, after-review agreements, n],
    and the disagreements; of the answers of one ``part`` only, if given."""
    counts = {}
    disagreements = []
    for item, row in scored:
        if part is not None and item["part"] != part:
            continue
        for measure in MEASURES:
            if measure not in APPLIES[row["kind"]]:
                continue
            human = item["human"].get(measure)
            if not isinstance(human, bool):
                raise BadInput(f"{item['file']}: {item['id']}: no human verdict for {measure}")
            same = row["mechanical"][measure] == human
            caught = same or read_by_a_person(row, measure)
            for key in ((row["lang"], measure), (row["lang"], "all"), ("all", measure),
                        ("all", "all")):
                tally = counts.setdefault(key, [0, 0, 0])
                tally[0] += same
                tally[1] += caught
                tally[2] += 1
            if not same:
                disagreements.append((item, measure, row["mechanical"][measure], human, caught))
    return counts, disagreements


def read_by_a_person(row, measure):
    """Whether the review sheet sends ``measure`` of this answer to a person:
    under the rules of 2026-12-03 on, a measure asked of them (failed,
    flagged, a not-on-site decline); before, any measure of an answer the
    rubric requires a person to read. A sampled pass is not counted: the
    sample is a draw, not a rule."""
    return measure in row["asked"] if "asked" in row else row["review_required"]


def unreviewed_false_passes(scored, part):
    """``({lang: [answers with a false pass no person reads]}, {lang: answers})``
    of one part: an answer whose rules pass a measure the person fails, and
    that no review is required for."""
    missed, answers = {}, {}
    for item, row in scored:
        if item["part"] != part:
            continue
        answers[row["lang"]] = answers.get(row["lang"], 0) + 1
        if any(row["mechanical"][measure] is True and item["human"].get(measure) is False
               and not read_by_a_person(row, measure) for measure in APPLIES[row["kind"]]):
            missed.setdefault(row["lang"], []).append(item)
    return missed, answers


def percent(part, whole):
    return f"{100 * part / whole:.1f}%" if whole else "–"


def render(scored, question_files, rules_date, listing):
    counts, disagreements = compare(scored)
    second = sum(item["part"] == "second" for item, _row in scored)
    lines = [f"# Agreement with a careful human: {len(scored)} labelled answers", "",
             "Questions: " + ", ".join(f"{os.path.basename(p)} ({sha256_file(p)[:12]})"
                                       for p in question_files),
             f"Rules as of: {rules_date or 'the newest'}", ""]
    lines += table(counts)
    lines += ["", f"## The second part: {second} answers written for the classes no rule "
              "caught", ""] + table(compare(scored, "second")[0])
    missed, answers = unreviewed_false_passes(scored, "second")
    lines += ["", "Unreviewed false passes of the second part (the rules pass a measure the "
              "person fails, and no person reads the answer):", ""]
    for lang in LANGS:
        items = missed.get(lang, [])
        classes = sorted({item.get("class") or "none" for item in items})
        lines.append(f"- {lang}: {len(items)} of {answers.get(lang, 0)} answers "
                     f"({percent(len(items), answers.get(lang, 0))})" +
                     "".join(f"; {c}: {', '.join(i['id'] for i in items if i.get('class') == c)}"
                             for c in classes))
    if listing:
        lines += ["", "## Disagreements", ""]
        for item, measure, mechanical, human, caught in disagreements:
            lines.append(f"- {item['id']} ({item['question']}, {item.get('class')}) {measure}: "
                         f"rules {str(mechanical).lower()}, human {str(human).lower()}, "
                         f"{'caught by review' if caught else 'MISSED'}: {item.get('reason')}")
    return "\n".join(lines) + "\n"


def table(counts):
    lines = ["| Lang | Measure | Verdicts | Strict | After review |", "|---|---|--:|--:|--:|"]
    for lang in LANGS + ("all",):
        for measure in MEASURES + ("all",):
            if (lang, measure) in counts:
                strict, after, n = counts[lang, measure]
                lines.append(f"| {lang} | {measure} | {n} | {strict}/{n} {percent(strict, n)} | "
                             f"{after}/{n} {percent(after, n)} |")
    return lines


def agreement_command(args):
    answers = load_answers(args.folder)
    scored = score_answers(answers, args.questions, args.rules_date)
    sys.stdout.write(render(scored, args.questions, args.rules_date, args.disagreements))
    return 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, agreement_command)


if __name__ == "__main__":
    sys.exit(main())
