#!/usr/bin/env python3
"""Find the defects of a site-qa question file that make verdicts wrong.

    python3 tools/eval-benchmark/lint_questions.py QUESTIONS.json [...]
        [--sites DIR] [--rules-as-of YYYY-MM-DD]

One line per defect, each naming the file, the question and the string:

  topic in must_not_include  a must_not_include string the question itself
                             holds, or the site's own decline message: a
                             decline that names the topic would fail
  echo                       a fact spelling the question itself holds:
                             repeating the question would pass Correct facts
  not in the evidence        a fact group none of whose spellings is found in
                             the evidence sentence
  uncovered qualifier        the evidence states a fact beside a qualifier
                             (a unit, a period, a day or a mode: QUALIFIERS)
                             that no fact group holds, and the question does
                             not name it: "290 a year" would pass for "290 a
                             month"
With --sites (the demo sites, default Documents/c4-benchmark/sites when the
question file's set has a site there):
  evidence not on the page   the evidence is not in the visible text of
                             source_url or of a page in also_source_urls
  unlisted page              another page of that language states the
                             evidence word for word but is not listed in
                             also_source_urls (the sets must be consistent)
  inside a longer word       a spelling the matching rule finds on the site
                             inside a longer word (``ביט`` in ``ביטול``; by
                             the rules of 2026-12-02 only after a proclitic
                             or before a case ending) that is neither a word
                             of the evidence nor a spelling of its group: a
                             wrong answer using that word would pass. Where
                             the word is a form of the fact, the writer says
                             so by listing it as a spelling; where it is
                             another word, the spelling must be narrowed.

A qualifier is "beside" a fact when at most one word stands between them in
the evidence, with no sentence end between: a unit, period or mode after the
fact ("85 per month", "290 ₪ לחודש", "45 минут", "650 ₪ בתשלום חד-פעמי"), a
day on either side ("on Mondays from 9:00", "14:00 по вторникам"). A group
holds it when one of its spellings is found in the evidence at the
qualifier's place. A qualifier the question names (any of its forms) is left
out: the answer need not repeat it, and a spelling the question holds is an
echo.

Strings are compared as the scorer compares them, by the rules of the date
given (evalkit/rubric/rulebook.py; default the newest): linting an old question file
with its quarter's date shows the defects its verdicts had. The sites are the
demo sites' pages, each page's title and visible text (evalkit/rubric/sitepages.py).

What it does not find: a qualifier further from its fact than one word
("£120 per quarter, or £60 if ...": the 60 is per quarter too), a qualifier
not in the lists (a currency, "per employee", on foot or by car, am or pm),
and whether a word it lists is the fact's form or another word: that is the
writer's judgement, recorded by listing the word as a spelling.

Exit codes: 0 no defect; 1 defects listed; 2 could not start (a bad file).
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from evalkit import cli  # noqa: E402
from evalkit.rubric.cases import load_site_qa  # noqa: E402
from evalkit.rubric.qualifiers import QUALIFIERS  # noqa: E402
from evalkit.rubric.rulebook import rules_as_of  # noqa: E402
from evalkit.rubric.sitepages import load_sites  # noqa: E402
from evalkit.textmatch import contains, normalize, occurrences  # noqa: E402
from evalkit.rubric.urls import normalize_url  # noqa: E402

PROG = "lint_questions.py"
SITES = os.path.join(ROOT, "Documents", "c4-benchmark", "sites")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0], examples=(
        "python3 tools/eval-benchmark/lint_questions.py Documents/c4-benchmark/questions-med.json "
        "Documents/c4-benchmark/questions-biz.json",
        "python3 tools/eval-benchmark/lint_questions.py Documents/c4-benchmark/questions-med.json "
        "--rules-as-of 2026-12-01"))
    parser.add_argument("files", nargs="+", metavar="QUESTIONS.json")
    parser.add_argument("--sites", default=SITES,
                        help="the demo sites' folder (sites.json); 'none' to skip the site checks")
    parser.add_argument("--rules-as-of", dest="rules_date", metavar="YYYY-MM-DD",
                        help="compare by the rules of this date (default: the newest)")
    return parser.parse_args(argv)


_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")


def lint_question(q, rules, site, texts):
    """The defects of one question: ``(kind, what)`` pairs. ``texts`` are the
    site's pages, normalised, by URL (``page_texts``)."""
    words = rules.words(q["lang"])
    asked = normalize(q["question"])
    defects = []
    if q["kind"] == "not_on_site":
        declines = [("the question", asked)]
        if site is not None:
            declines.append(("the site's decline message", normalize(site.decline_message)))
        for string in q["must_not_include"]:
            for where, text in declines:
                if contains(text, normalize(string), words):
                    defects.append(("topic in must_not_include", f"{string!r} is in {where}"))
        return defects
    evidence = normalize(q["evidence"])
    for number, group in enumerate(q["facts"], 1):
        if not any(contains(evidence, normalize(s), words) for s in group):
            defects.append(("not in the evidence", f"fact group {number} {group}"))
        for spelling in group:
            if contains(asked, normalize(spelling), words):
                defects.append(("echo", f"{spelling!r} is in the question"))
    defects += uncovered_qualifiers(q, evidence, asked, words)
    if site is not None:
        defects += site_defects(q, words, texts)
    return defects


def uncovered_qualifiers(q, evidence, asked, words):
    """A qualifier of QUALIFIERS beside a fact in the evidence that no fact
    group holds and the question does not name, once per qualifier."""
    facts = [(start, start + len(needle)) for group in q["facts"]
             for needle in map(normalize, group) for start in occurrences(evidence, needle, words)]
    defects = []
    for name, where, forms in QUALIFIERS.get(q["lang"], ()):
        if any(contains(asked, normalize(form), words) for form in forms):
            continue
        for form in forms:
            needle = normalize(form)
            beside = [(start, fact) for start in occurrences(evidence, needle, words)
                      for fact in facts
                      if not any(start < end and left < start + len(needle) for left, end in facts)
                      and _beside(evidence, fact, (start, start + len(needle)), where)]
            if beside:
                start, (left, right) = beside[0]
                word = _word_at(evidence, start, start + len(needle))
                defects.append(("uncovered qualifier",
                                f"{word!r} ({name}) beside {evidence[left:right]!r}: no fact "
                                f"group holds it; its forms: {', '.join(forms)}"))
                break
    return defects


def _beside(evidence, fact, qualifier, where):
    """Whether ``qualifier`` stands beside ``fact`` (spans in ``evidence``):
    after it (or, for a day, before it too), at most one word between, no
    sentence end between."""
    if qualifier[0] >= fact[1]:
        gap = evidence[fact[1]:qualifier[0]]
    elif where == "beside" and qualifier[1] <= fact[0]:
        gap = evidence[qualifier[1]:fact[0]]
    else:
        return False
    return len(_WORD.findall(gap)) <= 1 and not _SENTENCE_END.search(gap)


def _word_at(text, start, end):
    """``text[start:end]`` widened to the whole words it stands in."""
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[start:end]


def page_texts(site):
    """A site's pages as the scorer compares text: normalised, by URL."""
    return {normalize_url(url): normalize(text) for url, text in site.pages}


def site_defects(q, words, texts):
    evidence = normalize(q["evidence"])
    listed = {normalize_url(url) for url in [q["source_url"]] + q["also_source_urls"]}
    defects = []
    for url in sorted(listed):
        if evidence not in texts.get(url, ""):
            defects.append(("evidence not on the page", url))
    for url in sorted(set(texts) - listed):
        if evidence in texts[url]:
            defects.append(("unlisted page", url))
    for group in q["facts"]:
        spellings = {normalize(spelling) for spelling in group}
        for spelling in group:
            for word, url in longer_words(texts, normalize(spelling), words):
                if word not in spellings and not _whole_words_in(evidence, word):
                    defects.append(("inside a longer word", f"{spelling!r} in {word!r} on {url}"))
    return defects


def longer_words(texts, needle, words):
    """``[(word, url)]``: each word of the pages that the rule (``words``)
    finds ``needle`` in, though it begins or ends elsewhere than ``needle``,
    with the first page (by URL) it is on; sorted by word."""
    found = {}
    for url, text in sorted(texts.items()):
        for start in occurrences(text, needle, words):
            word = _word_at(text, start, start + len(needle))
            if word != needle:
                found.setdefault(word, url)
    return sorted(found.items())


def _whole_words_in(text, words):
    """Whether ``words`` stands in ``text`` beginning and ending a word."""
    start = text.find(words)
    while start != -1:
        end = start + len(words)
        if (start == 0 or not text[start - 1].isalnum()) and \
                (end == len(text) or not text[end].isalnum()):
            return True
        start = text.find(words, start + 1)
    return False


def lint_command(args):
    rules = rules_as_of(args.rules_date)
    sites = [] if args.sites == "none" else load_sites(args.sites)
    # Each site's pages are normalised once, not once per question.
    by_lang = {(site.set, site.lang): (site, page_texts(site)) for site in sites}
    lines = []
    for path in args.files:
        qset = load_site_qa(path)
        for q in qset.questions:
            site, texts = by_lang.get((qset.set, q["lang"]), (None, None))
            for kind, what in lint_question(q, rules, site, texts):
                lines.append(f"{path}: {q['id']}: {kind}: {what}")
    for line in lines:
        print(cli.escaped(line))
    print(f"{PROG}: {len(lines)} defect(s) in {len(args.files)} file(s), rules as of "
          f"{rules.rules_date}", file=sys.stderr)
    return 1 if lines else 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, lint_command)


if __name__ == "__main__":
    sys.exit(main())
