"""The scenario suite end to end against loopback stand-ins (``make scenario-demo``).

Starts stand-in model servers that speak the real OpenAI, Anthropic and Bedrock
wire formats on 127.0.0.1, has three stand-in generators answer every scenario
(run.py), has two of them atomize the others' answers (atomize.py; never their
own), and scores them (score.py --example): results.md, results.json and the dashboard
with its detail pages in --out. It prints results.md, and on stderr the path of
the dashboard it wrote. The evaluators also atomize answers of known
truth written from the reference keys (audit_answers.py), so that the results
audit their correctness tags. The numbers are examples of the pipeline, not
measurements, and the pages say so (run.status: not_run).

    python -m tests.scenario_demo [--out build/scenario-demo] [--cases FILE]
"""

import argparse
import os
import sys

from tests import support
from tests.model_servers import ModelServer
from tests.standins import model

import atomize  # noqa: E402
import audit_answers  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402

DEFAULT_CASES = os.path.join(support.ROOT, "evals", "permits", "scenarios.json")


def step(module, argv, env):
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        code = module.main(argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if code not in (0, 1):
        raise SystemExit(f"scenario_demo: {module.__name__} {' '.join(argv[:2])} exited {code}")
    return code


MODELS = (("anthropic", "stand-in-claude", True), ("openai", "stand-in-gpt", False),
          ("bedrock", "stand-in-titan", False))
EVALUATORS = ("stand-in-claude", "stand-in-gpt")


def audit_raws(out, cases):
    """The answers of known truth from the reference keys (audit_answers.py),
    imported as collected answers: ``{name: raw file}``."""
    raws = {}
    for name, extra in (("reference-key", []), ("reference-key-altered", ["--altered"])):
        collected = os.path.join(out, f"{name}.collected.jsonl")
        step(audit_answers, [cases, collected] + extra, {})
        raws[name] = os.path.join(out, f"raw-{name}.jsonl")
        step(run, [cases, raws[name], "--provider", "manual", "--from", collected, "--quiet"], {})
    return raws


def run_demo(out, cases, sources=None, jargon=None, audit=False):
    """Three stand-in generators answer; two of them also evaluate the others'
    answers (never their own: atomize.py refuses, the table marks the cell).
    With ``audit``, the evaluators also atomize the answers of known truth
    written from the reference keys, and the results audit their tags."""
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".jsonl"):
            os.unlink(os.path.join(out, name))  # a demo starts afresh
    servers = {name: ModelServer(flavour, reply=model(flavour, strict))
               for flavour, name, strict in MODELS}
    for srv in servers.values():
        srv.__enter__()
    try:
        raws = {}
        for flavour, name, _strict in MODELS:
            raws[name] = os.path.join(out, f"raw-{name}.jsonl")
            step(run, [cases, raws[name], "--provider", flavour, "--model", name, "--quiet"],
                 servers[name].environ())
        if audit:
            raws.update(audit_raws(out, cases))
        atoms = []
        for flavour, name, _strict in MODELS:
            if name not in EVALUATORS:
                continue
            path = os.path.join(out, f"atoms-{name}.jsonl")
            for generator_name, raw in sorted(raws.items()):
                if generator_name != name:
                    # In the audit, the first evaluator looks claims up in the code too.
                    lookups = ["--lookups"] if audit and name == EVALUATORS[0] else []
                    step(atomize, [raw, path, "--provider", flavour, "--model", name,
                                   "--cases", cases, "--quiet"] + lookups, servers[name].environ())
            atoms.append(path)
    finally:
        for srv in servers.values():
            srv.__exit__()
    args = [cases] + sorted(raws.values()) + atoms + [
        "--example", "--out", os.path.join(out, "results.md"),
        "--json", os.path.join(out, "results.json"), "--html-dir", out]
    if sources:
        args += ["--sources", sources]
    if jargon:
        args += ["--jargon", jargon]
    if score.main(args) != 0:
        raise SystemExit("scenario_demo: score.py failed")
    return os.path.join(out, "results.md")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="scenario_demo")
    parser.add_argument("--out", default=os.path.join("build", "scenario-demo"))
    parser.add_argument("--cases", default=DEFAULT_CASES)
    args = parser.parse_args(argv)
    results = run_demo(args.out, args.cases, audit=True)
    with open(results, encoding="utf-8") as fh:
        sys.stdout.write(fh.read())
    page = os.path.abspath(os.path.join(args.out, "index.html"))
    print(f"scenario_demo: the dashboard: {page} (its detail pages in "
          f"{os.path.join(os.path.dirname(page), 'detail')}; results.md above, results.json "
          "beside it)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
