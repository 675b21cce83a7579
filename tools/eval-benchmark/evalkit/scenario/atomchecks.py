"""Atoms held to the verbatim answer they claim to come from.

The evaluator writes each atom from the answer; nothing in the atoms format
stops it writing a claim the answer never made, the same claim twice, or a
verified truth that says no more than "No". The spec's formulas take every
atom as given, and so does atomscore.py; these checks mark such atoms and
count them beside the scores (``set_aside``), never dropping one:

  unsupported          no content word of the atom's text is in any sentence
                       of the answer (the claim shares nothing with it)
  duplicate            its text is an earlier atom's of the same answer, read
                       as words (case, width, punctuation and spacing aside)
  truth_only_negates   its verified truth adds nothing to the claim but a
                       negation: no content word at all beside a negation
                       ("No.", "Not true", "None", "Нет", "לא נכון"), or the
                       claim's own content words, all of them and no other,
                       with a negation added or taken away ("A permit is not
                       required" for "A permit is required")

Words (``words``): the text read as textmatch.normalize reads it (NFKC, case
folded, spacing folded, bidi marks removed), then runs of letters (an
apostrophe inside a word kept) and numbers (digits joined by . , : /, the
thousands commas dropped: 1,700 is 1700). A number is always a content word.
A run of letters is a content word when it is not a function word of its
script's language (STOP_WORDS: English for Latin letters, Hebrew, Russian for
Cyrillic), nor a negation (NEGATIONS), nor a word of a verdict (VERDICTS:
"true", "correct", "claim"; "נכון"; "верно"), and has at least MIN_LETTERS
letters (3 for Latin and Cyrillic, 2 for Hebrew, whose roots are short).

Two words are one when one's key is among the other's forms (``_keys``,
``_key``): a word's forms are its prefixes of MIN_LETTERS to 5 letters and the
word itself; its key is its prefix of len - 2 letters, at least MIN_LETTERS
and at most 5. So endings do not separate forms of one word ("permits",
"permitted", "permission" are one; "участок", "участке"; "забор", "забора"),
and a Hebrew word is looked for also without one or two of the prefix
letters ו ה ב כ ל מ ש ("והגדר" is "גדר"). The rule is lenient on purpose: it
marks an atom unsupported only when nothing of it is in the answer, so what
it misses is an invented claim that reuses the answer's words; what it marks
is a claim the answer does not contain in any form.
"""

import re
from functools import lru_cache

from ..textmatch import normalize

WORD = re.compile(r"\d+(?:[.,:/]\d+)*|[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
HEBREW = re.compile(r"[\u0590-\u05ff]")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")
HEBREW_PREFIXES = "והבכלמש"
MIN_LETTERS = {"latin": 3, "cyrillic": 3, "hebrew": 2}
LONGEST_KEY = 5

NEGATIONS = frozenset("""
no not never none nor neither nothing nobody false incorrect wrong untrue nope
isn't aren't wasn't weren't doesn't don't didn't can't cannot won't wouldn't shouldn't
mustn't needn't hasn't haven't hadn't
לא אין אינו אינה אינם אינן שגוי
нет не ни никогда неверно неправда ложь ошибочно неправильно
""".split())

# What a verdict says of a claim without saying anything of its own ("Not
# true", "This claim is correct"): never a content word.
VERDICTS = frozenset("""
true correct correctly right accurate accurately valid claim statement case indeed actually
נכון מדויק טענה
верно правда правильно точно утверждение
""".split())

STOP_WORDS = frozenset("""
the a an and or but if then than that this these those there here it its it's they them
their theirs you your yours we our ours he she him her his i me my mine of to in on at by
for from with without as into onto over under about above below after before between
through during up down out off again also too very just only any all each every both
few more most other some such own same so is are was were be been being am do does did
doing have has had having can could may might must shall should will would need needs
what which who whom whose when where why how not yes one per via
את של על עם אל גם כי אם או אבל רק כל זה זו זאת אלה הוא היא הם הן אני אתה את אנחנו
אתם אתן יש היה היתה היו יהיה כך כן מה מי איך למה כמו עד אחרי לפני בין תחת מעל
и в во на с со по к ко о об от до из у за для при без над под про через это этот эта
эти тот та те то как так же ли бы что кто где когда если но или а да вы ты мы он она
они оно я его её ее их им ими вас нас вам нам мне меня быть был была были будет есть
уже еще ещё только все всё весь можно нужно надо
""".split())


def words(text):
    """The words of ``text`` as the checks read them (normalized, thousands
    commas out of numbers)."""
    found = WORD.findall(normalize(text or "").replace("\u2019", "'"))
    return [re.sub(r"(?<=\d),(?=\d{3}\b)", "", w) if w[0].isdigit() else w for w in found]


# An answer's words repeat across its atoms and across answers: each word's
# script, content and keys are worked out once (pure functions of the word).
@lru_cache(maxsize=1 << 16)
def _script(word):
    if HEBREW.search(word):
        return "hebrew"
    return "cyrillic" if CYRILLIC.search(word) else "latin"


@lru_cache(maxsize=1 << 16)
def is_content(word):
    """A number, or a word of letters that is no function word nor negation
    and has its script's MIN_LETTERS."""
    if word[0].isdigit():
        return True
    return word not in STOP_WORDS and word not in NEGATIONS and word not in VERDICTS and \
        len(word) >= MIN_LETTERS[_script(word)]


def _forms(word):
    """The word, and a Hebrew word without one or two prefix letters."""
    if _script(word) != "hebrew":
        return [word]
    out = [word]
    for cut in (1, 2):
        head, rest = word[:cut], word[cut:]
        if all(c in HEBREW_PREFIXES for c in head) and len(rest) >= MIN_LETTERS["hebrew"]:
            out.append(rest)
    return out


@lru_cache(maxsize=1 << 16)
def _keys(word):
    """What an answer's word is found by: each form's prefixes of MIN_LETTERS
    to LONGEST_KEY letters, and the form itself (a number: itself)."""
    if word[0].isdigit():
        return frozenset((word,))
    least = MIN_LETTERS[_script(word)]
    return frozenset({form[:n] for form in _forms(word)
                      for n in range(least, min(len(form), LONGEST_KEY) + 1)} | set(_forms(word)))


def _key(word):
    """What an atom's word is looked for by, per form: its prefix of len - 2
    letters, at least MIN_LETTERS, at most LONGEST_KEY (a number: itself)."""
    if word[0].isdigit():
        return [word]
    least = MIN_LETTERS[_script(word)]
    return [form[:min(LONGEST_KEY, max(least, len(form) - 2))] for form in _forms(word)]


def _found(word, keys):
    return any(key in keys for key in _key(word))


def _content(text):
    return [w for w in words(text) if is_content(w)]


def _negations(text):
    return {w for w in words(text) if w in NEGATIONS}


def truth_only_negates(claim, truth):
    """True when the verified ``truth`` adds nothing to the ``claim`` but a
    negation (see the module's docstring)."""
    content, said = _content(truth), _content(claim)
    if not content:
        return bool(_negations(truth))
    if _negations(truth) == _negations(claim):
        return False
    claim_keys = set().union(*(_keys(w) for w in said)) if said else set()
    truth_keys = set().union(*(_keys(w) for w in content))
    return all(_found(w, claim_keys) for w in content) and \
        all(_found(w, truth_keys) for w in said)


def check_atoms(atoms, answer):
    """The flags of each atom of an answer, in order: a list of
    ``unsupported``, ``duplicate``, ``truth_only_negates`` (empty when none)."""
    answer_keys = set()
    for word in words(answer):
        if is_content(word):
            answer_keys |= _keys(word)
    seen, out = set(), []
    for atom in atoms:
        flags = []
        if not any(_found(w, answer_keys) for w in _content(atom["text"])):
            flags.append("unsupported")
        said = " ".join(words(atom["text"]))
        if said in seen:
            flags.append("duplicate")
        seen.add(said)
        if truth_only_negates(atom["text"], atom["verified_truth"]):
            flags.append("truth_only_negates")
        out.append(flags)
    return out


FLAGS = ("unsupported", "duplicate", "truth_only_negates")


def counts(atoms, flags, gap):
    """The checks of one answer as results.json counts them: atoms, each
    flag, those set aside (any flag), and the factual atoms (not ``gap``)
    before and after setting those aside."""
    factual = [f for a, f in zip(atoms, flags) if a["correctness"] != gap]
    out = {"atoms": len(atoms)}
    out.update({flag: sum(flag in f for f in flags) for flag in FLAGS})
    out.update({"set_aside": sum(bool(f) for f in flags), "factual_atoms": len(factual),
                "factual_atoms_kept": sum(not f for f in factual)})
    return out
