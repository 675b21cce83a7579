"""The site-qa question file: a strict loader.

Schema (format 1) -- see ``schemas.QUESTIONS`` for the prose that ``--help``
prints. The loader refuses, with ``file: id: reason``, anything it does not
know: a wrong suite or format, unknown keys, duplicate ids, an unknown language
or kind, empty strings, an answerable question without source_url, evidence or
fact groups, a not-on-site question carrying source_url or facts.

What it does not check: that the evidence is on the page or that the facts are
in the evidence. Those need the site, and are tested where the site is
(tests/test_demo_questions.py).
"""

from .. import BadInput, whole_number
from ..jsonl import read_json_sha

LANGS = ("en", "he", "ru")
KINDS = ("answerable", "not_on_site")
FORMATS = (1,)

TOP_KEYS = {"suite", "set", "format", "sites", "questions"}
SITE_KEYS = {"site_url", "widget_key"}
COMMON_KEYS = {"id", "lang", "kind", "question", "page_url"}
ANSWERABLE_KEYS = COMMON_KEYS | {"source_url", "also_source_urls", "evidence", "facts"}
NOT_ON_SITE_KEYS = COMMON_KEYS | {"must_not_include"}


class OtherSuite(BadInput):
    """A case file of another suite: score.py scores a scenario file by
    other rules, and learns of it here, without reading the file twice."""

    def __init__(self, message, suite):
        super().__init__(message)
        self.suite = suite


def _text(value):
    return isinstance(value, str) and value.strip() != ""


def _string_list(value, allow_empty):
    return isinstance(value, list) and (allow_empty or bool(value)) and \
        all(_text(item) for item in value)


class QuestionSet:
    """A loaded question file: ``path``, ``sha256``, ``set``, ``sites``,
    ``questions`` (a list of dicts in file order) and ``by_id``."""

    def __init__(self, path, sha256, set_name, sites, questions):
        self.path = path
        self.sha256 = sha256
        self.set = set_name
        self.sites = sites
        self.questions = questions
        self.by_id = {q["id"]: q for q in questions}


def question_item(q, set_name):
    """The question as scoring uses it: an entry that passed the checks, with
    its optional lists filled in and its set named."""
    if q["kind"] == "answerable":
        q.setdefault("also_source_urls", [])
    else:
        q.setdefault("must_not_include", [])
    q["set"] = set_name
    return q


def load_site_qa(path):
    doc, sha256 = read_json_sha(path)
    return parse_site_qa(doc, path, sha256)


def parse_site_qa(doc, path, sha256=""):
    if not isinstance(doc, dict):
        raise BadInput(f"{path}: the file must hold one JSON object")
    suite = doc.get("suite")
    if suite != "site-qa":
        raise OtherSuite(f"{path}: suite is {suite!r}, this loader reads 'site-qa'", suite)
    fmt = doc.get("format")
    if not whole_number(fmt) or fmt not in FORMATS:
        raise BadInput(f"{path}: format {fmt!r} is not one this tool knows ({', '.join(map(str, FORMATS))})")
    unknown = sorted(set(doc) - TOP_KEYS)
    if unknown:
        raise BadInput(f"{path}: unknown key(s) {', '.join(unknown)}")
    missing = sorted(TOP_KEYS - set(doc))
    if missing:
        raise BadInput(f"{path}: missing key(s) {', '.join(missing)}")
    if not _text(doc["set"]):
        raise BadInput(f"{path}: set must be a non-empty string")
    sites = doc["sites"]
    _check_sites(sites, path)
    questions = doc["questions"]
    if not isinstance(questions, list) or not questions:
        raise BadInput(f"{path}: questions must be a non-empty list")
    seen = set()
    for index, q in enumerate(questions):
        _check_question(q, index, sites, seen, path)
    return QuestionSet(path, sha256, doc["set"], sites,
                       [question_item(q, doc["set"]) for q in questions])


def _check_sites(sites, path):
    if not isinstance(sites, dict) or not sites:
        raise BadInput(f"{path}: sites must be an object with one entry per language")
    for lang, site in sites.items():
        where = f"{path}: sites.{lang}"
        if lang not in LANGS:
            raise BadInput(f"{where}: unknown language (known: {', '.join(LANGS)})")
        if not isinstance(site, dict):
            raise BadInput(f"{where}: must be an object")
        extra = sorted(set(site) - SITE_KEYS)
        if extra:
            raise BadInput(f"{where}: unknown key(s) {', '.join(extra)}")
        for key in sorted(SITE_KEYS):
            if not _text(site.get(key)):
                raise BadInput(f"{where}: {key} must be a non-empty string")


def _check_question(q, index, sites, seen, path):
    def bad(where, reason):
        raise BadInput(f"{path}: {where}: {reason}")

    if not isinstance(q, dict):
        bad(f"questions[{index}]", "must be an object")
    qid = q.get("id")
    if not _text(qid):
        bad(f"questions[{index}]", "id must be a non-empty string")
    if qid in seen:
        bad(qid, "duplicate id")
    seen.add(qid)
    lang = q.get("lang")
    if lang not in LANGS:  # a tuple: an unhashable value is refused, not a crash
        bad(qid, f"unknown lang {lang!r} (known: {', '.join(LANGS)})")
    if lang not in sites:
        bad(qid, f"lang {lang} has no entry in sites")
    kind = q.get("kind")
    if kind not in KINDS:
        bad(qid, f"unknown kind {kind!r} (known: {', '.join(KINDS)})")
    allowed = ANSWERABLE_KEYS if kind == "answerable" else NOT_ON_SITE_KEYS
    extra = sorted(set(q) - allowed)
    if extra:
        if kind == "not_on_site" and set(extra) & {"source_url", "facts", "evidence", "also_source_urls"}:
            bad(qid, f"a not-on-site question cannot carry {', '.join(extra)}")
        bad(qid, f"unknown key(s) {', '.join(extra)}")
    for key in ("question", "page_url"):
        if not _text(q.get(key)):
            bad(qid, f"{key} must be a non-empty string")
    if kind == "not_on_site":
        if not _string_list(q.get("must_not_include", []), allow_empty=True):
            bad(qid, "must_not_include must be a list of non-empty strings")
        return
    for key in ("source_url", "evidence"):
        if not _text(q.get(key)):
            bad(qid, f"answerable question has no {key}")
    if not _string_list(q.get("also_source_urls", []), allow_empty=True):
        bad(qid, "also_source_urls must be a list of non-empty strings")
    facts = q.get("facts")
    if not isinstance(facts, list) or not facts:
        bad(qid, "answerable question has no fact groups")
    for n, group in enumerate(facts, 1):
        if not _string_list(group, allow_empty=False):
            bad(qid, f"fact group {n} must be a non-empty list of non-empty strings")
