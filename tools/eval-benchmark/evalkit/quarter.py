"""Published quarter folders and their MANIFEST.json.

A quarter folder (``Documents/c4-benchmark/{quarter}/``, quarter ``YYYY-QN``
or a plain slug such as ``demo``) holds the question files as asked, the raw
answers, the reviews, the results (results.md, results.json, index.html and,
from the rules of 2026-12-01, index.he.html and index.ru.html) and
MANIFEST.json, which records:

  format            2
  quarter           the folder's name
  files             {name: {sha256, bytes, role}}; role is input (questions,
                    raw answers, reviews, history) or output (what score.py writes)
  scoring           the scoring inputs, as file names in the folder:
                    questions [..], raw [..], reviews (or null), history (or
                    null), and decline_as_of, the date of the rules to score
                    with (the DECLINE list and the text rules: evalkit/rulebook.py;
                    the name is the list's, the first dated rule); reproduce
                    scores these again (evalkit/siteqa.py), nothing else
  decline_list_date the date of the rules the outputs were scored with
  scored_with       tool, version, git_commit, git_dirty, python of the scorer
  runs              run_dates (UTC) and platform_versions read from the raw lines
  review_coverage   required, reviewed, missing (ids)
  history.json      (an input, when earlier quarters exist) their overall figures,
                    frozen at publish time, for the trend chart of the pages
  unreviewed_allowed  true when published with --allow-unreviewed

Format 1 manifests (score.py's arguments as a list, before tools 0.2.0) are
not read: the quarters they describe were republished in format 2.

The manifest itself is not an output that reproduce compares byte for byte:
it names the scorer's commit, which an auditor's checkout need not share.
"""

import hashlib
import json
import os
import re

from . import BadInput
from .jsonl import read_json

QUARTER = re.compile(r"^(?:\d{4}-Q[1-4]|[a-z0-9][a-z0-9-]{0,39})$")
SERIES = re.compile(r"^\d{4}-Q[1-4]$")  # the quarters of the series, not demo or trial runs
# What score.py writes into a quarter folder: the results pages in Hebrew and
# Russian only from the rules of 2026-12-01 (evalkit/htmlpage.py); a quarter
# scored under older rules has index.html alone.
OUTPUTS = ("results.md", "results.json", "index.html", "index.he.html", "index.ru.html")


def check_quarter(name):
    """The quarter name, or BadInput: it becomes a folder name, so nothing
    that could climb out of the benchmark folder is accepted."""
    if isinstance(name, str) and re.match(r"^\d{4}-q[1-4]$", name):
        # A slug by the letter, but surely meant as the quarter: two folders
        # for one quarter would split its history.
        raise BadInput(f"quarter {name!r}: a quarter is written with a capital Q: "
                       f"{name.upper()}")
    if not isinstance(name, str) or not QUARTER.match(name):
        raise BadInput(f"quarter {name!r}: give YYYY-QN (2026-Q4) or a plain slug "
                       "(lower-case letters, digits, hyphens)")
    return name


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def describe(folder, name, role):
    path = os.path.join(folder, name)
    return {"sha256": sha256_file(path), "bytes": os.path.getsize(path), "role": role}


def role_of(name):
    if name in OUTPUTS:
        return "output"
    if name == "history.json":
        return "input"
    if re.match(r"^(questions-[a-z0-9-]+\.json|raw-[a-z0-9-]+\.jsonl|reviews-[a-z0-9-Q]+\.json)$",
                name):
        return "input"
    return None


def scoring_inputs(folder_files, quarter):
    """The scoring inputs of a quarter folder, from its file names (the
    ``scoring`` block of a manifest, without its DECLINE date)."""
    reviews = f"reviews-{quarter}.json"
    return {
        "questions": sorted(f for f in folder_files
                            if f.startswith("questions-") and f.endswith(".json")),
        "raw": sorted(f for f in folder_files if f.startswith("raw-") and f.endswith(".jsonl")),
        "reviews": reviews if reviews in folder_files else None,
        "history": "history.json" if "history.json" in folder_files else None,
    }


def load_manifest(folder):
    """MANIFEST.json of a quarter folder, checked before anything is read:
    every file a plain name in the folder, every scoring input a file of the
    manifest (evalkit/quarter.py has the fields)."""
    path = os.path.join(folder, "MANIFEST.json")
    if not os.path.isdir(folder):
        raise BadInput(f"{folder}: no such folder")
    manifest = read_json(path)
    if not isinstance(manifest, dict) or manifest.get("format") != 2:
        raise BadInput(f"{path}: not a format-2 manifest (a quarter published before tools "
                       "0.2.0 is republished with publish.py --force)")
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        raise BadInput(f"{path}: files is required")
    for name, entry in files.items():
        if os.path.basename(name) != name or name.startswith(".") or not isinstance(entry, dict) \
                or entry.get("role") not in ("input", "output") \
                or not isinstance(entry.get("sha256"), str):
            raise BadInput(f"{path}: files.{name}: needs sha256 and role input/output, "
                           "and a plain file name")
    check_scoring(manifest.get("scoring"), files, path)
    return manifest


def check_scoring(scoring, files, path):
    def bad(reason):
        raise BadInput(f"{path}: scoring: {reason}")

    if not isinstance(scoring, dict) or \
            sorted(scoring) != ["decline_as_of", "history", "questions", "raw", "reviews"]:
        bad("needs questions, raw, reviews, history and decline_as_of")
    named = list(scoring["questions"]) + list(scoring["raw"]) + \
        [scoring[key] for key in ("reviews", "history") if scoring[key] is not None]
    for name in named:
        if not isinstance(name, str) or files.get(name, {}).get("role") != "input":
            bad(f"{name!r} is not an input file of the manifest")
    if not isinstance(scoring["decline_as_of"], str):
        bad("decline_as_of must be a date")


def history(bench, quarter):
    """The overall figures of the quarters published before this one, frozen
    into this quarter's folder as history.json (an input), so its trend chart
    re-scores from the folder alone. None when there are none.

    Only YYYY-QN quarters have a trend, and it holds only the YYYY-QN quarters
    before them, oldest first (the names sort by date): a quarter published
    later, or a slug such as ``demo`` (a demo or a trial run, not a quarter of
    the series), is never in it."""
    if not SERIES.match(quarter):
        return None
    entries = []
    for name in sorted(os.listdir(bench)):
        folder = os.path.join(bench, name)
        results = os.path.join(folder, "results.json")
        if not SERIES.match(name) or name >= quarter or \
                not os.path.exists(os.path.join(folder, "MANIFEST.json")) or \
                not os.path.exists(results):
            continue
        with open(results, encoding="utf-8") as fh:
            doc = json.load(fh)
        groups = [{"set": g["set"], "lang": g["lang"],
                   "figures": {m: {"passed": g[m]["passed"], "applicable": g[m]["applicable"]}
                               for m in doc["measures"]}}
                  for g in doc["groups"] if g["lang"] == "all"]
        entries.append({"quarter": name, "results_sha256": sha256_file(results), "groups": groups})
    if not entries:
        return None
    return {"format": 1, "quarters": entries}
