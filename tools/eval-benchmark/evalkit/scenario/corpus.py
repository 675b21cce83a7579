"""A jurisdiction's code as a corpus to look things up in: search, read a
section, look up a parcel.

The scenario suite's evaluator verifies each claim against the code of the
city the scenarios are set in (the atomized-claim spec's "grounded in its own
lookup"); these are the three lookups it is given, and the same search can
ground a generator. A corpus file (JSON, format 1):

  format        1
  jurisdiction  the city's name
  fictional     true when the city and its code were written for the benchmark
  sections      [{"id": "RCC 33.205.040", "title": ..., "text": ...}], in code order;
                paragraphs of the text are separated by a blank line
  parcels       [{"address": ..., and what the code needs of it: zone, lot size,
                overlays, existing structures}]

The loader checks every field's type before it is used (a jurisdiction that
is no string would go into a prompt; a parcel's values go to the evaluator as
they are, so they are JSON, but no string may hold half of a surrogate pair).

``search`` ranks paragraphs by BM25 (k1 = 1.2, b = 0.75, the usual defaults)
over lower-cased words and section numbers, ties in code order, so the same
query always gives the same passages on every machine: a recorded lookup can
be checked by running it again.
"""

import math
import os
import re
from collections import Counter

from .. import BadInput, whole_number
from ..jsonl import read_json_sha

K1 = 1.2
B = 0.75
# Words too common in a code to tell its sections apart.
STOPWORDS = frozenset(
    "a an and are as at be by can for from has have how i if in is it may me my "
    "no not of on or our shall that the their there this to what when which who "
    "will with without you your".split())
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")


def tokens(text):
    """Lower-case words and dotted section numbers (33.205.040), stopwords out."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def _key(text):
    """A section id or an address compared loosely: case, punctuation and
    spacing do not matter (``rcc 33.205.040`` is ``RCC 33.205.040``)."""
    return " ".join(re.findall(r"[0-9a-z]+", text.casefold()))


def _check_header(doc, path):
    """Refuse a corpus whose format, top-level fields or sections list are
    not what the loader reads (a section's own fields are checked as read)."""
    if not isinstance(doc, dict) or not whole_number(doc.get("format")) or doc["format"] != 1:
        raise BadInput(f"{path}: a corpus is an object with format 1")
    for key, kind, what in (("jurisdiction", str, "a string"), ("note", str, "a string"),
                            ("fictional", bool, "true or false")):
        if key in doc and not isinstance(doc[key], kind):
            raise BadInput(f"{path}: {key} must be {what}")
    sections = doc.get("sections")
    if not isinstance(sections, list) or not sections:
        raise BadInput(f"{path}: sections must be a non-empty list")


class Corpus:
    def __init__(self, path):
        doc, self.sha256 = read_json_sha(path)
        _check_header(doc, path)
        self.path = path
        self.jurisdiction = doc.get("jurisdiction")
        self._read_sections(doc["sections"])
        self._read_parcels(doc.get("parcels") or [])
        self._index()

    def _read_sections(self, sections):
        """``sections`` by their loose key, and their paragraphs as passages."""
        self.sections = {}
        self.passages = []   # (section id, paragraph), in code order
        for index, section in enumerate(sections):
            if not isinstance(section, dict) or not all(
                    isinstance(section.get(k), str) and section[k].strip()
                    for k in ("id", "title", "text")):
                raise BadInput(f"{self.path}: sections[{index}]: needs id, title and text")
            if _key(section["id"]) in self.sections:
                raise BadInput(f"{self.path}: sections[{index}]: {section['id']} twice")
            self.sections[_key(section["id"])] = section
            for paragraph in re.split(r"\n\s*\n", section["text"].strip()):
                self.passages.append((section["id"], " ".join(paragraph.split())))

    def _read_parcels(self, parcels):
        """``parcels`` by the loose key of their address."""
        self.parcels = {}
        if not isinstance(parcels, list):
            raise BadInput(f"{self.path}: parcels must be a list")
        for index, parcel in enumerate(parcels):
            if not isinstance(parcel, dict) or not isinstance(parcel.get("address"), str):
                raise BadInput(f"{self.path}: parcels[{index}]: needs an address")
            self.parcels[_key(parcel["address"])] = parcel

    def _index(self):
        words = [tokens(f"{sid} {text}") for sid, text in self.passages]
        self._lengths = [len(w) for w in words]
        self._average = sum(self._lengths) / len(words)
        self._terms = [Counter(w) for w in words]   # term -> its count in the passage
        count = len(words)
        frequency = Counter(term for terms in self._terms for term in terms)
        self._idf = {term: math.log(1 + (count - df + 0.5) / (df + 0.5))
                     for term, df in frequency.items()}

    def search(self, query, limit=5):
        """The ``limit`` best passages for ``query``: ``[{"section", "title",
        "passage", "score"}]``, best first; none when no word of the query is
        in the code."""
        wanted = tokens(query)
        scored = []
        for position, terms in enumerate(self._terms):
            score = 0.0
            length = self._lengths[position]
            for term in wanted:
                tf = terms[term]
                if tf:
                    score += self._idf[term] * tf * (K1 + 1) / (
                        tf + K1 * (1 - B + B * length / self._average))
            if score > 0:
                scored.append((-score, position))
        scored.sort()
        out = []
        for negative, position in scored[:limit]:
            sid, text = self.passages[position]
            out.append({"section": sid, "title": self.read(sid)["title"], "passage": text,
                        "score": round(-negative, 4)})
        return out

    def read(self, section_id):
        """The section ``{"id", "title", "text"}``, or None when there is none."""
        return self.sections.get(_key(section_id))

    def parcel(self, address):
        """The parcel at ``address`` (with or without ", {jurisdiction}"), or None."""
        found = self.parcels.get(_key(address))
        if found is None and self.jurisdiction:
            suffix = " " + _key(self.jurisdiction)
            key = _key(address)
            if key.endswith(suffix):
                found = self.parcels.get(key[:-len(suffix)])
            else:
                found = self.parcels.get(key + suffix)
        return found


def beside(cases_path, flag):
    """The one corpus file in ``code/`` beside a scenario file, the default
    of run.py --context corpus and atomize.py --lookups (``flag`` names the
    option in the refusal)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(cases_path)), "code")
    found = sorted(f for f in os.listdir(folder) if f.endswith(".json")) \
        if os.path.isdir(folder) else []
    if len(found) != 1:
        raise BadInput(f"{folder}: {flag} needs one corpus file there, or --corpus FILE")
    return os.path.join(folder, found[0])
