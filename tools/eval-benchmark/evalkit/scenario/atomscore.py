"""The four 0-3 dimensions of atomized-claim scoring, computed from atoms.

Exactly the spec's aggregation, with DESIGN section 6's settlements:

  Accurate  A = atoms that are not admitted-gap; weight = importance (1..5);
            credit 1.0 for correct, correct-vague, correct-action, correct-judg,
            correct-range, hedge-correct; 0.6 for vague-correct, vague-action;
            0.0 for WRONG, PARTIAL-WRONG.  raw = sum(weight*credit)/sum(weight)
  Complete  covered = distinct topics of the non-admitted-gap atoms that are in
            must_cover;  raw = |covered| / |must_cover|;  capped at 2 when any
            admitted-gap atom is on topic address or zoning
  Cited     A = atoms that are not admitted-gap (every factual claim); credit
            of each atom's citation by the source-authority table: that of
            the most authoritative source it names that the answer gave (a
            citation the answer never gave, or gave only to warn against
            it, is "none", 0; a telephone number is no section's number);
            raw = sum(credit) / |A|
  Useful    raw = mean(actionability) over all atoms, minus the jargon penalty
            0.10 x (unexplained jargon tokens per 100 words), capped at 0.30

  score = floor(raw * 3 + 0.5), clamped to 0..3; "n/a" (None) when there is
  nothing to score (no atoms in A). Python's round() is never used. Accurate
  is this formula over every atom in A, whether or not the evaluator's lookups
  back it: what they back is a figure of its own beside it (scenario_score).

All arithmetic is exact (fractions.Fraction; a number from JSON enters as the
decimal it was written as), so a raw value of exactly 0.5/3 scores 1 on every
machine. Raw values are reported rounded to 4 places, once, at the end.

What it does not do: judge the atoms. They come from the evaluator model
(atomize.py); this module only does arithmetic on them.
"""

import functools
import re
from bisect import bisect_left, bisect_right
from fractions import Fraction

from .. import BadInput, whole_number
from ..fields import shown
from ..jsonl import read_json_sha
from ..textmatch import normalize

CREDIT = {"correct": Fraction(1), "correct-vague": Fraction(1), "correct-action": Fraction(1),
          "correct-judg": Fraction(1), "correct-range": Fraction(1), "hedge-correct": Fraction(1),
          "vague-correct": Fraction(3, 5), "vague-action": Fraction(3, 5),
          "WRONG": Fraction(0), "PARTIAL-WRONG": Fraction(0)}
# The credits in fifths (each is a whole number of fifths), so that a
# weighted sum is integer arithmetic and one Fraction at the end.
FIFTHS = {tag: int(credit * 5) for tag, credit in CREDIT.items()}
assert all(FIFTHS[tag] == credit * 5 for tag, credit in CREDIT.items())
GAP = "admitted-gap"
CAP_TOPICS = ("address", "zoning")
DIMENSIONS = ("accurate", "complete", "cited", "useful")
PENALTY_PER_100_WORDS = Fraction(1, 10)
PENALTY_CAP = Fraction(3, 10)


@functools.lru_cache(maxsize=4096, typed=True)
def exact(number):
    """A JSON number as the exact decimal it was written as (cached: the
    same few actionabilities and credits come back in every answer)."""
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def to_score(raw):
    """floor(raw * 3 + 1/2), clamped to 0..3; None stays None. For raw = n/d
    (d > 0) that is (6n + d) // 2d, in whole numbers: exact, and cheaper
    than two Fraction operations in every score of every answer."""
    if raw is None:
        return None
    n, d = raw.numerator, raw.denominator
    return max(0, min(3, (6 * n + d) // (2 * d)))


def show(raw):
    return None if raw is None else round(float(raw), 4)


# A citation can name several sources ("RCC 33.205.040 and a homeowners
# forum"): they are separated by a semicolon or a joining word. A comma does
# not separate them, because a listing's details follow its name after commas
# ("Redfin listing #4451, zoning R5, RCC 33.110" is one precise-looking listing).
SOURCE_SEPARATOR = re.compile(r"\s*;\s*|\s+(?:and|&|\+|plus|as\s+well\s+as|along\s+with)\s+",
                              re.IGNORECASE)
# What follows one of these words is what the source before it rests on
# ("a Quora answer quoting RCC 33.205.040 and ORS 197.312"): it stays part of
# that source and is never a source of its own.
RESTS_ON = re.compile(r"\b(?:quoting|quotes|quoted|citing|cites|cited|per|under|according\s+to|"
                      r"based\s+on|referencing|references|summari[sz]ing|paraphrasing)\b",
                      re.IGNORECASE)


def sources_named(citation):
    """The sources one citation names, in its order: split at the separators,
    except in what a source is said to quote, cite or rest on."""
    rests_on = RESTS_ON.search(citation)
    head, tail = (citation[:rests_on.start()], citation[rests_on.start():]) if rests_on \
        else (citation, "")
    parts = SOURCE_SEPARATOR.split(head)
    parts[-1] += tail
    return [p.strip() for p in parts if p.strip()] or [citation]


class SourceTable:
    """Citation patterns -> bucket -> credit (sources.json).

    A citation's bucket is that of its most authoritative source: the credit
    of an atom is never lowered by a weaker source cited beside a strong one.
    One source's bucket is given by the pattern that matches earliest in it,
    because a source is named before the details it gives ("Zillow: 2260 NE
    Larkhaven Ln, zoned R2.5 per Title 33" is Zillow speaking); a tie at one
    place goes to the pattern listed first. No pattern: the table's default."""

    def __init__(self, path):
        doc, self.sha256 = read_json_sha(path)
        self.path = path
        _check_table(doc, path, "a source-authority table")
        _check_source_lists(doc, path)
        self.buckets = {k: exact(v) for k, v in doc["buckets"].items()}
        self.known = {}   # source -> bucket (source_bucket)
        self.default = doc.get("default")
        self.examples = doc.get("examples", [])
        self.patterns = [(compile_pattern(p["pattern"], path, f"patterns[{n}].pattern"),
                          p["bucket"]) for n, p in enumerate(doc["patterns"])]
        for _p, bucket in self.patterns:
            if bucket not in self.buckets:
                raise BadInput(f"{path}: pattern bucket {bucket!r} is not in buckets")
        if not isinstance(self.default, str) or self.default not in self.buckets or \
                "none" not in self.buckets:
            raise BadInput(f"{path}: default and 'none' must be buckets")

    def source_bucket(self, source):
        """The bucket of one source: the earliest match, ties to table order.
        Kept per source: a run's citations repeat."""
        if source not in self.known:
            self.known[source] = self._source_bucket(source)
        return self.known[source]

    def _source_bucket(self, source):
        found = [(match.start(), order, bucket)
                 for order, (pattern, bucket) in enumerate(self.patterns)
                 for match in [pattern.search(source)] if match]
        return min(found)[2] if found else self.default

    def bucket(self, citation):
        if citation is None:
            return "none"
        buckets = [self.source_bucket(s) for s in sources_named(citation)]
        # max() keeps the first of equal credit: the source named first.
        return max(buckets, key=lambda b: self.buckets[b])

    def credit(self, citation):
        return self.buckets[self.bucket(citation)]

    def given(self, citation, answer):
        """``(bucket, not_in_answer)`` of a citation as the answer gave it:
        the bucket of its most authoritative source that ``answer`` (made
        by ``answer_form``) holds, "none" when it holds none of them, and
        the sources it does not hold. The evaluator copies the citation
        from the answer; a source it names on its own earns nothing."""
        if citation is None:
            return "none", []
        named = sources_named(citation)
        found = [given_in(s, answer) for s in named]
        missing = [s for s, ok in zip(named, found) if not ok]
        buckets = [self.source_bucket(s) for s, ok in zip(named, found) if ok]
        # max() keeps the first of equal credit: the source named first.
        best = max(buckets, key=lambda b: self.buckets[b]) if buckets else "none"
        return best, missing


# How a citation is matched to the answer's text (evals/permits/README.md,
# "Cited"). A web address: its host and path, without the scheme, "www." and
# a closing slash or point. A code section's number: groups of digits joined
# by points, the later ones of two to four digits (33.205.040, 197.312).
WEB_ADDRESS = re.compile(r"(?<![\w@.-])(?:https?://)?(?:www\.)?"
                         r"((?:[a-z0-9-]+\.)+[a-z]{2,}(?:/[^\s()\[\]<>\"']*)?)")
SECTION_NUMBER = re.compile(r"(?<!\d)(?<!\d\.)\d{1,3}(?:\.\d{2,4})+(?!\.?\d)")
# A telephone number written with points (503.823.7300): never a section's
# number, though it has the shape of one.
PHONE_NUMBER = re.compile(r"(?<![\d.])\d{3}\.\d{3}\.\d{4}(?![\d.])")
# A source the answer names only to warn against it gave nothing to credit
# (evals/permits/README.md, "Cited"): a warning right before the source,
# with at most a few words that name no other thing between ("do not rely on
# Redfin", "not the RCC 33.110 figure"), or right after it ("Zillow's
# estimates are often wrong"), in answer_form.
_FILLER = r"(?:(?:the|a|an|any|what|sites?|like|such\s+as|listings?|on|in|old|rcc|ors|title|" \
          r"chapter|sections?|§)\s+){0,3}"
WARNED_BEFORE = re.compile(r"\b(?:not|never|avoid|ignore|distrust|beware\s+of|rather\s+than|"
                           r"instead\s+of|(?:do\s+not|don't|never)\s+(?:rely\s+on|trust|use|go\s+by|"
                           r"follow|believe|cite))\s+" + _FILLER + r"$")
WARNED_AFTER = re.compile(r"^(?:'s)?\s*(?:\([^)]*\)\s*)?(?:(?:listings?|estimates?|data|information|"
                          r"info|pages?|site|figures?|numbers?)\s+)?(?:is|are|was|were|can\s+be|"
                          r"may\s+be|tends?\s+to\s+be)\s+(?:(?:often|usually|sometimes|frequently|"
                          r"very)\s+)?(?:not\s+(?:reliable|authoritative|accurate|official|current|"
                          r"up\s+to\s+date)|unreliable|outdated|out\s+of\s+date|wrong|inaccurate|"
                          r"incorrect|misleading|unofficial)\b")
AROUND_A_WARNING = 80
# What may stand around a source without being part of it: "(RCC 33.110)."
AROUND = " .,;:!?()[]{}\"'«»“”"


def answer_form(text):
    """Text as citations are matched in it: textmatch.normalize (case, width,
    white space), a curly apostrophe read as a straight one."""
    return normalize(text or "").replace("\u2019", "'").replace("\u2018", "'")


@functools.lru_cache(maxsize=4096)
def anchors(source):
    """``(text, web addresses, section-number patterns)`` of a source as it is
    looked for in an answer: its answer_form without the punctuation around
    it, and what it names that it is matched by alone when it names any.
    Cached: a run's citations repeat (the same section, the same site)."""
    form = answer_form(source)
    addresses = tuple(re.compile(re.escape(m.group(1).rstrip("/.,;:!?")))
                      for m in WEB_ADDRESS.finditer(form))
    rest = PHONE_NUMBER.sub(" ", WEB_ADDRESS.sub(" ", form))
    numbers = tuple(re.compile(r"(?<!\d)(?<!\d\.)" + re.escape(n) + r"(?!\.?\d)")
                    for n in SECTION_NUMBER.findall(rest))
    text = form.strip(AROUND)
    return text, addresses, numbers, re.compile(re.escape(text)) if text else None


def unwarned(pattern, answer):
    """Whether ``pattern`` is found in the answer somewhere it is not warned
    against (WARNED_BEFORE, WARNED_AFTER)."""
    for match in pattern.finditer(answer):
        before = answer[max(0, match.start() - AROUND_A_WARNING):match.start()]
        after = answer[match.end():match.end() + AROUND_A_WARNING]
        if not WARNED_BEFORE.search(before) and not WARNED_AFTER.search(after):
            return True
    return False


def given_in(source, answer):
    """Whether the answer (in answer_form) gave this source: every web address
    and section number the source names (a telephone number is none) is in
    the answer (a number as a whole number: 33.205 is not in 33.205.040), or,
    when it names neither, its text without the punctuation around it is;
    each somewhere the answer does not warn against it."""
    text, addresses, numbers, whole = anchors(source)
    if addresses or numbers:
        return all(unwarned(p, answer) for p in addresses + numbers)
    return bool(text) and text in answer and unwarned(whole, answer)


def compile_pattern(pattern, path, place):
    """A table's pattern compiled (case ignored), or BadInput naming the file
    and the entry. re.compile raises more than re.error on a pattern it
    cannot take: OverflowError on a repeat past its limit (``a{4294967296}``),
    RecursionError on thousands of nested groups; each is the table's fault,
    never a traceback."""
    if not isinstance(pattern, str):
        raise BadInput(f"{path}: {place}: the pattern must be a string, not {shown(pattern)}")
    try:
        return re.compile(pattern, re.IGNORECASE)
    except (re.error, OverflowError, RecursionError) as exc:
        # Named in our words: re.error is PatternError from Python 3.13 on,
        # and a message must read the same on every Python.
        why = "a repeat too large" if isinstance(exc, OverflowError) else \
            "groups nested too deep" if isinstance(exc, RecursionError) else "a syntax error"
        raise BadInput(f"{path}: {place}: {shown(pattern)} is no regular expression this "
                       f"scorer can compile ({why}: {exc})") from None


def _check_table(doc, path, what):
    """The part of a table's checks both tables share: an object of format 1,
    a note that is a string, Unicode text throughout."""
    if not isinstance(doc, dict) or not whole_number(doc.get("format")) or doc["format"] != 1:
        raise BadInput(f"{path}: not {what}: an object with format 1")
    if not isinstance(doc.get("note", ""), str):
        raise BadInput(f"{path}: note must be a string")


def _check_source_lists(doc, path):
    """Refuse a source-authority table whose buckets, patterns or examples
    are not of the shape SourceTable reads."""
    if not _credits(doc.get("buckets")):
        raise BadInput(f"{path}: buckets must be an object of bucket: credit (a number "
                       "from 0 to 1)")
    patterns = doc.get("patterns")
    if not isinstance(patterns, list):
        raise BadInput(f"{path}: patterns must be a list of {{pattern, bucket, why}} "
                       "(strings)")
    for n, item in enumerate(patterns):  # the entry named: a table has a hundred
        if not _all_items([item], {"pattern": str, "bucket": str, "why?": str}):
            raise BadInput(f"{path}: patterns[{n}] must be {{pattern, bucket, why}} (strings), "
                           f"not {shown(item)}")
    if not _all_items(doc.get("examples", []), {"citation": (str, type(None)), "bucket": str}):
        raise BadInput(f"{path}: examples must be a list of {{citation (a string or null), "
                       "bucket}}")


def _credits(buckets):
    """True for an object of bucket: credit, a number from 0 to 1."""
    return isinstance(buckets, dict) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
        for v in buckets.values())


def _all_items(items, types):
    """True for a list of objects whose fields are of ``types`` (a key
    ending in ``?`` may be absent)."""
    return isinstance(items, list) and all(
        isinstance(item, dict) and all(
            isinstance(item.get(key.rstrip("?"), "" if key.endswith("?") else None), kind)
            for key, kind in types.items())
        for item in items)


def _strings(value):
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


JARGON_KEYS = ("acronyms", "code_citation_patterns", "glosses", "requirement_patterns",
               "pointer_patterns")


def _check_jargon(doc, path):
    """Refuse a jargon table whose keys are not of the shape JargonTable reads."""
    missing = [k for k in JARGON_KEYS if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise BadInput(f"{path}: not a jargon table: no {', '.join(missing)} "
                       "(the keys are described in evals/permits/README.md)")
    _check_table(doc, path, "a jargon table")
    if not isinstance(doc.get("rule", ""), str):
        raise BadInput(f"{path}: rule must be a string")
    acronyms = doc["acronyms"]
    if not isinstance(acronyms, list) or not all(
            isinstance(a, dict) and isinstance(a.get("token"), str) and a["token"] and
            _strings(a.get("expansions")) for a in acronyms):
        raise BadInput(f"{path}: acronyms must be a list of {{token, expansions}} (a "
                       "non-empty string, a list of strings)")
    for key in JARGON_KEYS[1:]:
        if not isinstance(doc[key], list):
            raise BadInput(f"{path}: {key} must be a list of strings")
        for n, item in enumerate(doc[key]):
            if not isinstance(item, str):
                raise BadInput(f"{path}: {key}[{n}] must be a string, not {shown(item)}")


class JargonTable:
    """Acronyms with expansions, code-citation patterns, and what explains a
    citation: glosses, requirement patterns, pointer patterns (jargon.json,
    whose "rule" states the rule in words)."""

    def __init__(self, path):
        doc, self.sha256 = read_json_sha(path)
        self.path = path
        _check_jargon(doc, path)
        # A token is matched as written (re.escape): it compiles whatever it holds.
        self.acronyms = [(a["token"], re.compile(r"(?<![A-Za-z0-9])" + re.escape(a["token"])
                                                 + r"s?(?![A-Za-z0-9])"),
                          [normalize(e) for e in a["expansions"]]) for a in doc["acronyms"]]
        self.citations = self._patterns(doc, "code_citation_patterns")
        self.glosses = [normalize(g) for g in doc["glosses"]]
        self.requirements = self._patterns(doc, "requirement_patterns")
        self.pointers = self._patterns(doc, "pointer_patterns")

    def _patterns(self, doc, key):
        """The patterns of ``key``, compiled (compile_pattern names a bad one)."""
        return [compile_pattern(p, self.path, f"{key}[{n}]") for n, p in enumerate(doc[key])]

    def citation_spans(self, text):
        """``[(start, end)]`` of the code citations in text, in text order.
        Two patterns on one citation count once (the first pattern's match).

        Linear in the citations: the spans taken so far are in text order
        and overlap none of each other, so their ends rise with their starts,
        and a pattern's matches (in text order too) are each checked against
        the one taken span that can overlap it, the first that ends past the
        match's start."""
        taken = []
        for pattern in self.citations:
            kept, at = [], 0
            for match in pattern.finditer(text):
                start, end = match.span()
                while at < len(taken) and taken[at][1] <= start:
                    at += 1
                if at == len(taken) or end <= taken[at][0]:
                    kept.append((start, end))
            taken = sorted(taken + kept)  # two runs in order: merged in linear time
        return taken

    def explanation(self, statement, spans):
        """What explains the citations of a statement, or None.

        Spec: code-citation shorthand counts unless it has "a plain-language
        gloss". Read without its citations and without the phrases that only
        point at the code (see, applies, comply with), the statement explains
        them when it holds a gloss ("which says") or says in plain words what
        is required (a requirement pattern: "must", "limited to", "5 feet")."""
        rest = list(statement)
        for start, end in spans:
            rest[start:end] = " " * (end - start)
        rest = normalize("".join(rest))
        for pointer in self.pointers:
            rest = pointer.sub(" ", rest)
        gloss = next((g for g in self.glosses if g in rest), None)
        if gloss:
            return gloss
        found = next((m for m in (r.search(rest) for r in self.requirements) if m), None)
        return found.group(0).strip() if found else None

    def tokens(self, text):
        """Every jargon occurrence: ``[{token, kind, explained, explained_by}]``
        in text order. A code citation is one token even when it holds an
        acronym (``RCC 33.205.040``)."""
        found = []
        spans = self.citation_spans(text)
        starts = [a for a, _b in spans]  # in order, and so are the ends (citation_spans)
        for start, end in _statements(text, spans):
            inside = [(a - start, b - start) for a, b in
                      spans[bisect_left(starts, start):bisect_left(starts, end)]]
            why = self.explanation(text[start:end], inside) if inside else None
            for a, b in inside:
                found.append((start + a, {"token": text[start + a:start + b], "kind": "code-citation",
                                          "explained": why is not None, "explained_by": why}))
        whole = normalize(text)
        for token, pattern, expansions in self.acronyms:
            if token not in text:
                continue  # no match without it; a scan with a lookbehind is slow
            expansion = next((e for e in expansions if e in whole), None)
            for match in pattern.finditer(text):
                last = bisect_right(starts, match.start()) - 1  # the span that may hold it
                if last >= 0 and match.start() < spans[last][1]:
                    continue
                found.append((match.start(), {"token": match.group(0), "kind": "acronym",
                                              "explained": expansion is not None,
                                              "explained_by": expansion}))
        return [item for _pos, item in sorted(found, key=lambda f: (f[0], f[1]["token"]))]


# A sentence ends at . ! ? before the end or before whitespace and a character
# that is not a lower-case letter, so "800 sq. ft. under RCC 33.205.040" and
# the periods inside 33.205.040 end none; a line break always ends one.
SENTENCE_END = re.compile(r"[.!?]+(?=\s*$|\s+[^a-z\s])|\n")


def _statements(text, spans):
    """``(start, end)`` of each sentence; a sentence made of nothing but code
    citations and punctuation, "(RCC 33.205.040)." after the statement it
    supports, is read with the sentence before it."""
    cuts = [0] + [m.end() for m in SENTENCE_END.finditer(text)] + [len(text)]
    spans = sorted(spans)
    out = []
    at = 0  # the first span that starts in or after the sentence: each is read once
    for start, end in zip(cuts, cuts[1:]):
        if start == end:
            continue
        piece = list(text[start:end])
        while at < len(spans) and spans[at][0] < start:
            at += 1
        while at < len(spans) and spans[at][0] < end:
            a, b = spans[at]
            piece[a - start:min(b, end) - start] = " " * (min(b, end) - a)
            at += 1
        if out and not any(ch.isalnum() for ch in piece):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def accurate(facts, gaps):
    """Spec: "of the specific factual claims this response made, how many were
    actually correct?" Importance-weighted credit of every atom that is not
    an admitted gap (admitted gaps are skipped: they cost completeness).

    Every such atom counts, whether or not the evaluator's lookups back its
    verified truth: an unchecked WRONG is still a claim the evaluator found
    wrong. What the lookups back is its own figure (scenario_score.verified)."""
    weight = sum(a["importance"] for a in facts)
    credit = Fraction(sum(a["importance"] * FIFTHS[a["correctness"]] for a in facts), 5)
    raw = credit / weight if weight else None
    return {"score": to_score(raw), "raw": show(raw), "atoms": len(facts),
            "weighted_credit": show(credit), "weight": weight,
            "skipped_admitted_gaps": len(gaps)}


def complete(facts, gaps, must_cover):
    """Spec: "did this response cover the topics a resident actually needs to
    act on?" The share of must_cover topics that a factual atom covers,
    capped at 2 when an admitted gap is on the address or the zoning."""
    covered = sorted({a["topic"] for a in facts} & set(must_cover))
    raw = Fraction(len(covered), len(must_cover))
    score = to_score(raw)
    capped_by = sorted({a["topic"] for a in gaps if a["topic"] in CAP_TOPICS})
    if capped_by and score > 2:
        score = 2
    return {"score": score, "raw": show(raw), "covered": covered,
            "missed": [t for t in must_cover if t not in covered],
            "must_cover": list(must_cover), "capped_by_admitted_gap_on": capped_by}


def cited(checks, sources):
    """Spec: "are the cited sources actually authoritative?" The mean credit
    of the factual atoms' citations by the published source-authority table,
    each as the answer gave it (``checks``: the factual atoms'
    ``citation_checks``); ``not_in_answer`` counts the atoms whose citation
    names a source the answer does not hold."""
    buckets = [bucket for bucket, _missing in checks]
    raw = (sum(sources.buckets[b] for b in buckets) / len(checks)) if checks else None
    counts = {}
    for b in buckets:
        counts[b] = counts.get(b, 0) + 1
    return {"score": to_score(raw), "raw": show(raw), "atoms": len(checks),
            "buckets": dict(sorted(counts.items())),
            "not_in_answer": sum(1 for _bucket, missing in checks if missing)}


def citation_checks(atoms, response, sources):
    """``(bucket, sources not in the answer)`` of each atom's citation, in
    order (SourceTable.given); the response is made answer_form once."""
    answer = answer_form(response)
    return [sources.given(a["citation"], answer) for a in atoms]


def useful(atoms, response, jargon):
    """Spec: "would an average resident or business owner, with no permitting
    expertise, understand this response and feel equipped to act on it?"
    The mean actionability of all atoms, less the penalty for unexplained
    jargon in the response."""
    words = len(response.split())
    tokens = jargon.tokens(response)
    unexplained = sum(1 for t in tokens if not t["explained"])
    penalty = min(PENALTY_CAP, PENALTY_PER_100_WORDS * unexplained * 100 / words) if words else Fraction(0)
    mean = (sum(exact(a["actionability"]) for a in atoms) / len(atoms)) if atoms else None
    raw = None if mean is None else mean - penalty
    return {"score": to_score(raw), "raw": show(raw), "mean_actionability": show(mean),
            "jargon_penalty": show(penalty), "unexplained_jargon": unexplained,
            "words": words, "jargon": tokens}


def score_answer(atoms, must_cover, response, sources, jargon, checks=None):
    """The four dimensions for one answer, each ``{score, raw, ...detail}``;
    never combined. ``checks``: the atoms' citation_checks when the caller
    has them already."""
    checks = citation_checks(atoms, response, sources) if checks is None else checks
    facts = [a for a in atoms if a["correctness"] != GAP]
    gaps = [a for a in atoms if a["correctness"] == GAP]
    fact_checks = [c for a, c in zip(atoms, checks) if a["correctness"] != GAP]
    return {"accurate": accurate(facts, gaps), "complete": complete(facts, gaps, must_cover),
            "cited": cited(fact_checks, sources), "useful": useful(atoms, response, jargon)}
