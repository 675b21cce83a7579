#!/usr/bin/env python3
"""Compare two runs on the same frozen questions: a real change, or noise?

    python3 tools/eval-benchmark/compare.py A B [--questions FILE ...] [--alpha 0.05]

A and B are each a raw answer file (.jsonl) or a published quarter folder.
A quarter folder is scored as published (its reviews applied); a raw file is
scored mechanically against its question file, found by the name recorded in
its lines under Documents/c4-benchmark (or given with --questions) and
checked by sha256.

For every set, language and measure, over the questions both runs scored
(faulty ones in either left out): how many passed in both, only in A, only
in B, in neither; the exact McNemar p-value of the discordant pairs; and a
verdict, ``changed`` when p < alpha, else ``within noise``. Then, per
measure, the questions that flipped: passed in A only, then passed in B only,
each id with the first line of both answers, so that a change can be read
question by question. A flip whose verdict a review set (in a quarter folder)
says so, and says when the mechanical verdicts of A and B are the same: then
a reviewer, not a new answer, changed it.

--fail-on-change exits 1 when any row of the table (a measure of a set and
language, or of a total) changed beyond noise (a ``changed`` verdict): for a CI job that watches an assistant between runs.
Exit codes: 0 compared (and, with --fail-on-change, nothing changed); 1 a
change, with --fail-on-change; 2 could not compare.

Refuses (exit 2) when the two runs answer different question files (other
sha256): then the numbers are not comparable; and, before reading it, any
file it would read that is not a regular file (a symbolic link, a FIFO, a
device), a quarter folder that is a link or holds anything but regular files
(evalkit/rubric/quarter.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, cli  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.jsonl import iter_jsonl  # noqa: E402
from evalkit.rubric.measures import MEASURES, TITLES  # noqa: E402
from evalkit.rubric.quarter import check_regular, load_manifest, plain_name, shown  # noqa: E402
from evalkit.rubric.report import group_keys  # noqa: E402
from evalkit.stats import mcnemar_exact  # noqa: E402

PROG = "compare.py"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BENCH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Documents", "c4-benchmark")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/compare.py build/demo/raw-med.jsonl "
        "build/demo-again/raw-med.jsonl",
        "python3 tools/eval-benchmark/compare.py Documents/c4-benchmark/demo-2026-12 "
        "Documents/c4-benchmark/demo-2026-12b --fail-on-change"))
    parser.add_argument("a", help="run A: a raw file (.jsonl) or a quarter folder")
    parser.add_argument("b", help="run B: a raw file (.jsonl) or a quarter folder")
    parser.add_argument("--questions", action="append", default=[],
                        help="the question file of raw runs (repeatable)")
    parser.add_argument("--bench", default=DEFAULT_BENCH,
                        help="where to look for question files by name")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--fail-on-change", action="store_true",
                        help="exit 1 when any row of the table changed beyond noise")
    return parser.parse_args(argv)


def load_run(path, questions, bench):
    """``(label, result)``: the run scored as score.py scores it. Every file
    read is a regular file, checked before it is read: a link in a pull
    request could point at a file outside (an environment with keys)."""
    if os.path.isdir(path):  # a link to a folder too: load_manifest refuses it
        manifest = load_manifest(path)
        return f"{path} (after review)", siteqa.score_quarter(path, manifest["scoring"])
    if not path.endswith(".jsonl"):
        raise BadInput(f"{path}: give a raw file (.jsonl) or a quarter folder")
    check_regular(path)
    files = list(questions)
    if not files:
        names = set()
        for number, line in iter_jsonl(path):
            run = line.get("run") if isinstance(line.get("run"), dict) else {}
            name = run.get("cases_file")
            if not plain_name(name):
                raise BadInput(f"{path}:{number}: run.cases_file {shown(name)} is not a plain "
                               "file name (a question file beside the others, in --bench); "
                               "pass --questions")
            names.add(name)
        files = [os.path.join(bench, name) for name in sorted(names)]
    for name in files:
        check_regular(name)
    return f"{path} (mechanical)", siteqa.score(files, [path])


def compare(result_a, result_b, alpha):
    shas_a = sorted(c["sha256"] for c in result_a["provenance"]["cases"])
    shas_b = sorted(c["sha256"] for c in result_b["provenance"]["cases"])
    if shas_a != shas_b:
        raise BadInput("the two runs answer different question files (sha256 "
                       f"{', '.join(s[:12] for s in shas_a)} vs {', '.join(s[:12] for s in shas_b)}); "
                       "their numbers are not comparable")
    paired = paired_rows(result_a, result_b)
    groups = []
    for set_name, lang in group_order([a for a, _ in paired]):
        members = [(a, b) for a, b in paired
                   if set_name in ("all", a["set"]) and lang in ("all", a["lang"])]
        for measure in MEASURES:
            pairs = [(a["after_review"][measure], b["after_review"][measure]) for a, b in members
                     if a["after_review"][measure] is not None]
            if pairs:
                groups.append({"set": set_name, "lang": lang, "measure": measure,
                               **mcnemar_row(pairs, alpha)})
    return groups


def mcnemar_row(pairs, alpha):
    """The counts of ``pairs`` (A's verdict, B's) and McNemar's exact test
    on the discordant ones: changed when p < alpha."""
    both = sum(1 for x, y in pairs if x and y)
    only_a = sum(1 for x, y in pairs if x and not y)
    only_b = sum(1 for x, y in pairs if y and not x)
    p = mcnemar_exact(only_a, only_b)
    return {"both": both, "only_a": only_a, "only_b": only_b,
            "neither": len(pairs) - both - only_a - only_b, "n": len(pairs), "p": p,
            "verdict": "changed" if p < alpha else "within noise"}


def paired_rows(result_a, result_b):
    """``[(row of A, row of B)]`` of the questions both runs scored, faulty
    ones in either left out."""
    rows_b = {row["id"]: row for row in result_b["questions"]}
    return [(row, rows_b[row["id"]]) for row in result_a["questions"]
            if not row["faulty"] and not rows_b[row["id"]]["faulty"]]


def flipped(paired):
    """``{measure: (passed in A only, passed in B only)}``: each a list of
    ``(id, A's answer, B's answer, by review)`` in the results' order, after
    review; ``by review`` says whose verdict a review set (by_review)."""
    out = {}
    for measure in MEASURES:
        only_a, only_b = [], []
        for a, b in paired:
            x, y = a["after_review"][measure], b["after_review"][measure]
            if x is not None and y is not None and x != y:
                (only_a if x else only_b).append((a["id"], a["answer"], b["answer"],
                                                  by_review(a, b, measure)))
        if only_a or only_b:
            out[measure] = (only_a, only_b)
    return out


# Said of a flip that a review alone made: a reader must not take a
# reviewer's change for the assistant's.
REVIEW_ALONE = ("the mechanical verdicts of A and B are the same: a review changed it, "
                "not a new answer")


def by_review(a, b, measure):
    """What a review did to a flip of ``measure`` between rows ``a`` and
    ``b``, in words: whose verdict it set, and REVIEW_ALONE when the
    mechanical verdicts agree; "" when neither verdict was set by review."""
    sides = [side for side, row in (("A", a), ("B", b))
             if row["after_review"][measure] != row["mechanical"][measure]]
    if not sides:
        return ""
    alone = a["mechanical"][measure] == b["mechanical"][measure]
    return f"set by review in {' and '.join(sides)}" + (f"; {REVIEW_ALONE}" if alone else "")


def first_line(answer, width=90):
    """An answer's first line, shortened, as a terminal shows it safely."""
    if answer is None:
        return "(no answer)"
    line = answer.strip().split("\n", 1)[0]
    line = line if len(line) <= width else line[:width - 1] + "…"
    return cli.printable(line)


def group_order(rows):
    """The groups in the results table's order (report.group_keys), the sets
    in the order the rows first name them."""
    return group_keys(list(dict.fromkeys(row["set"] for row in rows)),
                      {(row["set"], row["lang"]) for row in rows})


def render(label_a, label_b, groups, alpha):
    lines = [f"A: {cli.escaped(label_a)}", f"B: {cli.escaped(label_b)}", "",
             "| Set | Lang | Measure | A | B | Both | Only A | Only B | Neither | p (exact McNemar) | Verdict |",
             "|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    for g in groups:
        lines.append(f"| {g['set']} | {g['lang']} | {TITLES[g['measure']]} | "
                     f"{g['both'] + g['only_a']}/{g['n']} | {g['both'] + g['only_b']}/{g['n']} | "
                     f"{g['both']} | {g['only_a']} | {g['only_b']} | {g['neither']} | "
                     f"{float(g['p']):.4f} | {g['verdict']} |")
    lines += ["", f"changed: p < {alpha}; within noise otherwise. Faulty questions of either "
                  "run are left out of both."]
    return "\n".join(lines) + "\n"


def render_flipped(flips):
    """The questions that flipped, per measure, after the table."""
    lines = ["", "## Which questions changed", ""]
    if not flips:
        return "\n".join(lines + ["None: every question has the same verdicts in A and B."]) + "\n"
    reviewed = sum(1 for sides in flips.values() for items in sides for item in items
                   if item[3].endswith(REVIEW_ALONE))
    if reviewed:
        lines += [f"{reviewed} of these verdicts changed by a review alone, not by a new answer "
                  "(each marked so).", ""]
    for measure, sides in flips.items():
        for side, items in zip(("A", "B"), sides):
            if not items:
                continue
            lines.append(f"{TITLES[measure]}, passed in {side} only ({len(items)}):")
            for qid, answer_a, answer_b, review in items:
                lines += [f"- {qid}" + (f" ({review})" if review else ""),
                          f"    A: {first_line(answer_a)}", f"    B: {first_line(answer_b)}"]
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def compare_command(args):
    if not 0 < args.alpha < 1:
        raise BadInput("--alpha must be between 0 and 1")
    label_a, result_a = load_run(args.a, args.questions, args.bench)
    label_b, result_b = load_run(args.b, args.questions, args.bench)
    groups = compare(result_a, result_b, args.alpha)
    sys.stdout.write(render(label_a, label_b, groups, args.alpha)
                     + render_flipped(flipped(paired_rows(result_a, result_b))))
    changed = [g for g in groups if g["verdict"] == "changed"]
    if args.fail_on_change and changed:
        first = changed[0]
        return cli.fail(PROG, f"{len(changed)} row(s) of the table changed beyond noise (first: "
                              f"{first['set']} {first['lang']} {TITLES[first['measure']]}, "
                              f"p = {float(first['p']):.4f})", code=1)
    return 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, compare_command)


if __name__ == "__main__":
    sys.exit(main())
