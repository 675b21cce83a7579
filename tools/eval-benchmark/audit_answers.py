#!/usr/bin/env python3
"""Answers whose truth is known, written from the scenarios' reference keys,
to audit an evaluator's correctness tags.

    python3 tools/eval-benchmark/audit_answers.py SCENARIOS OUT.jsonl [--altered]
        [--collected-at YYYY-MM-DD]

Writes one collected answer per scenario (the format run.py --provider manual
--from reads): the facts of its reference key, as the key states them
(product ``reference-key``: every claim true), or with --altered only the facts
that hold a number, each number changed (product ``reference-key-altered``:
every such claim false). Import them with run.py, atomize them with the
evaluator to audit (never shown the key), and score.py reports, per evaluator,
how it tagged the claims of each (``evaluator_audit.tags``). An answer of the
altered kind can keep a true fragment ("a permit from the city"): the share
tagged wrong is a floor, not the evaluator's error rate.

Exit codes: 0 written; 2 bad arguments (--collected-at not a date as
YYYY-MM-DD, OUT the scenario file itself) or a scenario file without
reference keys.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, calendar_date, cli  # noqa: E402
from evalkit.jsonl import dumps_line, write_atomic  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios  # noqa: E402

PROG = "audit_answers.py"
TRUE, ALTERED = "reference-key", "reference-key-altered"
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def alter(text):
    """``text`` with every number changed, so that the claim is false:
    doubled and 100 added (800 square feet becomes 1,700)."""
    def changed(match):
        value = float(match.group(0).replace(",", ""))
        new = value * 2 + 100
        return f"{new:,.0f}" if new == int(new) else f"{new:,.2f}"
    return _NUMBER.sub(changed, text)


def answer_of(scenario, altered):
    """The answer of one scenario: its key's facts, in must-cover order."""
    facts = [fact["fact"] for topic in scenario["must_cover"]
             for fact in scenario["reference_key"][topic]]
    if altered:
        facts = [alter(fact) for fact in facts if _NUMBER.search(fact)]
    return " ".join(dict.fromkeys(facts))  # a fact under two topics is said once


def date(text):
    """An argparse ``type``: a real date, as YYYY-MM-DD. Anything else was
    written, and refused only later, by run.py --provider manual --from."""
    if calendar_date(text):
        return text
    raise argparse.ArgumentTypeError(f"must be a date as YYYY-MM-DD, not {text[:40]!r}")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/audit_answers.py evals/permits/scenarios.json key-true.jsonl",
        "python3 tools/eval-benchmark/audit_answers.py evals/permits/scenarios.json "
        "key-false.jsonl --altered"))
    parser.add_argument("scenarios", help="the scenario file, with reference keys")
    parser.add_argument("out", help="the collected answers (JSON Lines) to write")
    parser.add_argument("--altered", action="store_true",
                        help="the facts holding a number, every number changed")
    parser.add_argument("--collected-at", default="2026-12-01", type=date,
                        help="the date recorded as collected (default 2026-12-01, the keys' date)")
    return parser.parse_args(argv)


def write_command(args):
    cli.refuse_overwriting([("OUT", args.out)], [args.scenarios])
    scenarios = load_scenarios(args.scenarios)
    missing = [s["id"] for s in scenarios.scenarios if not s.get("reference_key")]
    if missing:
        raise BadInput(f"{args.scenarios}: no reference key for {', '.join(missing)}")
    product = ALTERED if args.altered else TRUE
    lines = [{"id": s["id"], "answer": answer_of(s, args.altered),
              "collected_by": "audit_answers.py", "collected_at": args.collected_at,
              "product": product, "product_version": scenarios.sha256[:12]}
             for s in scenarios.scenarios]
    write_atomic(args.out, "".join(dumps_line(line) + "\n" for line in lines))
    return 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, write_command)


if __name__ == "__main__":
    sys.exit(main())
