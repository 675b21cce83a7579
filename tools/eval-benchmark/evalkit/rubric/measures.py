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

The rules here are today's. A rule changes only by date
(evalkit/rubric/rulebook.py): ``judge`` takes the ``Rules`` in force on the
quarter's date, which give the function of each rule that changed (a rule an
older quarter was scored with is in evalkit/rubric/earlier.py), where words
have boundaries (textmatch.Words) and the DECLINE list, so that an older
quarter re-scores byte for byte.
"""

import functools
import re

from .qualifiers import QUALIFIERS
from ..textmatch import (THRESHOLDS, clauses, contains, normalize, occurrences, script_share,
                         visible)
from .urls import page_key

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
# ``rules`` are the Rules in force (evalkit/rubric/rulebook.py).

def delivered(status, answer):
    """Rubric: "HTTP 200 and a non-empty answer"; an answer of only white
    space and invisible characters (textmatch.visible) is empty."""
    return status == 200 and answer is not None and visible(answer)


def correct_facts(text, question, rules):
    """Rubric: "every fact group of the question appears in the answer (each
    group lists the accepted spellings, e.g. "120", "$120")".

    ``(verdict, found)``: ``found`` holds, per group, the first spelling
    found in the answer, or None."""
    words = rules.words(question["lang"])
    found = [next((spelling for spelling in group if contains(text, normalize(spelling), words)),
                  None) for group in question["facts"]]
    return None not in found, found


def right_page_cited(sources, question):
    """Rubric: "the page named by the question (or one listed in
    `also_source_urls`, which states the same fact in the same words) is among
    the sources returned with the answer".

    ``(verdict, pages)``: the question's pages among the answer's sources,
    each read relative to the question's page_url (evalkit/rubric/urls.py:
    ``page_key``), sorted."""
    page = question["page_url"]
    wanted = {page_key(url, page) for url in [question["source_url"]] + question["also_source_urls"]}
    cited = sorted({page_key(url, page) for url in sources} & wanted)
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


def declined_when_not_on_site(text, grounded, question, rules):
    """Rubric: "the platform reports no grounding content, or the answer
    contains a decline phrase listed in [the DECLINE list], and none of the
    question's `must_not_include` strings".

    ``(verdict, found)``: ``found`` names the first DECLINE phrase in the
    list's order found in the answer (or None) and the must_not_include
    strings found."""
    words = rules.words(question["lang"])
    phrase = first_decline_phrase(text, rules.phrases, words)
    invented = [s for s in question["must_not_include"] if contains(text, normalize(s), words)]
    verdict = (grounded is False or phrase is not None) and not invented
    return verdict, {"decline_phrase": phrase, "must_not_include_found": invented}


def first_decline_phrase(text, phrases, words):
    for phrase in phrases:
        # ``contains`` finds a phrase only where ``in`` does (its first step is
        # that search): asked first, it spares 4 % of the work of scoring.
        if phrase in text and contains(text, phrase, words):
            return phrase
    return None


# ---- one question ------------------------------------------------------------------------

def judge(question, answer, rules):
    """``(verdicts, details)`` for one question and its answer.

    ``verdicts`` maps each measure, in MEASURES order, to True, False, or None
    where it does not apply to the question's kind; an answer that was not
    delivered fails every measure that applies (the visitor got nothing).
    ``details`` is what the rules found in the answer, and the review flags
    the rules in force raise (``review_flags``).
    """
    text = normalize(answer["answer"] or "")
    verdicts = dict.fromkeys(MEASURES)
    details = {}
    verdicts["delivered"] = rules.delivered(answer["status"], answer["answer"])
    verdicts["in_question_language"], letters = rules.in_question_language(
        answer["answer"] or "", question["lang"])
    details["letters"] = {"in_script": letters[0], "all": letters[1]}
    if question["kind"] == "answerable":
        verdicts["correct_facts"], details["facts_found"] = correct_facts(text, question, rules)
        verdicts["right_page_cited"], details["right_sources"] = rules.right_page_cited(
            answer["sources"], question)
    else:
        verdicts["declined_when_not_on_site"], found = declined_when_not_on_site(
            text, answer["grounded"], question, rules)
        details.update(found, grounded=answer["grounded"])
    if not verdicts["delivered"]:
        for measure in APPLIES[question["kind"]]:
            verdicts[measure] = False
    rules.review_flags(question, text, verdicts, details, answer["answer"], rules)
    return verdicts, details


# ---- review flags -----------------------------------------------------------------------
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
    "long": f"longer than {LONG_ANSWER} characters, folded as for matching",
    "numbers": f"more than {MANY_NUMBERS} distinct numbers (runs of digits)",
    "decline": "a decline phrase in an answer that states the facts",
    "negation": "a fact stated in a clause with a negation word",
    "value": "a number that neither the evidence nor the question gives",
    "qualifier": "a unit, period, day or mode that neither the evidence nor the question names",
}

# The measure whose pass a flag doubts, by the question's kind: every flag
# says the facts may not be what the page says (a not-on-site answer's decline
# is read by a person whatever its flags).
FLAG_DOUBTS = {"answerable": "correct_facts", "not_on_site": "declined_when_not_on_site"}


def review_flags(question, text, verdicts, details, raw, rules):
    """``details["flags"]``: the flags in force (``rules.flags``, by the
    question's kind, in FLAGS order) of an answer that the rules have
    flagged (``rules.flagged``: today, one that passes the measure the flags
    doubt, FLAG_DOUBTS). Each flag reads the answer normalised (``text``) or
    as given (``raw``: its line breaks end clauses for the negation flag);
    one that names what it found records it in ``details``."""
    if not rules.flagged(question["kind"], verdicts):
        details["flags"] = []
        return
    words = rules.words(question["lang"])
    details["flags"] = [name for name, flag in rules.flags[question["kind"]]
                        if flag(question, text, details, raw, words, rules)]


def passed_doubted(kind, verdicts):
    """Whether the answer passed the measure the flags doubt (FLAG_DOUBTS)."""
    return verdicts[FLAG_DOUBTS[kind]] is True


# Each flag: True when it is raised on one answer (review_flags' arguments).

def echo(question, text, details, raw, words, rules):
    """A fact found only inside the question, or only where the answer
    repeats it."""
    asked = _given(question)[1]
    return any(contains(asked, normalize(hit), words) for hit in details["facts_found"]) or \
        (asked in text and not correct_facts(text.replace(asked, " "), question, rules)[0])


def long(question, text, details, raw, words, rules):
    """Longer than LONG_ANSWER characters, normalised."""
    return len(text) > LONG_ANSWER


def numbers(question, text, details, raw, words, rules):
    """More than MANY_NUMBERS distinct runs of digits, in any script."""
    return len(set(_NUMBER.findall(text))) > MANY_NUMBERS


def decline(question, text, details, raw, words, rules):
    """A DECLINE phrase of any language in an answer that passes."""
    return first_decline_phrase(text, rules.phrases, words) is not None


def negation(question, text, details, raw, words, rules):
    """A fact stated in a clause with a negation word (``negated_facts``),
    the words kept in ``details["negation_words"]``."""
    # A clause is a stretch of the normalised answer between white space, so
    # negated_facts finds a negation word only where this search of the whole
    # answer finds one: it spares reading the clauses of most answers.
    return _kept(details, "negation_words", _NEGATION[question["lang"]].search(text)
                 and negated_facts(question, raw, words))


def value(question, text, details, raw, words, rules):
    """A number that neither the evidence nor the question gives
    (``other_values``), kept in ``details["other_values"]``."""
    return _kept(details, "other_values", other_values(_given(question), text))


def qualifier(question, text, details, raw, words, rules):
    """A unit, period, day or mode that neither the evidence nor the question
    names (``unbound_qualifiers``), kept in ``details["unbound_qualifiers"]``."""
    return _kept(details, "unbound_qualifiers",
                 unbound_qualifiers(_given(question), text, question["lang"], words))


def _kept(details, key, found):
    """Whether a flag found anything; what it found kept in ``details[key]``."""
    if found:
        details[key] = found
    return bool(found)


def _given(question):
    """What the page and the visitor said: the evidence and the question,
    normalised (once for the flags of one answer: ``_folded``)."""
    return _folded(question["evidence"], question["question"])


@functools.lru_cache(maxsize=1)
def _folded(*texts):
    return tuple(map(normalize, texts))


# The flags in force today, in FLAGS order, by the question's kind: any
# answer may be long or spray numbers; the others read an answerable
# question's facts (every not-on-site answer is read by a person already).
REVIEW_FLAGS = {
    "answerable": (("echo", echo), ("long", long), ("numbers", numbers), ("decline", decline),
                   ("negation", negation), ("value", value), ("qualifier", qualifier)),
    "not_on_site": (("long", long), ("numbers", numbers)),
}


# ---- the negation flag -------------------------------------------------------------------
# The words that deny what a clause says, per language, matched as whole
# words. English: also every word ending in n't (don't, isn't, can't, won't).
# Hebrew: also after the proclitics ו, ש or כש (ולא, שאין, כשאין), not after
# ב כ ל מ, which would read מלא (full) as מ+לא; ללא and מבלי are listed
# whole. "Closed" (סגור, закрыт) is in no list: it states a closing time as
# often as it denies an opening ("we're closed from 4 pm on Fridays" is
# biz-en-15's fact). Only answerable questions are flagged: every answer to a
# not-on-site question is read by a person already, and one that holds a
# must_not_include string fails.
NEGATIONS = {
    "en": ("not", "no", "never", "none", "nothing", "neither", "nor", "without", "cannot"),
    "he": ("לא", "אין", "אינו", "אינה", "אינם", "אינן", "איני", "אינני", "איננו", "איננה",
           "בלי", "ללא", "מבלי", "אי"),
    "ru": ("не", "нет", "ни", "без", "никогда", "нельзя", "ничего", "никто", "нигде",
           "невозможно"),
}
_NEGATION_PROCLITICS = "ו?(?:כ?ש)?"  # Hebrew: and; that, when
_NEGATION = {
    lang: re.compile(r"(?<![^\W_])(?:" + (_NEGATION_PROCLITICS if lang == "he" else "") +
                     "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")" +
                     (r"|[^\W_]+n['’]t" if lang == "en" else "") + r")(?![^\W_])")
    for lang, words in NEGATIONS.items()}
_HEBREW_NEGATION_PREFIX = re.compile("^" + _NEGATION_PROCLITICS)
_NEXT_WORD = re.compile(r"[\W_]*([^\W_]+)")  # the word after a negation


def negated_facts(question, answer, words):
    """The negation words (NEGATIONS) that stand in a clause of ``answer`` (as
    given: its line breaks end clauses) with a fact spelling found there, in
    the order they come, each once; [] when none.

    A clause ends at . ! ; and a line break, not at ?, a comma or a colon
    (textmatch.clauses): a negation reaches across both, to a list ("we don't
    take Medicare, Cigna or Aetna") and to the clause it contradicts ("Lauren
    runs the walk-in hours, but Spanish is not one of our languages"). The
    flag only sends an answer to a person, so it errs on the side of reading.

    Not counted: a negation word inside the spelling's own place (``לא חלק``,
    ``ללא עלות``: the fact's wording), and one that the evidence states, with
    the same word after it, in a clause with a spelling of the same group
    (``שישה תשלומים ללא ריבית``; "you don't need an appointment" beside $35):
    the page denies the same thing. "A flu shot doesn't cost $35" is still
    counted: the page's "don't" is about the appointment."""
    lang = question["lang"]
    negation = _NEGATION[lang]
    evidence = clauses(question["evidence"])
    found = []
    stated = {}  # a fact group's index: the denials the evidence states beside it
    for clause in clauses(answer):
        said = [(m.start(), m.end(), _denial(clause, m, lang)) for m in negation.finditer(clause)]
        if not said:
            continue
        for n, group in enumerate(question["facts"]):
            places = [(start, start + len(needle)) for needle in map(normalize, group)
                      for start in occurrences(clause, needle, words)]
            if not places:
                continue
            if n not in stated:
                stated[n] = _stated_denials(evidence, group, lang, words)
            for start, end, denial in said:
                word = clause[start:end]
                if any(start < right and left < end for left, right in places) or \
                        denial in stated[n] or word in found:
                    continue
                found.append(word)
    return found


def _stated_denials(evidence, group, lang, words):
    """The denials (_denial) in the evidence's clauses that hold a spelling
    of ``group``: the page denying the same thing."""
    negation = _NEGATION[lang]
    return {_denial(line, m, lang) for line in evidence
            if any(contains(line, normalize(s), words) for s in group)
            for m in negation.finditer(line)}


def _denial(clause, match, lang):
    """``(negation, the word after it)`` of a negation word found in a
    clause: what the evidence and the answer are compared by."""
    after = _NEXT_WORD.match(clause, match.end())
    return _negation_base(match.group(), lang), after.group(1) if after else ""


def _negation_base(word, lang):
    """The listed word a negation word found is (ולא and שלא are לא; didn't
    and cannot are not): what the evidence and the answer are compared by."""
    if lang == "en":
        return "not" if word == "cannot" or word.endswith(("n't", "n’t")) else word
    if lang == "he" and word not in NEGATIONS["he"]:
        return _HEBREW_NEGATION_PREFIX.sub("", word)
    return word


# ---- the value and qualifier flags -------------------------------------------------------
# A passing answer holds every fact's spelling, but may bind it to the wrong
# thing: "£60 a month" for the page's "£60 a quarter", "A follow-up costs
# $120" beside "2015 is when we opened" (the page: $120 for a first visit,
# open since 2009). Such an answer says something the evidence does not: a
# number it does not give, or a unit, period, day or mode it does not name
# (evalkit/rubric/qualifiers.py). Either sends the answer to a person; neither
# changes a verdict. On the second part of the agreement set, written to find
# what no rule caught, the two flags sent to review 43 of the 74 false passes
# no person read; on the two demo runs they flag 2 of the 21 and 22 passing
# answers no other flag sent (an office's opening hours, which name the other
# days too).

_VALUE = re.compile(r"\d+(?:[.,:]\d+)*")
_THOUSANDS = re.compile(r",(?=\d{3}(?!\d))")
_WHOLE = re.compile(r"[:.]00$")


def _values(text):
    """The numbers of a normalised text, each written one way: without a
    thousands comma (1,200 is 1200) and without a last :00 or .00 (9:00 is 9,
    $120.00 is $120). A number written with spaces (7 000) is two, in the
    evidence as in the answer."""
    return {_WHOLE.sub("", _THOUSANDS.sub("", token)) for token in _VALUE.findall(text)}


def other_values(given, text):
    """The numbers of an answer (normalised) that neither the question's
    evidence nor the question holds (``given``: both, normalised), sorted."""
    known = set().union(*map(_values, given))
    return sorted(_values(text) - known)


# The qualifiers' forms, normalised once, as every text they are looked for in is.
_QUALIFIER_FORMS = {lang: [(name, [normalize(form) for form in forms])
                           for name, _where, forms in table]
                    for lang, table in QUALIFIERS.items()}
_FORM_NAMES = {lang: [(needle, name) for name, needles in forms for needle in needles]
               for lang, forms in _QUALIFIER_FORMS.items()}


def unbound_qualifiers(given, text, lang, words):
    """The qualifiers (evalkit/rubric/qualifiers.py, by name) that an answer
    (normalised) names and neither the question's evidence nor the question
    does (``given``: both, normalised), in the table's order."""
    # ``contains`` finds a form only where ``in`` does (its first step is that
    # search): asked first of every form at once, it spares looking further
    # at each qualifier the answer does not name, a tenth of scoring's work.
    named = {name for needle, name in _FORM_NAMES.get(lang, ()) if needle in text}
    found = []
    for name, needles in _QUALIFIER_FORMS.get(lang, ()):
        if name in named and any(contains(text, needle, words) for needle in needles) and not any(
                contains(known, needle, words) for known in given for needle in needles):
            found.append(name)
    return found
