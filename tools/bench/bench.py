#!/usr/bin/env python3
"""The speed benchmark: scoring, quarters, redaction and asking, against their targets.

    python tools/bench/bench.py [--answers 100000] [--write-readme]
    python tools/bench/bench.py --only scenarios --out /tmp/bench.json

1. Scoring against the parsing floor: score.py in one process on seeded
   synthetic site-qa answers (all three languages, realistic lengths, a mix
   of outcomes), asked for the table only (--out), divided by the time to
   merely json.loads every line of the same raw files and the question file.
   The fastest of five runs of each, taken in turns, so that a slow spell of
   the machine falls on both. Target <= 8 (SCORING_TARGET).
2. Scoring memory: score.py's peak resident memory, asked for the table
   only (--out), at half and at all the answers: under 300 MB, and all /
   half <= 2 (growing at most linearly). score.py is one process, so its peak
   is its own, as wait4 reports it for each run. As information (no target):
   the peak at all the answers with --json too, the heaviest realistic run,
   which keeps every question's row for results.json.
3. A quarter: score.py on the published demo quarter (its 120 answers, with
   its reviews and the arguments of its MANIFEST), writing the table,
   results.json and the page, start to finish, the fastest of five: target
   under 0.5 s. And reproduce.py on the same quarter, and on the newest
   quarter published (newest_quarter: the latest asked, then the latest
   rules, of the folders with a MANIFEST.json), each divided by a bare
   interpreter running ``import json``, the fastest of five of each, taken in
   turns: target <= 10.
4. Redaction: evalkit/redaction.py on a model's JSON reply of REDACTION_MB
   MB (prose with the escapes JSON and URLs write) holding a secret plain,
   upper-cased, JSON-escaped and percent-encoded, in a process of its own:
   the time (target <= 3 s), its own memory at the peak, traced by
   tracemalloc in a second run, divided by the reply's size (target <= 3),
   and the process's peak resident memory, the reply held (target <= 200 MB).
5. Citations: score.py on one scenario answer of CITED_KB KB of sentences
   citing the code (CITING), start to finish, the fastest of five: target
   <= 3 s (the jargon pass of Useful was quadratic in them until 2026-12).
6. Asking, as information (no target): run.py and atomize.py on 400
   questions at concurrency 1 and 8 against a loopback stand-in that answers
   each request after 50 ms, divided by the ideal, 400 x 50 ms / concurrency.
   One run each.
7. At a provider's rate limit: run.py (a model generator) and atomize.py,
   RATED_CALLS calls each, against a loopback OpenAI-compatible provider
   (rate_limited: the stand-in, in its own process, with the bucket of
   ratelimit.py) that allows RATE requests a minute (a token bucket with a
   burst of RATE_BURST, answering 429 with ``retry-after`` past it, and
   stating the bucket in OpenAI's rate-limit headers) and answers each
   request after a seeded latency (reply_latency: a log-normal draw, median
   0.5 s, within 0.2 to 2 s), at --concurrency RATED_CONCURRENCY, divided by
   the ideal, calls / rate: with ``--rpm`` at the limit (target <= 1.10), and
   without it, the calls in flight adapting to the 429s (target <= 1.25),
   each with no failed call (the script must exit 0), and the 429s the
   client recorded on its attempts in the row.
8. At a low rate, adaptive: run.py, LOW_RATE_CALLS calls, against the same
   provider allowing each of LOW_RATES requests a minute with a burst of 1,
   at --concurrency 16 and 64, without --rpm: the failed calls (target 0:
   the calls in flight cannot go under one, so the limiter must learn a pace
   between requests; issue 26), with the wall time divided by the ideal,
   calls / rate, and the 429s in the row. One run each.
9. At a provider's burst: run.py, BURST_CALLS calls with --rpm BURST_RATE,
   against the same provider allowing BURST_RATE a minute with a burst of
   BURST, divided by the floor, (BURST_CALLS - BURST) / rate, the least time
   the provider allows from the first request to the last: the burst as the
   provider's headers state it, and as --burst gives it (target <= 1.05),
   and, as information, neither (a bucket of one). One run each.
10. Scoring the scenario suite: score.py on SCENARIO_ANSWERS seeded synthetic
   scenario answers (SCENARIO_GENERATORS generators, four to seven claims
   with their citations and some 100 words each, one evaluator that looked
   each answer up in the city's code with a recorded search, one answer in
   a hundred with no atoms line and one with a failed atomization), asked
   for the table only (--out), start to finish: target under
   SCENARIO_TARGET seconds. One run: scoring was quadratic in the answers
   until 2026-12 (505 s at 50,000 on a busy 2-core machine), linear since.

The parts that wait (WAITING: asking, and every rate row) run beside the
others, on a thread of the bench whose processes mostly sleep, and the
rows at the low rates and at a burst all at once, each with a provider and
a run of its own: the bench takes about as long as its working parts.

Not measured: the scripts' start-up (--help) on its own; the quarter's
figure counts score.py's start-up from start to finish.

Every process is started with this interpreter (sys.executable), so wrapper
scripts in front of python do not count, and must exit 0 (run.py at a low
rate may exit 1: its row counts the calls that failed). The table is
printed and written to Documents/performance/results.json with the date, the
core count, the Python version and the machine; --write-readme puts the same
table into Documents/performance/README.md between its bench markers. Exit 1 when a target is
missed. Nothing but 127.0.0.1 is contacted.
"""

import argparse
import hashlib
import json
import math
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools", "eval-benchmark")
sys.path.insert(0, TOOLS)

from evalkit.scenario.corpus import Corpus  # noqa: E402
from evalkit.jsonl import dumps_line  # noqa: E402
from evalkit.rubric.quarter import load_manifest  # noqa: E402
from ratelimit import TokenBucket  # noqa: E402  (beside this file: the provider's bucket)

PY = sys.executable
SCORE = os.path.join(TOOLS, "score.py")
DEMO = os.path.join(ROOT, "Documents", "c4-benchmark", "demo")
FORMAT = 2  # of results.json: 2 since the rows carry their bound ("<" or "≤")
TURNS = 5
# Scoring 100,000 answers within 8 times json.loads of the same lines: the
# design's target since 2026-12-01 (4 before), so that no speed trick a reader
# of the scoring code must step over is ever worth the margin.
SCORING_TARGET = 8
ASKED = 400
RATE = 1200            # requests a minute the rate-limited provider allows
RATE_BURST = 5
RATED_CALLS = 600      # 30 s of the rate
RATED_CONCURRENCY = 32  # above what the rate needs at the median latency (10)
LOW_RATES = (60, 120)  # requests a minute: under one call in flight at the median latency
LOW_RATE_CALLS = 40    # 40 s at 60 a minute, 20 s at 120
LOW_RATE_CONCURRENCY = (16, 64)
# --rpm at a provider whose bucket holds a burst (issue 41): within 5% of the
# floor, (BURST_CALLS - BURST) requests at the rate, when the run knows the burst.
BURST_RATE = 60
BURST = 10
BURST_CALLS = 90       # 80 s of the rate past the burst
BURST_MODES = ("stated", "given", "none")
BURST_TARGET = 1.05
# Scoring 50,000 scenario answers in under a minute: linear in the answers,
# with room for a slow spell of a shared machine.
SCENARIO_ANSWERS = 50000
SCENARIO_TARGET = 60
SCENARIO_GENERATORS = 4
PERMITS = os.path.join(ROOT, "evals", "permits")
README_BEGIN, README_END = "<!-- bench: begin -->", "<!-- bench: end -->"
SEED = 2026
WORDS = {
    "en": "the clinic opens at our first visit costs doctor appointment please call we are open "
          "monday friday price consultation insurance parking street booking online team".split(),
    "he": "המרפאה פתוחה בין ביקור ראשון עולה רופא תור נא להתקשר אנחנו ימים ראשון חמישי מחיר "
          "ייעוץ ביטוח חניה רחוב הזמנה באתר הצוות שלנו".split(),
    "ru": "клиника открыта с первый приём стоит врач запись пожалуйста позвоните мы работаем "
          "понедельник пятница цена консультация страховка парковка улица онлайн команда".split(),
}


# ---- synthetic inputs --------------------------------------------------------------------

def make_inputs(folder, answers, rng):
    """A question file and raw files holding ``answers`` answers."""
    sets = {"en": "http://bench.example/en/", "he": "http://bench.example/he/",
            "ru": "http://bench.example/ru/"}
    questions = [synthetic_question(n, rng, sets) for n in range(answers)]
    qfile = os.path.join(folder, "questions-bench.json")
    with open(qfile, "w", encoding="utf-8") as fh:
        json.dump({"suite": "site-qa", "set": "bench", "format": 1,
                   "sites": {lang: {"site_url": url, "widget_key": f"pk_{lang}"} for lang, url in sets.items()},
                   "questions": questions}, fh, ensure_ascii=False)
    with open(qfile, "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    run = {"run_id": "bench", "tool": "run.py", "tool_version": "bench", "git_commit": "0" * 40,
           "git_dirty": False, "python": platform.python_version(), "cases_file": "questions-bench.json",
           "cases_sha256": sha, "concurrency": 8}
    target = {"kind": "widget", "name": "widget", "url": "http://127.0.0.1:8080/api/query",
              "provider": None, "model": None, "version_header": "X-Assistant-Version",
              "response": {"answer": "answer", "sources": "sources", "source_url": "url",
                           "grounded": "grounded"}}
    raws = []
    per_file = 25000
    for start in range(0, answers, per_file):
        path = os.path.join(folder, f"raw-bench-{start // per_file}.jsonl")
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for q in questions[start:start + per_file]:
                fh.write(dumps_line(synthetic_line(q, rng, target, run)) + "\n")
        raws.append(path)
    return qfile, raws


def synthetic_question(n, rng, sets):
    """Question ``n``: every fourth not on the site, the others answerable."""
    lang = ("en", "he", "ru")[n % 3]
    qid = f"bench-{lang}-{n:06d}"
    if n % 4 == 3:
        return {"id": qid, "lang": lang, "kind": "not_on_site",
                "question": " ".join(rng.choice(WORDS[lang]) for _ in range(8)) + "?",
                "page_url": sets[lang], "must_not_include": [f"{n} ₪ per"]}
    fact = str(100 + n % 900)
    return {"id": qid, "lang": lang, "kind": "answerable",
            "question": " ".join(rng.choice(WORDS[lang]) for _ in range(7)) + "?",
            "page_url": sets[lang], "source_url": sets[lang] + "prices/",
            "also_source_urls": [], "evidence": f"It costs {fact}.",
            "facts": [[fact, "$" + fact]]}


def synthetic_line(q, rng, target, run):
    """A raw line answering ``q``: 30 to 120 words, the fact in 60% of the
    answerable ones, a failed request in 3%."""
    lang = q["lang"]
    words = [rng.choice(WORDS[lang]) for _ in range(rng.randint(30, 120))]
    roll = rng.random()
    if q["kind"] == "answerable" and roll < 0.6:
        words.insert(rng.randrange(len(words)), q["facts"][0][rng.randrange(2)])
    answer = " ".join(words) + "."
    status = 500 if roll > 0.97 else 200
    body = json.dumps({"answer": answer, "grounded": roll > 0.2,
                       "sources": [{"url": q["page_url"] + "prices/", "title": "Prices"}]},
                      ensure_ascii=False)
    return {"format": 1, "id": q["id"], "suite": "site-qa", "set": "bench", "lang": lang,
            "kind": q["kind"], "question": q["question"], "page_url": q["page_url"],
            "target": target, "run": run,
            "request": {"method": "POST", "url": target["url"],
                        "headers": {"Content-Type": "application/json"},
                        "body": {"question": q["question"], "page_url": q["page_url"],
                                 "key": f"pk_{lang}"}},
            "attempts": [{"started_at": "2026-11-29T10:00:00.000Z", "status": status,
                          "error": None if status == 200 else "HTTP 500",
                          "latency_ms": rng.randint(300, 3000)}],
            "response": {"status": status, "headers": {"content-type": "application/json",
                                                       "x-assistant-version": "bench 1"},
                         "body": body, "body_base64": None, "bytes": len(body.encode()),
                         "truncated": False},
            "derived": {"answer": answer, "sources": [q["page_url"] + "prices/"],
                        "grounded": roll > 0.2, "problem": None}}


# ---- synthetic scenario answers ----------------------------------------------------------

# The sentences of a synthetic scenario answer: (topic, text, the citation it gives).
CLAIMS = (
    ("zoning", "Check your zone on RivertonMaps first, because the zone decides what you may "
               "build.", "RivertonMaps"),
    ("size", "A backyard cottage is limited to 800 square feet under RCC 33.205.040.",
     "RCC 33.205.040"),
    ("setbacks", "Keep it at least 5 feet from the side and rear property lines (RCC 33.110.220).",
     "RCC 33.110.220"),
    ("permits", "Apply for a building permit with BDS before any work starts.", None),
    ("costs", "Expect permit fees and an SDC of several thousand dollars, according to Redfin.",
     "Redfin"),
    ("sequence", "Get zoning confirmed, then submit plans, then book inspections.", None),
    ("height", "Front fences may be 3.5 feet tall (riverton.example.gov/fences).",
     "riverton.example.gov/fences"),
    ("address", "I could not look up your parcel, so I cannot see its zone.", None),
)
# Sentences of an answer that cites the code at every turn: a citation
# every 30 characters or so, some pointing, some explained, acronyms among them.
CITING = ("Keep it at least 5 feet from the line (RCC 33.110.220).",
          "See RCC 33.205.040 for the ADU rules.", "An ADU under ORS 197.312 is allowed.",
          "Apply with BDS before work starts, per \u00a7 3.10.010.", "(RCC 33.205.050).",
          "Fences are limited to 3.5 feet under Title 33.",
          "The SDC is set by Chapter 17.14 and section 33.120.210 applies.")
TAGS = ("correct", "correct", "correct", "correct-vague", "vague-correct", "vague-action",
        "hedge-correct", "WRONG", "PARTIAL-WRONG")
ADDRESS = "4127 SE Wrenfield Court, Riverton"


def make_scenario_inputs(folder, answers, rng, generators=SCENARIO_GENERATORS, length=None):
    """A scenario file (its tables and the city's code beside it), one raw
    file per generator and the atoms file of one evaluator that looked the
    code up: ``(scenario file, raw files, atoms file)``. Each of
    ``generators`` answers every scenario (``answers`` rounded down to a
    multiple of them); one answer in a hundred has no atoms line, and one an
    atomization error. ``length``: answers of that many characters (their
    claims again and again), each with its atoms line."""
    for name in ("sources.json", "jargon.json", os.path.join("code", "riverton-code.json")):
        os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
        with open(os.path.join(PERMITS, name), "rb") as src, \
                open(os.path.join(folder, name), "wb") as dst:
            dst.write(src.read())
    corpus = Corpus(os.path.join(folder, "code", "riverton-code.json"))
    with open(os.path.join(PERMITS, "scenarios.json"), encoding="utf-8") as fh:
        topics = json.load(fh)["topics"]
    doc = {"suite": "scenario", "format": 1, "topics": topics,
           "scenarios": [synthetic_scenario(n, rng) for n in range(max(1, answers // generators))]}
    sfile = os.path.join(folder, "scenarios-bench.json")
    with open(sfile, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    with open(sfile, "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    # The search of each question, once: the corpus search is deterministic.
    searches = {q: corpus.search(f"{q} Riverton {ADDRESS}", 5)
                for q in sorted({s["question"] for s in doc["scenarios"]})}
    raws, atoms_file = [], os.path.join(folder, "atoms-bench.jsonl")
    with open(atoms_file, "w", encoding="utf-8", newline="\n") as atoms_out:
        for k in range(generators):
            raws.append(os.path.join(folder, f"raw-bench-gen-{k}.jsonl"))
            with open(raws[-1], "w", encoding="utf-8", newline="\n") as raw_out:
                for scenario in doc["scenarios"]:
                    text, claims = synthetic_answer(rng, length)
                    raw_out.write(dumps_line(scenario_raw_line(scenario, k, text, sha)) + "\n")
                    line = synthetic_atoms_line(scenario, k, text, claims,
                                                searches[scenario["question"]], corpus, rng,
                                                always=length is not None)
                    if line is not None:
                        atoms_out.write(dumps_line(line) + "\n")
    return sfile, raws, atoms_file


def synthetic_scenario(n, rng):
    """Scenario ``n``: one of a few questions, three topics a complete answer must cover."""
    question = ("May I build a backyard cottage?", "How tall may my front fence be?",
                "What does a permit for a shed cost?", "Can I add a second home on my lot?")[n % 4]
    topics = rng.sample([t for t, _text, _cite in CLAIMS if t != "address"], 3)
    return {"id": f"bench-{n:06d}", "question": question, "jurisdiction": "Riverton",
            "address": ADDRESS, "must_cover": sorted(topics)}


def synthetic_answer(rng, length=None):
    """``(text, claims)``: four to seven of the CLAIMS in a random order, then
    some words of no claim; about 100 words, or with sentences that cite the
    code (CITING) up to ``length`` characters."""
    claims = rng.sample(CLAIMS, rng.randint(4, 7))
    filler = " ".join(rng.choice(WORDS["en"]) for _ in range(rng.randint(20, 60)))
    text = " ".join(text for _t, text, _c in claims)
    while length and len(text) < length:
        text += " " + rng.choice(CITING)
    return text + " " + filler + ".", claims


def scenario_raw_line(scenario, k, text, sha):
    """Generator ``k``'s raw line answering ``scenario`` with ``text``."""
    body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}]})
    return {"format": 1, "id": scenario["id"], "suite": "scenario", "question": scenario["question"],
            "target": {"kind": "model", "provider": "openai", "model": f"bench-gen-{k}"},
            "run": {"run_id": "bench", "tool": "run.py", "git_commit": "0" * 40, "cases_sha256": sha},
            "attempts": [{"started_at": "2026-12-01T10:00:00.000Z", "status": 200, "error": None}],
            "request": {"prompt": {"name": "scenario-answer-v1", "sha256": "0" * 64}},
            "response": {"status": 200, "body": body}}


def synthetic_atoms_line(scenario, k, text, claims, hits, corpus, rng, always=False):
    """The evaluator's atoms line for one answer, an atom a claim; its lookup
    is the search of the question that returned ``hits`` (one line in twenty:
    no lookup at all). None: no atoms line. ``always``: an atoms line with
    its atoms, looked up."""
    roll = 0.5 if always else rng.random()
    if roll < 0.01:
        return None
    calls = [] if roll > 0.95 else [{"tool": "search_code", "input": {"query": scenario["question"]},
                                     "output": hits, "error": None}]
    failed = roll < 0.02
    return {"format": 1, "id": scenario["id"], "variant": f"openai:bench-gen-{k}", "repeat": 0,
            "evaluator": {"provider": "anthropic", "model": "bench-judge", "prompt": "atomize-v2",
                          "prompt_sha256": "0" * 64},
            "atoms": None if failed else [synthetic_atom(claim, hits, rng) for claim in claims],
            "error": "evaluator reply was not JSON" if failed else None,
            "response_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "run": {"run_id": "bench", "tool": "atomize.py", "git_commit": "0" * 40},
            "calls": [{"attempts": [], "reply": None,
                       "usage": {"input_tokens": 1800, "output_tokens": 400, "reported": True}}],
            "lookups": {"mode": "tools", "corpus": "riverton-code.json",
                        "corpus_sha256": corpus.sha256, "calls": calls}}


def synthetic_atom(claim, hits, rng):
    """The atom of one of CLAIMS: its truth resting on a section the search
    returned (8 in 10), on one it did not, or on none; its citation the
    answer's (one in ten the evaluator's own, which the answer never gave)."""
    topic, text, citation = claim
    roll = rng.random()
    named = hits[0]["section"] if roll < 0.8 else "RCC 3.10.010" if roll < 0.9 else None
    return {"text": text, "correctness": "admitted-gap" if topic == "address" else rng.choice(TAGS),
            "verified_truth": f"The code says so [{named}]." if named else "Not settled by the code.",
            "citation": "RCC 33.205.050" if rng.random() < 0.1 else citation, "topic": topic,
            "specificity": 0.5, "actionability": rng.choice((0.25, 0.5, 0.75)),
            "importance": rng.randint(1, 5)}


# ---- processes and timing ----------------------------------------------------------------

# ru_maxrss is in kilobytes on Linux, in bytes on macOS.
MAXRSS_PER_MB = 1 << 20 if sys.platform == "darwin" else 1 << 10


def timed(argv, env=None, cwd=None, exits=(0,)):
    """``(seconds, peak resident memory in MB)`` of one child process.

    The peak is the child's own, from wait4: right for a script that is one
    process (a worker's peak would be reported apart, not added). A child
    whose exit code is not one of ``exits`` stops the bench with its stderr."""
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: a full pipe would stall the child
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd,
                                env=dict(os.environ, **(env or {})))
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must know
        if proc.returncode not in exits:
            err.seek(0)
            message = err.read().decode("utf-8", "replace").strip()[-500:]  # a traceback ends with the error
            raise SystemExit(f"bench.py: {' '.join(argv[:3])} exited {proc.returncode}: {message}")
    return seconds, usage.ru_maxrss / MAXRSS_PER_MB


def fastest_in_turns(commands, turns=TURNS, cwd=None):
    """For each command, ``(fastest seconds, largest peak MB)`` over ``turns`` runs.

    The commands run in turns, one of each and again: a slow spell of the
    machine (runs on a busy 2-core machine vary by a fifth) falls on all of
    them, not on one, and the fastest run is the least disturbed."""
    runs = [[] for _ in commands]
    for _ in range(turns):
        for argv, measured in zip(commands, runs):
            measured.append(timed(argv, cwd=cwd))
    return [(min(s for s, _ in measured), max(mb for _, mb in measured)) for measured in runs]


FLOOR = """
import json, sys
for path in sys.argv[1:]:
    if path.endswith(".jsonl"):
        with open(path, "rb") as fh:
            for line in fh:
                json.loads(line)
    else:
        with open(path, "rb") as fh:
            json.load(fh)
"""


# ---- the stand-in server -----------------------------------------------------------------

def _answer_after(conn, answer):
    """One connection: each request answered as ``answer(request body)``
    says, ``(status, headers, body, delay)``, ``delay`` seconds after it is in.

    Keep-alive is honoured (HTTP/1.1 unless the client says close), so a
    client that reuses connections is measured as such. One write per
    answer, with TCP_NODELAY, so no Nagle wait is added to the delay."""
    try:
        with conn:
            _answer_each(conn, answer)
    except OSError:
        pass  # a client that went away: nothing to answer


def _answer_each(conn, answer):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buffer = b""
    while True:
        while b"\r\n\r\n" not in buffer:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffer += chunk
        head, _, buffer = buffer.partition(b"\r\n\r\n")
        length, close = 0, head.split(b"\r\n", 1)[0].endswith(b"HTTP/1.0")
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection":
                close = value == b"close"
        while len(buffer) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffer += chunk
        request, buffer = buffer[:length], buffer[length:]
        status, headers, body, delay = answer(request)
        time.sleep(delay)
        conn.sendall(b"HTTP/1.1 %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n%s"
                     b"\r\n%s" % (status, b"".join(b"%s: %s\r\n" % (k.encode(), v.encode())
                                                  for k, v in headers.items()),
                                   len(body), b"Connection: close\r\n" if close else b"", body))
        if close:
            return


def after(body, delay=0.05):
    """The stand-in's answer to every request: ``body`` after ``delay`` seconds."""
    return lambda request: (b"200 OK", {}, body, delay)


def rate_limited_answer(content, rpm, burst, stated=True, seed=SEED):
    """The answers of an OpenAI-compatible provider that allows ``rpm``
    requests a minute, a token bucket holding ``burst`` (ratelimit.py): past
    it, 429 with ``retry-after`` at once; else a reply of ``content`` that
    names the model asked for (the generator and the evaluator are two
    models, held to the family rule), after a latency drawn from ``seed``
    (reply_latency), in the order the requests come. ``stated``: every
    reply states the bucket in OpenAI's rate-limit headers."""
    bucket, rng, lock = TokenBucket(rpm, burst), random.Random(seed), threading.Lock()

    def answer(request):
        with lock:
            wait = bucket.take()
            headers = bucket.stated() if stated else {}
            if wait is not None:
                return b"429 Too Many Requests", dict(headers, **{"retry-after": str(wait)}), \
                    TOO_MANY, 0.0
            delay = reply_latency(rng)
        try:
            model = json.loads(request).get("model")
        except (ValueError, AttributeError):
            model = None
        body = json.dumps({"id": "chatcmpl-bench", "object": "chat.completion", "model": model,
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": 11, "completion_tokens": 7,
                                     "total_tokens": 18}})
        return b"200 OK", headers, body.encode(), delay
    return answer


TOO_MANY = json.dumps({"error": {"message": "Rate limit reached for requests", "type": "requests",
                                 "param": None, "code": "rate_limit_exceeded"}}).encode()


def serve_stand_in(body_file, rate=None):
    """Serve on 127.0.0.1 until stdin closes; print the port first: the
    bytes of ``body_file`` after 50 ms to every request, or with ``rate``
    (rpm, burst, stated) the text of ``body_file`` as rate_limited_answer
    answers it.

    Its own process, so that its work never competes for the bench's (or the
    client's) interpreter lock, and a thread per connection sleeping exactly
    the delay: an event loop's timers, rounded up to the millisecond, added
    most of a millisecond to every answer, counted against the script."""
    with open(body_file, "rb") as fh:
        body = fh.read()
    answer = after(body) if rate is None else \
        rate_limited_answer(body.decode("utf-8"), rate[0], rate[1], bool(rate[2]))
    listener = socket.create_server(("127.0.0.1", 0), backlog=256)
    print(listener.getsockname()[1], flush=True)

    def until_stdin_closes():
        sys.stdin.buffer.read()
        os._exit(0)  # the threads of open connections die with the process
    threading.Thread(target=until_stdin_closes, daemon=True).start()
    answer_connections(listener, answer)


def answer_connections(listener, answer):
    """Accept connections for as long as ``listener`` is open, each answered
    on a thread of its own (``_answer_after``): requests in flight together
    wait out their delays together."""
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=_answer_after, args=(conn, answer), daemon=True).start()


class StandIn:
    """The stand-in server (serve_stand_in) in its own process, answering
    every request with the bytes ``data`` after 50 ms, or with ``rate``
    (rpm, burst, stated) as a rate-limited provider answering the text
    ``data``: it prints its port, and serves until its stdin closes. A
    context manager too."""

    def __init__(self, tmp, data, rate=None):
        handle, path = tempfile.mkstemp(suffix=".data", prefix="stand-in-", dir=tmp)
        with os.fdopen(handle, "wb") as fh:
            fh.write(data)
        extra = [] if rate is None else ["--rate"] + [str(int(x)) for x in rate]
        self.proc = subprocess.Popen([PY, os.path.abspath(__file__), "--stand-in", path] + extra,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.port = int(self.proc.stdout.readline())
        self.base = f"http://127.0.0.1:{self.port}"

    def environ(self):
        """What points an OpenAI-compatible client at it (a fake key)."""
        return {"OPENAI_BASE_URL": self.base + "/v1", "OPENAI_API_KEY": "sk-bench-FAKEKEY0123456789"}

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---- the rate-limited provider -----------------------------------------------------------

def reply_latency(rng):
    """Seconds before a reply: a log-normal draw from ``rng``, median 0.5 s,
    kept within 0.2 to 2 s."""
    return min(2.0, max(0.2, rng.lognormvariate(math.log(0.5), 0.6)))


def rate_limited(tmp, content, rpm=RATE, burst=RATE_BURST, stated=True):
    """The rate-limited provider (rate_limited_answer) in its own process,
    on 127.0.0.1 (a context manager). A fresh one for each run: its bucket
    starts full and its latencies from the seed's first."""
    return StandIn(tmp, content.encode("utf-8"), (rpm, burst, stated))


# ---- the measures ------------------------------------------------------------------------

def row(measure, value, detail, target=None, bound=None):
    """One line of the table: ``bound`` is "<" (under) or "≤" (at most), as the target says."""
    return {"measure": measure, "value": value, "detail": detail, "target": target, "bound": bound}


def measure_scoring(tmp, answers, rng):
    half = answers // 2
    table_peak = {}
    for size in (half, answers):
        folder = os.path.join(tmp, f"score-{size}")
        os.makedirs(folder)
        qfile, raws = make_inputs(folder, size, rng)
        score = [PY, SCORE, qfile] + raws + ["--out", os.path.join(folder, "results.md")]
        if size == half:
            table_peak[size] = timed(score)[1]
            continue
        # wait4 gives the peak of each timed run at no cost, so the timed runs are the memory runs.
        (floor, _), (seconds, table_peak[size]) = fastest_in_turns(
            [[PY, "-c", FLOOR, qfile] + raws, score])
        kept_seconds, kept_peak = timed(score + ["--json", os.path.join(folder, "results.json")])
    return [
        row(f"score.py on {answers:,} answers, one process, table only, vs json.loads of the same lines",
            round(seconds / floor, 2), f"{seconds:.2f} s, floor {floor:.2f} s",
            SCORING_TARGET, "≤"),
        row(f"score.py peak memory at {answers:,} answers, table only (MB)",
            round(table_peak[answers], 1), f"{table_peak[half]:.1f} MB at {half:,}", 300, "<"),
        row("score.py memory growth, table only, all / half the answers",
            round(table_peak[answers] / table_peak[half], 2), "linear or better is ≤ 2", 2, "≤"),
        row(f"score.py peak memory at {answers:,} answers, with --json (MB)", round(kept_peak, 1),
            f"every row kept for results.json; {kept_seconds:.2f} s"),
    ]


def measure_scenarios(tmp, rng, answers=SCENARIO_ANSWERS):
    """score.py on ``answers`` synthetic scenario answers, asked for the
    table only (--out), as the site-qa row: start to finish, one run."""
    folder = os.path.join(tmp, "scenarios")
    os.makedirs(folder)
    sfile, raws, atoms = make_scenario_inputs(folder, answers, rng)
    seconds, peak = timed([PY, SCORE, sfile] + raws + [atoms, "--out",
                                                       os.path.join(folder, "results.md")])
    scored = len(raws) * (answers // len(raws))
    return [row(f"score.py on {scored:,} scenario answers ({len(raws)} generators, one evaluator "
                "with lookups), table only (s)", round(seconds, 1),
                f"one run, peak {peak:.0f} MB", SCENARIO_TARGET, "<")]


def demo_score_args():
    """score.py's arguments for the demo quarter, from its MANIFEST's
    scoring inputs (file names in the folder), and its count of answers."""
    with open(os.path.join(DEMO, "MANIFEST.json"), encoding="utf-8") as fh:
        scoring = json.load(fh)["scoring"]
    args = scoring["questions"] + scoring["raw"]
    for flag, key in (("--reviews", "reviews"), ("--history", "history"),
                      ("--decline-as-of", "decline_as_of")):
        if scoring[key] is not None:
            args += [flag, scoring[key]]
    answers = 0
    for name in scoring["raw"]:
        with open(os.path.join(DEMO, name), "rb") as fh:
            answers += sum(1 for _ in fh)
    return args, answers


def newest_quarter():
    """The newest published quarter of those present (a folder of
    Documents/c4-benchmark with a MANIFEST.json): the latest day its answers
    were asked, then the latest rules it was scored with, then its name."""
    bench = os.path.dirname(DEMO)
    found = []
    for name in os.listdir(bench):
        if name.startswith(".") or not os.path.isfile(os.path.join(bench, name, "MANIFEST.json")):
            continue
        manifest = load_manifest(os.path.join(bench, name))
        rules = manifest["scoring"].get("decline_as_of") or manifest.get("decline_list_date") or ""
        found.append((max((manifest.get("runs") or {}).get("run_dates") or [""]), rules, name))
    return os.path.join(bench, max(found)[2])


def measure_quarter(tmp):
    args, answers = demo_score_args()
    folder = os.path.join(tmp, "quarter")
    os.makedirs(folder)
    score = [PY, SCORE] + args + [
        "--out", os.path.join(folder, "results.md"), "--json", os.path.join(folder, "results.json"),
        "--html", os.path.join(folder, "index.html")]
    [(seconds, _)] = fastest_in_turns([score], cwd=DEMO)
    newest = newest_quarter()
    reproduce = os.path.join(TOOLS, "reproduce.py")
    (bare, _), (demo, _), (last, _) = fastest_in_turns(
        [[PY, "-c", "import json"], [PY, reproduce, DEMO], [PY, reproduce, newest]])
    return [
        row(f"score.py on the demo quarter ({answers} answers, reviews), start to finish (s)",
            round(seconds, 3), "table, results.json and page written", 0.5, "<"),
        row("reproduce.py on the demo quarter vs a bare interpreter", round(demo / bare, 2),
            f"{demo * 1000:.0f} ms, bare {bare * 1000:.0f} ms", 10, "≤"),
        row(f"reproduce.py on the newest quarter ({os.path.basename(newest)}) vs a bare "
            "interpreter", round(last / bare, 2), f"{last * 1000:.0f} ms, bare {bare * 1000:.0f} ms",
            10, "≤"),
    ]


# ---- redaction and citations -------------------------------------------------------------

REDACTION_MB = 20
REDACTION_SECONDS = 3
REDACTION_TIMES = 3    # of the reply's size, at most, redaction's own memory at its peak
REDACTION_PEAK_MB = 200  # the process that holds the reply and redacts it, at its peak
SECRET = "sk-bench-SECRET-0123456789abcdef"
REDACT = """
import json, resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
from evalkit.redaction import redact
with open(sys.argv[2], encoding="utf-8") as fh:
    reply = fh.read()
start = time.perf_counter()
found = redact(reply, [sys.argv[3]]).count("[redacted]")
seconds = time.perf_counter() - start
tracemalloc.start()
redact(reply, [sys.argv[3]])
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"seconds": seconds, "peak": peak, "found": found,
                  "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def long_reply(rng, size):
    """A model's JSON reply of ``size`` bytes or so: prose with line breaks,
    quotes, accents and a URL (the escapes JSON and URLs write), and the
    SECRET in it as it is, in upper case, JSON-escaped and percent-encoded."""
    words = WORDS["en"] + ["caf\u00e9", "\u201cquoted\u201d", "\n", "http://x.example/?q=a%20b&amp;c"]
    parts, length = [], 0
    while length < size * 0.9:
        parts.append(rng.choice(words))
        length += len(parts[-1]) + 1
    spelled = (SECRET, SECRET.upper(), "".join(f"%{ord(ch):02X}" for ch in SECRET))
    for n, spelling in enumerate(spelled):
        parts.insert(len(parts) * (n + 1) // 4, spelling)
    body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": " ".join(parts)}}]})
    half = body.rindex(" ", 0, len(body) // 2)  # between words: outside any escape
    return body[:half] + " " + "".join(f"\\u{ord(ch):04x}" for ch in SECRET) + body[half:]


def measure_redaction(tmp, rng):
    """Redaction of a REDACTION_MB reply with a secret in four spellings,
    in a process of its own: its time, its own memory at the peak
    (tracemalloc, of a second run) and the process's peak."""
    path = os.path.join(tmp, "reply.json")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(long_reply(rng, REDACTION_MB * 10**6))
    mb = os.path.getsize(path) / 10**6
    out = subprocess.run([PY, "-c", REDACT, TOOLS, path, SECRET], capture_output=True, text=True,
                         check=True).stdout
    got = json.loads(out)
    maxrss = got["maxrss"] / MAXRSS_PER_MB
    return [
        row(f"redaction of a {mb:.0f} MB reply with a secret, time (s)", round(got["seconds"], 2),
            f"{got['found']} spellings found of 4", REDACTION_SECONDS, "≤"),
        row(f"redaction of a {mb:.0f} MB reply with a secret, its own memory at the peak "
            "/ the reply's size", round(got["peak"] / 10**6 / mb, 2),
            f"{got['peak'] / 10**6:.0f} MB traced; the process {maxrss:.0f} MB at its peak",
            REDACTION_TIMES, "≤"),
        row(f"redaction of a {mb:.0f} MB reply with a secret, the process's peak (MB)",
            round(maxrss, 1), "the reply read, redacted twice", REDACTION_PEAK_MB, "≤"),
    ]


CITED_KB = 300
CITED_SECONDS = 3


def measure_citations(tmp, rng):
    """score.py on one scenario answered in CITED_KB KB of sentences that
    cite the code (the jargon pass of Useful reads each citation), start to
    finish, the fastest of TURNS."""
    folder = os.path.join(tmp, "cited")
    os.makedirs(folder)
    sfile, raws, atoms = make_scenario_inputs(folder, 1, rng, 1, CITED_KB * 1000)
    [(seconds, peak)] = fastest_in_turns([[PY, SCORE, sfile, raws[0], atoms, "--out",
                                           os.path.join(folder, "results.md")]])
    return [row(f"score.py on one scenario answer of {CITED_KB} KB citing the code, start to "
                "finish (s)", round(seconds, 2), f"peak {peak:.0f} MB", CITED_SECONDS, "≤")]


def against_ideal(label, argv_for, env=None):
    """Wall time at concurrency 1 and 8 divided by ASKED x 50 ms / concurrency."""
    rows = []
    for concurrency in (1, 8):
        seconds = timed(argv_for(concurrency), env)[0]
        ideal = ASKED * 0.05 / concurrency
        rows.append(row(f"{label} at concurrency {concurrency} vs ideal", round(seconds / ideal, 2),
                        f"{seconds:.2f} s, ideal {ideal:.2f} s"))
    return rows


def measure_asking(tmp):
    rows = []
    rng = random.Random(SEED)
    folder = os.path.join(tmp, "ask")
    os.makedirs(folder)
    doc = {"suite": "site-qa", "set": "bench", "format": 1,
           "sites": {"en": {"site_url": "http://bench.example/en/", "widget_key": "pk"}},
           "questions": [{"id": f"bench-en-{n:04d}", "lang": "en", "kind": "not_on_site",
                          "question": f"question {n} " + rng.choice(WORDS["en"]),
                          "page_url": "http://bench.example/en/"} for n in range(ASKED)]}
    qfile = os.path.join(folder, "questions-ask.json")
    with open(qfile, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    widget = StandIn(folder, b'{"answer": "We do not know.", "sources": [], "grounded": false}')
    try:
        rows += against_ideal(f"run.py {ASKED} questions", lambda c: [
            PY, os.path.join(TOOLS, "run.py"), qfile, os.path.join(folder, f"raw-{c}.jsonl"),
            "--endpoint", f"http://127.0.0.1:{widget.port}/api/query", "--quiet",
            "--concurrency", str(c)])
    finally:
        widget.close()
    # atomize.py: scenario answers, then a loopback evaluator that answers after 50 ms.
    scenarios = {"suite": "scenario", "format": 1, "topics": {"permits": "permits"},
                 "scenarios": [{"id": f"s{n:04d}", "question": f"question {n}?", "must_cover": ["permits"]}
                               for n in range(ASKED)]}
    sfile = os.path.join(folder, "scenarios-ask.json")
    with open(sfile, "w", encoding="utf-8") as fh:
        json.dump(scenarios, fh)
    with open(sfile, "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    raw = os.path.join(folder, "raw-scenarios.jsonl")
    with open(raw, "w", encoding="utf-8") as fh:
        for s in scenarios["scenarios"]:
            body = json.dumps({"choices": [{"message": {"content": f"Apply for a permit ({s['id']})."}}]})
            fh.write(dumps_line({"format": 1, "id": s["id"], "suite": "scenario", "question": s["question"],
                                 "target": {"kind": "model", "provider": "openai", "model": "gen"},
                                 "run": {"cases_sha256": sha}, "attempts": [],
                                 "response": {"status": 200, "body": body}}) + "\n")
    atoms = {"atoms": [{"text": "Apply for a permit.", "correctness": "correct", "verified_truth": "yes",
                        "citation": None, "topic": "permits", "specificity": 0.5, "actionability": 0.9,
                        "importance": 3}]}
    judge = StandIn(folder, json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps(atoms)},
                                                 "finish_reason": "stop"}], "usage": {}}).encode())
    env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{judge.port}/v1"}
    try:
        rows += against_ideal(f"atomize.py {ASKED} answers", lambda c: [
            PY, os.path.join(TOOLS, "atomize.py"), raw, os.path.join(folder, f"atoms-{c}.jsonl"),
            "--provider", "openai", "--model", "judge", "--cases", sfile, "--quiet",
            "--concurrency", str(c)], env)
    finally:
        judge.close()
    return rows


def attempts_429(path, field):
    """The attempts answered 429 recorded in a JSON Lines output: on each
    line's ``attempts`` (run.py) or each of its ``calls`` (atomize.py)."""
    count = 0
    with open(path, encoding="utf-8") as fh:
        for text in fh:
            line = json.loads(text)
            groups = [line["attempts"]] if field == "attempts" else [c["attempts"] for c in line["calls"]]
            count += sum(a.get("status") == 429 for attempts in groups for a in attempts)
    return count


def together(*jobs):
    """What each of ``jobs`` (functions of no arguments) returns, run at once
    on threads of their own: jobs that wait on a provider's rate, whose time
    is the rate's, not the machine's. The first exception is raised again."""
    results = [None] * len(jobs)

    def run(n, job):
        try:
            results[n] = (True, job())
        except BaseException as exc:  # SystemExit from timed, among them
            results[n] = (False, exc)
    threads = [threading.Thread(target=run, args=(n, job)) for n, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for ok, value in results:
        if not ok:
            raise value
    return [value for _ok, value in results]


def rated_inputs(folder):
    """The scenario file the rate measures ask (RATED_CALLS scenarios) and
    the atoms atomize.py's provider answers."""
    os.makedirs(folder)
    scenarios = {"suite": "scenario", "format": 1, "topics": {"permits": "permits"},
                 "scenarios": [{"id": f"r{n:04d}", "question": f"May I build a fence, case {n}?",
                                "must_cover": ["permits"]} for n in range(RATED_CALLS)]}
    sfile = os.path.join(folder, "scenarios-rated.json")
    with open(sfile, "w", encoding="utf-8") as fh:
        json.dump(scenarios, fh)
    atoms = {"atoms": [{"text": "A fence needs a permit.", "correctness": "correct",
                        "verified_truth": "yes", "citation": None, "topic": "permits",
                        "specificity": 0.5, "actionability": 0.9, "importance": 3}]}
    return sfile, json.dumps(atoms)


def measure_rate_limits(tmp):
    """run.py and atomize.py at the provider's rate, with --rpm and
    adaptive, one after another; beside them, at once, run.py adaptive at
    the low rates and with --rpm at a provider's burst (each row with a
    provider and a run of its own, which only wait on the rate)."""
    folder = os.path.join(tmp, "rated")
    sfile, atoms = rated_inputs(folder)
    slow = [lambda rpm=rpm, c=c: low_rate_row(folder, sfile, rpm, c)
            for rpm in LOW_RATES for c in LOW_RATE_CONCURRENCY]
    bursts = [lambda mode=mode: burst_row(folder, sfile, mode) for mode in BURST_MODES]
    at_rate, *others = together(lambda: rated_rows(folder, sfile, atoms), *slow, *bursts)
    return at_rate + others


def rated_rows(folder, sfile, atoms):
    """run.py, then atomize.py on its answers, RATED_CALLS calls each at
    RATE a minute, with --rpm at the limit and adaptive."""
    rows, raw = [], None
    ideal = RATED_CALLS / (RATE / 60.0)
    for label, content in (("run.py", "A fence needs a permit."), ("atomize.py", atoms)):
        for mode, flags in (("--rpm at the limit", ["--rpm", str(RATE)]), ("adaptive, no --rpm", [])):
            out = os.path.join(folder, f"{label[:-3]}-{'rpm' if flags else 'adaptive'}.jsonl")
            if label == "run.py":
                argv = [PY, os.path.join(TOOLS, "run.py"), sfile, out, "--provider", "openai",
                        "--model", "gen"]
            else:
                argv = [PY, os.path.join(TOOLS, "atomize.py"), raw, out, "--provider", "openai",
                        "--model", "judge", "--cases", sfile]
            with rate_limited(folder, content) as provider:
                # The rates of the machine's environment are not this run's.
                env = dict(provider.environ(), OPENAI_RPM="", OPENAI_TPM="")
                seconds = timed(argv + ["--quiet", "--concurrency", str(RATED_CONCURRENCY)] + flags,
                                env)[0]
            if label == "run.py" and flags:
                raw = out
            throttled = attempts_429(out, "attempts" if label == "run.py" else "calls")
            rows.append(row(f"{label} {RATED_CALLS} calls at {RATE} requests a minute, {mode}, "
                            "vs ideal", round(seconds / ideal, 2),
                            f"{seconds:.1f} s, ideal {ideal:.1f} s, no failed call, "
                            f"{throttled} answered 429", 1.10 if flags else 1.25, "≤"))
    return rows


def low_rate_row(folder, sfile, rpm, concurrency):
    """run.py's first LOW_RATE_CALLS scenarios at ``rpm`` requests a minute
    (burst 1), adaptive: the failed calls (exit 1 is allowed: the row
    counts them), with the time against the ideal."""
    out = os.path.join(folder, f"run-low-{rpm}-{concurrency}.jsonl")
    with rate_limited(folder, "A fence needs a permit.", rpm, 1) as provider:
        env = dict(provider.environ(), OPENAI_RPM="", OPENAI_TPM="")
        seconds = timed([PY, os.path.join(TOOLS, "run.py"), sfile, out, "--provider", "openai",
                         "--model", "gen", "--quiet", "--concurrency", str(concurrency),
                         "--limit", str(LOW_RATE_CALLS)], env, exits=(0, 1))[0]
    with open(out, encoding="utf-8") as fh:
        answered = sum((json.loads(text).get("response") or {}).get("status") == 200 for text in fh)
    ideal = LOW_RATE_CALLS / (rpm / 60.0)
    return row(f"run.py {LOW_RATE_CALLS} calls at {rpm} requests a minute, burst 1, adaptive at "
               f"--concurrency {concurrency}, failed calls", LOW_RATE_CALLS - answered,
               f"{seconds:.1f} s, {seconds / ideal:.2f} times the ideal {ideal:.1f} s, "
               f"{attempts_429(out, 'attempts')} answered 429", 0, "≤")


def burst_row(folder, sfile, mode):
    """run.py's first BURST_CALLS scenarios with --rpm BURST_RATE at a
    provider of that rate whose bucket holds BURST: the burst as its
    rate-limit headers state it ("stated"), as --burst gives it ("given"),
    or neither ("none": a bucket of one), against the floor, the least time
    the provider allows from the first request to the last, (BURST_CALLS -
    BURST) requests at its rate."""
    out = os.path.join(folder, f"run-burst-{mode}.jsonl")
    with rate_limited(folder, "A fence needs a permit.", BURST_RATE, BURST,
                      stated=mode == "stated") as provider:
        env = dict(provider.environ(), OPENAI_RPM="", OPENAI_TPM="")
        seconds = timed([PY, os.path.join(TOOLS, "run.py"), sfile, out, "--provider", "openai",
                         "--model", "gen", "--quiet", "--concurrency", str(RATED_CONCURRENCY),
                         "--limit", str(BURST_CALLS), "--rpm", str(BURST_RATE)]
                        + (["--burst", str(BURST)] if mode == "given" else []), env)[0]
    floor = (BURST_CALLS - BURST) * 60.0 / BURST_RATE
    how = {"stated": "the burst from the provider's rate-limit headers",
           "given": f"--burst {BURST} (the provider states none)",
           "none": "no burst known (a bucket of one)"}[mode]
    return row(f"run.py {BURST_CALLS} calls at {BURST_RATE} requests a minute, burst {BURST}, "
               f"--rpm {BURST_RATE}, {how}, vs the floor", round(seconds / floor, 2),
               f"{seconds:.1f} s, floor {floor:.0f} s, {attempts_429(out, 'attempts')} answered 429",
               *((BURST_TARGET, "≤") if mode != "none" else ()))


# ---- the table ---------------------------------------------------------------------------

def passes(row):
    """True or False against the row's target; None where there is none (information)."""
    if row["target"] is None:
        return None
    return row["value"] < row["target"] if row["bound"] == "<" else row["value"] <= row["target"]


def table(rows):
    lines = ["| Measure | Value | Target | Result |", "|---|--:|--:|---|"]
    for r in rows:
        target = "–" if r["target"] is None else f"{r['bound']} {r['target']}"
        verdict = {None: "–", True: "pass", False: "FAIL"}[r["pass"]]
        lines.append(f"| {r['measure']} ({r['detail']}) | {r['value']} | {target} | {verdict} |")
    return "\n".join(lines)


def readme_block(result):
    """What Documents/performance/README.md holds between its bench markers,
    markers included."""
    machine = result["machine"]
    return (f"{README_BEGIN}\nMeasured by `make bench` on {result['date_utc']}: {machine['cores']} cores, "
            f"{machine['implementation']} {machine['python']} on {machine['system']} "
            f"{machine['machine']}; {result['seconds']} s in all.\n\n{table(result['rows'])}\n{README_END}")


def write_readme(path, result):
    """Replace the block between the bench markers of ``path`` with this result's."""
    with open(path, encoding="utf-8") as fh:
        content = fh.read()
    if content.count(README_BEGIN) != 1 or content.count(README_END) != 1:
        raise SystemExit(f"bench.py: {path}: needs one {README_BEGIN} and one {README_END} line")
    before, rest = content.split(README_BEGIN)
    after = rest.split(README_END)[1]
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(before + readme_block(result) + after)


# The parts of the bench, in the table's order (--only names them).
PARTS = ("scoring", "quarter", "scenarios", "redaction", "citations", "asking", "rates")
# The parts whose time is a provider's rate or a stand-in's delay, not the
# machine's work: they run beside the others, in processes of their own that
# mostly wait, so that the bench takes the longer of the two, not the sum.
WAITING = ("asking", "rates")


def measure(parts, tmp, answers):
    """The rows of the named parts, in PARTS' order: the WAITING parts one
    after another on a thread, beside the others."""
    measures = {"scoring": lambda: measure_scoring(tmp, answers, random.Random(SEED)),
                "quarter": lambda: measure_quarter(tmp),
                "scenarios": lambda: measure_scenarios(tmp, random.Random(SEED)),
                "redaction": lambda: measure_redaction(tmp, random.Random(SEED)),
                "citations": lambda: measure_citations(tmp, random.Random(SEED)),
                "asking": lambda: measure_asking(tmp),
                "rates": lambda: measure_rate_limits(tmp)}
    waiting = [part for part in PARTS if part in parts and part in WAITING]
    working = [part for part in PARTS if part in parts and part not in WAITING]
    done = {}
    together(lambda: done.update((part, measures[part]()) for part in waiting),
             lambda: done.update((part, measures[part]()) for part in working))
    return [r for part in PARTS if part in parts for r in done[part]]


def at_least_two(text):
    value = int(text)
    if value < 2:
        raise argparse.ArgumentTypeError("must be at least 2 (half of them are scored too)")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=at_least_two, default=100000,
                        help="synthetic answers to score (default 100000; fewer for a quick run)")
    parser.add_argument("--write-readme", action="store_true",
                        help="put the table into Documents/performance/README.md")
    parser.add_argument("--out", help="where to write the results (default "
                                      "Documents/performance/results.json; with --only, nowhere)")
    parser.add_argument("--only", action="append", choices=PARTS,
                        help="measure only this part (again for more); the table is printed, "
                             "and written only to --out")
    parser.add_argument("--stand-in", metavar="BODY_FILE", help=argparse.SUPPRESS)
    parser.add_argument("--rate", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stand_in:
        return serve_stand_in(args.stand_in, args.rate)
    if args.only and args.write_readme:
        parser.error("--write-readme takes the whole table: not with --only")
    if args.out is None and not args.only:
        args.out = os.path.join(ROOT, "Documents", "performance", "results.json")
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        rows = measure(args.only or PARTS, tmp, args.answers)
    for r in rows:
        r["pass"] = passes(r)
    machine = {"cores": os.cpu_count(), "python": platform.python_version(),
               "implementation": platform.python_implementation(), "system": platform.system(),
               "machine": platform.machine()}
    result = {"format": FORMAT, "date_utc": time.strftime("%Y-%m-%d", time.gmtime()), "machine": machine,
              "answers": args.answers, "seconds": round(time.time() - started, 1), "rows": rows,
              "all_pass": all(r["pass"] is not False for r in rows)}
    print(table(rows))
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
            json.dump(result, fh, ensure_ascii=False, indent=2, sort_keys=True)
            fh.write("\n")
    if args.write_readme:
        write_readme(os.path.join(ROOT, "Documents", "performance", "README.md"), result)
    print(f"bench.py: {'every target met' if result['all_pass'] else 'a target was missed'}; "
          f"{result['seconds']} s", file=sys.stderr)
    return 0 if result["all_pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
