"""Citation grounding: the corpus, the deterministic matcher, the verifier.

Corpus (``corpus/*.json``): documents with ids and sections, plain-language
summaries written for the benchmark. A passage id is ``<doc>#<section>``.

Matcher (``rules.json``): a rule matches a confirmed intake when its
``applies_to`` is the intake's project type and every ``when`` field's value
is in the rule's list. A rule that no known fact rules out but that has a
``when`` field whose value is ``unknown`` does not match: each such field is
reported as an unresolved fact of that rule. The same intake always gives the
same rules, in file order.

Verifier: a claim from the explanation prompt is shown only if it cites at
least one passage and every quote it cites occurs verbatim in the named
corpus document, within the one section its passage id names; otherwise it
is withheld, with the reason. Verbatim allows only the normalisation that
cannot change meaning: Unicode NFC, and every run of whitespace read as one
space (leading and trailing whitespace dropped). No case folding, no
punctuation folding: "The owner DOES NOT have" is not "The owner does not
have". A quote that runs from one section into the next is not verbatim in
either. A quote must be at least MIN_QUOTE_WORDS (5) words long, words being
what whitespace separates: "the" or "does not" is in almost any passage and
supports no claim. A verified citation proves the passage exists and says
those words; not that the claim reads it rightly.

Staff questions: a drafted question resolves when its pointer names a
matched rule (``{"rule": id}``) or an unresolved fact (``{"fact": field}``).

Replies of the wrong shape: an explanation reply without a non-empty
``claims`` list, or a staff reply without a non-empty ``questions`` list, is
an error of that part of the case, like a failed call (``reply_problem``).
Each part is counted on its own (``score``): when the staff call fails, the
claims already verified stay in the totals, and the case is listed as
errored. A case is a success for cases_nothing_withheld only when its
explanation has at least one claim and none is withheld.
"""

import os
import unicodedata

from .. import BadInput
from ..fields import check, check_ids
from ..jsonl import read_json, read_json_sha

# Shorter quotes ("the", "does not have") occur in almost any passage, so
# finding them proves nothing; five words is a phrase that says something.
MIN_QUOTE_WORDS = 5
# A corpus document (the module's docstring) and rules.json (Rules), as
# evalkit/fields.py checks them.
DOCUMENT = {"id": "text", "label": "string", "title?": "string", "source_note?": "string",
            "sections": [{"id": "text", "text": "string", "heading?": "string"}]}
RULES_FILE = {"format": (1,), "note?": "string", "rules": [
    {"id": "text", "applies_to": "string", "when?": {"*": ["string"]}, "passages": ["string"],
     "summary?": "string"}]}


def verbatim_form(text):
    """The text as the verifier compares it: NFC, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


class Corpus:
    def __init__(self, folder):
        self.folder = folder
        self.documents = {}
        if not os.path.isdir(folder):
            raise BadInput(f"{folder}: no corpus folder")
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json"):
                continue
            path = os.path.join(folder, name)
            doc_id, title, sections = _document(read_json(path), path)
            if name != f"{doc_id}.json":
                raise BadInput(f"{path}: the file name must be {doc_id}.json")
            self.documents[doc_id] = {"title": title, "sections": sections,
                                      "verbatim": {k: verbatim_form(v) for k, v in sections.items()}}

    def passage(self, passage_id):
        """The text of ``doc#section``, or None."""
        doc_id, _, section = str(passage_id).partition("#")
        doc = self.documents.get(doc_id)
        return None if doc is None else doc["sections"].get(section)

    def check_quote(self, passage_id, quote):
        """None when the quote is verbatim in the named section, else why not."""
        doc_id, _, section = str(passage_id).partition("#")
        doc = self.documents.get(doc_id)
        if doc is None:
            return f"cites {passage_id}, and no corpus document {doc_id} exists"
        if section not in doc["sections"]:
            return f"cites {passage_id}, and document {doc_id} has no section {section}"
        quoted = verbatim_form(quote) if isinstance(quote, str) else ""
        if not quoted:
            return f"cites {passage_id} without a quote"
        words = len(quoted.split(" "))
        if words < MIN_QUOTE_WORDS:
            return (f"the quote is {words} word(s); a quote must be at least "
                    f"{MIN_QUOTE_WORDS} words to support a claim")
        if quoted not in doc["verbatim"][section]:
            elsewhere = sorted(k for k, v in doc["verbatim"].items() if quoted in v)
            if elsewhere:
                return f"the quote is in {doc_id}#{elsewhere[0]}, not in the cited {passage_id}"
            return f"the quote is not verbatim in {passage_id}"
        return None


def _document(doc, path):
    """``(id, title, {section id: text})`` of a corpus document, every field
    checked (DOCUMENT)."""
    check(doc, DOCUMENT, path)
    check_ids(doc["sections"], path, "sections")
    return doc["id"], doc.get("title", doc["id"]), {s["id"]: s["text"] for s in doc["sections"]}


class Rules:
    """rules.json (format 1): ``rules``, each ``{"id", "applies_to": a
    project type, "when": {material field: [its values]}, "passages": [passage
    ids of the corpus], "summary"}``; a ``note``. Every field is checked
    before it is used (RULES_FILE), with ``file: rule id: what``."""

    def __init__(self, path, vocabulary, corpus):
        doc, self.sha256 = read_json_sha(path)
        self.path = path
        check(doc, RULES_FILE, path)
        check_ids(doc["rules"], path, "rules")
        self.rules = doc["rules"]
        for rule in self.rules:
            where = f"{path}: {rule['id']}"
            fields = vocabulary.types.get(rule["applies_to"])
            if fields is None:
                raise BadInput(f"{where}: applies_to {rule['applies_to']!r:.60} is not a "
                               "project type")
            for field, values in rule.get("when", {}).items():
                if field not in fields or not all(v in fields[field] for v in values):
                    raise BadInput(f"{where}: when.{field} is not a material field with "
                                   "vocabulary values")
            for passage in rule["passages"]:
                if corpus.passage(passage) is None:
                    raise BadInput(f"{where}: passage {passage} is not in the corpus")

    def match(self, facts):
        """``(matched rules, unresolved facts)``: unresolved is
        ``[{"field", "rule"}]`` in rule order. A rule that a known fact already
        rules out is decided (not matched), whatever else is unknown."""
        matched, unresolved = [], []
        for rule in self.rules:
            if rule["applies_to"] != facts["project_type"]:
                continue
            when = rule.get("when", {})
            unknown = [f for f in when if facts["fields"].get(f, "unknown") == "unknown"]
            fails = any(facts["fields"].get(f) not in values for f, values in when.items()
                        if f not in unknown)
            if fails:
                continue
            if unknown:
                unresolved.extend({"field": f, "rule": rule["id"]} for f in unknown)
            else:
                matched.append(rule)
        return matched, unresolved


def verify_claims(reply, corpus):
    """Each claim with ``shown`` and, when withheld, ``reason``."""
    out = []
    claims = reply.get("claims") if isinstance(reply, dict) else None
    for claim in claims if isinstance(claims, list) else []:
        text = claim.get("text") if isinstance(claim, dict) else None
        citations = claim.get("citations") if isinstance(claim, dict) else None
        reason = None
        if not isinstance(text, str) or not text.strip():
            reason = "the claim has no text"
        elif not isinstance(citations, list) or not citations:
            reason = "the claim cites nothing"
        else:
            for citation in citations:
                if not isinstance(citation, dict):
                    reason = "a citation is not {passage, quote}"
                    break
                reason = corpus.check_quote(citation.get("passage"), citation.get("quote"))
                if reason:
                    break
        out.append({"text": text, "citations": citations, "shown": reason is None,
                    "reason": reason})
    return out


def resolve_questions(reply, matched, unresolved):
    rules = {r["id"] for r in matched}
    facts = {u["field"] for u in unresolved}
    out = []
    questions = reply.get("questions") if isinstance(reply, dict) else None
    for q in questions if isinstance(questions, list) else []:
        pointer = q.get("pointer") if isinstance(q, dict) else None
        # A model's reply may hold anything: a pointer that is not a string
        # (a list, say) resolves nothing, and is kept as given.
        resolves = isinstance(pointer, dict) and (
            isinstance(pointer.get("rule"), str) and pointer["rule"] in rules or
            isinstance(pointer.get("fact"), str) and pointer["fact"] in facts)
        out.append({"text": q.get("text") if isinstance(q, dict) else None, "pointer": pointer,
                    "resolves": bool(resolves)})
    return out


def reply_problem(reply, key):
    """None when an explanation (``claims``) or staff (``questions``) reply
    holds a non-empty list under ``key``, else what is wrong."""
    if not isinstance(reply, dict):
        return "the reply is not a JSON object"
    if not isinstance(reply.get(key), list):
        return f"the reply has no {key} list"
    if not reply[key]:
        return f"the reply's {key} list is empty"
    return None


def score_case(case, line, rules, corpus):
    """The detail record of one case from its raw line: each part (explain,
    staff) scored unless its call failed or its reply has the wrong shape."""
    matched, unresolved = rules.match(case["facts"])
    explain_error = line.get("explain_error") or reply_problem(line.get("explain"), "claims")
    staff_error = line.get("staff_error") or reply_problem(line.get("staff"), "questions")
    errors = [f"explain: {explain_error}"] if explain_error else []
    errors += [f"staff questions: {staff_error}"] if staff_error else []
    return {"id": case["id"], "language": case["language"], "facts": case["facts"],
            "matched": [r["id"] for r in matched], "unresolved": unresolved,
            "explain_reply": line.get("explain"), "explain_call_error": line.get("explain_error"),
            "staff_reply": line.get("staff"), "staff_call_error": line.get("staff_error"),
            "explain_error": explain_error, "staff_error": staff_error,
            "error": "; ".join(errors) or None,
            "claims": [] if explain_error else verify_claims(line["explain"], corpus),
            "questions": [] if staff_error else resolve_questions(line["staff"], matched, unresolved)}


def score(cases, lines, rules, corpus):
    """``(summary, per-case detail)``; lines: id -> raw line (explain,
    explain_error, staff, staff_error)."""
    detail = [score_case(case, lines.get(case["id"], {"explain_error": "not run",
                                                      "staff_error": "not run"}), rules, corpus)
              for case in cases]
    return summarize(detail), detail


def summarize(details):
    explained = [d for d in details if d["explain_error"] is None]
    drafted_in = [d for d in details if d["staff_error"] is None]
    return {"cases": len(details), "cases_errored": sum(1 for d in details if d["error"]),
            "explain_errored": len(details) - len(explained),
            "staff_questions_errored": len(details) - len(drafted_in),
            **_claim_counts(explained, len(details)), **_staff_counts(drafted_in)}


def _rate(count, of):
    return {"count": count, "of": of, "rate": round(count / of, 4) if of else None}


def _claim_counts(explained, cases):
    """The claims of the explanations that were written: generated, shown
    (a verified citation) and withheld, and the cases with nothing withheld."""
    generated = sum(len(d["claims"]) for d in explained)
    shown = sum(1 for d in explained for c in d["claims"] if c["shown"])
    clean = sum(1 for d in explained if d["claims"] and all(c["shown"] for c in d["claims"]))
    return {"claims_generated": generated, "claims_shown": shown,
            "claims_withheld": generated - shown,
            "verified_citations": _rate(shown, generated),
            "cases_nothing_withheld": _rate(clean, cases)}


def _staff_counts(drafted_in):
    """The staff questions drafted and those that resolve."""
    drafted = sum(len(d["questions"]) for d in drafted_in)
    resolving = sum(1 for d in drafted_in for q in d["questions"] if q["resolves"])
    return {"staff_questions_drafted": drafted,
            "staff_questions_resolving": _rate(resolving, drafted)}
