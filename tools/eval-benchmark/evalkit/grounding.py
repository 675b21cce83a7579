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
corpus document (after the same normalisation as everywhere else: NFKC,
casefold, invisible marks removed, whitespace folded); otherwise it is
withheld, with the reason. A verified citation proves the passage exists and
says those words; not that the claim reads it rightly.

Staff questions: a drafted question resolves when its pointer names a
matched rule (``{"rule": id}``) or an unresolved fact (``{"fact": field}``).
"""

import os

from . import BadInput
from .jsonl import read_json, read_json_sha
from .textmatch import normalize


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
            doc = read_json(path)
            try:
                doc_id = doc["id"]
                sections = {s["id"]: s["text"] for s in doc["sections"]}
                doc["label"]
            except (KeyError, TypeError):
                raise BadInput(f"{path}: a corpus document needs id, label and sections "
                               "(each with id and text)") from None
            if name != f"{doc_id}.json":
                raise BadInput(f"{path}: the file name must be {doc_id}.json")
            self.documents[doc_id] = {"title": doc.get("title", doc_id), "sections": sections,
                                      "normalized": normalize("\n".join(sections.values()))}

    def passage(self, passage_id):
        """The text of ``doc#section``, or None."""
        doc_id, _, section = str(passage_id).partition("#")
        doc = self.documents.get(doc_id)
        return None if doc is None else doc["sections"].get(section)

    def check_quote(self, passage_id, quote):
        """None when the quote is verbatim in the named document, else why not."""
        doc_id, _, section = str(passage_id).partition("#")
        doc = self.documents.get(doc_id)
        if doc is None:
            return f"cites {passage_id}, and no corpus document {doc_id} exists"
        if section not in doc["sections"]:
            return f"cites {passage_id}, and document {doc_id} has no section {section}"
        if not isinstance(quote, str) or not normalize(quote):
            return f"cites {passage_id} without a quote"
        if normalize(quote) not in doc["normalized"]:
            return f"the quote is not verbatim in {doc_id}"
        return None


class Rules:
    def __init__(self, path, vocabulary, corpus):
        doc, self.sha256 = read_json_sha(path)
        self.path = path
        try:
            self.rules = list(doc["rules"])
        except (KeyError, TypeError):
            raise BadInput(f"{path}: needs a rules list") from None
        seen = set()
        for rule in self.rules:
            rid = rule.get("id") if isinstance(rule, dict) else None
            if not isinstance(rid, str) or rid in seen:
                raise BadInput(f"{path}: every rule needs a unique id (at {rid!r})")
            seen.add(rid)
            fields = vocabulary.types.get(rule.get("applies_to"))
            if fields is None:
                raise BadInput(f"{path}: {rid}: applies_to {rule.get('applies_to')!r} is not a project type")
            for field, values in (rule.get("when") or {}).items():
                if field not in fields or not all(v in fields[field] for v in values):
                    raise BadInput(f"{path}: {rid}: when.{field} is not a material field with "
                                   "vocabulary values")
            for passage in rule.get("passages", []):
                if corpus.passage(passage) is None:
                    raise BadInput(f"{path}: {rid}: passage {passage} is not in the corpus")

    def match(self, facts):
        """``(matched rules, unresolved facts)``: unresolved is
        ``[{"field", "rule"}]`` in rule order. A rule that a known fact already
        rules out is decided (not matched), whatever else is unknown."""
        matched, unresolved = [], []
        for rule in self.rules:
            if rule["applies_to"] != facts["project_type"]:
                continue
            when = rule.get("when") or {}
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
        resolves = isinstance(pointer, dict) and (
            pointer.get("rule") in rules or pointer.get("fact") in facts)
        out.append({"text": q.get("text") if isinstance(q, dict) else None, "pointer": pointer,
                    "resolves": bool(resolves)})
    return out


def summarize(details):
    generated = sum(len(d["claims"]) for d in details if d["error"] is None)
    shown = sum(1 for d in details if d["error"] is None for c in d["claims"] if c["shown"])
    drafted = sum(len(d["questions"]) for d in details if d["error"] is None)
    resolving = sum(1 for d in details if d["error"] is None for q in d["questions"] if q["resolves"])
    clean = sum(1 for d in details if d["error"] is None and all(c["shown"] for c in d["claims"]))

    def rate(count, of):
        return {"count": count, "of": of, "rate": round(count / of, 4) if of else None}
    return {"cases": len(details), "cases_errored": sum(1 for d in details if d["error"]),
            "claims_generated": generated, "claims_shown": shown,
            "claims_withheld": generated - shown,
            "verified_citations": rate(shown, generated),
            "cases_nothing_withheld": rate(clean, len(details)),
            "staff_questions_drafted": drafted,
            "staff_questions_resolving": rate(resolving, drafted)}
