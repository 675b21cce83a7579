#!/usr/bin/env python3
"""List the published quarters: where they are, when they were asked, the
rules they were scored with, and their pages.

    python tools/eval-benchmark/quarters.py [--bench Documents/c4-benchmark]

One line per folder of the benchmark folder that holds a MANIFEST.json (a
hidden one, such as a publish's unfinished .QUARTER.staging-*, is none), in
the order of their names: the quarter, the days its answers were asked (UTC),
the date of the rules it was scored with, the review coverage, and its
English results page. A manifest that cannot be read is named on its line;
nothing is re-scored (reproduce.py does that).

Exit codes: 0 listed (perhaps none); 2 no such benchmark folder.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import REPO, BadInput, cli  # noqa: E402
from evalkit.rubric.quarter import load_manifest  # noqa: E402

PROG = "quarters.py"
DEFAULT_BENCH = os.path.join(REPO, "Documents", "c4-benchmark")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=DEFAULT_BENCH, help="the benchmark folder")
    return parser.parse_args(argv)


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


def quarters_command(args):
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
