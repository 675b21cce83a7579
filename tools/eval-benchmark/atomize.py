#!/usr/bin/env python3
"""Have a different evaluator model break each answer into atomic claims.

    python3 tools/eval-benchmark/atomize.py RAW.jsonl ATOMS.jsonl --cases CASES
        [--provider P --model M] [--limit N] [--concurrency N] [--repeat K] [--prompt atomize-v3]

For every delivered answer in RAW (scenario lines written by run.py), the
evaluator receives the question, the topic vocabulary (from --cases, which is
required: the scenario file names the city and the address too) and the
response verbatim between delimiters, through the versioned prompt
(prompts/atomize-v3.md, which names the city and the address as the generator
was told them; atomize-v2 with --lookups; its sha256 recorded), and returns
atoms (evalkit/scenario/atoms.py).
A reply that breaks the atoms schema gets one repair request; if that fails
too, the answer is recorded with its error and no atoms. An empty list of
atoms is such a break for an answer of 20 words or more (evalkit/scenario/atoms.py).

The evaluator: --provider and --model, else BENCH_PROVIDER and BENCH_MODEL;
with none of them the spec's default, Claude (DEFAULT_EVALUATOR:
anthropic, claude-sonnet-4-5), which needs ANTHROPIC_API_KEY and is
refused (exit 2) without it.

Generator != evaluator: refused (exit 2) when the evaluator's model is of the
family of a generator in RAW, whatever the provider, snapshot date, version
or region (evalkit/families.py: gpt-4o-2024-08-06 is gpt-4o). One atoms line
per evaluated answer and repeat, flushed at once: id, variant (the
generator), repeat, evaluator (provider, model, prompt, prompt_sha256),
settings (what shapes a reply: json_mode, max_tokens, temperature, context:
tools, passages or none, prompt), the model the server reported
(served_model; a path of a file reduced to its name, served_model_reduced),
atoms, error. Re-running continues: answers already atomized by this
evaluator, prompt and settings are skipped; an ATOMS file written by another
evaluator, prompt or settings is refused (write another file), and so is a
line whose fields are not of their type, before anything is written.

--retry-errors atomizes again, once, exactly the answers of ATOMS recorded
with an error; the new line replaces the old one, keeps its calls first in
``calls`` and its error in ``earlier_errors``, and is marked ``"redone": true``
(never redone a third time).

Model calls: each records its token usage; --rpm, --tpm (or <PROVIDER>_RPM,
_TPM) keep under a rate, else the calls in flight adapt to 429s; unless --quiet,
the run ends with one summary line on stderr (calls, retries, 429s, tokens,
wall time, and the cost with --price-in/--price-out or --prices);
--max-calls N stops before call N + 1 (exit 1, with the summary; the same
command continues). See evalkit/asking/budget.py.

Exit codes: 0 every answer atomized; 1 some errored, in this run or an
earlier one (listed); 2 could not start (no provider configured, bad input,
generator == evaluator); 130 interrupted (Ctrl-C: the same command continues).
"""

import hashlib
import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import VERSION, BadInput, cli, schemas  # noqa: E402
from evalkit.asking import budget, prompts, providers, resume  # noqa: E402
from evalkit.asking.runner import run_jobs  # noqa: E402
from evalkit.scenario.atoms import reply_schema, validate, variant_of  # noqa: E402
from evalkit.scenario.corpus import Corpus, beside as corpus_beside  # noqa: E402
from evalkit.asking.evallookup import AnswerLookups  # noqa: E402
from evalkit.families import same_family  # noqa: E402
from evalkit.fields import check_format, wrong_field  # noqa: E402
from evalkit.jsonl import iter_jsonl  # noqa: E402
from evalkit.provenance import git_state, python_version  # noqa: E402
from evalkit.redaction import redact_userinfo  # noqa: E402
from evalkit.responses import answer_text  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios, place_of  # noqa: E402
from evalkit.textmatch import visible  # noqa: E402

PROG = "atomize.py"
# The spec: the evaluator is configurable and defaults to Claude. This is the
# model used when neither --provider nor BENCH_PROVIDER names one; it needs
# ANTHROPIC_API_KEY like any Anthropic model, and is recorded like any other.
DEFAULT_EVALUATOR = ("anthropic", "claude-sonnet-4-5")
MAX_PROBLEMS_SHOWN = 12
# The fields of an atoms line that atomize.py reads when it continues ATOMS,
# and their types (fields.wrong_field).
ATOMS_FIELDS = {"format": "integer", "id": "string", "variant": "string", "repeat": "integer",
                "atoms": "list|null", "error": "string|null", "calls": "objects",
                "earlier_errors?": "list", "redone?": "boolean"}
# The fields of a raw line's target that name the answer's generator.
TARGET_FIELDS = {"kind": "string", "provider?": "string|null", "model?": "string|null"}


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                formats=schemas.ATOMIZE_HELP, examples=(
        "python3 tools/eval-benchmark/atomize.py raw-llama.jsonl atoms-claude.jsonl --provider "
        "anthropic --model claude-sonnet-4-5 --cases evals/permits/scenarios.json",
        "python3 tools/eval-benchmark/atomize.py raw-llama.jsonl atoms-claude.jsonl --provider "
        "anthropic --model claude-sonnet-4-5 --cases evals/permits/scenarios.json --retry-errors"))
    parser.add_argument("raw", help="raw answers (run.py output, suite scenario)")
    parser.add_argument("out", help="the atoms JSON Lines file to write or continue")
    parser.add_argument("--provider", help="the evaluator's provider (default: BENCH_PROVIDER; "
                                           "with no provider and no model configured, "
                                           f"{DEFAULT_EVALUATOR[0]}, as the spec says)")
    parser.add_argument("--model", help="the evaluator's model (default: BENCH_MODEL; with no "
                                        f"provider and no model configured, {DEFAULT_EVALUATOR[1]})")
    parser.add_argument("--cases", required=True,
                        help="the scenario file: question, city, address, topic vocabulary")
    parser.add_argument("--prompt", help="versioned prompt (default atomize-v3, atomize-v2 with "
                                         "--lookups)")
    parser.add_argument("--lookups", action="store_true",
                        help="the evaluator looks each claim up in the city's code (tools, or "
                             "the passages found when the model takes none); needs --cases")
    parser.add_argument("--passages", action="store_true",
                        help="--lookups without tools: the passages the code's search finds for "
                             "the question go in the prompt (for a model that never calls tools)")
    parser.add_argument("--corpus", help="--lookups: the corpus file (default: the one in code/ "
                                         "beside the --cases file)")
    count = cli.number(minimum=1, maximum=1000, integer=True)
    parser.add_argument("--limit", type=count, help="only the first N answers")
    parser.add_argument("--concurrency", type=count, default=1)
    parser.add_argument("--repeat", type=count, default=1,
                        help="atomize each answer K times (judge stability)")
    parser.add_argument("--max-tokens", default=8192,
                        type=cli.number(minimum=1, maximum=cli.MAX_TOKENS, integer=True))
    parser.add_argument("--timeout", type=cli.number(above=0, maximum=cli.MAX_SECONDS),
                        default=300.0)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--retry-errors", action="store_true",
                        help="atomize again, once, the answers of ATOMS recorded with an error, "
                             "keeping the earlier calls in their lines")
    budget.add_arguments(parser)
    args = parser.parse_args(argv)
    budget.check_arguments(parser, args)
    return args


def answers_to_atomize(raw_path, limit):
    """Delivered scenario answers: ``[(where, line, answer text)]``, and the
    ids that had none."""
    out, missing = [], []
    for number, line in iter_jsonl(raw_path):
        where = f"{raw_path}:{number}"
        target = line.get("target")
        if not isinstance(line.get("id"), str) or not isinstance(target, dict):
            raise BadInput(f"{where}: not a raw answer line (id and target needed)")
        check_format(line, where)
        problem = wrong_field(target, TARGET_FIELDS, "target.")
        if problem is not None:
            raise BadInput(f"{where}: {line['id']}: {problem} (not a raw line run.py wrote)")
        if line.get("suite") != "scenario":
            raise BadInput(f"{where}: suite {line.get('suite')!r}: atomize.py reads scenario answers")
        text = answer_text(target, line.get("response"))
        if text is None or not visible(text):
            missing.append(line["id"])
            continue
        out.append((where, line, text))
    if limit:
        out = out[:limit]
    return out, missing


def evaluator_block(provider, model, prompt):
    return {"provider": provider, "model": model, "prompt": prompt.name,
            "prompt_sha256": prompt.sha256}


def evaluation_key(answer_id, variant, repeat):
    """What names one evaluation, in ATOMS and on stderr: the answer, the
    generator that wrote it, and the repeat."""
    return f"{answer_id} ({variant}, repeat {repeat})"


def key_of(record):
    return evaluation_key(record.get("id"), record.get("variant"), record.get("repeat"))


def check_line(where, line, evaluator, settings):
    """Refuse a line of ATOMS that another evaluator or prompt wrote, or with
    other settings (a line before settings were recorded too: the file would
    mix what no one can tell apart), or one whose fields that atomize.py
    reads (to name the evaluation, to tell an error, to keep the earlier
    calls) are not of their type."""
    if line.get("evaluator") != evaluator:
        raise BadInput(f"{where}: written by another evaluator or prompt "
                       f"({json.dumps(line.get('evaluator'), sort_keys=True)}); "
                       "a different evaluator or prompt writes a different file")
    if line.get("settings") != settings:
        recorded = line.get("settings")
        raise BadInput(f"{where}: written with other settings ("
                       + (json.dumps(recorded, sort_keys=True) if recorded is not None else
                          "none recorded: an older atomize.py")
                       + f", this run's {json.dumps(settings, sort_keys=True)}); "
                         "other settings write a different file")
    problem = wrong_field(line, ATOMS_FIELDS)
    if problem is not None:
        raise BadInput(f"{where}: {problem} (not an atoms line atomize.py wrote)")
    check_format(line, where)


def check_families(where, line, provider, model, served=None):
    """Refuse an evaluator of the generator's model family: the spec forbids
    self-evaluation, and a snapshot or a route of a model is that model.
    Each side is the model asked for and the one its server reported
    (``served``, the raw line's ``response.model``): a local server answers
    with the model it serves, whatever name was asked for."""
    target = line["target"]
    generators = [name for name in (target.get("model"), reported_model(line)) if name]
    evaluators = [name for name in (model, served) if name]
    for generator in generators:
        for evaluator in evaluators:
            shared = same_family(generator, evaluator)
            if shared is None:
                continue
            reported = "".join(f" ({side} server reported {name})" for side, name, asked in (
                ("the generator's", generator, target.get("model")),
                ("the evaluator's", evaluator, model)) if name != asked)
            relation = f"are one model family ({shared})" if not shared.startswith("unknown") \
                else f"cannot be told apart ({shared}: name the model id)"
            raise BadInput(f"{where}: the generator {variant_of(target)} and the evaluator "
                           f"{provider}:{model} {relation}{reported}; the "
                           "spec forbids self-evaluation: choose an evaluator of another family")


def reported_model(line):
    """The model the generator's server said answered (run.py's ``response.model``)."""
    response = line.get("response")
    model = response.get("model") if isinstance(response, dict) else None
    return model if isinstance(model, str) and model else None


def atomize_one(client, model, prompt, question, topics, text, max_tokens, timeout,
                lookups=None, where=None):
    """Atoms for one answer: ``(atoms or None, error or None, calls, the
    model the server reported: (name, reduced) or None)``; with
    ``lookups`` (evalkit.asking.evallookup.AnswerLookups) the evaluator looks the
    code up first. ``where`` (scenarios.place_of) is the city and address,
    given in every mode as the generator was given them."""
    topic_text = ", ".join(sorted(topics)) if topics else "short lower-case topic names"
    repair = ""
    place = {"where": where} if where else {}

    def fill(extra):
        return prompt.fill(question=question, topics=topic_text, response=text,
                           **dict(place, **extra)) + repair
    user = fill(lookups.prompt_fields() if lookups else {})
    schema = reply_schema(topics)
    calls = []
    for turn in range(2):
        request = providers.Request(
            system="You verify claims. Reply with JSON only.", user=user, model=model,
            schema=schema, schema_name="record_atoms", max_tokens=max_tokens, timeout=timeout)
        try:
            if lookups is None:
                reply = client.call(request)
                made = [{"attempts": reply.attempts, "reply": reply.raw, "usage": reply.usage}]
            else:
                reply, made = lookups.ask(client, request, fill)
        except providers.ProviderError as exc:
            if exc.fatal:  # every call would meet it (a key refused, no such model)
                raise BadInput(f"evaluator {model}: {exc}; nothing more was asked") from None
            if exc.interrupted:  # Ctrl-C: no line, so the same command atomizes it again
                raise
            calls.append({"attempts": exc.attempts, "reply": exc.raw, "usage": None})
            return None, str(exc), calls, None
        calls += made
        if reply.data is None:
            problems = [reply.problem or "no JSON object in the reply"]
        else:
            atoms, problems = validate(reply.data, topics, answer=text)
            if not problems:
                return atoms, None, calls, (reply.model, reply.model_reduced)
        if turn == 0:
            shown = "; ".join(problems[:MAX_PROBLEMS_SHOWN])
            repair = ("\n\nYour previous reply was rejected by the validator: " + shown +
                      "\nReply again with the corrected JSON object only, following the field "
                      "rules above exactly.")
            user = fill(lookups.prompt_fields() if lookups else {})
    return (None, "atoms rejected after one repair: " + "; ".join(problems[:MAX_PROBLEMS_SHOWN]),
            calls, (reply.model, reply.model_reduced))


def progress_text(record):
    """What stderr says of an answer once its atoms line is written."""
    state = (f"{len(record['atoms'])} atoms" if record["atoms"] is not None
             else f"error: {record['error']}")
    return f"{record['id']} {record['variant']} {state}"


def default_prompt(corpus):
    """atomize-v2 looks claims up in the code; atomize-v3 tells the evaluator
    the city and the address without it. (atomize-v1, which knows neither, is
    kept for the lines written with it.)"""
    return "atomize-v2" if corpus is not None else "atomize-v3"


def lookup_corpus(args):
    """The code the evaluator looks claims up in (--lookups), or None."""
    if not args.lookups:
        if args.passages:
            raise BadInput("--passages is a way of --lookups: give both")
        return None
    return Corpus(args.corpus or corpus_beside(args.cases, "--lookups"))


def run_settings(client, model, prompt, topics, args):
    """The settings every atoms line of this run records (the ``settings``
    block): how the reply is held to JSON, max_tokens, temperature (null: not
    sent, the server's default), the context asked for (``tools``,
    ``passages`` or ``none``: what an answer got is its ``lookups``) and the
    prompt."""
    request = providers.Request(system="", user="", model=model, schema=reply_schema(topics),
                                max_tokens=args.max_tokens)
    context = "none" if not args.lookups else "passages" if args.passages else "tools"
    return dict(client.settings(request), context=context, prompt=prompt.name)


def plan_jobs(work, cases, args, provider, model):
    """``{evaluation key: (raw line, answer text, repeat)}``, each answer
    checked first: not of the evaluator's family, a scenario of the case
    file, once in RAW."""
    jobs = {}
    for where, line, text in work:
        variant = variant_of(line["target"])
        check_families(where, line, provider, model)
        if line["id"] not in cases.by_id:
            raise BadInput(f"{where}: {line['id']} is not a scenario of {args.cases}")
        if evaluation_key(line["id"], variant, 0) in jobs:
            raise BadInput(f"{where}: {line['id']} of {variant} is already on an earlier line")
        for k in range(args.repeat):
            jobs[evaluation_key(line["id"], variant, k)] = (line, text, k)
    return jobs


def evaluator_client(args):
    """``(provider, model, client)`` of the evaluator. A provider that cannot
    be configured is the user's to fix, like a bad file; the ProviderError
    of a failed call is recorded in the atoms line instead."""
    try:
        provider, model = providers.resolve(args.provider, args.model, os.environ,
                                            default=DEFAULT_EVALUATOR)
        if provider == "manual":
            raise BadInput("the evaluator must be a model: manual answers cannot evaluate")
        return provider, model, providers.get(provider, os.environ)
    except providers.ProviderError as exc:
        raise BadInput(str(exc)) from None


def run_record(args, client, cases):
    """The ``run`` block of every atoms line this run writes."""
    commit, dirty = git_state()
    return {"run_id": uuid.uuid4().hex, "tool": PROG, "tool_version": VERSION,
            "git_commit": commit, "git_dirty": dirty, "python": python_version(),
            "raw_file": os.path.basename(args.raw),
            # A user:password in the base URL is a secret: never in a line.
            "url": redact_userinfo(getattr(client, "base", None)),
            "cases_sha256": cases.sha256}


def atomize_all(args):
    cli.refuse_overwriting([("ATOMS", args.out)], [args.raw, args.cases, args.corpus])
    provider, model, client = evaluator_client(args)
    account = budget.account(PROG, client, args, provider, model, args.concurrency, os.environ)
    cases = load_scenarios(args.cases)
    corpus = lookup_corpus(args)
    prompt = prompts.load(args.prompt or default_prompt(corpus))
    work, missing = answers_to_atomize(args.raw, args.limit)
    jobs = plan_jobs(work, cases, args, provider, model)
    evaluator = evaluator_block(provider, model, prompt)

    topics = sorted(cases.topics)
    settings = run_settings(client, model, prompt, topics, args)
    run_block = run_record(args, client, cases)

    def job(item):
        line, text, k = item
        case = cases.by_id[line["id"]]
        lookups = AnswerLookups(corpus, os.path.basename(corpus.path), case,
                                tools=not args.passages) if corpus else None
        atoms, error, calls, served = atomize_one(client, model, prompt, case["question"], topics,
                                                  text, args.max_tokens, args.timeout, lookups,
                                                  place_of(case))
        served, reduced = served or (None, False)
        # Checked again with the model the server says answered, before the
        # line is written: the run stops (exit 2) rather than keep its atoms.
        check_families(evaluation_key(line["id"], variant_of(line["target"]), k), line,
                       provider, model, served)
        record = {"format": 1, "id": line["id"], "variant": variant_of(line["target"]),
                  "generator": {k2: line["target"].get(k2) for k2 in ("kind", "provider", "model")},
                  "repeat": k, "evaluator": evaluator, "settings": settings,
                  "served_model": served, "served_model_reduced": reduced,
                  "atoms": atoms, "error": error,
                  "response_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                  "calls": calls, "run": run_block}
        if lookups is not None:
            record["lookups"] = lookups.record()
        return record

    out = resume.Output(PROG, args.out, jobs, key_of,
                        lambda where, line: check_line(where, line, evaluator, settings),
                        None if args.quiet else progress_text, account.meter,
                        redo=(lambda line: bool(line.get("error"))) if args.retry_errors else None)
    try:
        with out:
            run_jobs(out.pending, job, out, args.concurrency)
    except budget.CallLimitReached as exc:
        return account.stopped(exc)
    records = out.finish(merge_retry)
    if not args.quiet:
        say_what_was_left(records, missing)
    failed = [key for key, record in records.items() if record.get("error")]
    code = resume.exit_code(PROG, failed, len(jobs), "answer(s) could not be atomized")
    account.report()
    return code


def say_what_was_left(records, missing):
    """The lines of stderr after the answers: evaluations that had the tools
    and looked nothing up, and raw lines with no answer to atomize."""
    looked_nothing_up = no_lookups(records.values())
    if looked_nothing_up:
        cli.say(PROG, f"{len(looked_nothing_up)} of {len(records)} answer(s): the evaluator was "
                      "offered the lookups and made none, so nothing it says rests on a lookup: "
                      f"{', '.join(looked_nothing_up)} (a model that never calls tools: --passages)")
    if missing:
        cli.say(PROG, f"{len(missing)} line(s) had no answer to atomize: {', '.join(missing)}")


def no_lookups(records):
    """The evaluations in which the evaluator had the tools and made no lookup."""
    return sorted(key_of(r) for r in records
                  if isinstance(r.get("lookups"), dict) and r["lookups"].get("mode") == "tools"
                  and not r["lookups"].get("calls") and r.get("atoms") is not None)


def merge_retry(old, new):
    """The line of an answer atomized again: the new atoms or error, with
    every earlier call first in ``calls`` and every earlier error kept."""
    line = dict(new)
    line["calls"] = old["calls"] + new["calls"]
    line["earlier_errors"] = old.get("earlier_errors", []) + [old["error"]]
    line["redone"] = True
    return line


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, atomize_all)


if __name__ == "__main__":
    sys.exit(main())
