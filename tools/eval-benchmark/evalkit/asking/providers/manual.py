"""Answers collected by hand, from products that have no API (a consumer
chatbot, the "user-where-they-are" column), imported into the raw format.

Two forms of ``--from``:

- a JSON Lines file, one answer per line:
  ``{"id", "answer", "collected_by", "collected_at" (YYYY-MM-DD or UTC time),
  "product", "product_version"}``;
- a folder holding ``collection.json`` (``{"collected_by", "collected_at",
  "product", "product_version"}``) and one ``ID.txt`` per answer, its text
  exactly as copied (UTF-8).

Each imported line is recorded with ``target.kind: manual``, ``provider:
manual``, ``model: "<product> <version>"`` and who collected it when. No
request is made; ``attempts`` is empty. A case with no collected answer is
not written (run.py lists it and exits 1; importing again adds it); an answer for an unknown id, or a
record missing who, when or which product, is refused, and so is a string
holding half of a surrogate pair (JSON's ``"\\ud800"`` on its own: no raw
line can carry it).
"""

import os
import re

from ... import BadInput, calendar_date
from ...jsonl import iter_jsonl, read_json, read_text

FIELDS = ("collected_by", "collected_at", "product", "product_version")
_WHEN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?Z?)?")


def _check(record, where):
    for field in FIELDS:
        value = record.get(field)
        if not isinstance(value, str) or not value.strip():
            raise BadInput(f"{where}: {field} must be a non-empty string")
    when = record["collected_at"]
    if not (_WHEN.fullmatch(when) and calendar_date(when[:10])):
        raise BadInput(f"{where}: collected_at must be a date (YYYY-MM-DD) or a UTC time")


def read_answers(path, known_ids):
    """``{id: (answer text, who/when/product record)}``."""
    if not path:
        raise BadInput("--provider manual needs --from FILE (JSON Lines or a folder)")
    answers = {}
    if os.path.isdir(path):
        meta_path = os.path.join(path, "collection.json")
        meta = read_json(meta_path)
        if not isinstance(meta, dict):
            raise BadInput(f"{meta_path}: must be an object with {', '.join(FIELDS)}")
        _check(meta, meta_path)
        for name in sorted(os.listdir(path)):
            if not name.endswith(".txt"):
                continue
            cid = name[:-4]
            if cid not in known_ids:
                raise BadInput(f"{os.path.join(path, name)}: no case with id {cid}")
            answers[cid] = (read_text(os.path.join(path, name)),
                            {f: meta[f] for f in FIELDS})
        return answers
    for number, record in iter_jsonl(path):
        where = f"{path}:{number}"
        cid = record.get("id")
        if not isinstance(cid, str) or cid not in known_ids:
            raise BadInput(f"{where}: no case with id {cid!r:.60}")
        if cid in answers:
            raise BadInput(f"{where}: a second answer for {cid}")
        if not isinstance(record.get("answer"), str):
            raise BadInput(f"{where}: answer must be a string")
        extra = sorted(set(record) - set(FIELDS) - {"id", "answer"})
        if extra:
            raise BadInput(f"{where}: unknown key(s) {', '.join(extra)}")
        _check(record, where)
        answers[cid] = (record["answer"], {f: record[f] for f in FIELDS})
    return answers


def load_collection(path, cases):
    """``(target block, work(case) -> raw fields)`` for run.py."""
    known = {c["id"] for c in (cases.questions if hasattr(cases, "questions") else cases.scenarios)}
    answers = read_answers(path, known)
    products = sorted({f"{meta['product']} {meta['product_version']}" for _a, meta in answers.values()})
    target = {"kind": "manual", "provider": "manual", "model": products[0] if len(products) == 1
              else "; ".join(products), "url": None}

    def work(case):
        if case["id"] not in answers:
            return None  # not written, so a later import with the answer can add it
        text, meta = answers[case["id"]]
        line_target = dict(target, model=f"{meta['product']} {meta['product_version']}", **meta)
        data = text.encode("utf-8")
        return {"target": line_target, "request": None, "attempts": [],
                "response": {"status": None, "body": text, "body_base64": None,
                             "bytes": len(data), "truncated": False},
                "derived": {"answer": text if text.strip() else None,
                            "problem": None if text.strip() else "empty answer"}}
    return target, work
