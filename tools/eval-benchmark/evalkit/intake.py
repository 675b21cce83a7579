"""Intake extraction: the vocabulary, the case loader, and the metrics.

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
  project_type_accuracy, jurisdiction_accuracy, cases_fully_correct

Every rate keeps its count and denominator. A field the model did not return
is read as ``unknown``; values are compared after trimming and lower-casing. A
case whose call failed (no valid reply) stays in every denominator: its
fields match nothing, neither abstain nor fill, and it is listed with its error.

The loader refuses a gold value outside the vocabulary and a gold field set
that is not exactly the material fields of the gold project type.
"""

from . import BadInput
from .jsonl import read_json, read_json_sha

UNKNOWN = "unknown"
METRICS = ("field_exact_match", "abstained_when_should", "filled_when_unknown",
           "known_field_exact", "known_field_missed", "known_field_wrong",
           "project_type_accuracy", "jurisdiction_accuracy", "cases_fully_correct")


class Vocabulary:
    def __init__(self, path):
        doc = read_json(path)
        self.path = path
        try:
            self.types = {name: {field: list(values) for field, values in spec["fields"].items()}
                          for name, spec in doc["project_types"].items()}
            self.jurisdictions = dict(doc["jurisdictions"])
        except (KeyError, TypeError, AttributeError):
            raise BadInput(f"{path}: needs project_types (each with fields) and jurisdictions") from None
        for name, fields in self.types.items():
            for field, values in fields.items():
                if UNKNOWN not in values:
                    raise BadInput(f"{path}: {name}.{field}: the values must include unknown")
        if UNKNOWN not in self.jurisdictions:
            raise BadInput(f"{path}: the jurisdiction registry must include unknown")

    def check_extraction(self, extraction, where):
        """Refuse a gold (or confirmed) extraction that breaks the vocabulary."""
        if not isinstance(extraction, dict) or set(extraction) != {"project_type", "jurisdiction", "fields"}:
            raise BadInput(f"{where}: must be {{project_type, jurisdiction, fields}}")
        ptype = extraction["project_type"]
        if ptype not in self.types:
            raise BadInput(f"{where}: project_type {ptype!r} is not in the vocabulary")
        if extraction["jurisdiction"] not in self.jurisdictions:
            raise BadInput(f"{where}: jurisdiction {extraction['jurisdiction']!r} is not in the registry")
        fields = extraction["fields"]
        material = self.types[ptype]
        if not isinstance(fields, dict) or set(fields) != set(material):
            missing = sorted(set(material) - set(fields or {}))
            extra = sorted(set(fields or {}) - set(material))
            raise BadInput(f"{where}: the fields must be exactly the material fields of {ptype}"
                           + (f"; missing {', '.join(missing)}" if missing else "")
                           + (f"; not material: {', '.join(extra)}" if extra else ""))
        for field, value in fields.items():
            if value not in material[field]:
                raise BadInput(f"{where}: {field} value {value!r} is not in the vocabulary "
                               f"({', '.join(material[field])})")


def load_cases(path, vocabulary, suite, key):
    """Intake or grounding cases: ``(cases, sha256)``; ``key`` is gold or facts."""
    doc, sha256 = read_json_sha(path)
    if not isinstance(doc, dict) or doc.get("suite") != suite or doc.get("format") != 1:
        raise BadInput(f"{path}: not a format-1 {suite} case file")
    extra = sorted(set(doc) - {"suite", "format", "note", "cases"})
    if extra:
        raise BadInput(f"{path}: unknown key(s) {', '.join(extra)}")
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
        if suite == "intake" and (not isinstance(case.get("text"), str) or not case["text"].strip()):
            raise BadInput(f"{path}: {cid}: text must be a non-empty string")
        tags = case.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
            raise BadInput(f"{path}: {cid}: tags must be a list of strings")
        vocabulary.check_extraction(case.get(key), f"{path}: {cid}: {key}")
    return cases, sha256


def _norm(value):
    if value is None:
        return UNKNOWN
    text = str(value).strip().lower()
    return text or UNKNOWN


class Counter:
    def __init__(self):
        self.counts = {m: [0, 0] for m in METRICS}

    def add(self, metric, hit):
        self.counts[metric][0] += 1 if hit else 0
        self.counts[metric][1] += 1

    def summary(self):
        return {m: {"count": c, "of": n, "rate": round(c / n, 4) if n else None}
                for m, (c, n) in self.counts.items()}


def score(cases, predictions):
    """``(summary, per-case detail)``; predictions: id -> {prediction, error}."""
    overall, by_language, by_field = Counter(), {}, {}
    detail = []
    for case in cases:
        gold = case["gold"]
        got = predictions.get(case["id"], {"prediction": None, "error": "not run"})
        pred = got.get("prediction")
        errored = pred is None
        counters = [overall, by_language.setdefault(case["language"], Counter())]
        fields = {}
        pred_fields = (pred or {}).get("fields") if isinstance((pred or {}).get("fields"), dict) else {}
        all_right = not errored
        for field, gold_value in sorted(gold["fields"].items()):
            value = None if errored else _norm(pred_fields.get(field))
            exact = (not errored) and value == gold_value
            all_right = all_right and exact
            fc = by_field.setdefault(f"{gold['project_type']}.{field}", Counter())
            for c in counters + [fc]:
                c.add("field_exact_match", exact)
                if gold_value == UNKNOWN:
                    c.add("abstained_when_should", (not errored) and value == UNKNOWN)
                    c.add("filled_when_unknown", (not errored) and value != UNKNOWN)
                else:
                    c.add("known_field_exact", exact)
                    c.add("known_field_missed", (not errored) and value == UNKNOWN)
                    c.add("known_field_wrong", (not errored) and value not in (UNKNOWN, gold_value))
            fields[field] = {"gold": gold_value, "predicted": value, "match": exact}
        type_right = (not errored) and _norm(pred.get("project_type")) == gold["project_type"]
        jur_right = (not errored) and _norm(pred.get("jurisdiction")) == gold["jurisdiction"]
        for c in counters:
            c.add("project_type_accuracy", type_right)
            c.add("jurisdiction_accuracy", jur_right)
            c.add("cases_fully_correct", all_right and type_right and jur_right)
        detail.append({"id": case["id"], "language": case["language"], "tags": case.get("tags", []),
                       "gold": gold, "prediction": pred, "error": got.get("error"),
                       "fields": fields, "project_type_match": type_right,
                       "jurisdiction_match": jur_right})
    summary = {"overall": overall.summary(),
               "by_language": {k: v.summary() for k, v in sorted(by_language.items())},
               "by_field": {k: {m: v for m, v in c.summary().items()
                                if m not in ("project_type_accuracy", "jurisdiction_accuracy",
                                             "cases_fully_correct")}
                            for k, c in sorted(by_field.items())}}
    return summary, detail
