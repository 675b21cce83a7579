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

import re
import unicodedata

INVISIBLE = dict.fromkeys(map(ord, (
    "\u200e\u200f\u061c"          # LRM, RLM, ALM
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings and overrides
    "\u2066\u2067\u2068\u2069"    # isolates
    "\u200b\ufeff\u00ad"          # zero-width space, BOM, soft hyphen
)))

_SPACE = re.compile(r"\s+")


def normalize(text):
    """NFKC, casefold, invisible marks removed, whitespace folded."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(INVISIBLE)
    return _SPACE.sub(" ", text).strip()


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


def script_of(ch):
    """'latin', 'hebrew', 'cyrillic' or 'other' for one letter."""
    o = ord(ch)
    if o < 0x250 or 0x1E00 <= o <= 0x1EFF or 0x2C60 <= o <= 0x2C7F or 0xA720 <= o <= 0xA7FF:
        return "latin"
    if 0x0590 <= o <= 0x05FF or 0xFB1D <= o <= 0xFB4F:
        return "hebrew"
    if 0x0400 <= o <= 0x052F or 0x1C80 <= o <= 0x1C8F or 0x2DE0 <= o <= 0x2DFF \
            or 0xA640 <= o <= 0xA69F:
        return "cyrillic"
    return "other"


def letter_counts(text):
    """Letters per script, after NFKC and with URLs and e-mails removed."""
    text = _LINKS.sub(" ", unicodedata.normalize("NFKC", text))
    counts = {}
    for ch in text:
        if unicodedata.category(ch).startswith("L"):
            script = script_of(ch)
            counts[script] = counts.get(script, 0) + 1
    return counts


def script_share(text, lang):
    """``(letters in the language's script, all letters)`` of ``text``."""
    counts = letter_counts(text)
    return counts.get(SCRIPTS[lang], 0), sum(counts.values())


def in_language(text, lang):
    """True when the language's script makes up enough of the letters."""
    mine, total = script_share(text, lang)
    # Compare in integers, so no float rounding decides a verdict.
    num, den = THRESHOLDS[lang]
    return total > 0 and mine * den >= total * num
