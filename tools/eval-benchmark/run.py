#!/usr/bin/env python3
"""Ask every question of a case file once; keep each raw answer.

    python3 tools/eval-benchmark/run.py QUESTIONS OUT.jsonl [--target PROFILE]
        [--endpoint URL] [--limit N] [--only ID,...] [--concurrency N]
        [--timeout S] [--quiet]
    python3 tools/eval-benchmark/run.py CASES OUT.jsonl --provider P --model M
        [--prompt NAME] [--max-tokens N] [--temperature T] [...]
    python3 tools/eval-benchmark/run.py CASES OUT.jsonl --provider manual --from FILE

This script reads the arguments and the case file and hands over: a site-qa
question file is asked of a website assistant (evalkit/asking/siterun.py), a
scenario file of a model or imported from answers collected by hand
(modelrun.py). Both append one raw line (rawline.py) per case to OUT, and the
same command continues an interrupted run (resume.py).

Exit codes: 0 every question got an answer; 1 some did not (listed on
stderr); 2 could not start (bad arguments, a bad input file, no endpoint, an
endpoint that does not answer as the profile says) or stopped early;
130 interrupted (Ctrl-C: the requests in flight are cut; a question whose request
was sent is recorded as interrupted, listed at the end of the next run and asked
again only by --retry-failed; the same command continues with the rest).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, cli, schemas  # noqa: E402
from evalkit.asking import budget, modelrun, siterun  # noqa: E402
from evalkit.jsonl import read_json  # noqa: E402
from evalkit.rubric.cases import load_site_qa  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios  # noqa: E402

PROG = "run.py"


def parse_args(argv):
    parser = cli.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0], formats=schemas.RUN_HELP, examples=(
            "python3 tools/eval-benchmark/run.py Documents/c4-benchmark/questions-med.json "
            "raw-med.jsonl --endpoint http://127.0.0.1:8000/api/query",
            "python3 tools/eval-benchmark/run.py Documents/c4-benchmark/questions-med.json "
            "raw-med.jsonl --limit 5   # a trial: the same command without it asks the rest",
            "python3 tools/eval-benchmark/run.py evals/permits/scenarios.json raw-llama.jsonl "
            "--provider openai --model llama3.1:8b"))
    parser.add_argument("questions", help="the question file (suite site-qa) or scenario file")
    parser.add_argument("out", help="the raw JSON Lines file to write or continue")
    parser.add_argument("--target", metavar="PROFILE",
                        help="a target profile (default: the widget protocol)")
    parser.add_argument("--endpoint", metavar="URL",
                        help="the URL to ask (default: BENCH_ENDPOINT, the profile's url)")
    parser.add_argument("--limit", type=cli.number(minimum=1, integer=True), metavar="N",
                        help="ask only the first N questions of the file (a trial)")
    parser.add_argument("--only", metavar="IDS", help="ask only these ids, comma-separated")
    parser.add_argument("--concurrency", type=cli.number(minimum=1, maximum=256, integer=True),
                        default=1, metavar="N",
                        help="questions in flight (default 1: latencies comparable)")
    parser.add_argument("--timeout", type=cli.number(above=0, maximum=cli.MAX_SECONDS),
                        default=60.0, metavar="S",
                        help="seconds for one whole request (default 60)")
    parser.add_argument("--retry-pause", type=cli.number(minimum=0, maximum=60 * 60),
                        default=1.0, metavar="S",
                        help="seconds before the one retry (default 1)")
    parser.add_argument("--max-bytes", default=2 * 1024 * 1024, metavar="N",
                        type=cli.number(minimum=1, maximum=1024 ** 3, integer=True),
                        help="size cap of a response body (default 2 MB)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--retry-failed", action="store_true",
                        help="ask again, once, the questions whose request failed")
    parser.add_argument("--skip-endpoint-check", action="store_true",
                        help="send no greeting before the questions")
    parser.add_argument("--provider", metavar="P", help="model cases: openai, anthropic, "
                                                       "bedrock or manual (BENCH_PROVIDER)")
    parser.add_argument("--model", metavar="M",
                        help="model cases: the generator model (BENCH_MODEL)")
    parser.add_argument("--prompt", default="scenario-answer-v1", metavar="NAME",
                        help="model cases: the versioned system prompt (scenario-answer-v1)")
    parser.add_argument("--max-tokens", default=2048, metavar="N",
                        type=cli.number(minimum=1, maximum=cli.MAX_TOKENS, integer=True),
                        help="model cases (default 2048)")
    parser.add_argument("--temperature", type=cli.number(minimum=0, maximum=2), metavar="T",
                        help="model cases: sent only when given")
    parser.add_argument("--context", choices=("none", "corpus"), default="none",
                        help="model cases: corpus puts the city's code passages found for "
                             "each question in the prompt (default none)")
    parser.add_argument("--corpus", metavar="FILE", help="--context corpus: the corpus file "
                                                        "(default: code/ beside the cases)")
    parser.add_argument("--from", dest="from_file", metavar="FILE",
                        help="--provider manual: the answers collected by hand")
    budget.add_arguments(parser)
    args = parser.parse_args(argv)
    budget.check_arguments(parser, args)
    return args


def ask_all(args):
    """Hand the case file to its program: site-qa to siterun, scenario to modelrun."""
    cli.refuse_overwriting([("OUT", args.out)],
                           [args.questions, args.target, args.from_file, args.corpus])
    doc = read_json(args.questions)
    suite = doc.get("suite") if isinstance(doc, dict) else None
    if suite == "site-qa":
        return siterun.run(args, load_site_qa(args.questions))
    if suite == "scenario":
        return modelrun.run(args, load_scenarios(args.questions))
    raise BadInput(f"{args.questions}: suite {suite!r}: run.py asks site-qa and scenario "
                   "case files")


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, ask_all)


if __name__ == "__main__":
    sys.exit(main())
