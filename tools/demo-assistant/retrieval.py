"""Ranked retrieval over one site's sentences: BM25, and when to decline.

The reference assistant answers with the best sentence(s) of the visitor's
site and language, found by BM25 (k1 = 1.2, b = 0.75) over sentences. Words
are Unicode ``\\w+`` runs after NFKC and casefolding, minus a short stop list
per language, with a light stem: English drops a plural ``s``; Russian keeps
the first five letters of a longer word (endings change with case); Hebrew
indexes a word both as written and without one leading prefix letter
(ו ה ב ל מ ש כ), since those attach to the word.

When to decline was fixed before any question was run, and is not tuned to
the questions: the best sentence must match at least half of the question's
information, measured as the share of the question's idf weight (a word found
in no sentence weighs as much as the rarest possible word) that the sentence
contains. Otherwise the assistant says it found nothing and gives the phone.

What it does not do: understand the question, combine facts from two places,
or know that "eight" is 8. It is an honest, simple, sometimes wrong system
under test.
"""

import math
import re
import unicodedata

K1 = 1.2
B = 0.75
COVERAGE_TO_ANSWER = 0.5
SECOND_SENTENCE_RATIO = 0.8   # a second sentence is added when it scores this close

STOP = {
    "en": set("""a an the and or of to in on at for is are was be been do does did
        you your we our i me my it its this that there what which who how when where
        can could would should will with by from as about any have has had not no yes
        please hi hello much many if so just get".split()""".split()),
    "he": set("""של את על עם זה זו זאת יש אין האם מה מי איך כמה מתי איפה אני אתם
        אתן אנחנו הוא היא הם הן לי לכם לנו גם או אם כי רק כל אבל""".split()),
    "ru": set("""и в во не на с со по к ко у о об от до за из а но или ли же бы
        что как где когда сколько какой какая какие кто это есть у вас вы мы я
        мне нам мой ваш для при если то так""".split()),
}
HEBREW_PREFIXES = "והבלמשכ"

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def tokens(text, lang):
    text = unicodedata.normalize("NFKC", text).casefold()
    out = []
    stop = STOP.get(lang, set())
    for word in _WORD.findall(text):
        if word in stop or (len(word) == 1 and not word.isdigit()):
            continue
        if lang == "en" and len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if lang == "ru" and len(word) > 5 and not word.isdigit():
            word = word[:5]
        out.append(word)
        if lang == "he" and len(word) >= 4 and word[0] in HEBREW_PREFIXES:
            out.append(word[1:])
    return out


def sentences(line):
    """Split a block of text into sentences (not after a one- or two-letter
    abbreviation such as "Dr." or "ул.")."""
    parts = []
    start = 0
    for match in _SENTENCE_END.finditer(line):
        before = line[start:match.start()]
        last_word = before.rsplit(None, 1)[-1] if before.split() else ""
        if len(last_word.rstrip(".!?")) <= 2 and last_word.endswith("."):
            continue
        parts.append(line[start:match.start()].strip())
        start = match.end()
    parts.append(line[start:].strip())
    return [p for p in parts if p]


class Index:
    """BM25 over the sentences of one site language (navigation left out)."""

    def __init__(self, site):
        self.lang = site.lang
        self.passages = []   # (sentence, page)
        seen = set()
        for page in site.pages:
            for line, in_nav in page.lines:
                if in_nav:
                    continue
                for sentence in sentences(line):
                    if sentence in seen:
                        continue  # a footer repeated on every page is indexed once
                    seen.add(sentence)
                    self.passages.append((sentence, page))
        self.docs = [tokens(sentence, self.lang) for sentence, _page in self.passages]
        self.avg_len = sum(map(len, self.docs)) / max(len(self.docs), 1)
        df = {}
        for doc in self.docs:
            for word in set(doc):
                df[word] = df.get(word, 0) + 1
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.unseen_idf = math.log(1 + (n + 0.5) / 0.5)

    def search(self, question):
        """``(coverage, score, sentence, page)`` ranked best first."""
        query = sorted(set(tokens(question, self.lang)))
        if not query:
            return []
        weight = {w: self.idf.get(w, self.unseen_idf) for w in query}
        total = sum(weight.values())
        ranked = []
        for (sentence, page), doc in zip(self.passages, self.docs):
            counts = {}
            for word in doc:
                counts[word] = counts.get(word, 0) + 1
            score = 0.0
            matched = 0.0
            for word in query:
                tf = counts.get(word, 0)
                if tf:
                    matched += weight[word]
                    norm = K1 * (1 - B + B * len(doc) / self.avg_len)
                    score += weight[word] * tf * (K1 + 1) / (tf + norm)
            if score > 0:
                ranked.append((matched / total, score, sentence, page))
        # Ties broken by position on the site, so the same question always
        # gets the same answer.
        order = {id(p): i for i, (_s, p) in enumerate(self.passages)}
        ranked.sort(key=lambda r: (-r[1], order[id(r[3])]))
        return ranked


def answer(index, site, question):
    """``(answer text, sources, grounded)`` for one question."""
    ranked = index.search(question)
    if not ranked or ranked[0][0] < COVERAGE_TO_ANSWER:
        return site.decline_message, [], False
    best = ranked[0]
    chosen = [best]
    if len(ranked) > 1:
        second = ranked[1]
        if second[0] >= COVERAGE_TO_ANSWER and second[1] >= SECOND_SENTENCE_RATIO * best[1]:
            chosen.append(second)
    text = " ".join(sentence for _c, _s, sentence, _p in chosen)
    sources = []
    for _c, _s, _sentence, page in chosen:
        if not any(s["url"] == page.url for s in sources):
            sources.append({"url": page.url, "title": page.title})
    return text, sources, True
