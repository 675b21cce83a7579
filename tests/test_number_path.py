"""The README's path of one published number is the code's: every function the
paragraph "How one published number is made" names is called when a quarter
is scored, and scoring calls nothing but those and the helpers listed here,
each with what it does to the number. A new function on the way to a table
fails this test until it is named in the README or listed here with its
reason, so that "no other code" stays a checked claim."""

import json
import os
import re
import sys
import unittest

from tests.support import ROOT, TOOLS

from evalkit.rubric import siteqa
from evalkit.rubric.report import render_markdown

PACKAGE = os.path.join(TOOLS, "evalkit") + os.sep
QUARTER = os.path.join(ROOT, "Documents", "c4-benchmark", "demo-2026-12")
# The README's headline table: the rules of 2026-12-02 add flags, word forms
# and the sampled review of passes to the path.
NEWEST = os.path.join(ROOT, "Documents", "c4-benchmark", "demo-2026-12b")

# The README's path, in its order: (module, function or Class.method).
PATH = [("siteqa", "score"), ("siteqa", "read_answer"), ("responses", "derive"),
        ("siteqa", "count"), ("measures", "judge"), ("measures", "correct_facts"),
        ("textmatch", "contains"), ("siteqa", "make_row"), ("report", "Tally.add"),
        ("report", "Tally.groups"), ("report", "render_markdown")]

# Functions of the path's modules that the path calls, and what each does to a number.
HELPERS = {
    ("siteqa", "load_questions"): "reads the question files, whose facts the rules look for",
    ("siteqa", "_question_of"): "finds the question a raw line answers",
    ("siteqa", "_given_once"): "refuses a raw file given twice",
    ("cli", "same_file"): "_given_once's comparison of two paths",
    ("siteqa", "_platform_version"): "provenance only: the assistant's version header",
    ("siteqa", "results_document"): "puts the rows, the counts and the provenance together",
    ("siteqa", "_one_or_all"): "provenance only: the provider and model named",
    ("siteqa", "_inputs"): "provenance only: every input's sha256",
    ("siteqa", "_run_and_target"): "read_answer's checks: which question file, where the answer is",
    ("siteqa", "_response_status"): "read_answer's checks: the recorded response's fields",
    ("siteqa", "_last_attempt"): "read_answer's checks: the attempts, each started_at a UTC "
                                 "time (the run dates); the last one's latency",
    ("siteqa", "needs_review"): "whether a person must read the answer (review coverage)",
    ("siteqa", "review_coverage"): "review coverage only: how many answers a person must read",
    ("siteqa", "RunFacts.__init__"): "provenance only",
    ("siteqa", "RunFacts.add"): "provenance only",
    ("siteqa", "provenance"): "provenance only",
    ("siteqa", "run_status"): "provenance only: how the run is labelled",
    ("siteqa", "sample_of"): "which sampled review of passes the rules of the date draw",
    ("siteqa", "asked_of"): "which measures a person is asked about (2026-12-03 on)",
    ("siteqa", "score_quarter"): "the quarter folder's file names, as its MANIFEST gives them",
    ("siteqa", "path"): "the quarter folder's file names, as its MANIFEST gives them",
    ("responses", "follow"): "the value at a path of the profile in the body",
    ("responses", "parse_received"): "reads the body's JSON (a lone surrogate as U+FFFD)",
    ("responses", "_unreadable"): "why a response has no body to read: derive's problem",
    ("responses", "_source_urls"): "the URLs at the profile's sources path, for right_page_cited",
    ("measures", "delivered"): "the other rules judge applies: an answer not delivered fails",
    ("measures", "in_question_language"): "another rule (its own measure)",
    ("measures", "right_page_cited"): "another rule (its own measure)",
    ("measures", "key"): "right_page_cited's page comparison",
    ("measures", "declined_when_not_on_site"): "another rule (its own measure)",
    ("measures", "first_decline_phrase"): "the DECLINE list's phrases, in its order",
    ("measures", "review_flags"): "sends a passing answer to a person; never a verdict",
    ("measures", "_echoes"): "review_flags' echo flag",
    ("measures", "_many_numbers"): "review_flags' numbers flag",
    ("measures", "_answer_flags"): "review_flags' flags that read an answerable question's words",
    ("measures", "_words"): "whether words have boundaries under the rules in force",
    ("textmatch", "normalize"): "NFKC, casefold, invisible marks, whitespace: both sides",
    ("textmatch", "at_word"): "contains's digit and word boundaries",
    ("textmatch", "_starts_here"): "contains's digit and word boundaries",
    ("textmatch", "_any_proclitics"): "contains's Hebrew word boundaries (2026-12-01)",
    ("textmatch", "_ends_here"): "contains's digit and word boundaries",
    ("textmatch", "visible"): "delivered's blank answer",
    ("textmatch", "script_share"): "in_question_language's letter counts",
    ("report", "Tally.__init__"): "the empty counts",
    ("report", "new_counts"): "the empty counts",
    ("report", "sum_counts"): "a total is the sum of its parts' counts",
    ("report", "group_keys"): "the table's order of groups",
    ("report", "figures"): "counts, then rates, as results.json holds them",
    ("report", "rate"): "passed / applicable, rounded once to 4 places",
    ("report", "median_ms"): "the median latency column",
    ("report", "cell"): "a table cell: after review, the mechanical figure in brackets",
    ("report", "provenance_lines"): "results.md's provenance section and signature",
    ("report", "review_markdown"): "results.md's review coverage (and its sampled review)",
    ("report", "inert"): "provenance only: a server's text (the platform version) as inert Markdown",
}

# What the rules of 2026-12-02 add (demo-2026-12b), and what each does to a number.
HELPERS_SINCE_2026_12_02 = {
    ("measures", "negated_facts"): "the negation flag: sends a passing answer to a person",
    ("measures", "_stated_denials"): "the negation flag: denials the evidence states too",
    ("measures", "_denial"): "the negation flag: one denial's words",
    ("measures", "_negation_base"): "the negation flag: a word without its proclitics",
    ("measures", "other_values"): "the value flag: sends a passing answer to a person",
    ("measures", "_values"): "the value flag: the numbers of a text",
    ("measures", "unbound_qualifiers"): "the qualifier flag: sends a passing answer to a person",
    ("textmatch", "_hebrew_proclitics"): "contains's Hebrew word forms (2026-12-02)",
    ("textmatch", "_russian_ending"): "contains's Russian word endings (2026-12-02)",
    ("textmatch", "clauses"): "the negation flag's clauses",
    ("textmatch", "occurrences"): "the negation flag: where a spelling stands",
    ("siteqa", "sample_of"): "which sampled review the rules of the date draw",

    ("report", "sample_markdown"): "results.md's sampled review section",
    ("report", "sample_rows"): "results.md's sampled review rows",
    ("report", "sample_texts"): "the sampled review's rate and interval as text",
    ("report", "percent"): "a rate as a percentage",
}

# Modules off the path that scoring calls, whole.
MODULES = {
    "__init__": "the package's small checks: a whole number (format 1), a calendar date",
    "cases": "checks a question file",
    "fields": "the one record checker, which the question file's loader calls",
    "jsonl": "reads JSON and JSON Lines",
    "reviews": "reads and checks the reviews file",
    "rulebook": "the rules in force on the quarter's date (the DECLINE list, the text rules)",
    "urls": "URL normalisation for right_page_cited",
    "quarter": "provenance only: the sha256 of the input files",
    "sampling": "the sampled review of passes (2026-12-02): drawn from the ids, counted",
    "stats": "the sampled review's Wilson interval",
}


def readme_paragraph():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    start = text.index("How one published number is made")
    return text[start:text.index("\n\n", start)]


def called_while_scoring(quarter):
    """``{(module, function): {its callers}}`` of every function of evalkit
    that scoring the published ``quarter`` and writing its table calls."""
    with open(os.path.join(quarter, "MANIFEST.json"), encoding="utf-8") as fh:
        scoring = json.load(fh)["scoring"]
    called = {}

    def name(frame):
        # Comprehensions and generator expressions belong to the function around them.
        while frame is not None and frame.f_code.co_name.startswith("<"):
            frame = frame.f_back
        if frame is None or not frame.f_code.co_filename.startswith(PACKAGE):
            return None
        code = frame.f_code
        owner = type(frame.f_locals["self"]).__name__ + "." if "self" in frame.f_locals else ""
        return os.path.basename(code.co_filename)[:-3], owner + code.co_name

    def profile(frame, event, arg):
        if event == "call" and not frame.f_code.co_name.startswith("<"):
            callee = name(frame)
            if callee:
                called.setdefault(callee, set()).add(name(frame.f_back))

    sys.setprofile(profile)
    try:
        render_markdown(siteqa.score_quarter(quarter, scoring))
    finally:
        sys.setprofile(None)
    return called


class NumberPath(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.called = called_while_scoring(QUARTER)
        cls.called_newest = called_while_scoring(NEWEST)

    def test_the_readme_names_the_path_in_its_order(self):
        named = re.findall(r"`([\w.]+)`", readme_paragraph())
        places = []
        for module, function in PATH:
            spelled = [i for i, name in enumerate(named)
                       if name in (f"{module}.{function}", function)]
            self.assertTrue(spelled, f"the README's path does not name {module}.{function}")
            places.append(spelled[0])
        self.assertEqual(places, sorted(places), "the README names the path in another order")

    def test_every_function_of_the_path_is_called(self):
        for step in PATH:
            self.assertIn(step, self.called, f"{step} is on the README's path but not called")
            self.assertIn(step, self.called_newest, f"{step} is not called for {NEWEST}")

    def test_scoring_calls_nothing_else(self):
        self.assertEqual(unlisted(self.called, HELPERS), [],
                         "name it on the README's path or list it in HELPERS")
        self.assertEqual(unlisted(self.called_newest, {**HELPERS, **HELPERS_SINCE_2026_12_02}),
                         [], "name it on the README's path or list it in HELPERS_SINCE_2026_12_02")

    def test_the_check_sees_an_unlisted_function(self):
        helpers = {key: why for key, why in HELPERS.items() if key != ("textmatch", "at_word")}
        self.assertEqual(unlisted(self.called, helpers),
                         ["textmatch.at_word (called by ['textmatch.contains'])"])


class PathLength(unittest.TestCase):
    # Issue 29: re-making the demo-2026-12 table (its MANIFEST's arguments)
    # executes no more of the package's lines than it did when the issue was
    # written, 715, and no page code: 699 on 2026-12-02.
    LINES = 715

    def test_the_path_stays_short(self):
        with open(os.path.join(QUARTER, "MANIFEST.json"), encoding="utf-8") as fh:
            scoring = json.load(fh)["scoring"]
        lines = set()

        def trace(frame, event, arg):
            if event == "line" and frame.f_code.co_filename.startswith(PACKAGE):
                lines.add((frame.f_code.co_filename, frame.f_lineno))
            return trace

        sys.settrace(trace)
        try:
            table = render_markdown(siteqa.score_quarter(QUARTER, scoring))
        finally:
            sys.settrace(None)
        with open(os.path.join(QUARTER, "results.md"), encoding="utf-8") as fh:
            self.assertEqual(table, fh.read())  # the published table, re-made
        pages = sorted({name for name, _ in lines
                        if name.startswith(os.path.join(PACKAGE, "pages") + os.sep)})
        self.assertEqual(pages, [])
        self.assertLessEqual(len(lines), self.LINES)


def unlisted(called, helpers):
    """The functions scoring called that are neither on the path nor listed."""
    return sorted(f"{module}.{function} (called by "
                  f"{sorted('.'.join(caller) for caller in callers if caller)})"
                  for (module, function), callers in called.items()
                  if (module, function) not in PATH and (module, function) not in helpers
                  and module not in MODULES)


if __name__ == "__main__":
    unittest.main()
