#!/usr/bin/env python3
"""Ask every question of a case file once; keep each raw answer.

    python tools/eval-benchmark/run.py QUESTIONS OUT.jsonl [--target PROFILE]
        [--endpoint URL] [--limit N] [--only ID,...] [--concurrency N]
        [--timeout S] [--quiet]
    python tools/eval-benchmark/run.py CASES OUT.jsonl --provider P --model M
        [--prompt NAME] [--max-tokens N] [--temperature T] [...]
    python tools/eval-benchmark/run.py CASES OUT.jsonl --provider manual --from FILE

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
        prog=PROG, description=__doc__.split("\n\n")[0],
        epilog=schemas.RUN_HELP)
    parser.add_argument("questions", help="the question file (suite site-qa)")
    parser.add_argument("out", help="the raw JSON Lines file to write or continue")
    parser.add_argument("--target", help="target profile JSON (default: the widget protocol)")
    parser.add_argument("--endpoint", help="the URL to ask (default: BENCH_ENDPOINT, "
                                           "then the profile's url)")
    parser.add_argument("--limit", type=cli.number(minimum=1, integer=True),
                        help="ask only the first N questions of the file")
    parser.add_argument("--only", help="ask only these ids, comma-separated")
    parser.add_argument("--concurrency", type=cli.number(minimum=1, maximum=256, integer=True),
                        default=1,
                        help="questions in flight at once (default 1, so latency stays comparable)")
    parser.add_argument("--timeout", type=cli.number(above=0, maximum=cli.MAX_SECONDS),
                        default=60.0,
                        help="seconds for one whole request (default 60)")
    parser.add_argument("--retry-pause", type=cli.number(minimum=0, maximum=60 * 60),
                        default=1.0,
                        help="seconds to wait before the one retry (default 1)")
    parser.add_argument("--max-bytes", default=2 * 1024 * 1024,
                        type=cli.number(minimum=1, maximum=1024 ** 3, integer=True),
                        help="size cap of a response body (default 2 MB)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--retry-failed", action="store_true",
                        help="ask again, once, the questions of OUT whose request failed "
                             "(no HTTP 200), keeping the earlier attempts in their lines")
    parser.add_argument("--skip-endpoint-check", action="store_true",
                        help="ask no greeting before the questions (see above)")
    parser.add_argument("--provider", help="model cases: openai, anthropic, bedrock or manual "
                                           "(default: BENCH_PROVIDER)")
    parser.add_argument("--model", help="model cases: the generator model (default: BENCH_MODEL)")
    parser.add_argument("--prompt", default="scenario-answer-v1",
                        help="model cases: the versioned system prompt (default scenario-answer-v1)")
    parser.add_argument("--max-tokens", default=2048,
                        type=cli.number(minimum=1, maximum=cli.MAX_TOKENS, integer=True),
                        help="model cases (default 2048)")
    parser.add_argument("--temperature", type=cli.number(minimum=0, maximum=2),
                        help="model cases: sent only when given (some models reject any)")
    parser.add_argument("--context", choices=("none", "corpus"), default="none",
                        help="model cases: none (the model's own knowledge, default) or corpus "
                             "(the passages of the city's code found for each question, in the "
                             "prompt: a retrieval-augmented assistant)")
    parser.add_argument("--corpus", help="--context corpus: the corpus file (default: the one "
                                         "in code/ beside the scenario file)")
    parser.add_argument("--from", dest="from_file",
                        help="--provider manual: answers collected by hand (JSON Lines, or a "
                             "folder with collection.json and ID.txt files)")
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
