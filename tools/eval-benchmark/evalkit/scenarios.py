"""The scenario case file (suite ``scenario``): a strict loader.

    {"suite": "scenario", "format": 1,
     "topics": {"zoning": "what the zone allows", ...},   # the one topic vocabulary
     "scenarios": [{"id": "tiny-house", "question": "...",
                    "must_cover": ["zoning", "size", ...], "address": "..."}]}

Refused with ``file: id: reason``: unknown keys, duplicate ids, empty
strings, a ``must_cover`` topic outside the vocabulary or listed twice, an
empty ``must_cover``. An address makes ``address`` and ``zoning`` parcel
topics: both must be in the vocabulary then, and the completeness cap of the
scoring rules applies to them.
"""

from . import BadInput
from .jsonl import read_json_sha

TOP_KEYS = {"suite", "format", "topics", "scenarios", "note"}
SCENARIO_KEYS = {"id", "question", "must_cover", "address", "kind"}
PARCEL_TOPICS = ("address", "zoning")


class ScenarioSet:
    def __init__(self, path, sha256, topics, scenarios):
        self.path = path
        self.sha256 = sha256
        self.topics = topics
        self.scenarios = scenarios
        self.by_id = {s["id"]: s for s in scenarios}


def _text(value):
    return isinstance(value, str) and value.strip() != ""


def load_scenarios(path):
    doc, sha256 = read_json_sha(path)
    return parse_scenarios(doc, path, sha256)


def parse_scenarios(doc, path, sha256=""):
    def bad(where, reason):
        raise BadInput(f"{path}: {where}: {reason}")

    if not isinstance(doc, dict) or doc.get("suite") != "scenario":
        raise BadInput(f"{path}: not a scenario file (suite must be 'scenario')")
    if doc.get("format") != 1 or isinstance(doc.get("format"), bool):
        raise BadInput(f"{path}: format {doc.get('format')!r} is not one this tool knows (1)")
    extra = sorted(set(doc) - TOP_KEYS)
    if extra:
        raise BadInput(f"{path}: unknown key(s) {', '.join(extra)}")
    topics = doc.get("topics")
    if not isinstance(topics, dict) or not topics or \
            not all(_text(k) and _text(v) for k, v in topics.items()):
        raise BadInput(f"{path}: topics must be an object of topic: description")
    scenarios = doc.get("scenarios")
    if not isinstance(scenarios, list) or not scenarios:
        raise BadInput(f"{path}: scenarios must be a non-empty list")
    seen = set()
    out = []
    for index, item in enumerate(scenarios):
        if not isinstance(item, dict):
            bad(f"scenarios[{index}]", "must be an object")
        sid = item.get("id")
        if not _text(sid):
            bad(f"scenarios[{index}]", "id must be a non-empty string")
        if sid in seen:
            bad(sid, "duplicate id")
        seen.add(sid)
        extra = sorted(set(item) - SCENARIO_KEYS)
        if extra:
            bad(sid, f"unknown key(s) {', '.join(extra)}")
        if not _text(item.get("question")):
            bad(sid, "question must be a non-empty string")
        must = item.get("must_cover")
        if not isinstance(must, list) or not must:
            bad(sid, "must_cover must be a non-empty list of topics")
        for topic in must:
            if topic not in topics:
                bad(sid, f"must_cover topic {topic!r} is not in the topic vocabulary")
        if len(set(must)) != len(must):
            bad(sid, "must_cover lists a topic twice")
        address = item.get("address")
        if address is not None and not _text(address):
            bad(sid, "address must be a non-empty string or absent")
        if address is not None:
            missing = [t for t in PARCEL_TOPICS if t not in topics]
            if missing:
                bad(sid, f"has an address, so the vocabulary needs {', '.join(missing)}")
        kind = item.get("kind", "resident")
        if kind not in ("resident", "business"):
            bad(sid, "kind must be resident or business")
        out.append({"id": sid, "question": item["question"], "must_cover": list(must),
                    "address": address, "kind": kind})
    return ScenarioSet(path, sha256, dict(topics), out)
