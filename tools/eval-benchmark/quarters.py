#!/usr/bin/env python3
"""List the published quarters: where they are, when they were asked, the
rules they were scored with, and their pages.

    python3 tools/eval-benchmark/quarters.py [--bench Documents/c4-benchmark]

One line per folder of the benchmark folder that holds a MANIFEST.json (a
hidden one, such as a publish's unfinished .QUARTER.staging-*, is none), in
the order of their names: the quarter, the days its answers were asked (UTC),
the date of the rules it was scored with, the review coverage, and its
English results page. A manifest that cannot be read is named on its line;
nothing is re-scored (reproduce.py does that).

    python3 tools/eval-benchmark/quarters.py --next QUARTER --from build/QUARTER

says on stderr what comes next for a quarter being made, from the
results.json that score.py wrote in its folder (make score runs it): the
questions not asked yet (a trial run: make run asks them), else the answers
and sampled answers still without a review entry (the sheet, the page and
the reviews file to write), else that the review is complete (make publish).

Exit codes: 0 listed (perhaps none), or said; 2 no such benchmark folder, or
no readable results.json.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import REPO, BadInput, cli  # noqa: E402
from evalkit.jsonl import read_json  # noqa: E402
from evalkit.rubric.quarter import load_manifest  # noqa: E402

PROG = "quarters.py"
DEFAULT_BENCH = os.path.join(REPO, "Documents", "c4-benchmark")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/quarters.py",
        "python3 tools/eval-benchmark/quarters.py --next 2026-Q4 --from build/2026-Q4"))
    parser.add_argument("--bench", default=DEFAULT_BENCH, help="the benchmark folder")
    parser.add_argument("--next", metavar="QUARTER",
                        help="say what comes next for QUARTER, scored in --from")
    parser.add_argument("--from", dest="work", metavar="WORK",
                        help="with --next: the folder make score wrote results.json into")
    args = parser.parse_args(argv)
    if (args.next is None) != (args.work is None):
        parser.error("give --next QUARTER and --from WORK together")
    return args


def describe(folder):
    """One line of a published quarter."""
    name = os.path.basename(folder)
    try:
        manifest = load_manifest(folder)
    except BadInput as exc:
        return f"{name}: cannot be read: {exc}"
    runs = manifest.get("runs") or {}
    cov = manifest.get("review_coverage") or {}
    page = os.path.join(folder, "index.html")
    rules_date = manifest["scoring"].get("decline_as_of") or manifest.get("decline_list_date")
    return " | ".join([name, f"asked {', '.join(runs.get('run_dates') or ['?'])}",
                       f"rules of {rules_date}",
                       f"reviewed {cov.get('reviewed', '?')} of {cov.get('required', '?')}",
                       os.path.relpath(page) if os.path.exists(page) else "no page"])


def next_step(quarter, work):
    """What comes next for ``quarter``, scored into ``work``, in one line."""
    result = read_json(os.path.join(work, "results.json"))
    try:
        rows, cov = result["questions"], result["review_coverage"]
        sample = (result.get("sampled_review") or {}).get("coverage")
        missing, required = len(cov["missing"]), cov["required"]
        unasked = sum(1 for row in rows if row["problem"] == "not asked")
    except (TypeError, KeyError) as exc:
        raise BadInput(f"{work}/results.json: not the results score.py writes ({exc!r} "
                       "missing or of another type): make score QUARTER=... again") from None
    reviews = f"{work}/reviews-{quarter}.json"
    if unasked:
        return (f"{unasked} of {len(rows)} questions were not asked (a trial, LIMIT or ONLY, or "
                f"an interrupted run), and count as not delivered: make run QUARTER={quarter} "
                "asks them, then make score again")
    sampled = f" and {len(sample['missing'])} of {sample['sampled']} sampled answers" \
        if sample and sample["missing"] else ""
    if missing or sampled:
        return (f"{missing} of {required} answers the rubric requires a person to read{sampled} "
                f"have no review entry: {work}/review-sheet.md (or {work}/review.html, in a "
                f"browser) lists them; write their entries into {reviews}, then make score "
                f"QUARTER={quarter} again (the figures after review) and make publish "
                f"QUARTER={quarter}")
    whole = f" and every sampled answer ({sample['sampled']})" if sample else ""
    return (f"the review is complete: every answer the rubric requires a person to read "
            f"({required}){whole} has its entry in {reviews}, and the figures above are after "
            f"review: make publish QUARTER={quarter} publishes them")


def quarters_command(args):
    if args.next is not None:
        cli.say("make score", next_step(args.next, args.work))
        return 0
    if not os.path.isdir(args.bench):
        raise BadInput(f"{args.bench}: no such benchmark folder")
    # A hidden folder is never a published quarter: publish.py builds one in
    # .QUARTER.staging-* and renames it into place, so a publish killed before
    # the rename leaves it behind, with its MANIFEST.json.
    folders = sorted(os.path.join(args.bench, n) for n in os.listdir(args.bench)
                     if not n.startswith(".")
                     and os.path.isfile(os.path.join(args.bench, n, "MANIFEST.json")))
    for folder in folders:
        print(cli.printable(describe(folder)))
    cli.say(PROG, f"{len(folders)} published quarter(s) in {os.path.relpath(args.bench)}")
    return 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, quarters_command)


if __name__ == "__main__":
    sys.exit(main())
