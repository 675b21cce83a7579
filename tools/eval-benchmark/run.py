#!/usr/bin/env python3
"""Ask every question of a case file once; keep each raw answer.

    python tools/eval-benchmark/run.py QUESTIONS OUT.jsonl [--target PROFILE]
        [--endpoint URL] [--limit N] [--only ID,...] [--concurrency N]
        [--timeout S] [--quiet]
    python tools/eval-benchmark/run.py CASES OUT.jsonl --provider P --model M
        [--prompt NAME] [--max-tokens N] [--temperature T] [...]
    python tools/eval-benchmark/run.py CASES OUT.jsonl --provider manual --from FILE

A site-qa question file is asked of a website assistant through a target
profile. A scenario case file is asked of a model (the generator) through the
provider layer (BENCH_PROVIDER / BENCH_MODEL, or PERMIT_AI_PROVIDER /
PERMIT_AI_MODEL), or imported from answers collected by hand
(--provider manual). Both write the same raw line.

Each question is sent once, with no conversation history, as the target
profile says (default: the widget protocol, targets/widget.json). One retry
only when the request itself fails (no HTTP 200); never a retry for a better
answer. One JSON line per question is appended to OUT and flushed at once.

Before the first question, a website assistant is asked one plain greeting
(PROBE, not recorded) to check that the endpoint answers in the profile's
shape: a wrong URL stops the run at once (exit 2), before any question is
asked. --skip-endpoint-check leaves it out. A run whose first questions
(FIRST_FAILURES) all fail the same way before any answer was delivered stops
too (exit 2): their lines are kept, and --retry-failed asks them again.

Re-running onto an existing OUT continues: questions already present, whatever
their outcome, are not asked again; a last line cut off by a crash is dropped
and its question asked again. OUT written for another question file (another
sha256) is refused, and so is a line whose fields are not of their type (a
line edited by hand), before anything is asked or written.

--retry-failed asks again, once, exactly the questions whose request failed
(no HTTP 200 on any attempt: an outage, a wrong endpoint), as the first time
(one request, and one retry if it fails: at most four requests to a question
in all), never one that was answered, however badly: the rubric's "no retries for a better answer" holds.
The new line replaces the old one and keeps its attempts first in
``attempts``, its response in ``earlier_responses`` and ``"redone": true``;
a redone question is never asked a third time.

Model calls: each records its token usage; --rpm, --tpm (or <PROVIDER>_RPM,
_TPM) keep under a rate, else the calls in flight adapt to 429s; unless --quiet,
the run ends with one summary line on stderr (calls, retries, 429s, tokens,
wall time, and the cost with --price-in/--price-out or --prices);
--max-calls N stops before call N + 1 (exit 1, with the summary; the same
command continues). See evalkit/asking/budget.py.

Exit codes: 0 every question got an answer; 1 some did not (listed on
stderr); 2 could not start (bad arguments, a bad input file, no endpoint, an
endpoint that does not answer as the profile says) or stopped early;
130 interrupted (Ctrl-C: the requests in flight are cut; a question whose request
was sent is recorded as interrupted, listed at the end of the next run and asked
again only by --retry-failed; the same command continues with the rest).
"""

import json
import os
import sys
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import VERSION, BadInput, cli, schemas  # noqa: E402
from evalkit.asking import budget, http, prompts, providers, resume  # noqa: E402
from evalkit.rubric.cases import load_site_qa  # noqa: E402
from evalkit.scenario.corpus import Corpus, beside as corpus_beside  # noqa: E402
from evalkit.fields import check_format, wrong_field  # noqa: E402
from evalkit.jsonl import read_json  # noqa: E402
from evalkit.provenance import git_state, python_version  # noqa: E402
from evalkit.asking.providers.manual import load_collection  # noqa: E402
from evalkit.responses import derive  # noqa: E402
from evalkit.scenario.scenarios import load_scenarios, user_text  # noqa: E402
from evalkit.asking.target import DEFAULT_PROFILE, build_request, load_profile  # noqa: E402
from evalkit.textmatch import visible  # noqa: E402

PROG = "run.py"
# Passages of the code given to a generator with --context corpus: a
# scenario names about six topics (93 over 16), so about one passage a topic
# and a little room, as a site assistant's retrieval gives.
CONTEXT_PASSAGES = 8
# The endpoint check's question: any answer in the profile's shape will do.
PROBE = "Hello"
# Five failures alike before any answer: the endpoint is at fault, not the
# questions (a flaky one fails a question here and there, not five in a row).
FIRST_FAILURES = 5
# The fields of a raw line that run.py reads when it continues OUT (to tell
# what was delivered, to ask again, to keep the earlier attempts), and their
# types (fields.wrong_field).
RAW_FIELDS = {"target": "object", "attempts": "objects", "response": "object|null",
              "derived": "object", "earlier_responses?": "list", "redone?": "boolean"}


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


def encoded(sent):
    """The bytes of a built request's body (None for a request without one)."""
    return None if sent["body"] is None else \
        json.dumps(sent["body"], ensure_ascii=False).encode("utf-8")


def ask(profile, url, question, widget_key, timeout, retry_pause, cap):
    """Ask one question (one retry on a failed request); the raw fields.

    Ctrl-C during a request records it as interrupted (it was sent: the
    question is never asked again unknowingly); http.Interrupted, raised
    before the first request went, leaves the question to be asked when the
    same command continues."""
    sent, recorded, secrets = build_request(profile, url, question, widget_key)
    data = encoded(sent)
    attempts = []
    response = None
    for number in range(2):
        if number:
            http.pause(retry_pause)
        try:
            attempt, response = http.send(sent["method"], sent["url"], sent["headers"], data,
                                          timeout, cap, secrets)
        except http.Interrupted:
            if not attempts:
                raise
            break  # the retry was not sent; the first request is recorded
        attempts.append(attempt)
        if response is not None and response["status"] == 200 \
                or attempt["error"] == "interrupted":
            break
    return {"request": recorded, "attempts": attempts, "response": response,
            "derived": derive(response, profile["response"])}


def delivered(line):
    """Whether the line delivered an answer, as score.py's newest rules say:
    HTTP 200 (or collected by hand) and an answer with a visible character
    (textmatch.visible: white space and zero-width marks alone are blank)."""
    response = line.get("response") or {}
    answer = (line.get("derived") or {}).get("answer")
    manual = (line.get("target") or {}).get("kind") == "manual"
    return (manual or response.get("status") == 200) and isinstance(answer, str) \
        and visible(answer)


def check_line(where, line, sha256):
    """Refuse a line of OUT that is no raw answer to this question file, or
    one whose fields that run.py reads (to tell what was delivered, to ask
    again, to keep the earlier attempts) are not of their type."""
    if not isinstance(line.get("id"), str):
        raise BadInput(f"{where}: not a raw answer line (no id)")
    run = line.get("run") if isinstance(line.get("run"), dict) else {}
    if run.get("cases_sha256") != sha256:
        raise BadInput(f"{where}: written for another question file "
                       f"(sha256 {str(run.get('cases_sha256'))[:12]}, this one {sha256[:12]}); "
                       "questions are frozen: write to a new file")
    check_format(line, where)
    problem = wrong_field(line, RAW_FIELDS)
    if problem is not None:
        raise BadInput(f"{where}: {line['id']}: {problem} (not a raw line run.py wrote)")


def select(qset, only, limit):
    questions = case_list(qset)
    if only:
        wanted = [item.strip() for item in only.split(",") if item.strip()]
        unknown = [item for item in wanted if item not in qset.by_id]
        if unknown:
            raise BadInput(f"{qset.path}: no question with id {', '.join(unknown)}")
        keep = set(wanted)
        questions = [q for q in questions if q["id"] in keep]
    if limit is not None:
        questions = questions[:limit]
    return questions


def resolve_url(args, profile, environ):
    url = args.endpoint or environ.get("BENCH_ENDPOINT") or profile["url"]
    if not url:
        raise BadInput("no endpoint: pass --endpoint URL, set BENCH_ENDPOINT, "
                       "or give a target profile with a url")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadInput(f"endpoint {url!r}: not an http:// or https:// URL with a host")
    return url


def check_endpoint(profile, url, question, widget_key, args):
    """Ask PROBE once, as ``question`` would be asked; BadInput unless the
    endpoint answers HTTP 200 in the profile's shape. Nothing is recorded."""
    probe = dict(question, question=PROBE)
    sent, _, secrets = build_request(profile, url, probe, widget_key)
    data = encoded(sent)
    attempt, response = http.send(sent["method"], sent["url"], sent["headers"], data,
                                  args.timeout, args.max_bytes, secrets)
    if response is None or response["status"] != 200:
        why = attempt["error"] or f"HTTP {response['status']}"
        hint = ""
        if urllib.parse.urlsplit(url).path in ("", "/"):
            hint = " (the URL has no path: the query endpoint usually has one, " \
                   "such as /api/query for the reference assistant)"
        raise BadInput(f"endpoint {url}: {why} to a test question{hint}; nothing was asked")
    problem = derive(response, profile["response"])["problem"]
    if problem is not None:
        raise BadInput(f"endpoint {url}: HTTP 200, but not in the shape of the target profile "
                       f"{args.target or DEFAULT_PROFILE} ({problem}); nothing was asked")


def load_cases(path):
    """``(kind, case set)``: a site-qa question set or a scenario set."""
    doc = read_json(path)
    suite = doc.get("suite") if isinstance(doc, dict) else None
    if suite == "site-qa":
        return "site-qa", load_site_qa(path)
    if suite == "scenario":
        return "scenario", load_scenarios(path)
    raise BadInput(f"{path}: suite {suite!r}: run.py asks site-qa and scenario case files")


def case_list(cases):
    return cases.questions if hasattr(cases, "questions") else cases.scenarios


def widget_mode(args, qset):
    """``(target block, work(question) -> raw fields)`` for a website assistant."""
    if args.provider or args.from_file:
        raise BadInput(f"{args.questions}: a site-qa file is asked of a website assistant; "
                       "--provider and --from are for model cases")
    given = [flag for flag in ("rpm", "tpm", "max_calls", "price_in", "prices")
             if getattr(args, flag) is not None]
    if given:
        raise BadInput(f"{args.questions}: --{given[0].replace('_', '-')} is for model cases; "
                       "a website assistant is asked at --concurrency")
    profile = load_profile(args.target or DEFAULT_PROFILE)
    url = resolve_url(args, profile, os.environ)
    target = {"kind": profile["kind"], "name": profile["name"], "url": url,
              "provider": None, "model": None,
              "response": profile["response"], "version_header": profile["version_header"]}

    def work(question):
        widget_key = qset.sites[question["lang"]]["widget_key"]
        fields = ask(profile, url, question, widget_key, args.timeout, args.retry_pause,
                     args.max_bytes)
        fields.update({"set": qset.set, "lang": question["lang"], "kind": question["kind"],
                       "page_url": question["page_url"]})
        return fields

    def check(question):
        if not args.skip_endpoint_check:
            check_endpoint(profile, url, question, qset.sites[question["lang"]]["widget_key"],
                           args)
    return target, work, check


def model_mode(args, cases):
    """``(target block, work(case) -> raw fields, budget.Account or None)``
    for a generator model (None: answers collected by hand, no call)."""
    # A provider that cannot be configured is the user's to fix, like a bad
    # file; the ProviderError of a failed call, below, is recorded instead.
    try:
        provider, model = providers.resolve(args.provider, args.model, os.environ)
        if provider == "manual":
            return load_collection(args.from_file, cases) + (None,)
        if args.from_file:
            raise BadInput("--from is for --provider manual")
        client = providers.get(provider, os.environ)
    except providers.ProviderError as exc:
        raise BadInput(str(exc)) from None
    account = budget.account(PROG, client, args, provider, model, args.concurrency, os.environ)
    prompt = prompts.load(args.prompt)
    target = {"kind": "model", "provider": provider, "model": model,
              "url": getattr(client, "base", None)}
    grounding = context_of(args, cases)
    if grounding is not None:
        target["context"] = "corpus"   # a retrieval-augmented assistant: another variant

    def work(case):
        user = user_text(case)  # the question, then the city and the address when named
        context = None
        if grounding is not None:
            user, context = grounding(user)
        request = {"prompt": prompt.record(), "user": user, "max_tokens": args.max_tokens,
                   "temperature": args.temperature, "context": context}
        try:
            reply = client.call(providers.Request(
                system=prompt.text, user=user, model=model, max_tokens=args.max_tokens,
                temperature=args.temperature, timeout=args.timeout))
        except providers.ProviderError as exc:
            if exc.fatal:  # every call would meet it (a key refused, no such model)
                raise BadInput(f"{args.questions}: {case['id']}: {exc}; nothing more was asked")
            if exc.interrupted and not exc.attempts:
                raise  # Ctrl-C before anything was sent: asked when the command continues
            response = None if exc.status is None else {
                "status": exc.status, "body": exc.raw, "body_base64": None, "truncated": False}
            return {"request": request, "attempts": exc.attempts, "response": response,
                    "derived": {"answer": None, "problem": str(exc)}, "usage": None}
        response = {"status": 200, "body": reply.raw, "body_base64": None, "truncated": False,
                    "model": reply.model, "stop": reply.stop, "cut_off": reply.truncated}
        problem = None if visible(reply.text) else (reply.problem or "empty answer")
        return {"request": request, "attempts": reply.attempts, "response": response,
                "derived": {"answer": reply.text or None, "problem": problem},
                "usage": reply.usage}
    return target, work, account


def context_of(args, cases):
    """With --context corpus: ``ground(user) -> (user with the passages,
    what the raw line records of them)``, the passages the corpus search finds
    for the question, city and address (evalkit/scenario/corpus.py); else None."""
    if args.context == "none":
        return None
    path = args.corpus or corpus_beside(cases.path, "--context corpus")
    corpus = Corpus(path)
    record = {"kind": "corpus", "corpus": os.path.basename(path), "corpus_sha256": corpus.sha256}

    def ground(user):
        hits = corpus.search(user, CONTEXT_PASSAGES)
        text = "\n".join(f"[{hit['section']}] {hit['passage']}" for hit in hits)
        return (f"{user}\n\nPassages of {corpus.jurisdiction}'s code found for this "
                f"question:\n{text or '(none)'}",
                dict(record, sections=[hit["section"] for hit in hits]))
    return ground


def progress_text(line):
    """What stderr says of a question once its line is written."""
    last = line["attempts"][-1] if line["attempts"] else {}
    status = last.get("status") if last.get("status") is not None else (
        last.get("error") or "imported")
    note = "" if delivered(line) else "  (no answer: " + (
        last.get("error") or line["derived"].get("problem") or "empty answer") + ")"
    return f"{line['id']} {status} {last.get('latency_ms', 0)} ms{note}"


def ask_all(args):
    kind, cases = load_cases(args.questions)
    check = account = None
    if kind == "site-qa":
        target, fetch, check = widget_mode(args, cases)
    else:
        target, fetch, account = model_mode(args, cases)
    todo = select(cases, args.only, args.limit)

    commit, dirty = git_state()
    run_block = {
        "run_id": uuid.uuid4().hex, "tool": "run.py", "tool_version": VERSION,
        "git_commit": commit, "git_dirty": dirty, "python": python_version(),
        "cases_file": os.path.basename(cases.path), "cases_sha256": cases.sha256,
        "concurrency": args.concurrency,
    }

    def work(case):
        fields = fetch(case)
        if fields is None:
            return None  # nothing to record (a manual answer not collected yet)
        line = {"format": 1, "id": case["id"], "suite": kind, "question": case["question"],
                "target": fields.pop("target", target), "run": run_block}
        line.update(fields)
        return line

    def start(pending):
        if not pending:
            say(f"{args.out}: already complete: {len(todo)} answer(s), nothing to ask"
                + (" again" if args.retry_failed else ""))
        elif check is not None:
            check(pending[0])

    common = {"key_of": lambda line: line["id"],
              "belongs": lambda where, line: check_line(where, line, cases.sha256),
              "do_job": work, "concurrency": args.concurrency,
              "progress": None if args.quiet else progress_text,
              "start": start, "watch": FirstFailures(args.out),
              "meter": account.meter if account is not None else None}
    by_id = {q["id"]: q for q in todo}
    try:
        if args.retry_failed:
            lines = resume.redo(PROG, args.out, by_id, failed=request_failed, merge=merge_retry,
                                **common)
        else:
            lines = resume.run(PROG, args.out, by_id, **common)
    except budget.CallLimitReached as exc:
        return account.stopped(exc)
    failed = [q["id"] for q in todo if q["id"] not in lines or not delivered(lines[q["id"]])]
    code = resume.exit_code(PROG, failed, len(todo), "case(s) got no answer")
    say_what_to_do(lines, failed)
    if account is not None:
        account.report()
    return code


def say_what_to_do(lines, failed):
    """After the run: the answers cut off at the token limit, and which of the
    failed questions --retry-failed would ask again."""
    cut = [key for key, line in lines.items() if (line.get("response") or {}).get("cut_off")]
    if cut:
        say(f"{len(cut)} answer(s) cut off at the token limit (--max-tokens): {', '.join(cut)}")
    retry = [key for key in failed if key in lines and request_failed(lines[key])
             and not lines[key].get("redone")]
    stopped = [key for key in retry if interrupted(lines[key])]
    if stopped:
        say(f"{len(stopped)} of them interrupted (Ctrl-C) after the question was sent: "
            f"{', '.join(stopped)}; ask them again, once, with --retry-failed "
            "(make retry QUARTER=...)")
    if len(retry) > len(stopped):
        say(f"{len(retry) - len(stopped)} of them because the request failed: when the endpoint "
            "answers, ask them again, once, with --retry-failed (make retry QUARTER=...)")


def interrupted(line):
    """Ctrl-C cut the line's last request: sent, but no answer came."""
    attempts = line.get("attempts") or []
    return bool(attempts) and attempts[-1].get("error") == "interrupted"


def request_failed(line):
    """The request failed (no HTTP 200 on any attempt), as opposed to an
    answer that came and was bad; answers imported by hand never fail so."""
    if (line.get("target") or {}).get("kind") == "manual":
        return False
    return all(attempt.get("status") != 200 for attempt in line.get("attempts") or [])


def merge_retry(old, new):
    """The line of a question asked again: the new answer, with every earlier
    attempt first in ``attempts`` and every earlier response kept."""
    line = dict(new)
    line["attempts"] = old["attempts"] + new["attempts"]
    line["earlier_responses"] = old.get("earlier_responses", []) + [old.get("response")]
    line["redone"] = True
    return line


class FirstFailures:
    """Stops a run whose first FIRST_FAILURES questions all fail the same way
    before any answer was delivered: the endpoint is at fault, and asking
    the rest would only record more of the same."""

    def __init__(self, out):
        self.out = out
        self.reasons = []   # None once an answer was delivered

    def __call__(self, line):
        if self.reasons is None or interrupted(line):
            return
        if delivered(line):
            self.reasons = None
            return
        self.reasons.append(failure(line))
        if len(self.reasons) == FIRST_FAILURES and len(set(self.reasons)) == 1:
            raise BadInput(f"the first {FIRST_FAILURES} questions all failed the same way "
                           f"({self.reasons[0]}), none was answered: stopped; their lines are "
                           f"kept in {self.out}: fix the endpoint, then ask them again with "
                           "--retry-failed (make retry QUARTER=...)")


def failure(line):
    last = line["attempts"][-1] if line["attempts"] else {}
    return last.get("error") or line["derived"].get("problem") or "empty answer"


def say(message):
    cli.say(PROG, message)


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, ask_all)


if __name__ == "__main__":
    sys.exit(main())
