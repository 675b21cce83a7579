"""The scenario case file (suite ``scenario``): a strict loader.

    {"suite": "scenario", "format": 1,
     "topics": {"zoning": "what the zone allows", ...},   # the one topic vocabulary
     "scenarios": [{"id": "tiny-house", "question": "...", "jurisdiction": "Riverton",
                    "must_cover": ["zoning", "size", ...], "address": "...",
                    "reference_key": {"zoning": [{"fact": "...", "section": "RCC 33.205.010",
                                                  "quote": "...", "parcel": {"zone": "R5"}}],
                                      ...}}]}

Refused with ``file: id: reason``: unknown keys, duplicate ids, empty
strings, a field of another type than the one shown (a ``note`` that is no
string, a ``must_cover`` item that is no topic name), a string holding half
of a surrogate pair (no request or page can carry it), a ``must_cover``
topic outside the vocabulary or listed twice, an empty ``must_cover``. An
address makes ``address`` and ``zoning`` parcel topics: both must be in the
vocabulary then, and the completeness cap of the scoring rules applies to
them.

``jurisdiction`` names the city whose code answers the question; the
generator is told it with the address. ``reference_key`` is the ground truth
for auditing the evaluator, never shown to a generator or an evaluator: for
each must-cover topic (every one, and no other), the facts a correct answer
states, each with the id of the code section it comes from and a verbatim
quote of it (at least ``MIN_QUOTE_WORDS`` words), and, for a fact about the
scenario's parcel, the parcel-table values it rests on. This loader checks
the key's shape; that the sections exist and the quotes are in them is
checked against the corpus (evalkit.scenario.corpus) by tests/test_code_corpus.py,
since a scenario file does not carry its corpus.
"""

from .. import BadInput, whole_number
from ..jsonl import read_json_sha

TOP_KEYS = {"suite", "format", "topics", "scenarios", "note"}
SCENARIO_KEYS = {"id", "question", "must_cover", "address", "kind", "jurisdiction",
                 "reference_key"}
PARCEL_TOPICS = ("address", "zoning")
KEY_FACT_KEYS = {"fact", "section", "quote", "parcel"}
# A quote of fewer words could be found in almost any section.
MIN_QUOTE_WORDS = 4


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
    if not whole_number(doc.get("format")) or doc["format"] != 1:
        raise BadInput(f"{path}: format {doc.get('format')!r} is not one this tool knows (1)")
    extra = sorted(set(doc) - TOP_KEYS)
    if extra:
        raise BadInput(f"{path}: unknown key(s) {', '.join(extra)}")
    if not isinstance(doc.get("note", ""), str):
        raise BadInput(f"{path}: note must be a string")
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
        out.append(_scenario(item, topics, lambda reason, sid=sid: bad(sid, reason)))
    return ScenarioSet(path, sha256, dict(topics), out)


def _scenario(item, topics, bad):
    """One scenario, checked (``bad(reason)`` refuses it), as the set holds it."""
    sid = item["id"]
    extra = sorted(set(item) - SCENARIO_KEYS)
    if extra:
        bad(f"unknown key(s) {', '.join(extra)}")
    if not _text(item.get("question")):
        bad("question must be a non-empty string")
    must = item.get("must_cover")
    if not isinstance(must, list) or not must:
        bad("must_cover must be a non-empty list of topics")
    for topic in must:
        if not isinstance(topic, str) or topic not in topics:
            bad(f"must_cover topic {topic!r:.60} is not in the topic vocabulary")
    if len(set(must)) != len(must):
        bad("must_cover lists a topic twice")
    address = item.get("address")
    if address is not None and not _text(address):
        bad("address must be a non-empty string or absent")
    if address is not None:
        missing = [t for t in PARCEL_TOPICS if t not in topics]
        if missing:
            bad(f"has an address, so the vocabulary needs {', '.join(missing)}")
    kind = item.get("kind", "resident")
    if kind not in ("resident", "business"):
        bad("kind must be resident or business")
    jurisdiction = item.get("jurisdiction")
    if jurisdiction is not None and not _text(jurisdiction):
        bad("jurisdiction must be a non-empty string or absent")
    key = item.get("reference_key")
    if key is not None:
        _check_key(key, must, address, bad)
    return {"id": sid, "question": item["question"], "must_cover": list(must),
            "address": address, "kind": kind, "jurisdiction": jurisdiction,
            "reference_key": key}


def user_text(case):
    r"""What a model is asked for one scenario: the question, then the city and
    the address when the scenario names them. The reference key is never part
    of it.

    >>> user_text({"question": "May I build a shed?", "jurisdiction": "Riverton",
    ...            "address": "88 SW Bramblecrest Loop, Riverton"})
    'May I build a shed?\n\nThe city: Riverton\nThe address: 88 SW Bramblecrest Loop, Riverton'
    """
    where = []
    if case.get("jurisdiction"):
        where.append(f"The city: {case['jurisdiction']}")
    if case.get("address"):
        where.append(f"The address: {case['address']}")
    return case["question"] + ("\n\n" + "\n".join(where) if where else "")


def place_of(case):
    """Where a scenario's question is, as the evaluator's prompt says it:
    the city, and the address when the scenario names one.

    >>> place_of({"jurisdiction": "Riverton", "address": "88 SW Bramblecrest Loop, Riverton"})
    'Riverton, at 88 SW Bramblecrest Loop, Riverton'
    """
    city = case.get("jurisdiction") or "the city the question names"
    return f"{city}, at {case['address']}" if case.get("address") else city


def _check_key(key, must, address, bad):
    """A reference key's shape: every must-cover topic and no other, each a
    non-empty list of facts with a section and a quote of it."""
    if not isinstance(key, dict):
        bad("reference_key must be an object of topic: facts")
    missing = [t for t in must if t not in key]
    if missing:
        bad(f"reference_key has no facts for must_cover topic(s) {', '.join(missing)}")
    extra = sorted(set(key) - set(must))
    if extra:
        bad(f"reference_key topic(s) {', '.join(extra)} are not in must_cover")
    for topic in must:
        facts = key[topic]
        if not isinstance(facts, list) or not facts:
            bad(f"reference_key.{topic} must be a non-empty list of facts")
        for n, fact in enumerate(facts):
            where = f"reference_key.{topic}[{n}]"
            if not isinstance(fact, dict):
                bad(f"{where} must be an object")
            unknown = sorted(set(fact) - KEY_FACT_KEYS)
            if unknown:
                bad(f"{where}: unknown key(s) {', '.join(unknown)}")
            for field in ("fact", "section", "quote"):
                if not _text(fact.get(field)):
                    bad(f"{where}: {field} must be a non-empty string")
            if len(fact["quote"].split()) < MIN_QUOTE_WORDS:
                bad(f"{where}: quote must be at least {MIN_QUOTE_WORDS} words of the section")
            parcel = fact.get("parcel")
            if parcel is not None:
                if address is None:
                    bad(f"{where}: parcel facts need the scenario's address")
                if not isinstance(parcel, dict) or not parcel or not all(_text(k) for k in parcel):
                    bad(f"{where}: parcel must be an object of parcel-table field: value")
