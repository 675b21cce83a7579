#!/usr/bin/env python3
"""The whole benchmark, offline: start the reference assistant, ask, score.

    python tools/demo-assistant/run_demo.py [--out build/demo] [--concurrency N]

Starts server.py on a free loopback port, runs run.py for both demo question
sets against it, scores them with score.py (mechanical verdicts: a fresh run
has no human review) with its review sheet, prints the results table and
where the sheet is, and stops the server whatever
happens: an error, a failed step or Ctrl-C. Nothing but 127.0.0.1 is
contacted. The raw answers and results stay in the --out folder.

Exit codes: 0 done; 1 a step failed (its output is shown); 2 bad arguments.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
TOOLS = os.path.join(ROOT, "tools", "eval-benchmark")
SETS = ("biz", "med")  # the order of a published quarter, whose files are sorted by name


def start_server(out):
    port_file = os.path.join(out, "assistant.port")
    if os.path.exists(port_file):
        os.unlink(port_file)
    log = open(os.path.join(out, "assistant.log"), "w", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "server.py"),
                             "--port", "0", "--port-file", port_file],
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    log.close()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if os.path.exists(port_file):
            with open(port_file, encoding="utf-8") as fh:
                return proc, int(fh.read().strip())
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    stop_server(proc)
    raise RuntimeError(f"the reference assistant did not start; see {out}/assistant.log")


def stop_server(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def step(args):
    proc = subprocess.run([sys.executable] + args, capture_output=True, text=True,
                          encoding="utf-8")
    return proc


def main(argv=None):
    parser = argparse.ArgumentParser(prog="run_demo.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join("build", "demo"))
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    proc = None
    try:
        proc, port = start_server(args.out)
        endpoint = f"http://127.0.0.1:{port}/api/query"
        raws = []
        for set_name in SETS:
            raw = os.path.join(args.out, f"raw-{set_name}.jsonl")
            if os.path.exists(raw):
                os.unlink(raw)  # a demo asks afresh; run.py would otherwise continue
            done = step([os.path.join(TOOLS, "run.py"),
                         os.path.join(BENCH, f"questions-{set_name}.json"), raw,
                         "--endpoint", endpoint, "--quiet",
                         "--concurrency", str(args.concurrency)])
            if done.returncode not in (0, 1):
                sys.stderr.write(done.stderr)
                return 1
            sys.stderr.write(done.stderr)
            raws.append(raw)
        results = os.path.join(args.out, "results.md")
        done = step([os.path.join(TOOLS, "score.py")]
                    + [os.path.join(BENCH, f"questions-{s}.json") for s in SETS] + raws
                    + ["--out", results, "--json", os.path.join(args.out, "results.json"),
                       "--review-sheet", os.path.join(args.out, "review-sheet.md")])
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            return 1
    except RuntimeError as exc:
        print(f"run_demo.py: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("run_demo.py: interrupted; the assistant is stopped", file=sys.stderr)
        return 130
    finally:
        if proc is not None:
            stop_server(proc)
    sys.stdout.write(summary(args.out))
    return 0


def summary(out):
    """The results table of results.md, and one line on review where
    results.md lists every unreviewed id (all of them, in a fresh run)."""
    with open(os.path.join(out, "results.md"), encoding="utf-8") as fh:
        table = [line for line in fh.read().split("\n\n")[1].splitlines()]
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        result = json.load(fh)
    required = result["review_coverage"]["required"]
    # The sampled review of passes: the answers it drew (rules of 2026-12-02 on).
    sampled = (result.get("sampled_review") or {}).get("coverage", {}).get("sampled", 0)
    sheet = os.path.join(out, "review-sheet.md")
    return "\n".join(table) + "\n\n" + (
        "Mechanical verdicts: a fresh run has no human review. "
        f"{required} answers the rubric requires a person to read"
        + (f", and the {sampled} answers the sampled review of passes drew," if sampled else "")
        + f" are listed in {sheet}; all files are in {out}.\n")


if __name__ == "__main__":
    sys.exit(main())
