"""The rules as older quarters were scored with them.

Each function (or class) here is a rule that a dated change replaced
(evalkit/rubric/rulebook.py: CHANGES says what changed, DATED which function
each date applies). Its name ends with the date it came into force; it is
kept, unchanged in what it does, so that every quarter published under it
re-scores byte for byte. Today's rules, which hold no date, are in
measures.py, passes.py, runs.py and evalkit/textmatch.py: a reader of them
never steps over an earlier date, and a reader of an older quarter finds
here what its date did otherwise.
"""

import unicodedata

from ..textmatch import THRESHOLDS, WORD_END_LANGS, Words, letter_share, without_links
from . import measures
from .measures import echo, first_decline_phrase, long, negation, qualifier, value
from .runs import signature
from .urls import normalize_url


# ---- the first rules, 2026-10-28 ---------------------------------------------------------

class Words_2026_10_28(Words):
    """Matching before 2026-12-01: only digits had boundaries (``120`` is not
    found in ``1200``, ``8:00`` not in ``18:00``); a letter matched anywhere
    (``bit`` in ``bitcoin``, ``16`` in ``16:30``)."""
    __slots__ = ()

    def starts(self, hay, start):
        return not (start > 0 and hay[start].isdigit() and hay[start - 1].isdigit())

    def ends(self, hay, end):
        return not (end < len(hay) and hay[end - 1].isdigit() and hay[end].isdigit())


def delivered_2026_10_28(status, answer):
    """Delivered before 2026-12-01: HTTP 200 and an answer with a character
    that is not white space (a zero-width space alone was an answer)."""
    return status == 200 and answer is not None and answer.strip() != ""


def right_page_cited_2026_10_28(sources, question):
    """Right page cited before 2026-12-01: URLs compared as written, each
    normalised alone (evalkit/rubric/urls.py: ``normalize_url``)."""
    wanted = {normalize_url(url) for url in [question["source_url"]] + question["also_source_urls"]}
    cited = sorted({normalize_url(url) for url in sources} & wanted)
    return bool(cited), cited


def in_question_language_2026_10_28(answer, lang):
    """The language share before 2026-12-01: links written without a scheme
    (med.demo.localhost/en/) were counted as letters."""
    mine, total = letter_share(without_links(unicodedata.normalize("NFKC", answer)), lang)
    num, den = THRESHOLDS[lang]
    return total > 0 and mine * den >= total * num, (mine, total)


def no_review_flags_2026_10_28(question, text, verdicts, details, raw, rules):
    """Before 2026-12-01 no answer was flagged: the details hold no flags."""


def review_state_2026_10_28(kind, mechanical, flags, review):
    """A row's review fields before 2026-12-03: a person reads every answer
    to a not-on-site question and every one that failed a measure (from
    2026-12-01 also one with a flag: ``review_state_2026_12_01``); it is
    reviewed once it has any entry."""
    return {"review_required": kind == "not_on_site" or False in mechanical.values() or bool(flags),
            "reviewed": review["faulty"] is not None or bool(review["verdicts"])}


def run_status_2026_10_28(facts):
    """Before 2026-12-03 every run that run.py asked was a live run, wherever
    it asked."""
    return "recorded_live_run" if facts.lines and facts.tools == {"run.py"} else "not_run"


def no_signature_2026_10_28(p):
    """Before 2026-12-02.2 results.md ended with its provenance."""
    return []


class NoSample_2026_10_28:
    """Before 2026-12-02 no pass was sampled: results.json has no
    sampled_review."""

    def add(self, row, answer, review, where):
        pass

    def finish(self, result, sets):
        pass


# ---- 2026-12-01 --------------------------------------------------------------------------

class Words_2026_12_01(Words):
    """Matching from 2026-12-01 to 2026-12-02: a spelling begins a word (in
    Hebrew after any three of the one-letter proclitics ו ה ב כ ל מ ש) and,
    in English and Hebrew, ends one; in Russian it may end inside a word,
    with any ending. A number did not go on past a colon, point or comma
    (``16`` was found in ``16:30``)."""
    __slots__ = ()

    def starts(self, hay, start):
        first = hay[start]
        before = hay[start - 1] if start > 0 else ""
        if first.isdigit() and before.isdigit():
            return False
        if not first.isalnum() or not before.isalnum():
            return True
        return self.lang == "he" and _any_proclitics(hay, start)

    def ends(self, hay, end):
        last = hay[end - 1]
        after = hay[end] if end < len(hay) else ""
        if last.isdigit():
            return not after.isdigit()
        if not last.isalnum() or not after.isalnum():
            return True
        return self.lang not in WORD_END_LANGS


PROCLITICS = "והבכלמש"


def _any_proclitics(hay, start):
    """Up to three of PROCLITICS before the word, the first of them at a
    word start."""
    prefix = start
    while start - prefix < 3 and prefix > 0 and hay[prefix - 1] in PROCLITICS:
        prefix -= 1
        if prefix == 0 or not hay[prefix - 1].isalnum():
            return True
    return False


def passed_all_2026_12_01(kind, verdicts):
    """From 2026-12-01 to 2026-12-02.3 the flags read an answer that was
    delivered and passed every measure it was judged by."""
    return verdicts["delivered"] and False not in verdicts.values()


def numbers_2026_12_01(question, text, details, raw, words, rules):
    """The numbers flag until 2026-12-02.3: the ASCII digits were counted
    first, to spare the scan, which missed numbers written in other
    scripts' digits (\\d counts them)."""
    if sum(map(text.count, "0123456789")) <= measures.MANY_NUMBERS:
        return False
    return measures.numbers(question, text, details, raw, words, rules)


def decline_2026_12_01(question, text, details, raw, words, rules):
    """The decline flag until 2026-12-02.3 read only the DECLINE phrases of
    the question's language, on the belief that a passing answer is in it;
    but half its letters pass, and an English "no information" in a Hebrew
    answer was missed."""
    return first_decline_phrase(text, rules.phrases_in(question["lang"]), words) is not None


def review_state_2026_12_01(kind, mechanical, flags, review):
    """A row's review fields from 2026-12-01 to 2026-12-03: those of
    2026-10-28, a flag sending a passing answer to a person, and the flags."""
    return {**review_state_2026_10_28(kind, mechanical, flags, review), "flags": flags}


REVIEW_FLAGS_2026_12_01 = {
    "answerable": (("echo", echo), ("long", long), ("numbers", numbers_2026_12_01),
                   ("decline", decline_2026_12_01)),
    "not_on_site": (("long", long), ("numbers", numbers_2026_12_01)),
}


# ---- 2026-12-02 and the later rules of that day ------------------------------------------

REVIEW_FLAGS_2026_12_02 = {
    "answerable": REVIEW_FLAGS_2026_12_01["answerable"] + (
        ("negation", negation), ("value", value), ("qualifier", qualifier)),
    "not_on_site": REVIEW_FLAGS_2026_12_01["not_on_site"],
}


def signature_2026_12_02_2(p):
    """From 2026-12-02.2 to 2026-12-03 the signature covered the question
    and raw files, not the reviews."""
    return signature(p, ("questions", "raw"))
