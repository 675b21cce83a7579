"""Result files of recorded runs (evals/ai/results/): what their provenance
must hold, and the checks that refuse a number without it.

A result file's ``run`` block holds ``status``, ``endpoint`` (the base URL
called), ``provider``, ``model``, ``prompt_versions`` (name and sha256 of
every prompt), ``date_utc``, ``git_commit`` and ``git_dirty``,
``cases_file``, ``cases_sha256`` and ``inputs`` (each input file's
repository path and sha256: cases, vocabulary, policy, rules, corpus); then
``summary``, the per-case records ``cases`` and ``errors``.

status is ``recorded_live_run`` (a published measurement), ``example`` (a run
against a loopback address: a stand-in, or a model served on this machine,
which an address cannot tell apart) or ``not_run`` (holds no number at all
outside its ``format``). Numbers are never written by hand, so:

  ``problems(doc)``       the shape: every provenance field, per-case
                          records, and for a recorded live run a clean tree
                          (``git_dirty`` false) and an endpoint that is not
                          loopback
  ``recompute_problems``  every published figure (summary, per-case records,
                          errors) scored again from the per-case records and
                          the inputs, whose sha256 must match
  ``history_problems``    with git: the commit is in the repository's
                          history (an ancestor of HEAD), each prompt file and
                          each input at that commit has the recorded sha256,
                          and the figures recompute from the inputs as they
                          were at that commit
  ``check(doc, root)``    all of them; the history ones when ``root`` is a git
                          checkout, else the recomputation from ``root``'s files

What it does not prove: that the model named is the model that answered. The
per-case records hold each reply, so a reader can look.
"""

import hashlib
import ipaddress
import os
import re
import subprocess
import tempfile
from urllib.parse import urlsplit

from . import BadInput

from .grounding import Corpus, Rules, score as score_grounding
from .intake import Vocabulary, load_cases, score as score_intake

HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
PROMPTS = "tools/eval-benchmark/prompts"
STATUSES = ("recorded_live_run", "example", "not_run")


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


def is_loopback_url(url):
    """True when ``url`` names this machine (ai_eval.py labels such runs example)."""
    host = urlsplit(str(url)).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _run_problems(run):
    found = []
    for key in ("provider", "model", "cases_file", "endpoint"):
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
    inputs = run.get("inputs")
    if not isinstance(inputs, dict) or "cases" not in inputs or not all(
            isinstance(v, dict) and HEX64.match(str(v.get("sha256"))) for v in inputs.values()):
        found.append("run.inputs must give each input file's path and sha256")
    elif isinstance(inputs["cases"], dict) and inputs["cases"].get("sha256") != run.get("cases_sha256"):
        found.append("run.inputs.cases is not the case file of run.cases_sha256")
    return found


def problems(doc):
    """What is wrong with a result file's shape and provenance ([] when nothing)."""
    if not isinstance(doc, dict):
        return ["not a JSON object"]
    run = doc.get("run")
    if not isinstance(run, dict):
        return ["no run block"]
    numbers = _numbers({k: v for k, v in doc.items() if k not in ("format", "run")})
    status = run.get("status")
    if status == "not_run":
        return [f"status not_run but it holds numbers (first: {numbers[0]})"] if numbers else []
    if status not in STATUSES:
        return [f"run.status {status!r} is none of {', '.join(STATUSES)}"]
    found = _run_problems(run)
    if doc.get("suite") not in ("intake", "grounding"):
        found.append("suite must be intake or grounding")
    cases = doc.get("cases")
    if not isinstance(cases, list) or not cases:
        found.append("no per-case records (cases): the figures cannot be recomputed")
    elif not all(isinstance(r, dict) and isinstance(r.get("id"), str) for r in cases):
        found.append("every per-case record needs its case id")
    if not isinstance(doc.get("summary"), dict) or not isinstance(doc.get("errors"), list):
        found.append("summary and errors are missing")
    if status == "recorded_live_run":
        if run.get("git_dirty") is not False:
            found.append("run.git_dirty must be false: a published run is made from a committed tree")
        if is_loopback_url(run.get("endpoint")):
            found.append(f"run.endpoint {run.get('endpoint')} is loopback: label the run example")
    return found


def _sha256_file(path):
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def recompute_problems(doc, root):
    """Score the per-case records again from the inputs under ``root`` (where
    each input's recorded path resolves) and compare every figure."""
    run, found = doc["run"], []
    inputs = run["inputs"]
    for role, item in sorted(inputs.items()):
        if not item.get("path"):
            found.append(f"run.inputs.{role} ({item.get('name')}) is outside the repository")
        elif _sha256_file(os.path.join(root, item["path"])) != item["sha256"]:
            found.append(f"run.inputs.{role}: {item['path']} does not have the recorded sha256")
    if found:
        return found
    where = {role: os.path.join(root, item["path"]) for role, item in inputs.items()}
    vocabulary = Vocabulary(where["vocabulary"])
    key = "gold" if doc["suite"] == "intake" else "facts"
    cases, _sha = load_cases(where["cases"], vocabulary, doc["suite"], key)
    cases = cases[:len(doc["cases"])]
    if [c["id"] for c in cases] != [str(r.get("id")) for r in doc["cases"]]:
        return ["the per-case records are not the first cases of the case file"]
    records = {r["id"]: r for r in doc["cases"]}
    if doc["suite"] == "intake":
        lines = {i: {"prediction": r.get("prediction"), "error": r.get("call_error")}
                 for i, r in records.items()}
        summary, detail = score_intake(cases, lines, vocabulary)
    else:
        corpus = Corpus(os.path.dirname(next(p for r, p in where.items() if r.startswith("corpus/"))))
        rules = Rules(where["rules"], vocabulary, corpus)
        lines = {i: {"explain": r.get("explain_reply"), "explain_error": r.get("explain_call_error"),
                     "staff": r.get("staff_reply"), "staff_error": r.get("staff_call_error")}
                 for i, r in records.items()}
        summary, detail = score_grounding(cases, lines, rules, corpus)
    errors = [{"id": d["id"], "error": d["error"]} for d in detail if d["error"]]
    for name, mine, theirs in (("summary", summary, doc["summary"]), ("errors", errors, doc["errors"])):
        if mine != theirs:
            found.append(f"{name} is not what the per-case records give")
    bad = [d["id"] for d, r in zip(detail, doc["cases"]) if d != r]
    if bad:
        found.append(f"per-case records not as scored: {', '.join(bad)}")
    return found


def _git(root, *args, binary=False):
    """stdout of a git command in ``root``; None when git fails."""
    try:
        done = subprocess.run(("git",) + args, cwd=root, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout if binary else done.stdout.decode("utf-8", "replace")


def is_git_checkout(root):
    return _git(root, "rev-parse", "--git-dir") is not None


def history_problems(doc, root):
    """The commit, prompts and inputs as the repository at ``root`` has them
    in its history, and the figures recomputed from the inputs at that commit."""
    run = doc["run"]
    commit = run["git_commit"]
    if _git(root, "merge-base", "--is-ancestor", commit, "HEAD") is None:
        return [f"run.git_commit {commit} is not in the repository's history"]
    found = []
    for prompt in run["prompt_versions"]:
        data = _git(root, "show", f"{commit}:{PROMPTS}/{prompt['name']}.md", binary=True)
        if data is None or hashlib.sha256(data).hexdigest() != prompt["sha256"]:
            found.append(f"prompt {prompt['name']}: not the file of that name at {commit[:12]}")
    with tempfile.TemporaryDirectory() as tree:
        for role, item in sorted(run["inputs"].items()):
            data = _git(root, "show", f"{commit}:{item['path']}", binary=True) if item.get("path") else None
            if data is None or hashlib.sha256(data).hexdigest() != item["sha256"]:
                found.append(f"run.inputs.{role}: {item.get('path') or item.get('name')} is not "
                             f"at {commit[:12]} with the recorded sha256")
                continue
            target = os.path.join(tree, *item["path"].split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(data)
        return found or recompute_problems(doc, tree)


def check(doc, root):
    """Every problem of a result file: shape, then history (git) or the
    recomputation from ``root``'s own files when it is not a git checkout."""
    found = problems(doc)
    if found or doc["run"]["status"] == "not_run":
        return found
    try:
        if is_git_checkout(root):
            return history_problems(doc, root)
        return recompute_problems(doc, root)
    except BadInput as exc:
        return [f"an input cannot be read: {exc}"]
