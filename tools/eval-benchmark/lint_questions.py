#!/usr/bin/env python3
"""Find the defects of a site-qa question file that make verdicts wrong.

    python tools/eval-benchmark/lint_questions.py QUESTIONS.json [...]
        [--sites DIR] [--rules-as-of YYYY-MM-DD]

One line per defect, each naming the file, the question and the string:

  topic in must_not_include  a must_not_include string the question itself
                             holds, or the site's own decline message: a
                             decline that names the topic would fail
  echo                       a fact spelling the question itself holds:
                             repeating the question would pass Correct facts
  not in the evidence        a fact group none of whose spellings is found in
                             the evidence sentence
With --sites (the demo sites, default Documents/c4-benchmark/sites when the
question file's set has a site there):
  evidence not on the page   the evidence is not in the visible text of
                             source_url or of a page in also_source_urls
  unlisted page              another page of that language states the
                             evidence word for word but is not listed in
                             also_source_urls (the sets must be consistent)
  inside a longer word       a spelling the matching rule finds on the site
                             inside a longer word (``ביט`` in ``ביטול``):
                             a wrong answer using that word would pass

Strings are compared as the scorer compares them, by the rules of the date
given (evalkit/rulebook.py; default the newest): linting an old question file
with its quarter's date shows the defects its verdicts had. The sites are the
demo sites as the reference assistant reads them (tools/demo-assistant).

Exit codes: 0 no defect; 1 defects listed; 2 could not start (a bad file).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "demo-assistant"))

import pages  # noqa: E402  (the demo sites' reader)
from evalkit import cli  # noqa: E402
from evalkit.cases import load_site_qa  # noqa: E402
from evalkit.rulebook import rules_as_of  # noqa: E402
from evalkit.textmatch import at_word, contains, normalize  # noqa: E402
from evalkit.urls import normalize_url  # noqa: E402

PROG = "lint_questions.py"
SITES = os.path.join(ROOT, "Documents", "c4-benchmark", "sites")


def parse_args(argv):
    parser = cli.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", metavar="QUESTIONS.json")
    parser.add_argument("--sites", default=SITES,
                        help="the demo sites' folder (sites.json); 'none' to skip the site checks")
    parser.add_argument("--rules-as-of", metavar="YYYY-MM-DD",
                        help="compare by the rules of this date (default: the newest)")
    return parser.parse_args(argv)


def lint_question(q, rules, site, texts):
    """The defects of one question: ``(kind, what)`` pairs. ``texts`` are the
    site's pages, normalised, by URL (``page_texts``)."""
    words = q["lang"] if rules.word_bounds else None
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
    if site is not None:
        defects += site_defects(q, words, texts)
    return defects


def page_texts(site):
    """A site's pages as the scorer compares text: normalised, by URL."""
    return {normalize_url(page.url): normalize(page.title + "\n" + page.text)
            for page in site.pages}


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
    strict = q["lang"]  # where a word begins and ends, whatever the date's rule
    for spelling in {s for group in q["facts"] for s in group}:
        needle = normalize(spelling)
        for url, text in sorted(texts.items()):
            inside = longer_word(text, needle, words, strict)
            if inside:
                defects.append(("inside a longer word", f"{spelling!r} in {inside!r} on {url}"))
                break
    return defects


def longer_word(text, needle, words, strict):
    """A word of ``text`` that the rule (``words``) finds ``needle`` in,
    though it begins or ends elsewhere than ``needle``, or None."""
    start = text.find(needle) if needle else -1
    while start != -1:
        end = start + len(needle)
        if at_word(text, start, end, words) and not at_word(text, start, end, strict):
            left = start
            while left > 0 and text[left - 1].isalnum():
                left -= 1
            right = end
            while right < len(text) and text[right].isalnum():
                right += 1
            return text[left:right]
        start = text.find(needle, start + 1)
    return None


def lint_command(args):
    rules = rules_as_of(args.rules_as_of)
    sites = [] if args.sites == "none" else pages.load_sites(args.sites)
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
        print(line)
    print(f"{PROG}: {len(lines)} defect(s) in {len(args.files)} file(s), rules as of "
          f"{rules.date}", file=sys.stderr)
    return 1 if lines else 0


def main(argv=None) -> int:
    return cli.run(PROG, argv, parse_args, lint_command)


if __name__ == "__main__":
    sys.exit(main())
