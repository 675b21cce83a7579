#!/usr/bin/env python3
"""Runtime AI evaluation: intake extraction and citation grounding.

    python tools/eval-benchmark/ai_eval.py intake --cases evals/ai/intake-cases.json \\
        [--output evals/ai/results/<date>-intake-<provider>-<model>.json] [--limit N]
    python tools/eval-benchmark/ai_eval.py grounding --cases evals/ai/grounding-cases.json \\
        [--output ...] [--limit N]

The model under test is whatever --provider / --model, BENCH_PROVIDER /
BENCH_MODEL or PERMIT_AI_PROVIDER / PERMIT_AI_MODEL select. Every call is
recorded, one JSON line per case, in --raw (default build/ai/<output>.raw.jsonl;
a re-run continues it); the scoring is model-independent (evalkit/intake.py,
evalkit/grounding.py) and the result file carries its provenance
(evalkit/resultfile.py). --limit N runs the first N cases.

A reply of the wrong shape (an intake reply that is not an extraction over
the vocabulary, an explanation without claims, staff questions without
questions) errors its case like a failed call. A run against a loopback
address (a stand-in, or a model served on this machine) is labelled
``example``, never ``recorded_live_run``, and goes by default to
build/ai/<date>-<suite>-<provider>-<model>.example.json; the endpoint called is
recorded either way. A run in which every call failed writes no result. The result's
``run.tokens`` says what the calls for its cases used (calls, replies
without usage, input, cached and output tokens, and tokens in and out per
case), from the usage on the raw lines.

Model calls: each records its token usage; --rpm, --tpm (or <PROVIDER>_RPM,
_TPM) keep under a rate, else the calls in flight adapt to 429s; unless --quiet,
the run ends with one summary line on stderr (calls, retries, 429s, tokens,
wall time, and the cost with --price-in/--price-out or --prices);
--max-calls N stops before call N + 1 (exit 1, with the summary; the same
command continues). See evalkit/budget.py.

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

from evalkit import (VERSION, BadInput, budget, cli,  # noqa: E402
                     policyprompt, prompts, providers, resume, whole_number)
from evalkit.fields import wrong_field  # noqa: E402
from evalkit.grounding import Corpus, Rules, score as score_grounding  # noqa: E402
from evalkit.intake import Vocabulary, load_cases, score as score_intake  # noqa: E402
from evalkit.jsonl import dumps_file, read_file, read_text, write_atomic  # noqa: E402
from evalkit.provenance import git_state, python_version  # noqa: E402
from evalkit.resultfile import is_loopback_url  # noqa: E402

PROG = "ai_eval.py"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
CALL_FIELDS = {"usage?": "object|null"}
USAGE_FIELDS = {"input_tokens?": "integer|null", "cached_input_tokens?": "integer|null",
                "output_tokens?": "integer|null"}
_STARTED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", choices=("intake", "grounding"))
    parser.add_argument("--cases", required=True)
    parser.add_argument("--output", help="the result file (default evals/ai/results/"
                                         "<date>-<suite>-<provider>-<model>.json)")
    parser.add_argument("--raw", help="the raw calls (default build/ai/<output name>.raw.jsonl)")
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


def call(client, model, prompt_text, schema, name, args):
    """``(data or None, error or None, call record)``: one JSON call."""
    try:
        reply = client.call(providers.Request(
            system="Reply with JSON only.", user=prompt_text, model=model, schema=schema,
            schema_name=name, max_tokens=args.max_tokens, timeout=args.timeout))
    except providers.ProviderError as exc:
        if exc.fatal:  # every call would meet it (a key refused, no such model)
            raise BadInput(f"{model}: {exc}; nothing more was asked") from None
        if exc.interrupted:  # Ctrl-C: no line, so the same command asks it again
            raise
        return None, str(exc), {"attempts": exc.attempts, "reply": exc.raw, "usage": None}
    record = {"attempts": reply.attempts, "reply": reply.raw, "usage": reply.usage}
    if reply.data is None:
        return None, reply.problem or "no JSON object in the reply", record
    return reply.data, None, record


def check_line(where, line, run_block, suite):
    """Refuse a raw line written for other cases, by another model or with
    other prompts, or one whose fields that the scoring and the result read
    are not of their type."""
    run = line.get("run") if isinstance(line.get("run"), dict) else {}
    if any(run.get(k) != run_block[k] for k in ("cases_sha256", "provider", "model", "prompt_versions")):
        raise BadInput(f"{where}: written for other cases, another model or other prompts; "
                       "pass another --raw")
    problem = wrong_field(line, RAW_FIELDS[suite])
    if problem is None and (not whole_number(line.get("format")) or line["format"] != 1):
        problem = f"format {str(line.get('format'))[:20]!r} is not one this tool knows (1)"
    if problem is None and not _STARTED.match(line["started_at"]):
        problem = f"started_at must be a UTC time as YYYY-MM-DDTHH:MM:SSZ, " \
                  f"not {line['started_at'][:40]!r}"
    for number, made in enumerate(line["calls"] if problem is None else []):
        problem = wrong_field(made, CALL_FIELDS, f"calls[{number}].") or (
            None if made.get("usage") is None
            else wrong_field(made["usage"], USAGE_FIELDS, f"calls[{number}].usage."))
        if problem is not None:
            break
    if problem is not None:
        raise BadInput(f"{where}: {problem} (not a raw line ai_eval.py wrote)")


def progress_text(record):
    """What stderr says of a case once its raw line is written."""
    return f"{record['id']} " + (f"error: {record['error']}" if record["error"] else "ok")


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
    (each with its sha256), and the scorer of the raw lines."""

    def __init__(self, args, folder):
        # The cases first: a missing cases file is named as itself, not as
        # the vocabulary that is looked for beside it.
        self.inputs = {"cases": input_record(args.cases)}
        vocab_path = args.vocabulary or os.path.join(folder, "vocabulary.json")
        self.vocabulary = Vocabulary(vocab_path)
        key = "gold" if args.suite == "intake" else "facts"
        cases, self.sha256 = load_cases(args.cases, self.vocabulary, args.suite, key)
        self.cases = cases[:args.limit] if args.limit else cases
        self.inputs["vocabulary"] = input_record(vocab_path)
        if args.suite == "intake":
            self.prompts = [prompts.load(INTAKE_PROMPT)]
            found = policyprompt.problem(self.prompts[0].text, read_text(POLICY),
                                         f"prompts/{INTAKE_PROMPT}.md", POLICY)
            if found:
                raise BadInput(found)
            self.inputs["policy"] = input_record(POLICY)
            return
        corpus_dir = args.corpus or os.path.join(folder, "corpus")
        self.corpus = Corpus(corpus_dir)
        rules_path = args.rules or os.path.join(folder, "rules.json")
        self.rules = Rules(rules_path, self.vocabulary, self.corpus)
        self.inputs["rules"] = input_record(rules_path)
        for name in sorted(n for n in os.listdir(corpus_dir) if n.endswith(".json")):
            self.inputs[f"corpus/{name}"] = input_record(os.path.join(corpus_dir, name))
        self.prompts = [prompts.load(EXPLAIN_PROMPT), prompts.load(STAFF_PROMPT)]

    def score(self, suite, lines):
        """``(summary, detail)`` of the raw lines (id -> line)."""
        if suite == "intake":
            return score_intake(self.cases, lines, self.vocabulary)
        return score_grounding(self.cases, lines, self.rules, self.corpus)


def intake_job(suite, client, model, args, case, record):
    text = suite.prompts[0].fill(
        vocabulary=json.dumps({"project_types": suite.vocabulary.types,
                               "jurisdictions": sorted(suite.vocabulary.jurisdictions)},
                              ensure_ascii=False, sort_keys=True),
        text=case["text"])
    data, error, rec = call(client, model, text, intake_schema(suite.vocabulary), "record_intake", args)
    # The raw line keeps the call's error; a reply of the wrong shape is the
    # scorer's to find (evalkit/intake.py), so a re-score applies today's rule.
    record.update(prediction=data, error=error, calls=[rec])
    return record


def grounding_job(suite, client, model, args, case, record):
    facts = case["facts"]
    matched, unresolved = suite.rules.match(facts)
    passages = "\n".join(f"[{p}] {suite.corpus.passage(p)}" for r in matched for p in r["passages"])
    facts_text = json.dumps(facts, ensure_ascii=False, sort_keys=True)
    explain, error1, rec1 = call(client, model, suite.prompts[0].fill(
        facts=facts_text, passages=passages or "(none)"), CLAIMS_SCHEMA, "record_claims", args)
    staff, error2, rec2 = call(client, model, suite.prompts[1].fill(
        facts=facts_text, rules=", ".join(r["id"] for r in matched) or "(none)",
        unresolved=", ".join(sorted({u["field"] for u in unresolved})) or "(none)"),
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
    endpoint = endpoint_of(client)
    # A loopback address cannot tell a stand-in from a model served on this
    # machine, so neither is ever a recorded live run.
    status = "example" if is_loopback_url(endpoint) else "recorded_live_run"
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    name = f"{today}-{args.suite}-{slug(provider)}-{slug(model)}"
    output = args.output or (os.path.join("build", "ai", name + ".example.json") if status == "example"
                             else os.path.join(ROOT, "evals", "ai", "results", name + ".json"))
    raw_path = args.raw or os.path.join("build", "ai", os.path.basename(output)[:-5] + ".raw.jsonl")
    run_block = {"run_id": uuid.uuid4().hex, "tool": PROG, "tool_version": VERSION,
                 "provider": provider, "model": model, "cases_sha256": suite.sha256,
                 "prompt_versions": [p.record() for p in suite.prompts]}
    job_of = intake_job if args.suite == "intake" else grounding_job

    def job(case):
        started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        record = {"format": 1, "id": case["id"], "suite": args.suite, "started_at": started,
                  "run": run_block}
        return job_of(suite, client, model, args, case, record)

    def progress(record):
        if args.suite == "intake" and not record["error"]:
            shape = suite.vocabulary.reply_problem(record["prediction"])
            return progress_text(dict(record, error=shape))
        return progress_text(record)

    os.makedirs(os.path.dirname(os.path.abspath(raw_path)), exist_ok=True)
    try:
        done = resume.run(
            PROG, raw_path, {case["id"]: case for case in suite.cases},
            key_of=lambda line: line.get("id"),
            belongs=lambda where, line: check_line(where, line, run_block, args.suite),
            do_job=job, concurrency=args.concurrency, progress=None if args.quiet else progress,
            meter=account.meter)
    except budget.CallLimitReached as exc:
        return account.stopped(exc)
    code = finish(args, suite, done, raw_path, output, status, endpoint, provider, model, today)
    account.report()
    return code


def finish(args, suite, done, raw_path, output, status, endpoint, provider, model, today):
    """Score the raw lines and write the result file; the exit code."""
    lines = [done[c["id"]] for c in suite.cases]
    summary, detail = suite.score(args.suite, {line["id"]: line for line in lines})
    errors = [{"id": d["id"], "error": d["error"]} for d in detail if d["error"]]
    if every_call_failed(args.suite, detail):
        return cli.fail(PROG, f"every call failed, so no result was written (the calls are in "
                              f"{raw_path}); the first error: {errors[0]['error']}", 1)
    dates = sorted({line["started_at"][:10] for line in lines})
    commit, dirty = git_state()
    result = {"format": 2, "suite": args.suite,
              "run": {"status": status, "endpoint": endpoint, "provider": provider, "model": model,
                      "prompt_versions": [p.record() for p in suite.prompts],
                      "date_utc": dates[0] if dates else today, "dates_utc": dates,
                      "git_commit": commit, "git_dirty": dirty,
                      "cases_file": os.path.basename(args.cases), "cases_sha256": suite.sha256,
                      "inputs": suite.inputs, "cases_run": len(suite.cases), "limit": args.limit,
                      "tool": PROG, "tool_version": VERSION, "python": python_version(),
                      "tokens": tokens_of(lines)},
              "summary": summary, "cases": detail, "errors": errors}
    write_result(output, result, args.quiet)
    return resume.exit_code(PROG, [e["id"] for e in errors], len(suite.cases), "case(s) errored")


def tokens_of(lines):
    """What the model's calls for these cases used, from the usage on the
    raw lines (a resumed run's earlier calls included): calls, replies
    whose provider reported no usage, tokens in (cached ones included),
    cached and out, and tokens in and out per case."""
    calls = [call for line in lines for call in line.get("calls") or []]
    replied = [c["usage"] for c in calls if isinstance(c.get("usage"), dict)]
    # Lines written before usage carried "reported" have the two counts only.
    reported = [u for u in replied if u.get("reported", isinstance(u.get("input_tokens"), int)
                                           and isinstance(u.get("output_tokens"), int))]
    total = {key: sum(u.get(key) or 0 for u in reported)
             for key in ("input_tokens", "cached_input_tokens", "output_tokens")}
    per_case = {f"{key}_per_case": round(total[key] / len(lines), 1) if lines else None
                for key in ("input_tokens", "output_tokens")}
    return dict({"calls": len(calls), "replies_without_usage": len(replied) - len(reported)},
                **total, **per_case)


def write_result(output, result, quiet):
    try:
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
        write_atomic(output, dumps_file(result))
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
