"""Intake extraction: the vocabulary, the case loader, the reply check, the metrics.

The model reads a homeowner's free text and returns ``{"project_type",
"jurisdiction", "fields": {field: value}}`` over the material fields of its
project type (vocabulary.json). Scored against the gold extraction, per field:

  field_exact_match      predicted == gold; unknown == unknown counts (abstaining
                         was the right answer)
  abstained_when_should  of the fields whose gold is unknown, the share returned
                         as unknown
  filled_when_unknown    of the same fields, the share filled with a concrete
                         value: the defect the design exists to hold down; reported
                         on its own, never folded into accuracy
  known_field_exact / known_field_missed / known_field_wrong
                         of the fields the text does state: right, abstained, or
                         another value
  fields_not_compared    fields of an errored case or of a case whose project
                         type is wrong: they neither match, abstain nor fill
  project_type_accuracy, jurisdiction_accuracy
  cases_fully_correct    the spec's "share of cases in which every field is
                         right": every material field of the gold type
  cases_fully_correct_with_jurisdiction
                         the same and the jurisdiction right too (stricter)
  cases_errored, cases_wrong_project_type

A reply is well formed (``reply_problem``) when it names a project type of the
vocabulary, a jurisdiction of the registry or ``unknown``, and a ``fields``
object with exactly the material fields of that type, each with one of its
values (``unknown`` among them). Values are compared exactly as written: no
trimming, no case folding (" Detached" is not a value of the vocabulary). A
reply that breaks this (``{}``, no ``fields``, a missing field, a value
outside the vocabulary) errors the case, like a failed call: the case stays
in every denominator, its fields match nothing, neither abstain nor fill, and
it is listed with its error.

A well-formed reply of another project type than the gold one is scored, not
errored: project_type_accuracy counts it wrong, the jurisdiction is compared
as usual, and the gold type's fields cannot be compared with fields of
another type, so the model returned none of them: not as unknown (no
abstention), not with a value (no fill), and no field of the case is right.
They are counted in fields_not_compared, so abstained + filled falls short of
its denominator by exactly those fields and those of errored cases.

The loader refuses a gold value outside the vocabulary and a gold field set
that is not exactly the material fields of the gold project type. Top-level
keys of a reply beyond the three are ignored; they carry no score.

The vocabulary (``vocabulary.json``, format 1): ``project_types``, each
``{"label", "fields": {field: [values, unknown among them]}}``, and
``jurisdictions``, ``{code: label}`` with ``unknown``; a ``note``. Both
loaders check the type of every field before it is used, and refuse a
string holding half of a surrogate pair (no request or page can carry it),
each with ``file: place: what``.
"""

from .. import BadInput
from ..fields import check, check_ids
from ..jsonl import read_json, read_json_sha

# The vocabulary and the case files, as evalkit/fields.py checks them; the
# values of a gold extraction are the vocabulary's (check_extraction).
VOCABULARY = {"format": (1,), "note?": "string",
              "project_types": {"+text": {"label?": "string", "fields": {"+text": ["text"]}}},
              "jurisdictions": {"*text": "string"}}
CASE_FILE = {"suite": ("intake", "grounding"), "format": (1,), "note?": "string",
             "cases": ["object", ...]}
CASE = {"id": "text", "language": ("en", "es"), "tags?": ["text"]}  # and gold or facts, text
UNKNOWN = "unknown"
FIELD_METRICS = ("field_exact_match", "abstained_when_should", "filled_when_unknown",
                 "known_field_exact", "known_field_missed", "known_field_wrong",
                 "fields_not_compared")
CASE_METRICS = ("project_type_accuracy", "jurisdiction_accuracy", "cases_fully_correct",
                "cases_fully_correct_with_jurisdiction", "cases_errored",
                "cases_wrong_project_type")
METRICS = FIELD_METRICS + CASE_METRICS


class Vocabulary:
    def __init__(self, path):
        doc = read_json(path)
        self.path = path
        self.types, self.jurisdictions = _vocabulary(doc, path)

    def reply_problem(self, reply):
        """None when a model's reply is a well-formed extraction, else what is
        wrong with it, in one line (the case's error)."""
        if not isinstance(reply, dict):
            return "the reply is not a JSON object"
        missing = [k for k in ("project_type", "jurisdiction", "fields") if k not in reply]
        if missing:
            return f"the reply has no {', '.join(missing)}"
        ptype, fields = reply["project_type"], reply["fields"]
        if not isinstance(ptype, str) or ptype not in self.types:
            return f"project_type {ptype!r} is not in the vocabulary"
        if not isinstance(reply["jurisdiction"], str) or reply["jurisdiction"] not in self.jurisdictions:
            return f"jurisdiction {reply['jurisdiction']!r} is not in the registry"
        if not isinstance(fields, dict):
            return "fields is not an object"
        material = self.types[ptype]
        missing = sorted(set(material) - set(fields))
        extra = sorted(set(fields) - set(material))
        if missing or extra:
            return (f"the fields are not the material fields of {ptype}"
                    + (f"; missing {', '.join(missing)}" if missing else "")
                    + (f"; not material: {', '.join(extra)}" if extra else ""))
        for field in sorted(fields):
            if not isinstance(fields[field], str) or fields[field] not in material[field]:
                return f"{field} value {fields[field]!r} is not in the vocabulary"
        return None

    def check_extraction(self, extraction, where):
        """Refuse a gold (or confirmed) extraction that breaks the vocabulary."""
        if not isinstance(extraction, dict) or set(extraction) != {"project_type", "jurisdiction", "fields"}:
            raise BadInput(f"{where}: must be {{project_type, jurisdiction, fields}}")
        ptype = extraction["project_type"]
        if not isinstance(ptype, str) or ptype not in self.types:
            raise BadInput(f"{where}: project_type {ptype!r:.60} is not in the vocabulary")
        jurisdiction = extraction["jurisdiction"]
        if not isinstance(jurisdiction, str) or jurisdiction not in self.jurisdictions:
            raise BadInput(f"{where}: jurisdiction {jurisdiction!r:.60} is not in the registry")
        fields = extraction["fields"]
        if not isinstance(fields, dict):
            raise BadInput(f"{where}: fields must be an object of field: value")
        material = self.types[ptype]
        if set(fields) != set(material):
            missing = sorted(set(material) - set(fields))
            extra = sorted(set(fields) - set(material))
            raise BadInput(f"{where}: the fields must be exactly the material fields of {ptype}"
                           + (f"; missing {', '.join(missing)}" if missing else "")
                           + (f"; not material: {', '.join(extra)}" if extra else ""))
        for field, value in fields.items():
            if not isinstance(value, str) or value not in material[field]:
                raise BadInput(f"{where}: {field} value {value!r:.60} is not in the vocabulary "
                               f"({', '.join(material[field])})")


def _vocabulary(doc, path):
    """``(types, jurisdictions)`` of a vocabulary file, every field checked:
    types ``{name: {field: [values]}}``, jurisdictions ``{code: label}``."""
    check(doc, VOCABULARY, path)
    types = {name: spec["fields"] for name, spec in doc["project_types"].items()}
    for name, fields in types.items():
        for field, values in fields.items():
            if UNKNOWN not in values:
                raise BadInput(f"{path}: {name}.{field}: the values must include unknown")
    if UNKNOWN not in doc["jurisdictions"]:
        raise BadInput(f"{path}: the jurisdiction registry must include unknown")
    return types, dict(doc["jurisdictions"])


def load_cases(path, vocabulary, suite, key):
    """Intake or grounding cases: ``(cases, sha256)``; ``key`` is gold or facts."""
    doc, sha256 = read_json_sha(path)
    check(doc, dict(CASE_FILE, suite=(suite,)), path)
    check_ids(doc["cases"], path, "cases")
    # An intake case is its text; a grounding case may keep the text it stands for.
    case_spec = {**CASE, key: "object", ("text" if suite == "intake" else "text?"): "text"}
    for case in doc["cases"]:
        check(case, case_spec, f"{path}: {case['id']}")
        vocabulary.check_extraction(case[key], f"{path}: {case['id']}: {key}")
    return doc["cases"], sha256


class Counter:
    def __init__(self, metrics=METRICS):
        self.counts = {m: [0, 0] for m in metrics}

    def add(self, metric, hit):
        self.counts[metric][0] += 1 if hit else 0
        self.counts[metric][1] += 1

    def summary(self):
        return {m: {"count": c, "of": n, "rate": round(c / n, 4) if n else None}
                for m, (c, n) in self.counts.items()}


def add_field(counters, gold_value, value):
    """Count one field; ``value`` None when it cannot be compared (an errored
    case, or a reply of another project type)."""
    compared = value is not None
    exact = compared and value == gold_value
    for c in counters:
        c.add("field_exact_match", exact)
        c.add("fields_not_compared", not compared)
        if gold_value == UNKNOWN:
            c.add("abstained_when_should", compared and value == UNKNOWN)
            c.add("filled_when_unknown", compared and value != UNKNOWN)
        else:
            c.add("known_field_exact", exact)
            c.add("known_field_missed", compared and value == UNKNOWN)
            c.add("known_field_wrong", compared and value not in (UNKNOWN, gold_value))
    return exact


def score_case(case, got, vocabulary, counters, by_field):
    """The detail record of one case, counted into ``counters``."""
    gold, pred = case["gold"], got.get("prediction")
    call_error = got.get("error")
    error = call_error or (vocabulary.reply_problem(pred) if pred is not None
                           else "no reply")
    type_right = error is None and pred["project_type"] == gold["project_type"]
    jur_right = error is None and pred["jurisdiction"] == gold["jurisdiction"]
    fields, all_right = {}, True
    for field, gold_value in sorted(gold["fields"].items()):
        value = pred["fields"][field] if type_right else None
        fc = by_field.setdefault(f"{gold['project_type']}.{field}", Counter(FIELD_METRICS))
        exact = add_field(counters + [fc], gold_value, value)
        all_right = all_right and exact
        fields[field] = {"gold": gold_value, "predicted": value, "match": exact}
    for c in counters:
        c.add("project_type_accuracy", type_right)
        c.add("jurisdiction_accuracy", jur_right)
        c.add("cases_fully_correct", all_right)
        c.add("cases_fully_correct_with_jurisdiction", all_right and jur_right)
        c.add("cases_errored", error is not None)
        c.add("cases_wrong_project_type", error is None and not type_right)
    return {"id": case["id"], "language": case["language"], "tags": case.get("tags", []),
            "gold": gold, "prediction": pred, "call_error": call_error, "error": error,
            "fields": fields, "project_type_match": type_right, "jurisdiction_match": jur_right}


def score(cases, predictions, vocabulary):
    """``(summary, per-case detail)``; predictions: id -> {prediction, error},
    where error is the call's (None when the call returned)."""
    overall, by_language, by_field = Counter(), {}, {}
    detail = []
    for case in cases:
        got = predictions.get(case["id"], {"prediction": None, "error": "not run"})
        counters = [overall, by_language.setdefault(case["language"], Counter())]
        detail.append(score_case(case, got, vocabulary, counters, by_field))
    summary = {"overall": overall.summary(),
               "by_language": {k: v.summary() for k, v in sorted(by_language.items())},
               "by_field": {k: c.summary() for k, c in sorted(by_field.items())}}
    return summary, detail
