#!/usr/bin/env python3
"""Runtime AI evaluation: intake extraction and citation grounding.

    python3 tools/eval-benchmark/ai_eval.py intake --cases evals/ai/intake-cases.json \\
        [--output evals/ai/results/<date>-intake-<provider>-<model>.json] [--limit N]
    python3 tools/eval-benchmark/ai_eval.py grounding --cases evals/ai/grounding-cases.json \\
        [--output ...] [--limit N]

The model under test is whatever --provider / --model, BENCH_PROVIDER /
BENCH_MODEL or PERMIT_AI_PROVIDER / PERMIT_AI_MODEL select. Every call is
recorded, one JSON line per case, in --raw (default build/ai/<output>.raw.jsonl;
a re-run continues it); the scoring is model-independent (evalkit/aieval/intake.py,
evalkit/aieval/grounding.py) and the result file carries its provenance
(evalkit/aieval/resultfile.py). --limit N runs the first N cases.

A reply of the wrong shape (an intake reply that is not an extraction over
the vocabulary, an explanation without claims, staff questions without
questions) errors its case like a failed call; each case's line on stderr says
so, or what came back. The run's status says who
answered (evalkit/aieval/resultfile.py): ``example`` when a server said it is a
stand-in (``"stand_in": true`` in its replies, or a model id beginning
``stand-in``: the tests' servers say so), when a server on this machine
named no model, or named (or was asked for) a closed-weights model (Claude,
GPT, Gemini), which no machine of one's own serves; ``recorded_local_run``
when the endpoint is this machine or a private network, in whatever form (127.1, 0x7f000001, 0.0.0.0, a name that
resolves to such an address, this machine's own address:
evalkit/provenance.is_here); else ``recorded_live_run``. The endpoint called,
the model each reply named (``run.served_model``; a path of a file, as
llama.cpp's server without --alias names its model, kept as the file's name)
and the settings that shaped the replies (``run.settings``: JSON mode,
max_tokens, temperature, context) are recorded, and each call names its prompt. A recorded
run goes by default to evals/ai/results/<date>-<suite>-<provider>-<model>.json,
an example to build/ai/<same name>.example.json, and an example is never
written into evals/ai/results/ (exit 2, the calls kept in --raw). A run in
which every call failed writes no result. The result's ``run.tokens`` says
what the calls for its cases used (calls, replies without usage, input,
cached and output tokens, and tokens in and out per case), from each call's
usage, which ``calls`` keeps per case.

Model calls: each records its token usage; --rpm, --tpm (or <PROVIDER>_RPM,
_TPM) keep under a rate, else the calls in flight adapt to 429s; unless --quiet,
the run ends with one summary line on stderr (calls, retries, 429s, tokens,
wall time, and the cost with --price-in/--price-out or --prices);
--max-calls N stops before call N + 1 (exit 1, with the summary; the same
command continues). See evalkit/asking/budget.py.

Exit codes: 0 done; 1 at least one case errored, in this run or an earlier
one (the result file lists them), or every call failed (no result written); 2 no provider could be configured, a bad
input file, or a path that cannot be written; 130 interrupted (Ctrl-C: the
same command continues).
"""

import hashlib
import json
import os
import re
import sys
import uuid
from datetime import datetime, timezone
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import VERSION, BadInput, calendar_date, cli, whole_number  # noqa: E402
from evalkit.aieval import policyprompt, resultfile  # noqa: E402
from evalkit.asking import budget, prompts, providers, resume  # noqa: E402
from evalkit.asking.runner import run_jobs  # noqa: E402
from evalkit.families import closed_weights, same_family  # noqa: E402
from evalkit.fields import wrong_field  # noqa: E402
from evalkit.aieval.grounding import Corpus, Rules, reply_problem  # noqa: E402
from evalkit.aieval.grounding import score as score_grounding  # noqa: E402
from evalkit.aieval.intake import Vocabulary, load_cases, score as score_intake  # noqa: E402
from evalkit.jsonl import dumps_file, read_file, read_text, write_atomic  # noqa: E402
from evalkit.provenance import git_state, is_here, machine_folder_in, python_version  # noqa: E402
from evalkit.responses import parse_received  # noqa: E402

PROG = "ai_eval.py"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "evals", "ai", "results")
POLICY = os.path.join(ROOT, "evals", "ai", "EXTRACTION_POLICY.md")
INTAKE_PROMPT, EXPLAIN_PROMPT, STAFF_PROMPT = "intake-v2", "explain-v2", "staff-questions-v1"
# The fields of a raw line that the scoring and the result file read when a
# run continues --raw, and their types (fields.wrong_field); a call's usage
# is summed into the result's tokens.
RAW_FIELDS = {
    "intake": {"id": "string", "started_at": "string", "error": "string|null",
               "calls": "objects"},
    "grounding": {"id": "string", "started_at": "string", "error": "string|null",
                  "explain_error": "string|null", "staff_error": "string|null",
                  "calls": "objects"}}
CALL_FIELDS = {"usage?": "object|null", "served_model?": "string|null", "stand_in?": "boolean",
               "served_model_reduced?": "boolean", "prompt?": "string"}
USAGE_FIELDS = {"input_tokens?": "integer|null", "cached_input_tokens?": "integer|null",
                "output_tokens?": "integer|null"}
_STARTED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/ai_eval.py intake --cases evals/ai/intake-cases.json "
        "--provider openai --model gpt-4o-mini",
        "python3 tools/eval-benchmark/ai_eval.py grounding --cases evals/ai/grounding-cases.json "
        "--provider openai --model gpt-4o-mini"))
    parser.add_argument("suite", choices=("intake", "grounding"))
    parser.add_argument("--cases", required=True)
    parser.add_argument("--output", help="the result file (default: a recorded run to "
                                         "evals/ai/results/<name>.json, an example to "
                                         "build/ai/<name>.example.json, where <name> is "
                                         "<date>-<suite>-<provider>-<model>; never an example "
                                         "into evals/ai/results/)")
    parser.add_argument("--raw", help="the raw calls (default build/ai/<name>.raw.jsonl, "
                                      "or the --output file's name with .raw.jsonl)")
    parser.add_argument("--limit", type=cli.number(minimum=1, integer=True),
                        help="run the first N cases")
    parser.add_argument("--provider")
    parser.add_argument("--model")
    parser.add_argument("--vocabulary", help="default: vocabulary.json beside the cases")
    parser.add_argument("--corpus", help="grounding: default corpus/ beside the cases")
    parser.add_argument("--rules", help="grounding: default rules.json beside the cases")
    parser.add_argument("--concurrency", type=cli.number(minimum=1, maximum=64, integer=True),
                        default=1)
    parser.add_argument("--max-tokens", default=4096,
                        type=cli.number(minimum=1, maximum=cli.MAX_TOKENS, integer=True))
    parser.add_argument("--timeout", type=cli.number(above=0, maximum=cli.MAX_SECONDS),
                        default=300.0)
    parser.add_argument("--quiet", action="store_true")
    budget.add_arguments(parser)
    args = parser.parse_args(argv)
    budget.check_arguments(parser, args)
    return args


def slug(text):
    return re.sub(r"[^a-z0-9.]+", "-", str(text).lower()).strip("-")


def intake_schema(vocabulary):
    return {"type": "object", "required": ["project_type", "jurisdiction", "fields"],
            "properties": {"project_type": {"type": "string", "enum": sorted(vocabulary.types)},
                           "jurisdiction": {"type": "string"},
                           "fields": {"type": "object", "additionalProperties": {"type": "string"}}}}


CLAIMS_SCHEMA = {"type": "object", "required": ["claims"], "properties": {"claims": {
    "type": "array", "items": {"type": "object", "required": ["text", "citations"], "properties": {
        "text": {"type": "string"},
        "citations": {"type": "array", "items": {"type": "object", "required": ["passage", "quote"],
                                                  "properties": {"passage": {"type": "string"},
                                                                 "quote": {"type": "string"}}}}}}}}}
QUESTIONS_SCHEMA = {"type": "object", "required": ["questions"], "properties": {"questions": {
    "type": "array", "items": {"type": "object", "required": ["text", "pointer"], "properties": {
        "text": {"type": "string"}, "pointer": {"type": "object"}}}}}}


def call(client, model, prompt, fields, schema, name, args):
    """``(data or None, error or None, call record)``: one JSON call of the
    versioned ``prompt`` filled with ``fields``; the record names the prompt."""
    try:
        reply = client.call(providers.Request(
            system="Reply with JSON only.", user=prompt.fill(**fields), model=model, schema=schema,
            schema_name=name, max_tokens=args.max_tokens, timeout=args.timeout))
    except providers.ProviderError as exc:
        if exc.fatal:  # every call would meet it (a key refused, no such model)
            raise BadInput(f"{model}: {exc}; nothing more was asked") from None
        if exc.interrupted:  # Ctrl-C: no line, so the same command asks it again
            raise
        return None, str(exc), {"attempts": exc.attempts, "reply": exc.raw, "usage": None,
                                "prompt": prompt.name}
    served_model, stand_in = reported_by(reply.raw)
    # A path of a file the server named its model by is in the body as the
    # file's name already (providers.base.without_model_path): marked here.
    record = {"attempts": reply.attempts, "reply": reply.raw, "usage": reply.usage,
              "served_model": served_model, "stand_in": stand_in,
              "served_model_reduced": bool(served_model and reply.model_reduced),
              "prompt": prompt.name}
    if reply.data is None:
        return None, reply.problem or "no JSON object in the reply", record
    return reply.data, None, record


def reported_by(body):
    """``(model, stand_in)`` as a reply's body says them: its ``model`` field
    (None when it names none: Bedrock's Converse never does, and the provider's
    Reply.model falls back to the name asked for), and True when it says its
    server is a stand-in (``"stand_in": true``, which no real API sends:
    tests/model_servers.py)."""
    try:
        doc = parse_received(body) if isinstance(body, str) else None
    except (ValueError, RecursionError):
        doc = None
    if not isinstance(doc, dict):
        return None, False
    model = doc.get("model")
    return (model if isinstance(model, str) and model else None), doc.get("stand_in") is True


def check_line(where, line, run_block, suite):
    """Refuse a raw line written for other cases, by another model, with
    other prompts or at another endpoint (a line written before lines named
    theirs is taken as this one's), or one whose fields that the scoring and
    the result read are not of their type."""
    run = line.get("run") if isinstance(line.get("run"), dict) else {}
    keys = ("cases_sha256", "provider", "model", "prompt_versions", "settings")
    if any(run.get(k) != run_block[k] for k in keys) or \
            run.get("endpoint", run_block["endpoint"]) != run_block["endpoint"]:
        raise BadInput(f"{where}: written for other cases, another model, other prompts, other "
                       "settings or another endpoint; pass another --raw")
    problem = wrong_field(line, RAW_FIELDS[suite])
    if problem is None and (not whole_number(line.get("format")) or line["format"] != 1):
        problem = f"format {str(line.get('format'))[:20]!r} is not one this tool knows (1)"
    if problem is None and not (_STARTED.match(line["started_at"])
                                and calendar_date(line["started_at"][:10])):
        problem = f"started_at must be a UTC time as YYYY-MM-DDTHH:MM:SSZ, " \
                  f"not {line['started_at'][:40]!r}"
    problem = problem or calls_problem(line["calls"])
    if problem is not None:
        raise BadInput(f"{where}: {problem} (not a raw line ai_eval.py wrote)")


def calls_problem(calls):
    """The first field of a raw line's calls (and their usage) not of its
    type, or None."""
    for number, made in enumerate(calls):
        problem = wrong_field(made, CALL_FIELDS, f"calls[{number}].") or (
            None if made.get("usage") is None
            else wrong_field(made["usage"], USAGE_FIELDS, f"calls[{number}].usage."))
        if problem is not None:
            return problem
    return None


def progress_text(record, problem=None, done=None):
    """What stderr says of a case once its raw line is written: its error
    (the call's, else ``problem``: the reply's shape, as the scorer will
    find it), else what came back (``done``)."""
    error = record["error"] or problem
    return f"{record['id']} " + (f"error: {error}" if error else f"ok: {done or 'answered'}")


def endpoint_of(client):
    """The base URL a client calls, without credentials, query or fragment."""
    parts = urlsplit(getattr(client, "base", "") or "")
    netloc = parts.hostname or ""
    netloc = f"[{netloc}]" if ":" in netloc else netloc
    netloc += f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def repo_path(path):
    """``path`` relative to the repository (posix), or None outside it: a
    result names no absolute path."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return None if rel.startswith("..") else rel.replace(os.sep, "/")


def input_record(path):
    data, _text = read_file(path)
    return {"path": repo_path(path), "name": os.path.basename(path),
            "sha256": hashlib.sha256(data).hexdigest()}


class Suite:
    """One suite's inputs: the cases, the prompts, the files they come from
    (each with its sha256; ``paths``, every file read; ``folders``, those
    read whole), and the scorer
    of the raw lines."""

    def __init__(self, args, folder):
        # The cases first: a missing cases file is named as itself, not as
        # the vocabulary that is looked for beside it.
        self.inputs, self.paths = {}, []
        # Folders read whole: every prompt version, every corpus document.
        self.folders = [prompts.PROMPTS_DIR]
        self.read("cases", args.cases)
        vocab_path = args.vocabulary or os.path.join(folder, "vocabulary.json")
        self.vocabulary = Vocabulary(vocab_path)
        key = "gold" if args.suite == "intake" else "facts"
        cases, self.sha256 = load_cases(args.cases, self.vocabulary, args.suite, key)
        self.cases = cases[:args.limit] if args.limit else cases
        self.read("vocabulary", vocab_path)
        if args.suite == "intake":
            self.prompts = [prompts.load(INTAKE_PROMPT)]
            found = policyprompt.problem(self.prompts[0].text, read_text(POLICY),
                                         f"prompts/{INTAKE_PROMPT}.md", POLICY)
            if found:
                raise BadInput(found)
            self.read("policy", POLICY)
            return
        corpus_dir = args.corpus or os.path.join(folder, "corpus")
        self.corpus = Corpus(corpus_dir)
        self.folders.append(corpus_dir)
        rules_path = args.rules or os.path.join(folder, "rules.json")
        self.rules = Rules(rules_path, self.vocabulary, self.corpus)
        self.read("rules", rules_path)
        for name in sorted(n for n in os.listdir(corpus_dir) if n.endswith(".json")):
            self.read(f"corpus/{name}", os.path.join(corpus_dir, name))
        self.prompts = [prompts.load(EXPLAIN_PROMPT), prompts.load(STAFF_PROMPT)]

    def read(self, key, path):
        """Record the input file ``path`` (its sha256) as ``key``."""
        self.inputs[key] = input_record(path)
        self.paths.append(path)

    def score(self, suite, lines):
        """``(summary, detail)`` of the raw lines (id -> line)."""
        if suite == "intake":
            return score_intake(self.cases, lines, self.vocabulary)
        return score_grounding(self.cases, lines, self.rules, self.corpus)


def intake_job(suite, client, model, args, case, record):
    fields = {"vocabulary": json.dumps({"project_types": suite.vocabulary.types,
                                        "jurisdictions": sorted(suite.vocabulary.jurisdictions)},
                                       ensure_ascii=False, sort_keys=True),
              "text": case["text"]}
    data, error, rec = call(client, model, suite.prompts[0], fields,
                            intake_schema(suite.vocabulary), "record_intake", args)
    # The raw line keeps the call's error; a reply of the wrong shape is the
    # scorer's to find (evalkit/aieval/intake.py), so a re-score applies today's rule.
    record.update(prediction=data, error=error, calls=[rec])
    return record


def grounding_job(suite, client, model, args, case, record):
    facts = case["facts"]
    matched, unresolved = suite.rules.match(facts)
    passages = "\n".join(f"[{p}] {suite.corpus.passage(p)}" for r in matched for p in r["passages"])
    facts_text = json.dumps(facts, ensure_ascii=False, sort_keys=True)
    explain, error1, rec1 = call(client, model, suite.prompts[0],
                                 {"facts": facts_text, "passages": passages or "(none)"},
                                 CLAIMS_SCHEMA, "record_claims", args)
    staff, error2, rec2 = call(client, model, suite.prompts[1], {
        "facts": facts_text, "rules": ", ".join(r["id"] for r in matched) or "(none)",
        "unresolved": ", ".join(sorted({u["field"] for u in unresolved})) or "(none)"},
        QUESTIONS_SCHEMA, "record_questions", args)
    record.update(matched=[r["id"] for r in matched], unresolved=unresolved,
                  explain=explain, explain_error=error1, staff=staff, staff_error=error2,
                  error="; ".join(e for e in (error1, error2) if e) or None, calls=[rec1, rec2])
    return record


def every_call_failed(suite_name, detail):
    """True when no call of the run returned a reply: nothing to publish."""
    if suite_name == "intake":
        return all(d["call_error"] for d in detail)
    return all(d["explain_call_error"] and d["staff_call_error"] for d in detail)


def configure(args):
    """``(provider, model, client)``; a provider that cannot be configured is
    the user's to fix, like a bad file (exit 2)."""
    try:
        provider, model = providers.resolve(args.provider, args.model, os.environ)
        if provider == "manual":
            raise BadInput("the intake and grounding suites call a model; manual is not one")
        return provider, model, providers.get(provider, os.environ)
    except providers.ProviderError as exc:
        raise BadInput(str(exc)) from None


def evaluate(args):
    provider, model, client = configure(args)
    account = budget.account(PROG, client, args, provider, model, args.concurrency, os.environ)
    suite = Suite(args, os.path.dirname(os.path.abspath(args.cases)))
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    name = f"{today}-{args.suite}-{slug(provider)}-{slug(model)}"
    # Who answered is known only from the replies (a stand-in says so), so
    # the status and the default output are decided after the calls.
    raw_name = os.path.basename(args.output)[:-5] if args.output else name
    raw_path = args.raw or os.path.join("build", "ai", raw_name + ".raw.jsonl")
    # The endpoint keeps a stand-in's or a local server's calls out of a
    # hosted run's raw file of the same name, and the other way round.
    run_block = {"run_id": uuid.uuid4().hex, "tool": PROG, "tool_version": VERSION,
                 "provider": provider, "model": model, "cases_sha256": suite.sha256,
                 "prompt_versions": [p.record() for p in suite.prompts],
                 "settings": run_settings(client, model, args),
                 "endpoint": endpoint_of(client)}
    job_of = intake_job if args.suite == "intake" else grounding_job

    def job(case):
        started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        record = {"format": 1, "id": case["id"], "suite": args.suite, "started_at": started,
                  "run": run_block}
        return job_of(suite, client, model, args, case, record)

    # Neither file written may be one read: the result is made from --raw.
    cli.refuse_overwriting([("--output", args.output), ("--raw", raw_path)], suite.paths)
    cli.refuse_overwriting([("--output", args.output)], [raw_path])
    for folder in suite.folders:  # a result among the prompts or the corpus documents
        cli.refuse_writing_into([args.output, raw_path], folder)
    os.makedirs(os.path.dirname(os.path.abspath(raw_path)), exist_ok=True)
    try:
        out = resume.Output(
            PROG, raw_path, {case["id"]: case for case in suite.cases},
            key_of=lambda line: line.get("id"),
            belongs=lambda where, line: check_line(where, line, run_block, args.suite),
            describe=None if args.quiet else lambda record: progress(suite, record),
            meter=account.meter)
        with out:
            run_jobs(out.pending, job, out, args.concurrency)
    except budget.CallLimitReached as exc:
        return account.stopped(exc)
    code = finish(args, suite, out.finish(), raw_path, {
        "endpoint": run_block["endpoint"], "name": name, "provider": provider, "model": model,
        "settings": run_block["settings"]})
    account.report()
    return code


def run_settings(client, model, args):
    """The settings that shape every reply of the run (evalkit/aieval/resultfile.py):
    how the JSON is asked for, max_tokens, temperature (null: not sent) and the
    context: none for intake, the matched rules' passages for grounding."""
    request = providers.Request(system="", user="", model=model, schema=CLAIMS_SCHEMA,
                                max_tokens=args.max_tokens)
    return dict(client.settings(request),
                context="none" if args.suite == "intake" else "passages")


def progress(suite, record):
    """What stderr says of a case: its error as the scorer will find it (the
    call's, or the reply's shape), else what came back."""
    if record["suite"] == "intake":
        problem = None if record["error"] else suite.vocabulary.reply_problem(record["prediction"])
        done = f"project type {record['prediction']['project_type']}" if not problem and \
            not record["error"] else None
        return progress_text(record, problem, done)
    found = [f"{part}: {problem}" for part, problem in (
        ("explain", record["explain_error"] or reply_problem(record["explain"], "claims")),
        ("staff questions", record["staff_error"] or reply_problem(record["staff"], "questions")))
        if problem]
    done = None if found else (f"{len(record['explain']['claims'])} claim(s), "
                               f"{len(record['staff']['questions'])} staff question(s)")
    return progress_text(dict(record, error=None), "; ".join(found) or None, done)


def run_status(endpoint, calls, model):
    """Who answered: ``example`` when a server said it is a stand-in, when a
    server on this machine or network named no model (nothing identifies
    what answered), or named a model of a closed-weights family (Claude,
    GPT, Gemini: families.closed_weights), which no machine of one's own
    serves; ``recorded_local_run`` for a named model served there; else
    ``recorded_live_run``. The endpoint is resolved (provenance.is_here):
    127.1, 0x7f000001, a name in the hosts file or this machine's own address
    are this machine."""
    if resultfile.stand_in_said(calls):
        return "example"
    if not is_here(endpoint):
        return "recorded_live_run"
    served = resultfile.served_of(calls)[1]
    if any(closed_weights(name) for name in [model] + served):
        return "example"
    return "recorded_local_run" if served else "example"


def in_results(path):
    """True when ``path`` is inside evals/ai/results/, where runs are published."""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    results = os.path.realpath(RESULTS)
    return os.path.commonpath([folder, results]) == results


def output_path(args, status, name, raw_path):
    """The result file: --output, else by status; never an example in results/."""
    if args.output is None:
        return os.path.join("build", "ai", name + ".example.json") if status == "example" \
            else os.path.join(RESULTS, name + ".json")
    if status == "example" and in_results(args.output):
        raise BadInput(f"{args.output}: this run is an example (a stand-in answered, a server "
                       "here named no model, or a closed-weights model answered from here) and "
                       "examples are not published in evals/ai/results/: "
                       f"pass another --output (the calls are kept in {raw_path})")
    return args.output


def finish(args, suite, done, raw_path, where):
    """Score the raw lines and write the result file; the exit code."""
    lines = [done[c["id"]] for c in suite.cases]
    summary, detail = suite.score(args.suite, {line["id"]: line for line in lines})
    errors = [{"id": d["id"], "error": d["error"]} for d in detail if d["error"]]
    if every_call_failed(args.suite, detail):
        return cli.fail(PROG, f"every call failed, so no result was written (the calls are in "
                              f"{raw_path}); the first error: {errors[0]['error']}", 1)
    calls = [{"id": line["id"], "calls": [resultfile.call_record(c) for c in line.get("calls") or []]}
             for line in lines]
    status = run_status(where["endpoint"], calls, where["model"])
    output = output_path(args, status, where["name"], raw_path)
    # The default output, named only now, is held to the inputs too.
    cli.refuse_overwriting([("the result file", output)], suite.paths + [raw_path])
    result = result_of(args, suite, lines, status, where, calls)
    result.update(summary=summary, cases=detail, errors=errors)
    if status != "example":  # said even with --quiet: the file will be refused
        warn_other_family(where["model"], result["run"]["served_models"])
    write_result(output, result, args.quiet)
    return resume.exit_code(PROG, [e["id"] for e in errors], len(suite.cases), "case(s) errored")


def result_of(args, suite, lines, status, where, calls):
    """The result file but its figures: the run's provenance and its calls."""
    dates = sorted({line["started_at"][:10] for line in lines})
    commit, dirty = git_state()
    served_model, served_models = resultfile.served_of(calls)
    return {"format": resultfile.FORMAT, "suite": args.suite, "calls": calls,
            "run": {"status": status, "endpoint": where["endpoint"], "provider": where["provider"],
                    "model": where["model"], "served_model": served_model,
                    "served_models": served_models,
                    "prompt_versions": [p.record() for p in suite.prompts],
                    "settings": where["settings"], "date_utc": dates[0], "dates_utc": dates,
                    "git_commit": commit, "git_dirty": dirty,
                    "cases_file": os.path.basename(args.cases), "cases_sha256": suite.sha256,
                    "inputs": suite.inputs, "cases_run": len(suite.cases), "limit": args.limit,
                    "tool": PROG, "tool_version": VERSION, "python": python_version(),
                    "tokens": resultfile.tokens_of(calls)}}


def warn_other_family(model, served_models):
    """Say so when the server named a model of another family than --model:
    the result checker refuses such a file (evalkit/aieval/resultfile.py)."""
    for served in served_models:
        if same_family(model, served) is None:
            cli.say(PROG, f"the server reported the model {served}, not of the family of --model "
                          f"{model}: evals/ai/results/ refuses this result; name the model that "
                          "answered with --model")


def write_result(output, result, quiet):
    text = dumps_file(result)
    folder = machine_folder_in(text)
    if folder:  # a reply's text or a message that quoted a path: never published
        raise BadInput(f"{output}: the result would name a folder of this machine ({folder}); "
                       "not written")
    try:
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
        write_atomic(output, text)
    except OSError as exc:
        # Named as the result file: the OSError may name the temporary file
        # it is written through.
        raise BadInput(f"{output}: cannot write: {exc.strerror}") from None
    if not quiet:
        cli.say(PROG, f"wrote {output}")


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, evaluate)


if __name__ == "__main__":
    sys.exit(main())
