"""Rewrite the golden files of the test fixtures and record the sha256 of
the numbers under the tools' VERSION (``make golden``; review the diff!).

    python -m tests.golden.record

versions.json keeps, for every VERSION, the sha256 of each golden file of
numbers (results.md, results.json) as that version wrote it. A version's
sums are never changed: when the numbers come out different and VERSION is
already recorded, this refuses (exit 2) and says to bump VERSION
(evalkit/__init__.py), because one version must always write the same
results from the same inputs.

The pages (mini-index*.html) are golden files too, compared byte for byte by
tests/test_golden_versions.py, but not under VERSION: a page is a
presentation of results.json (evalkit/pages/shown.py), so a change of layout
is recorded here by ``make golden`` and read in the diff, without a new
version. The sums of versions up to 0.5.0 name the pages they wrote then.
"""

import hashlib
import json
import os
import shutil
import sys
import tempfile

from tests.support import FIXTURES, ROOT, TOOLS

sys.path.insert(0, TOOLS)

import score  # noqa: E402
from evalkit import VERSION  # noqa: E402

GOLDEN = os.path.join(ROOT, "tests", "golden")
# The results pages in Hebrew and Russian are written beside the English one
# (score.py --html) from 0.4.0 on; earlier versions recorded the first three.
FILES = ("mini-results.md", "mini-results.json", "mini-index.html", "mini-index.he.html",
         "mini-index.ru.html")
PAGES_SINCE = (0, 4, 0)
NUMBERS_ONLY_SINCE = (0, 6, 0)
NUMBERS = FILES[:2]
VERSIONS = os.path.join(GOLDEN, "versions.json")


def files_of(version):
    """The golden files whose sums ``version`` recorded: from 0.6.0, the
    first version recorded after the pages became presentations, the numbers
    only."""
    number = tuple(map(int, version.split(".")))
    if number >= NUMBERS_ONLY_SINCE:
        return NUMBERS
    return FILES if number >= PAGES_SINCE else FILES[:3]


def sums(names=NUMBERS):
    out = {}
    for name in names:
        with open(os.path.join(GOLDEN, name), "rb") as fh:
            out[name] = hashlib.sha256(fh.read()).hexdigest()
    return out


def recorded():
    with open(VERSIONS, encoding="utf-8") as fh:
        return json.load(fh)


def write_goldens():
    """Score the fixtures into the golden files. The pages are written as
    index.html, index.he.html and index.ru.html, as in a quarter folder
    (their links name each other so), then kept as mini-index*.html."""
    with tempfile.TemporaryDirectory() as tmp:
        code = score.main([
            os.path.join(FIXTURES, "questions-mini.json"), os.path.join(FIXTURES, "raw-mini.jsonl"),
            "--reviews", os.path.join(FIXTURES, "reviews-mini.json"),
            "--out", os.path.join(GOLDEN, FILES[0]), "--json", os.path.join(GOLDEN, FILES[1]),
            "--html", os.path.join(tmp, "index.html")])
        for page in sorted(os.listdir(tmp)):
            shutil.copyfile(os.path.join(tmp, page), os.path.join(GOLDEN, "mini-" + page))
    return code


def main():
    versions = recorded()
    code = write_goldens()
    if code:
        return code
    now = sums()
    recorded_numbers = {name: versions[VERSION][name] for name in NUMBERS} \
        if VERSION in versions else now
    if recorded_numbers != now:
        sys.stderr.write(f"record.py: the golden files changed but VERSION {VERSION} already "
                         "has other sums in tests/golden/versions.json: bump VERSION in "
                         "evalkit/__init__.py, then run make golden again\n")
        return 2
    if VERSION in versions:
        return 0  # the numbers as recorded; the pages are rewritten above
    versions[VERSION] = now
    with open(VERSIONS, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(json.dumps(versions, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
