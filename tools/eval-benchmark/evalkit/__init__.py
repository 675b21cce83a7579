"""evalkit: the standard-library-only package behind the scripts of
tools/eval-benchmark, one folder per part (Documents/architecture.json):

  rubric/    the site-qa rubric: rules, reviews, tables, quarter folders
  scenario/  the scenario suite: atoms and the four dimensions
  aieval/    the intake and grounding suites
  asking/    every byte over the network: sites, models, providers/
  pages/     the results pages, reached from the scripts only

and at this root the shared formats every part may read: files (jsonl),
recorded bodies (responses), text folding (textmatch), the formats in prose
(schemas), model families, provenance, statistics, the command line's
helpers (cli), secrets kept out of files (redaction), and the one checker
of every loaded record (fields). These import no part. tests/test_layers.py
holds every import to the picture.

Library code raises BadInput for anything a user can fix; only the
command-line layer turns it into one line on stderr.
"""

import datetime
import os
import re

# tools/eval-benchmark, where the scripts, prompts/ and targets/ are, and the
# repository's root: the kit's modules find files from these, at any depth.
SCRIPTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(SCRIPTS_DIR))

# The version of the tools, recorded in every raw line, atoms line and results
# file. Bumped whenever a scoring rule or an output format changes, so that one
# version always writes the same results from the same inputs
# (tests/test_golden_versions.py holds the golden files to it):
#   0.1.0  first published
#   0.2.0  results.json records the sha256 of every input (provenance.inputs)
#   0.3.0  the rules of 2026-12-01 (evalkit/rubric/rulebook.py): word boundaries,
#          blank answers, same-page URLs, bare domains, review flags, DECLINE
#          additions. Results scored under older rules stay those of 0.2.0.
#   0.4.0  the results pages of 2026-12-01 (rulebook "pages"): English, Hebrew
#          and Russian, for a phone and a desktop. Older rules keep the one
#          English page of 0.2.0.
#   0.5.0  the rules of 2026-12-02: the sampled review of passes
#          (evalkit/rubric/sampling.py) in results.md, results.json (sampled_review,
#          and sampled on each row), the pages and the review sheet, beside
#          the other rules of that date. Older rules keep the output of 0.4.0
#          and 0.2.0.
#   0.6.0  the rules of 2026-12-02.2 (first dated 2026-12-03): results.md ends
#          with its signature (suite, rules date, version, one sha256 of the
#          question and raw files). The scenario suite keeps its own output
#          version (scenario_score.OUTPUT_VERSION), so a site-qa rule never
#          moves it.
#   0.7.0  the rules of 2026-12-02.3 (first dated 2026-12-04): the decline
#          flag reads every language's DECLINE phrases, the numbers flag every
#          script's digits.
#   0.8.0  the rules of 2026-12-03: every measure read on its own
#          (evalkit/rubric/passes.py: entries per measure, the sample drawn
#          from the questions and the answers' bodies, its size, the rates per
#          language and each figure's estimate of its true passes), the
#          signature covering the reviews, a run from this machine or a
#          private network a local run.
VERSION = "0.8.0"

# ASCII digits only, the whole text: \d would take other scripts' digits.
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class BadInput(ValueError):
    """A file or argument the user gave cannot be used.

    The message is one line that names the file and the place
    (``questions-med.json: med-he-07: answerable question has no fact groups``);
    ``main`` prints it after the script's name and exits 2.
    """


def whole_number(value):
    """True for an int that is not a bool: a format number, a count. JSON's
    1.0 is a float and true a bool, though Python finds them equal to 1."""
    return isinstance(value, int) and not isinstance(value, bool)


def calendar_date(text):
    """True for a day of the calendar written YYYY-MM-DD in ASCII digits
    (2026-11-31 is none)."""
    if not isinstance(text, str) or not _DATE.fullmatch(text):
        return False
    try:
        datetime.date(int(text[:4]), int(text[5:7]), int(text[8:]))
    except ValueError:
        return False
    return True


# A rules date (evalkit/rubric/rulebook.py): a day, and ".N" for the Nth
# rules of that day; such dates sort as text in the order they came into force.
_RULES_DATE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:\.[2-9])?")


def rules_date_text(text):
    """True for a rules date: YYYY-MM-DD, a day of the calendar, or
    YYYY-MM-DD.N (N from 2 to 9) for the Nth rules of that day."""
    match = _RULES_DATE.fullmatch(text) if isinstance(text, str) else None
    return bool(match) and calendar_date(match.group(1))


def one_line(text):
    """Fold a message to one line, so an error never spans several."""
    return " ".join(str(text).split())
