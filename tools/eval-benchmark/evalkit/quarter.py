"""Published quarter folders and their MANIFEST.json.

A quarter folder (``Documents/c4-benchmark/{quarter}/``, quarter ``YYYY-QN``
or a plain slug such as ``demo``) holds the question files as asked, the raw
answers, the reviews, the results (results.md, results.json, index.html) and
MANIFEST.json, which records:

  format            1
  quarter           the folder's name
  files             {name: {sha256, bytes, role}}; role is input (questions,
                    raw answers, reviews) or output (what score.py writes)
  score_args        the score.py arguments that made the outputs, with file
                    names relative to the folder (what reproduce runs again)
  decline_list_date the DECLINE list date the outputs were scored with
  scored_with       tool, version, git_commit, git_dirty, python of the scorer
  runs              run_dates (UTC) and platform_versions read from the raw lines
  review_coverage   required, reviewed, missing (ids)
  history.json      (an input, when earlier quarters exist) their overall figures,
                    frozen at publish time, for the trend chart of index.html
  unreviewed_allowed  true when published with --allow-unreviewed

The manifest itself is not an output that reproduce compares byte for byte:
it names the scorer's commit, which an auditor's checkout need not share.
"""

import hashlib
import os
import re

from . import BadInput

QUARTER = re.compile(r"^(?:\d{4}-Q[1-4]|[a-z0-9][a-z0-9-]{0,39})$")
OUTPUTS = ("results.md", "results.json", "index.html")


def check_quarter(name):
    """The quarter name, or BadInput: it becomes a folder name, so nothing
    that could climb out of the benchmark folder is accepted."""
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


def score_args(folder_files, quarter):
    """score.py's arguments for a quarter folder, from its file names."""
    questions = sorted(f for f in folder_files if f.startswith("questions-") and f.endswith(".json"))
    raws = sorted(f for f in folder_files if f.startswith("raw-") and f.endswith(".jsonl"))
    args = questions + raws
    if f"reviews-{quarter}.json" in folder_files:
        args += ["--reviews", f"reviews-{quarter}.json"]
    if "history.json" in folder_files:
        args += ["--history", "history.json"]
    return args


def history(bench, quarter):
    """The overall figures of the quarters published before this one, frozen
    into this quarter's folder as history.json (an input), so its trend chart
    re-scores from the folder alone. None when there are none."""
    import json
    entries = []
    for name in sorted(os.listdir(bench)):
        folder = os.path.join(bench, name)
        results = os.path.join(folder, "results.json")
        if name == quarter or not QUARTER.match(name) or \
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
