#!/usr/bin/env python3
"""Ask every question of a site-qa question file once; keep each raw answer.

    python tools/eval-benchmark/run.py QUESTIONS OUT.jsonl [--target PROFILE]
        [--endpoint URL] [--limit N] [--only ID,...] [--concurrency N]
        [--timeout S] [--quiet]

Each question is sent once, with no conversation history, as the target
profile says (default: the widget protocol, targets/widget.json). One retry
only when the request itself fails (no HTTP 200); never a retry for a better
answer. One JSON line per question is appended to OUT and flushed at once.

Re-running onto an existing OUT continues: questions already present, whatever
their outcome, are not asked again; a last line cut off by a crash is dropped
and its question asked again. OUT written for another question file (another
sha256) is refused.

Exit codes: 0 every question got an answer; 1 some did not (listed on
stderr); 2 could not start (bad arguments, a bad input file, no endpoint).
"""

import os
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalkit import BadInput, cli, one_line, schemas  # noqa: E402

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
    parser.add_argument("--limit", type=int, help="ask only the first N questions of the file")
    parser.add_argument("--only", help="ask only these ids, comma-separated")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="questions in flight at once (default 1, so latency stays comparable)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds for one whole request (default 60)")
    parser.add_argument("--retry-pause", type=float, default=1.0,
                        help="seconds to wait before the one retry (default 1)")
    parser.add_argument("--max-bytes", type=int, default=2 * 1024 * 1024,
                        help="size cap of a response body (default 2 MB)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.concurrency < 1 or args.concurrency > 256:
        parser.error("--concurrency must be between 1 and 256")
    if not args.timeout > 0:
        parser.error("--timeout must be positive")
    if args.retry_pause < 0:
        parser.error("--retry-pause cannot be negative")
    if args.max_bytes < 1:
        parser.error("--max-bytes must be positive")
    return args


def ask(profile, url, question, widget_key, timeout, retry_pause, cap):
    """Ask one question (one retry on a failed request); the raw fields."""
    import json
    from evalkit import http
    from evalkit.target import build_request, derive

    sent, recorded = build_request(profile, url, question, widget_key)
    data = None
    if sent["body"] is not None:
        data = json.dumps(sent["body"], ensure_ascii=False).encode("utf-8")
    attempts = []
    response = None
    for number in range(2):
        if number:
            time.sleep(retry_pause)
        attempt, response = http.send(sent["method"], sent["url"], sent["headers"], data,
                                      timeout, cap)
        attempts.append(attempt)
        if response is not None and response["status"] == 200:
            break
    return {"request": recorded, "attempts": attempts, "response": response,
            "derived": derive(response, profile["response"])}


def delivered(line):
    response = line.get("response") or {}
    answer = (line.get("derived") or {}).get("answer")
    return response.get("status") == 200 and isinstance(answer, str) and answer.strip() != ""


def read_existing(path, sha256):
    """Ids already in OUT; drops a last line torn by a crash. ``{id: line}``."""
    from evalkit.jsonl import loads
    done = {}
    if not os.path.exists(path):
        return done
    with open(path, "rb") as fh:
        data = fh.read()
    good_end = len(data)
    if data and not data.endswith(b"\n"):
        good_end = data.rfind(b"\n") + 1
        print(f"{PROG}: {path}: the last line was cut off by an interrupted run; "
              "dropping it and asking that question again", file=sys.stderr)
    for number, raw in enumerate(data[:good_end].splitlines(), 1):
        where = f"{path}:{number}"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"{where}: not UTF-8; this is not a raw file run.py wrote") from None
        line = loads(text, where)
        if not isinstance(line, dict) or not isinstance(line.get("id"), str):
            raise BadInput(f"{where}: not a raw answer line (no id)")
        run = line.get("run") if isinstance(line.get("run"), dict) else {}
        if run.get("cases_sha256") != sha256:
            raise BadInput(f"{where}: written for another question file "
                           f"(sha256 {str(run.get('cases_sha256'))[:12]}, this one {sha256[:12]}); "
                           "questions are frozen: write to a new file")
        if line["id"] in done:
            raise BadInput(f"{where}: {line['id']} is already on an earlier line")
        done[line["id"]] = line
    if good_end != len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
    return done


def select(qset, only, limit):
    questions = qset.questions
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
    return url


def main(argv=None):
    args = parse_args(argv)
    from evalkit import VERSION
    from evalkit.cases import load_site_qa
    from evalkit.jsonl import LineWriter
    from evalkit.provenance import git_state, python_version
    from evalkit.target import DEFAULT_PROFILE, load_profile

    try:
        qset = load_site_qa(args.questions)
        profile = load_profile(args.target or DEFAULT_PROFILE)
        url = resolve_url(args, profile, os.environ)
        todo = select(qset, args.only, args.limit)
        done = read_existing(args.out, qset.sha256)
    except BadInput as exc:
        print(f"{PROG}: {one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{PROG}: {args.out}: {exc.strerror}", file=sys.stderr)
        return 2

    commit, dirty = git_state()
    run_block = {
        "run_id": uuid.uuid4().hex, "tool": "run.py", "tool_version": VERSION,
        "git_commit": commit, "git_dirty": dirty, "python": python_version(),
        "cases_file": os.path.basename(qset.path), "cases_sha256": qset.sha256,
        "concurrency": args.concurrency,
    }
    target_block = {"kind": profile["kind"], "name": profile["name"], "url": url,
                    "provider": None, "model": None,
                    "response": profile["response"], "version_header": profile["version_header"]}
    pending = [q for q in todo if q["id"] not in done]
    total = len(todo)
    counter = {"n": total - len(pending)}
    lock = threading.Lock()
    results = {qid: line for qid, line in done.items()}

    try:
        writer = LineWriter(args.out)
    except OSError as exc:
        print(f"{PROG}: {args.out}: cannot write: {exc.strerror}", file=sys.stderr)
        return 2

    def work(question):
        widget_key = qset.sites[question["lang"]]["widget_key"]
        fields = ask(profile, url, question, widget_key, args.timeout, args.retry_pause,
                     args.max_bytes)
        line = {"format": 1, "id": question["id"], "suite": "site-qa", "set": qset.set,
                "lang": question["lang"], "kind": question["kind"],
                "question": question["question"], "page_url": question["page_url"],
                "target": target_block, "run": run_block}
        line.update(fields)
        with lock:
            writer.write(line)
            results[question["id"]] = line
            counter["n"] += 1
            if not args.quiet:
                last = line["attempts"][-1]
                status = last["status"] if last["status"] is not None else last["error"]
                note = "" if delivered(line) else "  (no answer: " + (
                    last["error"] or line["derived"]["problem"] or "empty answer") + ")"
                print(f"[{counter['n']}/{total}] {question['id']} {status} "
                      f"{last['latency_ms']} ms{note}", file=sys.stderr, flush=True)

    try:
        if args.concurrency == 1:
            for question in pending:
                work(question)
        else:
            with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
                for future in [pool.submit(work, q) for q in pending]:
                    future.result()
    except BadInput as exc:
        print(f"{PROG}: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; re-run the same command to continue", file=sys.stderr)
        return 130
    finally:
        writer.close()

    failed = [q["id"] for q in todo if not delivered(results[q["id"]])]
    if failed:
        print(f"{PROG}: {len(failed)} of {total} question(s) got no answer: "
              f"{', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
