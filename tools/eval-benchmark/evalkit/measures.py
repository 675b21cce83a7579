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

The rules change only by date (evalkit/rulebook.py: the DECLINE list and
every change to the text rules); ``judge`` takes the ``Rules`` in force on
the quarter's date, so that an older quarter re-scores byte for byte.
"""

import re

from .textmatch import THRESHOLDS, contains, normalize, script_share, visible
from .urls import normalize_url, page_key

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

# ---- the rules ---------------------------------------------------------------------------
# Each rule returns its verdict and what it found in the answer, which is
# shown beside the verdict (``details``). ``text`` is the answer normalised
# (textmatch.normalize); the question's strings are normalised the same way.
# ``rules`` are the Rules in force (evalkit/rulebook.py).

def delivered(status, answer, rules):
    """Rubric: "HTTP 200 and a non-empty answer". From 2026-12-01 an answer
    of only white space and invisible characters is empty."""
    if status != 200 or answer is None:
        return False
    return visible(answer) if rules.visible_blank else answer.strip() != ""


def correct_facts(text, question, rules):
    """Rubric: "every fact group of the question appears in the answer (each
    group lists the accepted spellings, e.g. "120", "$120")".

    ``(verdict, found)``: ``found`` holds, per group, the first spelling
    found in the answer, or None."""
    words = _words(question, rules)
    found = []
    for group in question["facts"]:
        hit = None
        for spelling in group:
            if contains(text, normalize(spelling), words):
                hit = spelling
                break
        found.append(hit)
    return None not in found, found


def right_page_cited(sources, question, rules):
    """Rubric: "the page named by the question (or one listed in
    `also_source_urls`, which states the same fact in the same words) is among
    the sources returned with the answer".

    ``(verdict, pages)``: the question's pages among the answer's sources,
    compared normalised (evalkit/urls.py: ``page_key`` from 2026-12-01,
    ``normalize_url`` before), sorted."""
    if rules.same_page:
        def key(url):
            return page_key(url, question["page_url"])
    else:
        key = normalize_url
    wanted = {key(url) for url in [question["source_url"]] + question["also_source_urls"]}
    cited = sorted({key(url) for url in sources} & wanted)
    return bool(cited), cited


def in_question_language(answer, lang, rules):
    """Rubric: "letters of the question's script make up at least half of the
    answer's letters (85% for English); links are ignored".

    ``(verdict, (letters in the script, all letters))`` of the answer as given,
    counted by ``textmatch.script_share``; compared in integers, so that no
    float rounding decides a verdict."""
    mine, total = script_share(answer, lang, rules.bare_domains)
    num, den = THRESHOLDS[lang]
    return total > 0 and mine * den >= total * num, (mine, total)


def declined_when_not_on_site(text, grounded, question, rules):
    """Rubric: "the platform reports no grounding content, or the answer
    contains a decline phrase listed in [the DECLINE list], and none of the
    question's `must_not_include` strings".

    ``(verdict, found)``: ``found`` names the first DECLINE phrase in the
    list's order found in the answer (or None) and the must_not_include
    strings found."""
    words = _words(question, rules)
    phrase = first_decline_phrase(text, rules.phrases, words)
    invented = [s for s in question["must_not_include"] if contains(text, normalize(s), words)]
    verdict = (grounded is False or phrase is not None) and not invented
    return verdict, {"decline_phrase": phrase, "must_not_include_found": invented}


def first_decline_phrase(text, phrases, words):
    for phrase in phrases:
        if phrase in text and contains(text, phrase, words):  # "in" first: most are in no answer
            return phrase
    return None


def _words(question, rules):
    """The language whose word boundaries matching uses, or None before
    2026-12-01 (evalkit/textmatch.py)."""
    return question["lang"] if rules.word_bounds else None


# ---- one question ------------------------------------------------------------------------

def judge(question, answer, rules):
    """``(verdicts, details)`` for one question and its answer.

    ``verdicts`` maps each measure, in MEASURES order, to True, False, or None
    where it does not apply to the question's kind; an answer that was not
    delivered fails every measure that applies (the visitor got nothing).
    ``details`` is what the rules found in the answer.
    """
    text = normalize(answer["answer"] or "")
    verdicts = dict.fromkeys(MEASURES)
    details = {}
    verdicts["delivered"] = delivered(answer["status"], answer["answer"], rules)
    verdicts["in_question_language"], letters = in_question_language(
        answer["answer"] or "", question["lang"], rules)
    details["letters"] = {"in_script": letters[0], "all": letters[1]}
    if question["kind"] == "answerable":
        verdicts["correct_facts"], details["facts_found"] = correct_facts(text, question, rules)
        verdicts["right_page_cited"], details["right_sources"] = right_page_cited(
            answer["sources"], question, rules)
    else:
        verdicts["declined_when_not_on_site"], found = declined_when_not_on_site(
            text, answer["grounded"], question, rules)
        details.update(found, grounded=answer["grounded"])
    if not verdicts["delivered"]:
        for measure in APPLIES[question["kind"]]:
            verdicts[measure] = False
    if rules.review_flags:
        details["flags"] = review_flags(question, text, verdicts, details, rules)
    return verdicts, details


# ---- review flags (rules of 2026-12-01) --------------------------------------------------
# A flag never changes a verdict: it sends a passing answer to a person, who
# may change the verdict in the reviews file like any other.

# The reference assistant's longest answer has 207 characters and the
# agreement set's longest plain answer 226, while every pasted page in that
# set has over 1,000 (a demo page up to 2,121): past 600 an answer is closer
# to a pasted page than to an answer, and a person should read it.
LONG_ANSWER = 600
# The reference assistant's answers hold at most 5 distinct numbers and the
# fullest demo page (a price list) 19: more than 10 in one answer looks like a
# spray of numbers that happens to contain the right ones.
MANY_NUMBERS = 10
_NUMBER = re.compile(r"\d+")

FLAGS = {
    "echo": "a fact found only where the answer repeats the question",
    "long": f"longer than {LONG_ANSWER} characters",
    "numbers": f"more than {MANY_NUMBERS} distinct numbers",
    "decline": "a decline phrase in an answer that states the facts",
}


def review_flags(question, text, verdicts, details, rules):
    """The flags (FLAGS, in that order) of one delivered answer that passes
    the measures it was judged by."""
    if not verdicts["delivered"] or False in verdicts.values():
        return []
    flags = []
    words = _words(question, rules)
    if question["kind"] == "answerable":
        asked = normalize(question["question"])
        if any(contains(asked, normalize(hit), words) for hit in details["facts_found"]) or \
                (asked in text and not correct_facts(text.replace(asked, " "), question, rules)[0]):
            flags.append("echo")
    if len(text) > LONG_ANSWER:
        flags.append("long")
    # More than MANY_NUMBERS numbers need more digits than that: counting the
    # digits first (2 us) spares most answers the scan for numbers (6 us).
    if sum(map(text.count, "0123456789")) > MANY_NUMBERS and \
            len(set(_NUMBER.findall(text))) > MANY_NUMBERS:
        flags.append("numbers")
    # The answer's own language: a passing answer is in it, and the flag does
    # not need the measure's every-language reach (a third of the cost).
    if question["kind"] == "answerable" and \
            first_decline_phrase(text, rules.phrases_in[question["lang"]], words):
        flags.append("decline")
    return flags
