"""The text rules every measure shares: normalisation, matching, language share.

Normalisation (``normalize``): Unicode NFKC (full-width digits become ASCII, a
no-break space becomes a space), casefold, invisible marks removed (the bidi
controls LRM, RLM, ALM and the embedding/isolate marks, plus zero-width space,
byte-order mark and soft hyphen), every run of whitespace folded to one space.

Matching (``contains``, where ``Words`` says; the rules of a date give the
``Words`` of each language, evalkit/rubric/rulebook.py, and those before
2026-12-02 drew other boundaries: evalkit/rubric/earlier.py): a substring
match on normalised text where the spelling stands on its own:

- Words. A spelling that begins with a letter or digit must begin a word,
  where a word begins after anything but a letter or digit (in Hebrew, after
  its proclitics: below); in English and Hebrew a spelling that ends with a
  letter must end a word (``bit`` is not in ``bitcoin``), and in Russian it
  may be followed, inside its word, only by a case ending (below).

- Numbers. A spelling that ends with a digit does not match where the number
  goes on: a digit, or a colon, point or comma followed by a digit; one that
  begins with a digit, where a digit, or such a join and a digit, stand
  before it (``120`` is never found in ``1200``, ``8:00`` never in ``18:00``). A point or comma and two zeros that end the number are
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

- Word forms. Hebrew: the letters between the word's start
  and the spelling are proclitics in the order Hebrew writes them, three at
  most: ו, then ש or כש, then one of ב כ ל מ, then ה (HEBREW_PROCLITICS);
  after ב, כ and ל the article's ה is absorbed and not written, so ה follows
  only ו, ש, כש or מ. Russian: a spelling that ends with a letter may be
  followed, inside its word, only by one of RUSSIAN_ENDINGS (the case and
  number endings of nouns and adjectives), and then the word ends::

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

Blankness (``visible``): an answer is blank when
nothing is left of it once white space and the invisible characters (Unicode
categories Cc and Cf: controls, the zero-width space, bidi marks) are removed.

Language share (``script_share``): letters are the characters of Unicode
category L*, counted after URLs (with a scheme or without: med.demo.localhost/en/)
and e-mail addresses are removed; the share is
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
# or without a path.
BARE_DOMAINS = re.compile(r"(?<![\w@.-])(?:[a-z0-9-]+\.)+[a-z]{2,}\b(?:/\S*)?", re.IGNORECASE)
_DOTTED = re.compile(r"\.[^\W\d_]")  # a dot before a letter

WORD_END_LANGS = {"en", "he"}  # Russian endings attach to the word: no end boundary


# Where a clause ends (``clauses``): the punctuation stays with its clause. A
# question mark ends none: a question an answer asks itself is answered by
# what follows it ("Free parking? Not at our clinic").
CLAUSE_END = re.compile(r"(?<=[.!;])\s+")

# What joins the parts of one number (16:30,
# 120.50, 1,200) when a digit follows it.
NUMBER_JOINS = ":.,"
# ...except a point or comma and two zeros that end the number: zero cents
# (120.00, 120,00) leave the value as it was, while a thousands group has
# three digits (1,000 and 7.000 go on past "1" and "7").
ZERO_CENTS = re.compile(r"[.,]00(?!\d)")

# The proclitics Hebrew writes, in the order it
# writes them, three letters at most: ו (and); ש or כש (that, when); one of
# ב כ ל מ (in, as, to, from); ה (the). After ב, כ and ל the article's ה is
# not written (בבית, not בהבית: the preposition absorbs it), so ה follows
# only ו, ש, כש or מ, or stands alone (והבית, שהבית, כשהבית, מהבית, הבית).
HEBREW_PROCLITICS = re.compile("ו?(?:כ?ש)?(?:[בכל]|מ?ה?)")

# What may follow a Russian spelling that ends with a
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


def contains(hay, needle, words):
    """True when ``needle`` occurs in ``hay`` where ``words`` (a ``Words``)
    allows it; both are already normalised. An empty needle is found nowhere."""
    if not needle:
        return False
    start = hay.find(needle)
    while start != -1:
        if words.at(hay, start, start + len(needle)):
            return True
        start = hay.find(needle, start + 1)
    return False


def occurrences(hay, needle, words):
    """The start of every place where ``needle`` occurs in ``hay`` by the
    matching rule (``contains`` stops at the first)."""
    found = []
    start = hay.find(needle) if needle else -1
    while start != -1:
        if words.at(hay, start, start + len(needle)):
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


class Words:
    """Where a spelling may stand in a text of one language (``lang``): the
    matching rule (module docstring). ``at`` holds a place to it, ``starts``
    and ``ends`` its two ends. The rules before 2026-12-02 drew other
    boundaries (evalkit/rubric/earlier.py)."""
    __slots__ = ("lang",)

    def __init__(self, lang):
        self.lang = lang

    def at(self, hay, start, end):
        """Whether ``hay[start:end]`` stands where the matching rule allows it."""
        return self.starts(hay, start) and self.ends(hay, end)

    def starts(self, hay, start):
        first = hay[start]
        before = hay[start - 1] if start > 0 else ""
        # A digit goes on a number: "30" is not the end of "16:30", nor "200" of "1,200".
        if first.isdigit() and (before.isdigit() or (
                before in NUMBER_JOINS and start > 1 and hay[start - 2].isdigit())):
            return False
        if not first.isalnum() or not before.isalnum():
            return True
        return self.lang == "he" and _hebrew_proclitics(hay, start)

    def ends(self, hay, end):
        last = hay[end - 1]
        after = hay[end] if end < len(hay) else ""
        if last.isdigit():
            # "16" is not the start of "16:30", nor "120" of "120.50"; "8:00." at
            # the end of a sentence is still "8:00", and "120.00" is 120 (ZERO_CENTS).
            return not (after.isdigit() or (after in NUMBER_JOINS and hay[end + 1:end + 2].isdigit()
                                            and not ZERO_CENTS.match(hay, end)))
        if not last.isalnum() or not after.isalnum():
            return True
        if self.lang == "ru":
            return _russian_ending(hay, end)
        return self.lang not in WORD_END_LANGS


def _hebrew_proclitics(hay, start):
    """The letters between the word's start and ``start`` are a sequence of
    proclitics that Hebrew writes (HEBREW_PROCLITICS)."""
    left = start
    while left > 0 and hay[left - 1].isalnum() and start - left < 3:
        left -= 1
    if left > 0 and hay[left - 1].isalnum():
        return False  # four letters or more before it: inside a word
    return HEBREW_PROCLITICS.fullmatch(hay[left:start]) is not None


def _russian_ending(hay, end):
    """The letters from ``end`` to the end of the word are one of
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


def script_share(text, lang):
    """``(letters in the language's script, all letters)`` of ``text``, its
    links removed, with a scheme or without (``without_links``)."""
    text = without_links(unicodedata.normalize("NFKC", text))
    # A link without a scheme has a dot before a letter (BARE_DOMAINS can
    # match nowhere else): testing for that first, a search that starts from
    # a literal (0.3 us), spares most answers BARE_DOMAINS's scan (15 us).
    if _DOTTED.search(text):
        text = BARE_DOMAINS.sub(" ", text)
    return letter_share(text, lang)


def without_links(text):
    """``text`` without its URLs written with a scheme or www. and its e-mail
    addresses (LINKS)."""
    # LINKS can match only where one of these is (its alternatives hold
    # "://", "www." in any case, or "@"): testing for them first spares most
    # answers its scan, 80 us of an answer's 100.
    if "://" in text or "@" in text or "www." in text.lower():
        return LINKS.sub(" ", text)
    return text


def letter_share(text, lang):
    """``(letters in the language's script, all letters)`` of ``text``: its
    characters of category L*, and those of them in SCRIPT_RANGES."""
    # The ASCII non-letters (spaces, digits, punctuation) are dropped first,
    # from the UTF-8 bytes, where no ASCII byte is part of a longer character;
    # what is left is most often letters only. Testing every character in
    # Python instead takes 1.7 s more at 100,000 answers (measured alone,
    # 2026-12-02), which would put make bench's scoring row past its target.
    rest = text.encode("utf-8", "surrogatepass").translate(None, _ASCII_NON_LETTERS) \
        .decode("utf-8", "surrogatepass")
    letters = rest if rest.isalpha() else "".join(filter(str.isalpha, rest))
    others = _SCRIPT_RUN[lang].sub("", letters)  # the letters not in the script
    return len(letters) - len(others), len(letters)
