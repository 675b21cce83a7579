"""The text rules every measure shares: normalisation, matching, language share.

Normalisation (``normalize``): Unicode NFKC (full-width digits become ASCII, a
no-break space becomes a space), casefold, invisible marks removed (the bidi
controls LRM, RLM, ALM and the embedding/isolate marks, plus zero-width space,
byte-order mark and soft hyphen), every run of whitespace folded to one space.

Matching (``contains``): a substring match on normalised text, except at
digits: a spelling that begins (ends) with a digit does not match where the
character before (after) it is a digit, so ``120`` is never found in ``1200`` and
``8:00`` never in ``18:00``. Under the rules of 2026-12-01 (evalkit/rubric/rulebook.py,
``word_bounds``: pass the question's language) words get boundaries too: a
spelling that begins with a letter or digit must begin a word, where a word
begins after anything but a letter or digit, and in Hebrew also after up to
three of the one-letter proclitics ו ה ב כ ל מ ש (``מחירון`` is found in
``ובמחירון``, ``אבי`` not in ``תל אביב``); in English and Hebrew a spelling
that ends with a letter must end a word (``bit`` is not in ``bitcoin``). In
Russian it may end inside one, because case endings attach to words
(``Новосибирск`` is found in ``Новосибирске``). Before that date letters got
no boundary at all.

Under the rules of 2026-12-02 (``Words``: ``numbers`` and ``forms``):

- Numbers (``number_bounds``). A spelling that ends with a digit does not
  match where the number goes on: a digit, or a colon, point or comma followed
  by a digit; one that begins with a digit, where such a join and a digit
  stand before it. A point or comma and two zeros that end the number are
  cents of nothing, and the number stops there::

      "16"    in "closes at 16:30"     no   (":3" goes on)
      "30"    in "closes at 16:30"     no   ("6:" stands before it)
      "120"   in "$120.50"             no
      "1"     in "1,200"               no   ("200" no either)
      "8:00"  in "open at 8:00."       yes  (a sentence's point, no digit after)
      "9"     in "open 9-17"           yes  (a hyphen joins two numbers)
      "120"   in "$120.00"             yes  (zero cents)
      "7"     in "7.000 ₽"             no   (a thousands group has three digits)
      "31.10" in "31.10.2026"          no   (the spelling "31.10." is found)

- Word forms (``word_forms``). Hebrew: the letters between the word's start
  and the spelling are proclitics in the order Hebrew writes them, three at
  most: ו, then ש or כש, then one of ב כ ל מ, then ה (HEBREW_PROCLITICS);
  after ב, כ and ל the article's ה is absorbed and not written, so ה follows
  only ו, ש, כש or מ. Russian: a spelling that ends with a letter may be
  followed, inside its word, only by one of RUSSIAN_ENDINGS (the case and
  number endings of nouns and adjectives), and then the word ends. English
  is as before::

      "מחירון"      in "ובמחירון"        yes  (ו ב)
      "מחירון"      in "כשהמחירון"       yes  (כש ה)
      "מחירון"      in "בהמחירון"        no   (ה after ב: Hebrew writes במחירון)
      "מחירון"      in "הבמחירון"        no   (the article before the preposition)
      "מחירון"      in "וכשבמחירון"      no   (four letters)
      "Новосибирск" in "Новосибирске"    yes  (-е)
      "бесплатн"    in "бесплатная"      yes  (-ая)
      "Дмитри"      in "Дмитрию"         yes  (-ю)
      "Иван"        in "Иванович"        no   (-ович is no ending)
      "Андрей"      in "Андрейченко"     no
      "7 мин"       in "7 минут"         no   (write "7 минут"; "7 мин." still matches)
      "Иван"        in "Иванов"          yes  (-ов is a genitive plural: a known limit)

Blankness (``visible``): under the rules of 2026-12-01 an answer is blank when
nothing is left of it once white space and the invisible characters (Unicode
categories Cc and Cf: controls, the zero-width space, bidi marks) are removed.

Language share (``script_share``): letters are the characters of Unicode
category L*, counted after URLs and e-mail addresses are removed; the share is
the fraction of them written in the question's script (Latin for en, Hebrew for
he, Cyrillic for ru).

Clauses (``clauses``): the negation flag's unit (evalkit/rubric/measures.py): a
clause ends at a line break and at . ! ; followed by white space; not at a
question mark, since a question the answer asks itself is answered by what
follows ("Free parking? Not at our clinic").

What this module does not do: stemming, synonym matching, number parsing
("eight" is not 8), telling a word's form from another word that looks like
it (Иванов, לבן: ל + בן "to a son" or "white"). Those are the human
reviewer's job, by design.
"""

import re
import unicodedata
from collections import namedtuple

# The bidi controls (LRM, RLM, ALM, embeddings, overrides, isolates), as a
# character class's contents: the pages show each as a mark (pages/explore.py).
BIDI_CONTROLS = "\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069"
# They, the zero-width space, the byte-order mark and the soft hyphen.
INVISIBLE = re.compile(f"[{BIDI_CONTROLS}\u200b\ufeff\u00ad]")

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
# as, to, from, that) before the word a spelling names: under the rules of
# 2026-12-01 any three of these letters.
PROCLITICS = "והבכלמש"
WORD_END_LANGS = {"en", "he"}  # Russian endings attach to the word: no end boundary


class Words(namedtuple("Words", "lang numbers forms", defaults=(False, False))):
    """Where ``contains`` draws word boundaries: ``lang``, the question's
    language (rules of 2026-12-01, ``word_bounds``); ``numbers``, a number
    goes on past a colon, point or comma followed by a digit (2026-12-02,
    ``number_bounds``); ``forms``, the Hebrew proclitics and Russian endings
    are closed lists (2026-12-02, ``word_forms``)."""
    __slots__ = ()


# Where a clause ends (``clauses``): the punctuation stays with its clause. A
# question mark ends none: a question an answer asks itself is answered by
# what follows it ("Free parking? Not at our clinic").
CLAUSE_END = re.compile(r"(?<=[.!;])\s+")

# 2026-12-02 (number_bounds): what joins the parts of one number (16:30,
# 120.50, 1,200) when a digit follows it.
NUMBER_JOINS = ":.,"
# ...except a point or comma and two zeros that end the number: zero cents
# (120.00, 120,00) leave the value as it was, while a thousands group has
# three digits (1,000 and 7.000 go on past "1" and "7").
ZERO_CENTS = re.compile(r"[.,]00(?!\d)")

# 2026-12-02 (word_forms): the proclitics Hebrew writes, in the order it
# writes them, three letters at most: ו (and); ש or כש (that, when); one of
# ב כ ל מ (in, as, to, from); ה (the). After ב, כ and ל the article's ה is
# not written (בבית, not בהבית: the preposition absorbs it), so ה follows
# only ו, ש, כש or מ, or stands alone (והבית, שהבית, כשהבית, מהבית, הבית).
HEBREW_PROCLITICS = re.compile("ו?(?:כ?ש)?(?:[בכל]|מ?ה?)")

# 2026-12-02 (word_forms): what may follow a Russian spelling that ends with a
# letter, before the word ends: the case and number endings of nouns and
# adjectives (full and short forms) as written after a stem. No verb, no
# diminutive or patronymic suffix (-ович, -овна, -ик), no second stem.
RUSSIAN_ENDINGS = frozenset((
    # one letter: а я о е ё у ю ы и ь й (Новосибирск-е, недел-и, пятнадцат-ь,
    # Дмитри-й, бесплатн-о)
    "а", "я", "о", "е", "ё", "у", "ю", "ы", "и", "ь", "й",
    # nouns: instrumental, dative, prepositional and genitive plural
    "ой", "ей", "ёй", "ом", "ем", "ём", "ою", "ею", "ью", "ам", "ям", "ах", "ях",
    "ами", "ями", "ов", "ев", "ёв",
    # adjectives
    "ый", "ий", "ая", "яя", "ое", "ее", "ые", "ие", "ую", "юю", "ым", "им", "ых", "их",
    "ого", "его", "ому", "ему", "ыми", "ими",
))

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
    already normalised. An empty needle is found nowhere. ``words`` says where
    words have boundaries: None before 2026-12-01, else a ``Words`` (the
    question's language and the rules of 2026-12-02 in force or not)."""
    if not needle:
        return False
    start = hay.find(needle)
    while start != -1:
        if at_word(hay, start, start + len(needle), words):
            return True
        start = hay.find(needle, start + 1)
    return False


def occurrences(hay, needle, words=None):
    """The start of every place where ``needle`` occurs in ``hay`` by the
    matching rule (``contains`` stops at the first)."""
    found = []
    start = hay.find(needle) if needle else -1
    while start != -1:
        if at_word(hay, start, start + len(needle), words):
            found.append(start)
        start = hay.find(needle, start + 1)
    return found


def clauses(text):
    """``text`` cut into clauses, each normalised: a clause ends at a line
    break, and at ``.`` ``!`` or ``;`` followed by white space or the end, so
    that 8:00, 120.50 and "9 a.m." stay whole. A question mark ends none (a
    question the answer asks itself is answered by the next words: "Free
    parking? Not at our clinic"), nor does a comma or a colon: a negation
    reaches across them, to a list ("we don't take Medicare, Cigna or
    Aetna") and to the clause it contradicts ("..., but Spanish is not one
    of our languages")."""
    return [clause for line in text.splitlines()
            for clause in CLAUSE_END.split(normalize(line)) if clause]


def at_word(hay, start, end, words):
    """Whether ``hay[start:end]`` stands where the matching rule allows it."""
    return _starts_here(hay, start, words) and _ends_here(hay, end, words)


def _starts_here(hay, start, words):
    first = hay[start]
    before = hay[start - 1] if start > 0 else ""
    if first.isdigit():
        if before.isdigit():
            return False
        # 2026-12-02: "30" is not the end of "16:30", nor "200" of "1,200".
        if words is not None and words.numbers and before in NUMBER_JOINS and \
                start > 1 and hay[start - 2].isdigit():
            return False
    if words is None or not first.isalnum() or not before.isalnum():
        return True
    if words.lang != "he":
        return False
    return _hebrew_proclitics(hay, start) if words.forms else _any_proclitics(hay, start)


def _any_proclitics(hay, start):
    """Hebrew (2026-12-01): up to three proclitics before the word, the first
    of them at a word start."""
    prefix = start
    while start - prefix < 3 and prefix > 0 and hay[prefix - 1] in PROCLITICS:
        prefix -= 1
        if prefix == 0 or not hay[prefix - 1].isalnum():
            return True
    return False


def _hebrew_proclitics(hay, start):
    """2026-12-02: the letters between the word's start and ``start`` are a
    sequence of proclitics that Hebrew writes (HEBREW_PROCLITICS)."""
    left = start
    while left > 0 and hay[left - 1].isalnum() and start - left < 3:
        left -= 1
    if left > 0 and hay[left - 1].isalnum():
        return False  # four letters or more before it: inside a word
    return HEBREW_PROCLITICS.fullmatch(hay[left:start]) is not None


def _ends_here(hay, end, words):
    last = hay[end - 1]
    after = hay[end] if end < len(hay) else ""
    if last.isdigit():
        if after.isdigit():
            return False
        # 2026-12-02: "16" is not the start of "16:30", nor "120" of "120.50";
        # "8:00." at the end of a sentence is still "8:00", and "120.00" is
        # 120 (ZERO_CENTS).
        return not (words is not None and words.numbers and after in NUMBER_JOINS and
                    hay[end + 1:end + 2].isdigit() and not ZERO_CENTS.match(hay, end))
    if words is None or not last.isalnum() or not after.isalnum():
        return True
    if words.lang in WORD_END_LANGS:
        return False
    if words.lang == "ru" and words.forms:
        return _russian_ending(hay, end)
    return True  # Russian before 2026-12-02: endings of any length


def _russian_ending(hay, end):
    """2026-12-02: the letters from ``end`` to the end of the word are one of
    RUSSIAN_ENDINGS."""
    stop = end
    while stop < len(hay) and hay[stop].isalnum() and stop - end < 3:
        stop += 1
    if stop < len(hay) and hay[stop].isalnum():
        return False  # four letters or more: no ending is that long
    return hay[end:stop] in RUSSIAN_ENDINGS


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
    # Python instead takes 1.7 s more at 100,000 answers (measured alone,
    # 2026-12-02), which would put make bench's scoring row, about 18 s or 7x
    # json.loads, past its target of 8x.
    rest = text.encode("utf-8", "surrogatepass").translate(None, _ASCII_NON_LETTERS) \
        .decode("utf-8", "surrogatepass")
    letters = rest if rest.isalpha() else "".join(filter(str.isalpha, rest))
    others = _SCRIPT_RUN[lang].sub("", letters)  # the letters not in the script
    return len(letters) - len(others), len(letters)

