"""The text rules every measure shares: normalisation, matching, language share.

Normalisation (``normalize``): Unicode NFKC (full-width digits become ASCII, a
no-break space becomes a space), casefold, invisible marks removed (the bidi
controls LRM, RLM, ALM and the embedding/isolate marks, plus zero-width space,
byte-order mark and soft hyphen), every run of whitespace folded to one space.

Matching (``contains``): a substring match on normalised text, except at
digits: a spelling that begins (ends) with a digit does not match where the
character before (after) it is a digit, so ``120`` is never found in ``1200`` and
``8:00`` never in ``18:00``. Letters get no boundary, because Hebrew prefixes and
Russian endings attach to words (``מחירון`` is found in ``המחירון``,
``Новосибирск`` in ``Новосибирске``).

Language share (``script_share``): letters are the characters of Unicode
category L*, counted after URLs and e-mail addresses are removed; the share is
the fraction of them written in the question's script (Latin for en, Hebrew for
he, Cyrillic for ru).

What this module does not do: stemming, synonym matching, number parsing
("eight" is not 8). Those are the human reviewer's job, by design.
"""

import itertools
import re
import unicodedata

# Bidi controls (LRM, RLM, ALM, embeddings, overrides, isolates), zero-width
# space, byte-order mark and soft hyphen.
_INVISIBLE = re.compile("[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\u200b\ufeff\u00ad]")


def normalize(text):
    """NFKC, casefold, invisible marks removed, whitespace folded."""
    return _fold(unicodedata.normalize("NFKC", text).casefold())


def _fold(text):
    """Invisible marks removed and whitespace folded, of NFKC, casefolded text."""
    # Fast path, the common case: every invisible mark and every whitespace
    # character but the plain space is non-printable (tests/test_textmatch.py
    # checks this over all of Unicode), so a printable text with single inner
    # spaces is already folded.
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    if _INVISIBLE.search(text):
        text = _INVISIBLE.sub("", text)
    # str.split() splits on exactly the characters re's \s matches: Unicode whitespace.
    return " ".join(text.split())


def analyze(text, lang):
    """``(normalize(text), letters in the script, all letters)``: what the
    measures need of one answer, with a single NFKC pass."""
    nfkc = unicodedata.normalize("NFKC", text)
    mine, total = _count_letters(nfkc, lang)
    return _fold(nfkc.casefold()), mine, total


def contains(haystack, needle):
    """True when ``needle`` occurs in ``haystack`` by the matching rule.

    Both are normalised here; callers that test many needles against one
    answer can pass an already-normalised haystack to ``contains_normalized``.
    """
    return contains_normalized(normalize(haystack), normalize(needle))


def contains_normalized(hay, needle):
    if not needle:
        return False
    digit_start = needle[0].isdigit()
    digit_end = needle[-1].isdigit()
    start = hay.find(needle)
    while start != -1:
        end = start + len(needle)
        if not (digit_start and start > 0 and hay[start - 1].isdigit()) and \
           not (digit_end and end < len(hay) and hay[end].isdigit()):
            return True
        start = hay.find(needle, start + 1)
    return False


def contains_any(haystack, needles):
    """The first of ``needles`` found in ``haystack``, or None."""
    hay = normalize(haystack)
    for needle in needles:
        if contains_normalized(hay, normalize(needle)):
            return needle
    return None


# URLs (with or without a scheme) and e-mail addresses are not language.
_LINKS = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|www\.)\S+"
    r"|[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+",
    re.IGNORECASE,
)

SCRIPTS = {"en": "latin", "he": "hebrew", "ru": "cyrillic"}
# The share of letters that must be in the question's script: half, except
# English, where a Latin answer has no reason to carry other scripts.
THRESHOLDS = {"en": (85, 100), "he": (50, 100), "ru": (50, 100)}  # percent


_SCRIPT_RANGES = {
    "latin": "\u0000-\u024f\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff",
    "hebrew": "\u0590-\u05ff\ufb1d-\ufb4f",
    "cyrillic": "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f",
}
_SCRIPT_RUNS = {name: re.compile(f"[{ranges}]+") for name, ranges in _SCRIPT_RANGES.items()}
_ASCII_NON_LETTERS = bytes(b for b in range(128) if not chr(b).isalpha())


def _count_letters(nfkc, lang):
    """``(letters in the language's script, all letters)`` of NFKC text.

    The rule is the reference below (``_count_letters_reference``); this is
    the same count without a Python step per character, which was most of
    the time of scoring (tests/test_textmatch.py compares the two).
    """
    # "www." in any case holds "w." or "W.": lowering the whole text to look
    # for it is done only then.
    if "://" in nfkc or "@" in nfkc or (("w." in nfkc or "W." in nfkc) and "www." in nfkc.lower()):
        nfkc = _LINKS.sub(" ", nfkc)
    if nfkc.isascii():
        # ASCII letters are A-Z and a-z, all of them Latin.
        total = len(nfkc.encode("ascii").translate(None, _ASCII_NON_LETTERS))
        return (total if SCRIPTS[lang] == "latin" else 0), total
    # The ASCII non-letters (spaces, digits, punctuation) taken out of the
    # UTF-8 bytes at C speed: no ASCII byte is part of a longer character.
    # When what is left is all letters, those are the letters (most answers).
    letters = nfkc.encode("utf-8", "surrogatepass").translate(None, _ASCII_NON_LETTERS) \
        .decode("utf-8", "surrogatepass")
    if letters and not letters.isalpha():
        # Whole words of letters are taken at once; only the other words are
        # looked at one character at a time. No whitespace character is a letter.
        words = nfkc.split(" ")
        letters = "".join(filter(str.isalpha, words))
        rest = "".join(itertools.filterfalse(str.isalpha, words))
        if rest:
            letters += "".join(filter(str.isalpha, rest))
    total = len(letters)
    if letters.isascii():
        return (total if SCRIPTS[lang] == "latin" else 0), total
    return total - len(_SCRIPT_RUNS[SCRIPTS[lang]].sub("", letters)), total


def _count_letters_reference(nfkc, lang):
    """The rule as written: every character of category L* (str.isalpha),
    links removed, and those of them in the script's ranges."""
    text = _LINKS.sub(" ", nfkc)
    letters = "".join(filter(str.isalpha, text))
    in_script = re.compile(f"[{_SCRIPT_RANGES[SCRIPTS[lang]]}]")
    return len(in_script.findall(letters)), len(letters)


def script_share(text, lang):
    """``(letters in the language's script, all letters)`` of ``text``."""
    return _count_letters(unicodedata.normalize("NFKC", text), lang)


def share_passes(mine, total, lang):
    """True when ``mine`` of ``total`` letters is enough for the language."""
    # Compare in integers, so no float rounding decides a verdict.
    num, den = THRESHOLDS[lang]
    return total > 0 and mine * den >= total * num


def in_language(text, lang):
    """True when the language's script makes up enough of the letters."""
    return share_passes(*script_share(text, lang), lang)
