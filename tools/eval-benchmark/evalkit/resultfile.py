"""Result files of recorded runs (evals/ai/results/): what their provenance
must hold, and the check that refuses a number without it.

A result file's ``run`` block holds ``status`` (``recorded_live_run`` or
``not_run``), ``provider``, ``model``, ``prompt_versions`` (name and sha256
of every prompt), ``date_utc``, ``git_commit`` (and ``git_dirty``),
``cases_file`` and ``cases_sha256``. A file with status ``recorded_live_run``
must have every one of them; a file with status ``not_run`` must hold no
number at all outside its ``format``. Numbers are never written by hand.
"""

import re

HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _numbers(value, path="", out=None):
    out = [] if out is None else out
    if isinstance(value, bool) or value is None:
        return out
    if isinstance(value, (int, float)):
        out.append(path or "(top)")
    elif isinstance(value, dict):
        for key, item in value.items():
            _numbers(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _numbers(item, f"{path}[{index}]", out)
    return out


def problems(doc):
    """What is wrong with a result file's provenance ([] when nothing)."""
    if not isinstance(doc, dict):
        return ["not a JSON object"]
    run = doc.get("run")
    if not isinstance(run, dict):
        return ["no run block"]
    numbers = _numbers({k: v for k, v in doc.items() if k not in ("format", "run")})
    status = run.get("status")
    if status == "not_run":
        return [f"status not_run but it holds numbers (first: {numbers[0]})"] if numbers else []
    if status != "recorded_live_run":
        return [f"run.status {status!r} is neither recorded_live_run nor not_run"]
    found = []
    for key in ("provider", "model", "cases_file"):
        if not isinstance(run.get(key), str) or not run[key]:
            found.append(f"run.{key} is missing")
    versions = run.get("prompt_versions")
    if not isinstance(versions, list) or not versions or not all(
            isinstance(v, dict) and isinstance(v.get("name"), str) and HEX64.match(str(v.get("sha256")))
            for v in versions):
        found.append("run.prompt_versions must list each prompt's name and sha256")
    if not DATE.match(str(run.get("date_utc"))):
        found.append("run.date_utc must be YYYY-MM-DD")
    if not HEX40.match(str(run.get("git_commit"))):
        found.append("run.git_commit must be the 40-hex commit the run used")
    if not HEX64.match(str(run.get("cases_sha256"))):
        found.append("run.cases_sha256 must be the case file's sha256")
    return found
