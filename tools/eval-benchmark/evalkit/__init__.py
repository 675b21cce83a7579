"""evalkit: the shared, standard-library-only package behind run.py and score.py.

One module per concern (jsonl, cases, textmatch, urls, target, http, measures,
reviews, report, provenance). Library code raises BadInput for anything a user
can fix; only the command-line layer turns it into one line on stderr.
"""

import datetime
import re

# The version of the tools, recorded in every raw line, atoms line and results
# file. Bumped whenever a scoring rule or an output format changes, so that one
# version always writes the same results from the same inputs
# (tests/test_golden_versions.py holds the golden files to it):
#   0.1.0  first published
#   0.2.0  results.json records the sha256 of every input (provenance.inputs)
#   0.3.0  the rules of 2026-12-01 (evalkit/rulebook.py): word boundaries,
#          blank answers, same-page URLs, bare domains, review flags, DECLINE
#          additions. Results scored under older rules stay those of 0.2.0.
#   0.4.0  the results pages of 2026-12-01 (rulebook "pages"): English, Hebrew
#          and Russian, for a phone and a desktop. Older rules keep the one
#          English page of 0.2.0.
#   0.5.0  the rules of 2026-12-02: the sampled review of passes
#          (evalkit/sampling.py) in results.md, results.json (sampled_review,
#          and sampled on each row), the pages and the review sheet, beside
#          the other rules of that date. Older rules keep the output of 0.4.0
#          and 0.2.0.
VERSION = "0.5.0"

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


def one_line(text):
    """Fold a message to one line, so an error never spans several."""
    return " ".join(str(text).split())
