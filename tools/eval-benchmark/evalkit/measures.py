"""The site-qa measures of the rubric (section 4), one question at a time.

``read_raw_line`` checks one raw line and derives the answer, sources and
grounding flag again from the body exactly as received (an earlier parse is
never trusted). ``analyze_answer`` does the work on the answer that needs no
question (normalising, counting letters), so that it can be done where the
question file was never read; ``judge`` applies the fixed rules:

  delivered                  HTTP 200 and a non-empty answer
  correct_facts              answerable: every fact group has a spelling in the answer
  right_page_cited           answerable: source_url or one of also_source_urls is
                             among the returned sources (URLs normalised)
  in_question_language       the question's script makes up at least half of the
                             answer's letters (85% for en), links ignored
  declined_when_not_on_site  not on the site: grounded is false, or a DECLINE
                             phrase is in the answer; and no must_not_include string

A measure that does not apply is None. An answer that was not delivered fails
every measure that applies to its question: the visitor got nothing.
"""

from . import BadInput
from .responses import derive
from .textmatch import SCRIPTS, analyze, contains_normalized, normalize, script_share, share_passes
from .urls import normalize_url_cached as normalize_url

MEASURES = ("delivered", "correct_facts", "right_page_cited", "in_question_language",
            "declined_when_not_on_site")
APPLIES = {
    "answerable": {"delivered", "correct_facts", "right_page_cited", "in_question_language"},
    "not_on_site": {"delivered", "in_question_language", "declined_when_not_on_site"},
}
TITLES = {
    "delivered": "Delivered",
    "correct_facts": "Correct facts",
    "right_page_cited": "Right page cited",
    "in_question_language": "Answer in the question's language",
    "declined_when_not_on_site": "Declined when not on the site",
}


def read_raw_line(line, where):
    """Check a raw line's shape; return what scoring needs from it."""
    # Written for speed (it runs once a line): each field looked up once.
    def bad(reason):
        raise BadInput(f"{where}: {reason}")

    get = line.get
    fmt = get("format")
    if fmt != 1:
        bad(f"format {fmt!r} is not one this tool knows (1)")
    qid = get("id")
    if not isinstance(qid, str) or not qid:
        bad("no id")
    run = get("run")
    sha = run.get("cases_sha256") if isinstance(run, dict) else None
    if not isinstance(sha, str):
        bad("no run.cases_sha256: this line does not say which question file it answers")
    if not isinstance(run.get("tool"), (str, type(None))):
        bad("run.tool must be a string")
    target = get("target")
    spec = target.get("response") if isinstance(target, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("answer"), str):
        bad("no target.response.answer: cannot tell where the answer is in the body")
    attempts = get("attempts")
    if not isinstance(attempts, list) or not attempts:
        bad("attempts must be a non-empty list of objects")
    for attempt in attempts:
        if not isinstance(attempt, dict):
            bad("attempts must be a non-empty list of objects")
    last = attempts[-1]
    latency = last.get("latency_ms")
    if latency is not None and (isinstance(latency, bool) or not isinstance(latency, int)
                                or latency < 0):
        bad("latency_ms must be a non-negative integer")
    response = get("response")
    status = platform = None
    if response is not None:
        if not isinstance(response, dict):
            bad("response must be an object or null")
        status = response.get("status")
        if isinstance(status, bool) or not isinstance(status, int):
            bad("response.status must be an integer")
        if not isinstance(response.get("body"), (str, type(None))) or \
                not isinstance(response.get("body_base64"), (str, type(None))):
            bad("response.body and body_base64 must be strings or null")
        if not isinstance(response.get("truncated", False), bool):
            bad("response.truncated must be true or false")
        header = target.get("version_header")
        headers = response.get("headers")
        if isinstance(header, str) and isinstance(headers, dict):
            platform = headers.get(header.lower())
            if not isinstance(platform, (str, type(None))):
                bad(f"response.headers.{header.lower()} must be a string")
    derived = derive(response, spec)
    return {"id": qid, "cases_sha256": sha, "run": run, "target": target, "status": status,
            "answer": derived["answer"], "sources": derived["sources"],
            "grounded": derived["grounded"], "latency_ms": latency,
            "problem": (last.get("error") or "no response") if response is None
            else derived["problem"],
            "attempts": len(attempts), "started_at": last.get("started_at"),
            "platform_version": platform}


def analyze_answer(answer, lang, kind, decline_phrases):
    """What judging needs of an answer besides its question: ``(blank,
    normalised text, lang, letters in its script, all letters, decline)``.

    ``lang`` and ``kind`` are what the raw line states; the question decides.
    ``decline`` is the first DECLINE phrase found (or None) when the line
    says not_on_site, else False. ``judge`` counts the letters again, or
    looks for the phrase, when the question says otherwise."""
    answer = answer or ""
    lang = lang if isinstance(lang, str) and lang in SCRIPTS else "en"  # a wrong guess: counted again
    hay, mine, total = analyze(answer, lang)
    decline = first_phrase(hay, decline_phrases) if kind == "not_on_site" else False
    return answer.strip() == "", hay, lang, mine, total, decline


def judge(question, got, decline_phrases, analysis=None):
    """``(verdicts, details)`` for one question and its answer.

    ``decline_phrases`` come from ``decline_matchers``; ``analysis``, from
    ``analyze_answer`` of the answer (made here when not given).
    """
    if analysis is None:
        analysis = analyze_answer(got["answer"], question["lang"], question["kind"],
                                  decline_phrases)
    blank, hay, counted, mine, letters, decline = analysis
    if counted != question["lang"]:
        mine, letters = script_share(got["answer"] or "", question["lang"])
    delivered = got["status"] == 200 and not blank
    details = {"letters": {"in_script": mine, "all": letters}}
    in_language = delivered and share_passes(mine, letters, question["lang"])
    if question["kind"] == "answerable":
        found = []
        for group in question["facts"]:
            hit = None
            for spelling in group:
                if contains_normalized(hay, normalize(spelling)):
                    hit = spelling
                    break
            found.append(hit)
        details["facts_found"] = found
        wanted = {normalize_url(u) for u in [question["source_url"]] + question["also_source_urls"]}
        cited = sorted({normalize_url(s) for s in got["sources"]} & wanted)
        details["right_sources"] = cited
        verdicts = (delivered, delivered and all(hit is not None for hit in found),
                    delivered and bool(cited), in_language, None)
    else:
        phrase = decline if decline is not False else first_phrase(hay, decline_phrases)
        invented = [s for s in question["must_not_include"]
                    if contains_normalized(hay, normalize(s))]
        details.update(decline_phrase=phrase, must_not_include_found=invented,
                       grounded=got["grounded"])
        verdicts = (delivered, None, None, in_language, delivered and (
            got["grounded"] is False or phrase is not None) and not invented)
    return _verdicts(verdicts), details


_VERDICT_DICTS = {}


def _verdicts(values):
    """The verdicts as a dict in MEASURES order, one dict shared by every
    answer with the same verdicts (never changed: a review changes a copy).
    There are a few dozen patterns; 100,000 dicts of their own were 20 MB
    to build and to free."""
    made = _VERDICT_DICTS.get(values)
    if made is None:
        made = _VERDICT_DICTS[values] = dict(zip(MEASURES, values))
    return made


def decline_matchers(phrases):
    """The DECLINE phrases prepared for ``first_phrase``: grouped by their
    first character, each as ``(place in the list, normalised phrase,
    plain)``, where plain means no digit at either end, so that the matching
    rule is a plain substring test (the common case, and much the faster).
    An answer is searched only for the phrases whose first character it
    holds: most of the eighty are then never looked for."""
    groups = {}
    for index, phrase in enumerate(map(normalize, phrases)):
        if phrase:  # an empty phrase matches nothing
            plain = not (phrase[0].isdigit() or phrase[-1].isdigit())
            groups.setdefault(phrase[0], []).append((index, phrase, plain))
    return tuple((char, tuple(items)) for char, items in groups.items())


def first_phrase(hay, matchers):
    """The first DECLINE phrase in the list's order found in ``hay`` by the
    matching rule, or None."""
    best = None
    for char, items in matchers:
        if char in hay:
            for index, phrase, plain in items:
                if best is not None and index > best[0]:
                    break
                if (phrase in hay) if plain else contains_normalized(hay, phrase):
                    best = (index, phrase)
                    break
    return None if best is None else best[1]
