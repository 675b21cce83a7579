#!/usr/bin/env python3
"""Write the extraction policy into an intake prompt, or check that it is there.

    python3 tools/eval-benchmark/intake_prompt.py tools/eval-benchmark/prompts/intake-v3.md
    python3 tools/eval-benchmark/intake_prompt.py --check tools/eval-benchmark/prompts/intake-v2.md

The prompt's text between the lines ``<<<POLICY`` and ``POLICY>>>`` becomes
evals/ai/EXTRACTION_POLICY.md (or --policy) above its closing comment
(evalkit/aieval/policyprompt.py). Run it on a new prompt version, never on one a
result names. Exit codes: 0 written, or (--check) the same; 1 (--check) they
differ; 2 a file that cannot be read or has no policy section.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import cli  # noqa: E402
from evalkit.aieval import policyprompt  # noqa: E402
from evalkit.jsonl import read_text, write_atomic  # noqa: E402

PROG = "intake_prompt.py"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POLICY = os.path.join(ROOT, "evals", "ai", "EXTRACTION_POLICY.md")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/intake_prompt.py tools/eval-benchmark/prompts/intake-v3.md",
        "python3 tools/eval-benchmark/intake_prompt.py tools/eval-benchmark/prompts/intake-v3.md "
        "--check"))
    parser.add_argument("prompt", help="the prompt file (prompts/intake-vN.md)")
    parser.add_argument("--policy", default=POLICY, help="default: evals/ai/EXTRACTION_POLICY.md")
    parser.add_argument("--check", action="store_true", help="exit 1 if the prompt differs")
    return parser.parse_args(argv)


def command(args):
    prompt, policy = read_text(args.prompt), read_text(args.policy)
    policyprompt.quoted_part(policy, args.policy)  # a policy without its end, named as given
    if args.check:
        found = policyprompt.problem(prompt, policy, args.prompt, args.policy)
        return cli.fail(PROG, found, 1) if found else 0
    write_atomic(args.prompt, policyprompt.rewrite(prompt, policy, args.prompt))
    return 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, command)


if __name__ == "__main__":
    sys.exit(main())
