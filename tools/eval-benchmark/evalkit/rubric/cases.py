"""The site-qa question file: a strict loader.

Schema (format 1) -- see ``schemas.QUESTIONS`` for the prose that ``--help``
prints, and the fields beside it (QUESTION_FILE, ANSWERABLE, NOT_ON_SITE,
checked by evalkit/fields.py). The loader refuses, with ``file: id: reason``,
anything it does not know: a wrong suite or format, unknown keys, duplicate
ids, an unknown language or kind, empty strings, an answerable question
without source_url, evidence or fact groups, a not-on-site question carrying
source_url or facts.

What it does not check: that the evidence is on the page or that the facts are
in the evidence. Those need the site, and are tested where the site is
(tests/test_demo_questions.py).
"""

from typing import NamedTuple

from .. import BadInput
from ..fields import brief, check, check_format, check_ids, shown
from ..jsonl import read_json_sha
from ..schemas import ANSWERABLE, NOT_ON_SITE, QUESTION_FILE


class QuestionSet(NamedTuple):
    """A loaded question file: ``questions`` are dicts in file order, and
    ``by_id`` finds them by id."""
    path: str
    sha256: str
    set: str
    sites: dict
    questions: list
    by_id: dict


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
        raise BadInput(f"{path}: suite is {shown(suite)}, this loader reads 'site-qa'")
    check_format(doc, path)
    check(doc, QUESTION_FILE, path)
    check_ids(doc["questions"], path, "questions")
    for q in doc["questions"]:
        _check_question(q, doc["sites"], path)
    questions = [question_item(q, doc["set"]) for q in doc["questions"]]
    return QuestionSet(path, sha256, doc["set"], doc["sites"], questions,
                       {q["id"]: q for q in questions})


def _check_question(q, sites, path):
    place = f"{path}: {brief(q['id'])}"  # an id of any length: check_ids checked only its type

    def bad(reason):
        raise BadInput(f"{place}: {reason}")

    kind = q.get("kind")
    carried = sorted(set(q) & {"source_url", "also_source_urls", "evidence", "facts"})
    if kind == "not_on_site" and carried:
        bad(f"a not-on-site question cannot carry {', '.join(carried)}")
    # An answerable question's missing parts are named as its writer knows them.
    for key, what in (("source_url", "source_url"), ("evidence", "evidence"),
                      ("facts", "fact groups")):
        if kind == "answerable" and q.get(key) in (None, "", []):
            bad(f"answerable question has no {what}")
    for n, group in enumerate(q["facts"] if isinstance(q.get("facts"), list) else [], 1):
        if not isinstance(group, list) or not group or \
                not all(isinstance(s, str) and s.strip() for s in group):
            bad(f"fact group {n} must be a non-empty list of non-empty strings")
    check(q, ANSWERABLE if kind == "answerable" else NOT_ON_SITE, place)
    if q["lang"] not in sites:
        bad(f"lang {q['lang']} has no entry in sites")
