"""The site-qa measures of the rubric (section 4): one function per rule.

Each rule takes what it needs of one answer and its question and returns
True or False; ``judge`` composes them for one question, gives None to a
measure that does not apply to its kind, and applies once the rubric's
"an answer that was not delivered fails every measure that applies" (the
visitor got nothing).

An answer here is a dict: ``status`` (the HTTP status of the last attempt,
or None), ``answer`` (the text derived again from the body, or None),
``sources`` (URLs) and ``grounded`` (True, False or None when not reported).
Its text is compared after ``textmatch.normalize``; a question's strings
(fact spellings, must_not_include) are normalised the same way.

The DECLINE list is here too, dated: a results file records the date of the
list it used, and ``decline_list(as_of)`` gives the list as it stood then, so
an older quarter re-scores byte for byte.
"""

import re

from . import BadInput
from .textmatch import THRESHOLDS, contains, normalize, script_share
from .urls import normalize_url

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

# The DECLINE list: phrases that mark an answer as a decline, added by date and
# language. A phrase states that the answer is not known or not on the site;
# "please call us" alone is not a decline (an invented answer may end with it).
# The list changes only between runs.
DECLINE = (
    ("2026-10-28", "en", (
        "i don't know", "i don’t know", "i do not know",
        "i couldn't find", "i couldn’t find", "i could not find",
        "i can't find", "i can’t find", "i cannot find",
        "not on our website", "not on the website", "not on this website",
        "no information", "don't have information", "don’t have information",
        "do not have information", "isn't mentioned", "isn’t mentioned", "is not mentioned",
        "not able to answer", "unable to answer",
    )),
    ("2026-10-28", "he", (
        "אין לי מידע", "אין מידע", "לא מצאתי", "לא הצלחתי למצוא", "איני יודע", "אינני יודע",
        "אני לא יודע", "לא ידוע לי", "לא מופיע", "אין באתר", "אין לי תשובה",
    )),
    ("2026-10-28", "ru", (
        "не знаю", "нет информации", "нет данных", "не нашёл", "не нашел", "не нашла",
        "не удалось найти", "не могу ответить", "на сайте нет", "не упоминается",
    )),
    # After the 2026-Q4 run: 13 plain declines in that run carried none of the
    # phrases above (rubric section 5).
    ("2026-11-05", "en", (
        "does not provide", "doesn't provide", "doesn’t provide",
        "does not specify", "doesn't specify", "doesn’t specify",
        "does not cover", "doesn't cover", "doesn’t cover",
    )),
    ("2026-11-05", "he", (
        "אינו מספק", "אינה מספקת", "לא מספק", "לא מספקת",
        "אינו מפרט", "אינה מפרטת", "לא מפרט", "לא מפרטת",
        "אינו מכסה", "אינה מכסה", "לא מכסה", "לא מתייחס", "אינו מתייחס",
    )),
    ("2026-11-05", "ru", (
        "не предоставляет", "не приводит", "не указывает", "не указано", "не уточняет",
        "не охватывает", "не освещает", "не рассматривает",
    )),
)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def decline_dates():
    return sorted({date for date, _lang, _phrases in DECLINE})


def decline_list(as_of=None):
    """``(list date, normalised phrases in list order)`` of the DECLINE list
    as it stood on ``as_of`` (a date ``YYYY-MM-DD``; without it, the newest).

    The phrases of every language apply to every answer: a decline in the
    wrong language is still a decline, and the language measure catches the
    language.
    """
    dates = decline_dates()
    if as_of is None:
        as_of = dates[-1]
    if not _DATE.match(as_of):
        raise BadInput(f"--decline-as-of {as_of!r}: give a date as YYYY-MM-DD")
    if as_of < dates[0]:
        raise BadInput(f"--decline-as-of {as_of}: the DECLINE list begins on {dates[0]}")
    used = max(date for date in dates if date <= as_of)
    phrases = [normalize(phrase) for date, _lang, items in DECLINE if date <= as_of
               for phrase in items]
    return used, phrases


# ---- the rules ---------------------------------------------------------------------------
# Each rule returns its verdict and what it found in the answer, which is
# shown beside the verdict (``details``). ``text`` is the answer normalised
# (textmatch.normalize); the question's strings are normalised the same way.

def delivered(status, answer):
    """Rubric: "HTTP 200 and a non-empty answer"."""
    return status == 200 and answer is not None and answer.strip() != ""


def correct_facts(text, question):
    """Rubric: "every fact group of the question appears in the answer (each
    group lists the accepted spellings, e.g. "120", "$120")".

    ``(verdict, found)``: ``found`` holds, per group, the first spelling
    found in the answer, or None."""
    found = []
    for group in question["facts"]:
        hit = None
        for spelling in group:
            if contains(text, normalize(spelling)):
                hit = spelling
                break
        found.append(hit)
    return None not in found, found


def right_page_cited(sources, question):
    """Rubric: "the page named by the question (or one listed in
    `also_source_urls`, which states the same fact in the same words) is among
    the sources returned with the answer".

    ``(verdict, pages)``: the question's pages among the answer's sources,
    compared normalised (evalkit/urls.py), sorted."""
    wanted = {normalize_url(url) for url in [question["source_url"]] + question["also_source_urls"]}
    cited = sorted({normalize_url(url) for url in sources} & wanted)
    return bool(cited), cited


def in_question_language(answer, lang):
    """Rubric: "letters of the question's script make up at least half of the
    answer's letters (85% for English); links are ignored".

    ``(verdict, (letters in the script, all letters))`` of the answer as given,
    counted by ``textmatch.script_share``; compared in integers, so that no
    float rounding decides a verdict."""
    mine, total = script_share(answer, lang)
    num, den = THRESHOLDS[lang]
    return total > 0 and mine * den >= total * num, (mine, total)


def declined_when_not_on_site(text, grounded, question, phrases):
    """Rubric: "the platform reports no grounding content, or the answer
    contains a decline phrase listed in [the DECLINE list], and none of the
    question's `must_not_include` strings".

    ``(verdict, found)``: ``found`` names the first DECLINE phrase in the
    list's order found in the answer (or None) and the must_not_include
    strings found."""
    phrase = None
    for candidate in phrases:
        if candidate in text and contains(text, candidate):  # "in" first: most are in no answer
            phrase = candidate
            break
    invented = [s for s in question["must_not_include"] if contains(text, normalize(s))]
    verdict = (grounded is False or phrase is not None) and not invented
    return verdict, {"decline_phrase": phrase, "must_not_include_found": invented}


# ---- one question ------------------------------------------------------------------------

def judge(question, answer, phrases):
    """``(verdicts, details)`` for one question and its answer.

    ``verdicts`` maps each measure, in MEASURES order, to True, False, or None
    where it does not apply to the question's kind; an answer that was not
    delivered fails every measure that applies (the visitor got nothing).
    ``details`` is what the rules found in the answer.
    """
    text = normalize(answer["answer"] or "")
    verdicts = dict.fromkeys(MEASURES)
    details = {}
    verdicts["delivered"] = delivered(answer["status"], answer["answer"])
    verdicts["in_question_language"], letters = in_question_language(answer["answer"] or "",
                                                                      question["lang"])
    details["letters"] = {"in_script": letters[0], "all": letters[1]}
    if question["kind"] == "answerable":
        verdicts["correct_facts"], details["facts_found"] = correct_facts(text, question)
        verdicts["right_page_cited"], details["right_sources"] = right_page_cited(
            answer["sources"], question)
    else:
        verdicts["declined_when_not_on_site"], found = declined_when_not_on_site(
            text, answer["grounded"], question, phrases)
        details.update(found, grounded=answer["grounded"])
    if not verdicts["delivered"]:
        for measure in APPLIES[question["kind"]]:
            verdicts[measure] = False
    return verdicts, details
