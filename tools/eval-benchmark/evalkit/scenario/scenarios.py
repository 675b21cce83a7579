"""The scenario case file (suite ``scenario``): a strict loader.

    {"suite": "scenario", "format": 1,
     "topics": {"zoning": "what the zone allows", ...},   # the one topic vocabulary
     "scenarios": [{"id": "tiny-house", "question": "...", "jurisdiction": "Riverton",
                    "must_cover": ["zoning", "size", ...], "address": "...",
                    "reference_key": {"zoning": [{"fact": "...", "section": "RCC 33.205.010",
                                                  "quote": "...", "parcel": {"zone": "R5"}}],
                                      ...}}]}

Its fields are schemas.SCENARIO_FILE, SCENARIO and KEY_FACT, beside the prose
``--help`` prints (evalkit/fields.py checks them). Refused with ``file: id:
reason``: unknown keys, duplicate ids, empty strings, a field of another type
than the one shown (a ``note`` that is no string, a ``must_cover`` item that
is no topic name), a string holding half of a surrogate pair (no request or
page can carry it), a ``must_cover`` topic outside the vocabulary or listed
twice, an empty ``must_cover``. An address makes ``address`` and ``zoning``
parcel topics: both must be in the vocabulary then, and the completeness cap
of the scoring rules applies to them.

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

from .. import BadInput
from ..fields import check, check_ids, wrong_field
from ..jsonl import read_json_sha
from ..schemas import KEY_FACT, SCENARIO, SCENARIO_FILE

PARCEL_TOPICS = ("address", "zoning")
# A quote of fewer words could be found in almost any section.
MIN_QUOTE_WORDS = 4


class ScenarioSet:
    def __init__(self, path, sha256, topics, scenarios):
        self.path = path
        self.sha256 = sha256
        self.topics = topics
        self.scenarios = scenarios
        self.by_id = {s["id"]: s for s in scenarios}


def load_scenarios(path):
    doc, sha256 = read_json_sha(path)
    return parse_scenarios(doc, path, sha256)


def parse_scenarios(doc, path, sha256=""):
    check(doc, SCENARIO_FILE, path)
    check_ids(doc["scenarios"], path, "scenarios")
    return ScenarioSet(path, sha256, dict(doc["topics"]),
                       [_scenario(item, doc["topics"], f"{path}: {item['id']}")
                        for item in doc["scenarios"]])


def _scenario(item, topics, where):
    """One scenario, checked (refused naming ``where``), as the set holds it."""
    def bad(reason):
        raise BadInput(f"{where}: {reason}")

    for key in ("address", "jurisdiction"):  # null as absent: the set holds None for both
        if item.get(key) is not None and wrong_field(item, {key: "text"}):
            bad(f"{key} must be a non-empty string or absent")
    check(item, SCENARIO, where)
    must, address = item["must_cover"], item.get("address")
    for topic in must:
        if topic not in topics:
            bad(f"must_cover topic {topic!r:.60} is not in the topic vocabulary")
    if len(set(must)) != len(must):
        bad("must_cover lists a topic twice")
    missing = [t for t in PARCEL_TOPICS if t not in topics]
    if address is not None and missing:
        bad(f"has an address, so the vocabulary needs {', '.join(missing)}")
    key = item.get("reference_key")
    if key is not None:
        _check_key(key, must, address, where)
    return {"id": item["id"], "question": item["question"], "must_cover": list(must),
            "address": address, "kind": item.get("kind", "resident"),
            "jurisdiction": item.get("jurisdiction"), "reference_key": key}


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


def _check_key(key, must, address, where):
    """A reference key's shape: every must-cover topic and no other, each a
    non-empty list of facts with a section and a quote of it."""
    def bad(reason):
        raise BadInput(f"{where}: {reason}")

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
            place = f"reference_key.{topic}[{n}]"
            check(fact, KEY_FACT, f"{where}: {place}")
            if len(fact["quote"].split()) < MIN_QUOTE_WORDS:
                bad(f"{place}: quote must be at least {MIN_QUOTE_WORDS} words of the section")
            if "parcel" in fact and address is None:
                bad(f"{place}: parcel facts need the scenario's address")
