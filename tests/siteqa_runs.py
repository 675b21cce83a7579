"""Small site-qa runs made on the fly for the tests: a question file of
many answerable questions and a raw file answering each, as run.py records
them, in a folder of the test's own."""

import hashlib
import json
import os


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
    return path


def write_json(path, doc):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(doc, fh, ensure_ascii=False, indent=2)
    return path


def big_set(tmp, count, run_id, name="big", order=None):
    """A question file of ``count`` answerable English questions (one fact,
    "42") and a raw file answering each "It is 42." with its page, asked in
    run ``run_id``, lines in ``order`` (a list of indexes) or in file order."""
    questions = {"format": 1, "suite": "site-qa", "set": name,
                 "sites": {"en": {"site_url": "http://big.example/en/", "widget_key": "pk"}},
                 "questions": [{"id": f"{name}-{n:03d}", "lang": "en", "kind": "answerable",
                                "question": f"What is item q{n:03d}x?",
                                "page_url": "http://big.example/en/",
                                "source_url": f"http://big.example/en/{n}/",
                                "evidence": f"Item q{n:03d}x is 42.", "facts": [["42"]]}
                               for n in range(count)]}
    qpath = write_json(os.path.join(tmp, f"questions-{name}.json"), questions)
    with open(qpath, "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    lines = []
    for n in range(count):
        body = json.dumps({"answer": "It is 42.", "grounded": True,
                           "sources": [{"url": f"http://big.example/en/{n}/"}]})
        lines.append({
            "format": 1, "suite": "site-qa", "id": f"{name}-{n:03d}",
            "run": {"cases_file": os.path.basename(qpath), "cases_sha256": sha, "tool": "run.py",
                    "run_id": run_id, "python": "3.10.13"},
            "target": {"kind": "widget", "url": "https://assistant.example/api/query",
                       "response": {"answer": "answer", "sources": "sources",
                                    "source_url": "url", "grounded": "grounded"}},
            "attempts": [{"started_at": "2026-12-03T10:00:00.000Z", "status": 200,
                          "latency_ms": 5 + n % 7, "error": None}],
            "response": {"status": 200, "body": body, "body_base64": None, "truncated": False,
                         "headers": {}}})
    if order is not None:
        lines = [lines[i] for i in order]
    raw = write_lines(os.path.join(tmp, f"raw-{name}-{run_id}.jsonl"), lines)
    return qpath, raw


