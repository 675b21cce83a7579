"""The rules' history: every change that can move a published number, dated.

A quarter is scored with the rules in force on its date, so that a published
quarter re-scores byte for byte whatever came after it. The code calls that
date ``rules_date`` everywhere; ``rules_as_of(rules_date)`` gives those rules.
Where users and files spell it, the spellings stay as first published:
score.py's option ``--rules-as-of`` (the older ``--decline-as-of`` still
works), a quarter MANIFEST's ``scoring.decline_as_of``, and results'
``provenance.decline_list_date`` (the date of the newest change in force).
Those JSON names come from the DECLINE list, the first dated rule, and are
kept so that published files re-score byte for byte; the date covers every
rule below.

CHANGES is the one table of every dated change; the methodology page prints
it (tests/test_docs.py holds the two together). A change takes effect on its
date; the scorer version that writes results under it is in VERSIONS, so that
results scored under older rules still name the version whose output they
are byte for byte. DATED names, for each rule that changed, the function
each date applies: today's in measures.py, passes.py, runs.py and
evalkit/textmatch.py, which hold no date, and those it replaced in
earlier.py, each named with the date it came into force. ``Rules`` selects
them: the rule functions never ask which date it is.

A rules date is the day the change came into force: never a day after the
commit that brings it (tests/test_rule_dates.py holds each change to the
repository's history). When a quarter was published under the rules of a day
and a later change came into force that same day, the later one is dated
``YYYY-MM-DD.N`` (N from 2 to 9: the Nth rules of that day), so that the
quarter keeps its rules; the dates sort as text in the order they came into
force (2026-12-02 < 2026-12-02.2 < 2026-12-03).
"""

import functools

from .. import BadInput, rules_date_text
from .. import textmatch
from ..textmatch import normalize
from . import earlier, measures, passes, runs, sampling

# (date, key, what changed). ``key`` names the Rules attribute that turns the
# change on; "decline" changes are the DECLINE list below; "rubric" and
# "pages" turn nothing on (the first rules; pages are presentations).
CHANGES = (
    ("2026-10-28", "rubric", "The rubric's measures as first published, with the DECLINE list."),
    ("2026-11-05", "decline", "DECLINE list: \"does not provide / specify / cover\" and their "
                              "Hebrew and Russian equivalents (13 plain declines of the 2026-Q4 "
                              "run carried none of the earlier phrases)."),
    ("2026-12-01", "word_bounds", "A fact spelling, a must_not_include string or a DECLINE "
                                  "phrase must begin at the start of a word (in Hebrew, after "
                                  "up to three of the one-letter proclitics ו ה ב כ ל מ ש); in "
                                  "English and Hebrew it must also end at the end of a word. "
                                  "Digits keep their boundaries on both sides, as before."),
    ("2026-12-01", "visible_blank", "An answer is blank, so not delivered, when nothing is "
                                    "left of it once invisible characters (Unicode format "
                                    "characters such as the zero-width space) and white "
                                    "space are removed."),
    ("2026-12-01", "same_page", "A cited URL is resolved against the question's page_url; "
                                "http and https of one host are one page; utm_* query "
                                "parameters are dropped; percent-escapes are made canonical."),
    ("2026-12-01", "bare_domains", "Links written without a scheme (med.demo.localhost/en/) "
                                   "are removed, like other links, before the language share."),
    ("2026-12-01", "review_flags", "A passing answer with a flag (fact only in a repeat of "
                                   "the question, over-long, too many numbers, a decline "
                                   "phrase in a passing answer) goes to a person too."),
    ("2026-12-01", "decline", "DECLINE list: the reference assistant's own Russian "
                              "declines, the plain declines an outside reader listed, those of "
                              "the agreement set, and Hebrew feminine and plural forms."),
    ("2026-12-01", "pages", "The results page is written in English, Hebrew and Russian "
                            "(index.html, index.he.html, index.ru.html), linked to each other, "
                            "laid out for a phone and a desktop, with a legend for every "
                            "series and an index of the questions."),
    # Dated the day after: the rules of 2026-12-01 were published with a
    # quarter (demo-2026-12) on their own date, which must re-score as it was.
    ("2026-12-02", "number_bounds", "A spelling that ends with a digit does not match where "
                                    "the answer goes on with the number: a digit, or a colon, "
                                    "point or comma followed by a digit (16 is not found in "
                                    "16:30, 120 not in 120.50, 1 not in 1,200), except a point "
                                    "or comma and two zeros that end the number (120 is found "
                                    "in 120.00); likewise a spelling that begins with a digit, "
                                    "before it (30 is not found in 16:30)."),
    ("2026-12-02", "word_forms", "In Hebrew the proclitics before a word are only the "
                                 "sequences the language writes, three letters at most (and, "
                                 "that, a preposition, the: ו, ש or כש, one of ב כ ל מ, ה, in "
                                 "that order; no ה after ב כ ל, which absorb it); in Russian "
                                 "a spelling that ends with a letter may be followed only by "
                                 "one of a closed list of case and number endings, then the "
                                 "end of the word (Иван is not found in Иванович)."),
    ("2026-12-02", "negation_flag", "A passing answer to an answerable question that holds a "
                                    "fact spelling in the same clause as a negation word of "
                                    "its language goes to a person, the words listed on the "
                                    "review sheet; a negation the evidence states of the same "
                                    "word, or one inside the spelling, does not count."),
    ("2026-12-02", "value_flags", "A passing answer that holds a number neither the evidence "
                                  "nor the question gives, or names a unit, period, day or "
                                  "mode (evalkit/rubric/qualifiers.py) neither of them names, goes to "
                                  "a person: it may bind a right value to the wrong thing."),
    ("2026-12-02", "sampled_review", "A sample of the passing answers that no flag sends to a "
                                     "person is reviewed too, drawn by a fixed rule from the "
                                     "run's own ids; the false-pass rate found in it is "
                                     "published per measure with its Wilson interval."),
    # The three below came into force on 2026-12-02 after demo-2026-12b was
    # published under that day's rules: the second and third rules of the day.
    ("2026-12-02.2", "signature", "results.md ends with a one-line signature of what made it: "
                                "the suite, the rules' date, the scorer version, and one "
                                "sha256 of the question and raw files (the sha256 of what "
                                "`sha256sum` prints for the question files, then the raw "
                                "files, each in name order, without folders), so that a "
                                "quoted figure carries it."),
    ("2026-12-02.3", "every_language_decline", "The decline flag reads the DECLINE phrases of "
                                             "every language, as the Declined measure does; "
                                             "it read only those of the question's language, "
                                             "and a passing answer needs only half its "
                                             "letters in that language."),
    ("2026-12-02.3", "every_digit", "The numbers flag counts every run of digits, in any "
                                  "script, as the value flag does; it counted them only when "
                                  "the answer held more than 10 ASCII digits (a speed check "
                                  "that missed other scripts' digits)."),
    ("2026-12-03", "measure_review", "Every measure is read on its own. The review sheet asks "
                                     "an entry for every measure an answer failed, for "
                                     "Correct facts when a flag doubts it (the flags now run "
                                     "whenever Correct facts passed, whatever the other "
                                     "measures did) and for the decline of every not-on-site "
                                     "answer; every other pass is a candidate of the sampled "
                                     "review of its measure. The sample is drawn per set and "
                                     "measure in the order of the sha256 of the question "
                                     "file's sha256, the id and the sha256 of the answer's "
                                     "recorded body (no longer the run id, which an operator "
                                     "can draw again): every candidate when a set has at most "
                                     "60, else enough for a 95% interval of the false-pass "
                                     "rate at most 20 points wide. Beside each figure stands "
                                     "how many of its passes are true, with a 95% interval "
                                     "(exact hypergeometric; exact when every pass was read), "
                                     "and the false-pass rate per set and language."),
    ("2026-12-03", "signature_reviews", "The signature's sha256 covers the reviews file too: "
                                        "what `sha256sum` prints for the question files, the "
                                        "raw files, then the reviews file."),
    ("2026-12-03", "local_runs", "A run asked from a loopback or private address is labelled "
                                 "recorded_local_run, as the scenario and intake suites label "
                                 "it; earlier rules called every run.py run recorded_live_run."),
)

# The scorer version whose output the rules of a date give (evalkit.VERSION is
# the newest). Results scored under rules before 2026-12-01 are byte for byte
# those of 0.2.0; those under the rules of 2026-12-01, pages included, of 0.4.0
# (0.3.0 wrote them with the one English page of 0.2.0); those of 2026-12-02
# on, with the sampled review, of 0.5.0; those of 2026-12-02.2 on, signed, of
# 0.6.0; those of 2026-12-02.3 on, with the flags reading every language and
# digit, of 0.7.0; those of 2026-12-03 on, every measure read on its own, the
# sample drawn from the answers and the figures' estimates, of 0.8.0.
VERSIONS = (("2026-10-28", "0.2.0"), ("2026-12-01", "0.4.0"), ("2026-12-02", "0.5.0"),
            ("2026-12-02.2", "0.6.0"), ("2026-12-02.3", "0.7.0"), ("2026-12-03", "0.8.0"))

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
    # The reference assistant's own Russian declines, the plain declines an
    # outside reader listed (issue 16), and those of the agreement set; in
    # Hebrew also the feminine and plural forms that the word-end rule of the
    # same date no longer finds inside the masculine ones.
    ("2026-12-01", "en", (
        "i don't have that information", "i don’t have that information",
        "i do not have that information", "i wasn't able to find", "i wasn’t able to find",
        "i was not able to find", "doesn't say", "doesn’t say", "does not say",
        "doesn't mention", "doesn’t mention", "does not mention", "doesn't list",
        "doesn’t list", "does not list", "nothing on our pages", "not something covered",
    )),
    ("2026-12-01", "he", (
        "אין לנו מידע", "אין לי את המידע", "איני יודעת", "אינני יודעת", "אני לא יודעת",
        "לא מופיעה", "לא מופיעים", "לא מופיעות", "לא מציין", "לא מציינת", "לא מצוין",
        "לא מצאנו", "לא הצלחנו למצוא",
    )),
    ("2026-12-01", "ru", (
        "нет ответа", "не нашлось ответа", "не нашлось информации", "информации об этом нет",
        "не могу найти", "не сообщает", "не сказано", "ничего нет", "нет сведений",
    )),
)



# The function of each rule that changed, by the date it came into force
# (CHANGES says why): ``Rules`` holds, of each, the latest on or before its
# date. A function of the day's first change stands for every change of that
# date that shapes it (2026-12-02: numbers and word forms in Words).
DATED = {
    # Where a spelling may stand (textmatch.Words, made per language).
    "words": (("2026-10-28", earlier.Words_2026_10_28),
              ("2026-12-01", earlier.Words_2026_12_01),       # word_bounds
              ("2026-12-02", textmatch.Words)),               # number_bounds, word_forms
    "delivered": (("2026-10-28", earlier.delivered_2026_10_28),
                  ("2026-12-01", measures.delivered)),         # visible_blank
    "right_page_cited": (("2026-10-28", earlier.right_page_cited_2026_10_28),
                         ("2026-12-01", measures.right_page_cited)),  # same_page
    "in_question_language": (("2026-10-28", earlier.in_question_language_2026_10_28),
                             ("2026-12-01", measures.in_question_language)),  # bare_domains
    # The review flags: whether an answer is flagged, and the flags in force.
    "review_flags": (("2026-10-28", earlier.no_review_flags_2026_10_28),
                     ("2026-12-01", measures.review_flags)),   # review_flags
    "flagged": (("2026-12-01", earlier.passed_all_2026_12_01),
                ("2026-12-03", measures.passed_doubted)),      # measure_review
    "flags": (("2026-12-01", earlier.REVIEW_FLAGS_2026_12_01),
              ("2026-12-02", earlier.REVIEW_FLAGS_2026_12_02),  # negation_flag, value_flags
              ("2026-12-02.3", measures.REVIEW_FLAGS)),        # every_language_decline, every_digit
    # Who reads what: a row's review fields, and the sampled review of passes.
    "review_state": (("2026-10-28", earlier.review_state_2026_10_28),
                     ("2026-12-01", earlier.review_state_2026_12_01),  # review_flags
                     ("2026-12-03", passes.review_state)),     # measure_review
    "sampler": (("2026-10-28", earlier.NoSample_2026_10_28),
                ("2026-12-02", sampling.WholeAnswers),         # sampled_review
                ("2026-12-03", passes.PassReview)),            # measure_review
    # What results say of themselves.
    "run_status": (("2026-10-28", earlier.run_status_2026_10_28),
                   ("2026-12-03", runs.run_status)),           # local_runs
    "signature": (("2026-10-28", earlier.no_signature_2026_10_28),
                  ("2026-12-02.2", earlier.signature_2026_12_02_2),  # signature
                  ("2026-12-03", runs.signature)),             # signature_reviews
}


def change_dates():
    return sorted({date for date, _key, _what in CHANGES})


class Rules:
    """The rules in force on one date: ``rules_date`` (of the newest change
    in force), ``version`` (of the scorer output they give), ``phrases`` (the
    DECLINE list, normalised, in list order), and for each rule of DATED the
    function in force
    (``rules.delivered``, ``rules.words(lang)`` ...). The "pages" change
    turns nothing on any more: a page presents results.json, and every
    quarter gets today's pages (reproduce.py checks them by what they show)."""

    def __init__(self, rules_date):
        self.rules_date = max(date for date, _key, _what in CHANGES if date <= rules_date)
        self.version = [version for date, version in VERSIONS if date <= rules_date][-1]
        self.phrases = phrases(rules_date)
        for rule, dated in DATED.items():
            # A rule whose first date is later (the flags: 2026-12-01) is None before it.
            in_force = [function for date, function in dated if date <= rules_date]
            setattr(self, rule, in_force[-1] if in_force else None)
        self.words = functools.lru_cache(maxsize=None)(self.words)  # made once a language

    def phrases_in(self, lang):
        """The DECLINE phrases of one language (the decline flag's before 2026-12-02.3)."""
        return phrases(self.rules_date, lang)


@functools.lru_cache(maxsize=None)
def phrases(rules_date, lang=None):
    """The DECLINE list in force on ``rules_date``, normalised, in list order
    (of ``lang`` alone, when given); made once a date."""
    return [normalize(phrase) for date, of, items in DECLINE
            if date <= rules_date and lang in (None, of) for phrase in items]


def rules_as_of(rules_date=None):
    """The Rules in force on ``rules_date`` (``YYYY-MM-DD``; without it, the newest).

    The DECLINE phrases of every language apply to every answer: a decline in
    the wrong language is still a decline, and the language measure catches
    the language."""
    if rules_date is None:
        rules_date = change_dates()[-1]
    return Rules(check_date(rules_date))


def check_date(rules_date, what="--rules-as-of"):
    """``rules_date`` when it is a day of the calendar written YYYY-MM-DD (or
    YYYY-MM-DD.N, the Nth rules of that day), on or after the first rules;
    else BadInput naming ``what``, where the date was given (the option, or a
    manifest's field)."""
    first = change_dates()[0]
    if not rules_date_text(rules_date):
        raise BadInput(f"{what} {rules_date!r}: give a day of the calendar as YYYY-MM-DD "
                       "(or YYYY-MM-DD.N, the Nth rules of that day)")
    if rules_date < first:
        raise BadInput(f"{what} {rules_date}: the rules begin on {first}")
    return rules_date
