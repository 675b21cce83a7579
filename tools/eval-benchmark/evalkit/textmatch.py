"""The text rules every measure shares: normalisation, matching, language share.

Normalisation (``normalize``): Unicode NFKC (full-width digits become ASCII, a
no-break space becomes a space), casefold, invisible marks removed (the bidi
controls LRM, RLM, ALM and the embedding/isolate marks, plus zero-width space,
byte-order mark and soft hyphen), every run of whitespace folded to one space.

Matching (``contains``): a substring match on normalised text, except at
digits: a spelling that begins (ends) with a digit does not match where the
character before (after) it is a digit, so ``120`` is never found in ``1200`` and
``8:00`` never in ``18:00``. Under the rules of 2026-12-01 (evalkit/rulebook.py,
``word_bounds``: pass the question's language) words get boundaries too: a
spelling that begins with a letter or digit must begin a word, where a word
begins after anything but a letter or digit, and in Hebrew also after up to
three of the one-letter proclitics ו ה ב כ ל מ ש (``מחירון`` is found in
``ובמחירון``, ``אבי`` not in ``תל אביב``); in English and Hebrew a spelling
that ends with a letter must end a word (``bit`` is not in ``bitcoin``). In
Russian it may end inside one, because case endings attach to words
(``Новосибирск`` is found in ``Новосибирске``). Before that date letters got
no boundary at all.

Blankness (``visible``): under the rules of 2026-12-01 an answer is blank when
nothing is left of it once white space and the invisible characters (Unicode
categories Cc and Cf: controls, the zero-width space, bidi marks) are removed.

Language share (``script_share``): letters are the characters of Unicode
category L*, counted after URLs and e-mail addresses are removed; the share is
the fraction of them written in the question's script (Latin for en, Hebrew for
he, Cyrillic for ru).

What this module does not do: stemming, synonym matching, number parsing
("eight" is not 8). Those are the human reviewer's job, by design.
"""

import re
import unicodedata

# Bidi controls (LRM, RLM, ALM, embeddings, overrides, isolates), zero-width
# space, byte-order mark and soft hyphen.
INVISIBLE = re.compile("[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\u200b\ufeff\u00ad]")

# URLs (with or without a scheme) and e-mail addresses are not language.
LINKS = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|www\.)\S+"
    r"|[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+",
    re.IGNORECASE,
)
# Links written without a scheme or www. (med.demo.localhost/en/hours/,
# clinic.example): dotted names whose last label is two or more letters, with
# or without a path. Removed only under the rules of 2026-12-01.
BARE_DOMAINS = re.compile(r"(?<![\w@.-])(?:[a-z0-9-]+\.)+[a-z]{2,}\b(?:/\S*)?", re.IGNORECASE)
_DOTTED = re.compile(r"\.[^\W\d_]")  # a dot before a letter

# In Hebrew a word may carry up to three one-letter proclitics (and, the, in,
# as, to, from, that) before the word a spelling names.
PROCLITICS = "והבכלמש"
WORD_END_LANGS = {"en", "he"}  # Russian endings attach to the word: no end boundary

SCRIPTS = {"en": "latin", "he": "hebrew", "ru": "cyrillic"}
SCRIPT_RANGES = {
    "latin": "\u0000-\u024f\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff",
    "hebrew": "\u0590-\u05ff\ufb1d-\ufb4f",
    "cyrillic": "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f",
}
_SCRIPT_RUN = {lang: re.compile(f"[{SCRIPT_RANGES[script]}]+") for lang, script in SCRIPTS.items()}

_ASCII_NON_LETTERS = bytes(b for b in range(128) if not chr(b).isalpha())

# The share of letters that must be in the question's script: half, except
# English, where a Latin answer has no reason to carry other scripts.
THRESHOLDS = {"en": (85, 100), "he": (50, 100), "ru": (50, 100)}  # percent


def normalize(text):
    """NFKC, casefold, invisible marks removed, whitespace folded."""
    text = INVISIBLE.sub("", unicodedata.normalize("NFKC", text).casefold())
    # str.split() splits on exactly the characters re's \s matches: Unicode whitespace.
    return " ".join(text.split())


def contains(hay, needle, words=None):
    """True when ``needle`` occurs in ``hay`` by the matching rule; both are
    already normalised. An empty needle is found nowhere. ``words`` is the
    question's language when words have boundaries (rules of 2026-12-01),
    None before."""
    if not needle:
        return False
    start = hay.find(needle)
    while start != -1:
        if at_word(hay, start, start + len(needle), words):
            return True
        start = hay.find(needle, start + 1)
    return False


def at_word(hay, start, end, words):
    """Whether ``hay[start:end]`` stands where the matching rule allows it."""
    return _starts_here(hay, start, words) and _ends_here(hay, end, words)


def _starts_here(hay, start, words):
    first = hay[start]
    before = hay[start - 1] if start > 0 else ""
    if first.isdigit() and before.isdigit():
        return False
    if words is None or not first.isalnum() or not before.isalnum():
        return True
    if words != "he":
        return False
    # Hebrew: up to three proclitics before the word, the first of them at a
    # word start.
    prefix = start
    while start - prefix < 3 and prefix > 0 and hay[prefix - 1] in PROCLITICS:
        prefix -= 1
        if prefix == 0 or not hay[prefix - 1].isalnum():
            return True
    return False


def _ends_here(hay, end, words):
    last = hay[end - 1]
    after = hay[end] if end < len(hay) else ""
    if last.isdigit():
        return not after.isdigit()
    if words in WORD_END_LANGS and last.isalnum():
        return not after.isalnum()
    return True


def visible(text):
    """True when ``text`` has a character that is not white space and not
    invisible (Unicode Cc and Cf: controls, zero-width space, bidi marks)."""
    return any(not char.isspace() and unicodedata.category(char) not in ("Cc", "Cf")
               for char in text)


def script_share(text, lang, bare_domains=False):
    """``(letters in the language's script, all letters)`` of ``text``; links
    written without a scheme are removed too with ``bare_domains`` (rules of
    2026-12-01)."""
    text = unicodedata.normalize("NFKC", text)
    # LINKS can match only where one of these is: testing for them first
    # spares most answers its scan, 80 us of an answer's 100.
    if "://" in text or "@" in text or "www." in text.lower():
        text = LINKS.sub(" ", text)
    # A link without a scheme has a dot before a letter; testing for that
    # first (a search that starts from a literal, 0.3 us) spares most answers
    # BARE_DOMAINS's scan (15 us).
    if bare_domains and _DOTTED.search(text):
        text = BARE_DOMAINS.sub(" ", text)
    # The ASCII non-letters (spaces, digits, punctuation) are dropped first,
    # from the UTF-8 bytes, where no ASCII byte is part of a longer character;
    # what is left is most often letters only. Testing every character in
    # Python took 14 us of an answer's 20, 1.4 s of 100,000 answers.
    rest = text.encode("utf-8", "surrogatepass").translate(None, _ASCII_NON_LETTERS) \
        .decode("utf-8", "surrogatepass")
    letters = rest if rest.isalpha() else "".join(filter(str.isalpha, rest))
    others = _SCRIPT_RUN[lang].sub("", letters)  # the letters not in the script
    return len(letters) - len(others), len(letters)

