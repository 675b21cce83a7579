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

from .. import BadInput, whole_number
from ..jsonl import read_json, read_json_sha

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
    def bad(where, what):
        raise BadInput(f"{path}: {where}: {what}")

    if not isinstance(doc, dict) or not whole_number(doc.get("format")) or doc["format"] != 1:
        raise BadInput(f"{path}: a vocabulary is an object with format 1, project_types "
                       "(each with fields) and jurisdictions")
    if not isinstance(doc.get("note", ""), str):
        bad("note", "must be a string")
    project_types = doc.get("project_types")
    if not isinstance(project_types, dict) or not project_types:
        bad("project_types", "must be an object of project type: {label, fields}")
    types = {}
    for name, spec in project_types.items():
        where = f"project_types.{name}"
        if not name.strip():
            bad(where, "a project type needs a name")
        if not isinstance(spec, dict) or not isinstance(spec.get("fields"), dict) or \
                not spec["fields"]:
            bad(where, "must be an object with fields (field: [values])")
        if not isinstance(spec.get("label", ""), str):
            bad(f"{where}.label", "must be a string")
        types[name] = {}
        for field, values in spec["fields"].items():
            if not field.strip() or not isinstance(values, list) or not all(
                    isinstance(value, str) and value.strip() for value in values):
                bad(f"{where}.fields.{field}", "must be a list of values (non-empty strings)")
            if UNKNOWN not in values:
                raise BadInput(f"{path}: {name}.{field}: the values must include unknown")
            types[name][field] = list(values)
    jurisdictions = doc.get("jurisdictions")
    if not isinstance(jurisdictions, dict) or not all(
            code.strip() and isinstance(label, str) for code, label in jurisdictions.items()):
        bad("jurisdictions", "must be an object of code: label (strings)")
    if UNKNOWN not in jurisdictions:
        raise BadInput(f"{path}: the jurisdiction registry must include unknown")
    return types, dict(jurisdictions)


def load_cases(path, vocabulary, suite, key):
    """Intake or grounding cases: ``(cases, sha256)``; ``key`` is gold or facts."""
    doc, sha256 = read_json_sha(path)
    if not isinstance(doc, dict) or doc.get("suite") != suite or \
            not whole_number(doc.get("format")) or doc["format"] != 1:
        raise BadInput(f"{path}: not a format-1 {suite} case file")
    extra = sorted(set(doc) - {"suite", "format", "note", "cases"})
    if extra:
        raise BadInput(f"{path}: unknown key(s) {', '.join(extra)}")
    if not isinstance(doc.get("note", ""), str):
        raise BadInput(f"{path}: note must be a string")
    cases = doc.get("cases")
    if not isinstance(cases, list) or not cases:
        raise BadInput(f"{path}: cases must be a non-empty list")
    seen = set()
    for index, case in enumerate(cases):
        if not isinstance(case, dict) or not isinstance(case.get("id"), str) or not case["id"]:
            raise BadInput(f"{path}: cases[{index}]: needs an id")
        cid = case["id"]
        if cid in seen:
            raise BadInput(f"{path}: {cid}: duplicate id")
        seen.add(cid)
        allowed = {"id", "language", "text", "tags", key}
        extra = sorted(set(case) - allowed)
        if extra:
            raise BadInput(f"{path}: {cid}: unknown key(s) {', '.join(extra)}")
        if case.get("language") not in ("en", "es"):
            raise BadInput(f"{path}: {cid}: language must be en or es")
        if (suite == "intake" or "text" in case) and \
                (not isinstance(case.get("text"), str) or not case["text"].strip()):
            raise BadInput(f"{path}: {cid}: text must be a non-empty string")
        tags = case.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
            raise BadInput(f"{path}: {cid}: tags must be a list of strings")
        vocabulary.check_extraction(case.get(key), f"{path}: {cid}: {key}")
    return cases, sha256


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
