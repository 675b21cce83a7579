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

Exit codes: 0 done; 1 at least one case errored, in this run or an earlier
one (the result file lists them); 2 no provider could be configured, a bad
input file, or a path that cannot be written; 130 interrupted (Ctrl-C: the
same command continues).
"""

import json
import os
import re
import sys
import uuid
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import VERSION, BadInput, cli, prompts, providers, resume  # noqa: E402
from evalkit.grounding import Corpus, Rules, resolve_questions, summarize, verify_claims  # noqa: E402
from evalkit.intake import Vocabulary, load_cases, score as score_intake  # noqa: E402
from evalkit.jsonl import dumps_file, write_atomic  # noqa: E402
from evalkit.provenance import git_state, python_version  # noqa: E402

PROG = "ai_eval.py"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", choices=("intake", "grounding"))
    parser.add_argument("--cases", required=True)
    parser.add_argument("--output", help="the result file (default evals/ai/results/"
                                         "<date>-<suite>-<provider>-<model>.json)")
    parser.add_argument("--raw", help="the raw calls (default build/ai/<output name>.raw.jsonl)")
    parser.add_argument("--limit", type=int, help="run the first N cases")
    parser.add_argument("--provider")
    parser.add_argument("--model")
    parser.add_argument("--vocabulary", help="default: vocabulary.json beside the cases")
    parser.add_argument("--corpus", help="grounding: default corpus/ beside the cases")
    parser.add_argument("--rules", help="grounding: default rules.json beside the cases")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=4096)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if not 1 <= args.concurrency <= 64:
        parser.error("--concurrency must be between 1 and 64")
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
        return None, str(exc), {"attempts": exc.attempts, "reply": exc.raw}
    record = {"attempts": reply.attempts, "reply": reply.raw, "usage": reply.usage}
    if reply.data is None:
        return None, reply.problem or "no JSON object in the reply", record
    return reply.data, None, record


def check_line(where, line, sha256, provider, model):
    """Refuse a raw line written for other cases or by another model."""
    run = line.get("run") if isinstance(line.get("run"), dict) else {}
    if run.get("cases_sha256") != sha256 or (run.get("provider"), run.get("model")) != (provider, model):
        raise BadInput(f"{where}: written for other cases or another model; pass another --raw")


def progress_text(record):
    """What stderr says of a case once its raw line is written."""
    return f"{record['id']} " + (f"error: {record['error']}" if record["error"] else "ok")


def evaluate(args):
    folder = os.path.dirname(os.path.abspath(args.cases))
    # A provider that cannot be configured is the user's to fix, like a bad
    # file; the ProviderError of a failed call is recorded as the case's error.
    try:
        provider, model = providers.resolve(args.provider, args.model, os.environ)
        if provider == "manual":
            raise BadInput("the intake and grounding suites call a model; manual is not one")
        client = providers.get(provider, os.environ)
    except providers.ProviderError as exc:
        raise BadInput(str(exc)) from None
    vocabulary = Vocabulary(args.vocabulary or os.path.join(folder, "vocabulary.json"))
    key = "gold" if args.suite == "intake" else "facts"
    cases, sha256 = load_cases(args.cases, vocabulary, args.suite, key)
    cases = cases[:args.limit] if args.limit else cases
    if args.suite == "intake":
        used = [prompts.load("intake-v1")]
    else:
        corpus = Corpus(args.corpus or os.path.join(folder, "corpus"))
        rules = Rules(args.rules or os.path.join(folder, "rules.json"), vocabulary, corpus)
        used = [prompts.load("explain-v1"), prompts.load("staff-questions-v1")]

    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    output = args.output or os.path.join(ROOT, "evals", "ai", "results",
                                         f"{today}-{args.suite}-{slug(provider)}-{slug(model)}.json")
    raw_path = args.raw or os.path.join("build", "ai", os.path.basename(output)[:-5] + ".raw.jsonl")
    commit, dirty = git_state()
    run_block = {"run_id": uuid.uuid4().hex, "tool": PROG, "tool_version": VERSION,
                 "provider": provider, "model": model, "cases_sha256": sha256,
                 "prompt_versions": [p.record() for p in used]}

    def job(case):
        started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        record = {"format": 1, "id": case["id"], "suite": args.suite, "started_at": started,
                  "run": run_block}
        if args.suite == "intake":
            text = used[0].fill(vocabulary=json.dumps({"project_types": vocabulary.types,
                                                       "jurisdictions": sorted(vocabulary.jurisdictions)},
                                                      ensure_ascii=False, sort_keys=True),
                                text=case["text"])
            data, error, rec = call(client, model, text, intake_schema(vocabulary), "record_intake", args)
            record.update(prediction=data, error=error, calls=[rec])
            return record
        facts = case["facts"]
        matched, unresolved = rules.match(facts)
        passages = "\n".join(f"[{p}] {corpus.passage(p)}" for r in matched for p in r["passages"])
        facts_text = json.dumps(facts, ensure_ascii=False, sort_keys=True)
        explain, error, rec1 = call(client, model, used[0].fill(facts=facts_text, passages=passages or "(none)"),
                                    CLAIMS_SCHEMA, "record_claims", args)
        staff, error2, rec2 = call(client, model, used[1].fill(
            facts=facts_text, rules=", ".join(r["id"] for r in matched) or "(none)",
            unresolved=", ".join(sorted({u["field"] for u in unresolved})) or "(none)"),
            QUESTIONS_SCHEMA, "record_questions", args)
        record.update(matched=[r["id"] for r in matched], unresolved=unresolved,
                      explain=explain, staff=staff, error=error or error2, calls=[rec1, rec2])
        return record

    os.makedirs(os.path.dirname(os.path.abspath(raw_path)), exist_ok=True)
    done = resume.run(
        PROG, raw_path, {case["id"]: case for case in cases}, key_of=lambda line: line.get("id"),
        belongs=lambda where, line: check_line(where, line, sha256, provider, model),
        do_job=job, concurrency=args.concurrency,
        progress=None if args.quiet else progress_text)

    lines = [done[c["id"]] for c in cases]
    if args.suite == "intake":
        summary, detail = score_intake(cases, {l["id"]: l for l in lines})
    else:
        detail = []
        for case, line in zip(cases, lines):
            matched = [r for r in rules.rules if r["id"] in line["matched"]]
            detail.append({"id": case["id"], "language": case["language"], "facts": case["facts"],
                           "matched": line["matched"], "unresolved": line["unresolved"],
                           "error": line["error"],
                           "claims": verify_claims(line["explain"], corpus) if line["explain"] else [],
                           "questions": resolve_questions(line["staff"], matched, line["unresolved"])
                           if line["staff"] else []})
        summary = summarize(detail)
    errors = [{"id": l["id"], "error": l["error"]} for l in lines if l["error"]]
    dates = sorted({l["started_at"][:10] for l in lines})
    result = {"format": 1, "suite": args.suite,
              "run": {"status": "recorded_live_run", "provider": provider, "model": model,
                      "prompt_versions": [p.record() for p in used],
                      "date_utc": dates[0] if dates else today, "dates_utc": dates,
                      "git_commit": commit, "git_dirty": dirty,
                      "cases_file": os.path.basename(args.cases), "cases_sha256": sha256,
                      "cases_run": len(cases), "limit": args.limit,
                      "tool": PROG, "tool_version": VERSION, "python": python_version()},
              "summary": summary, "cases": detail, "errors": errors}
    try:
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
        write_atomic(output, dumps_file(result))
    except OSError as exc:
        # Named as the result file: the OSError may name the temporary file
        # it is written through.
        raise BadInput(f"{output}: cannot write: {exc.strerror}") from None
    if not args.quiet:
        print(f"{PROG}: wrote {output}", file=sys.stderr)
    return resume.exit_code(PROG, [e["id"] for e in errors], len(cases), "case(s) errored")


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, evaluate)


if __name__ == "__main__":
    sys.exit(main())
