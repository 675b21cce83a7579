"""What made a site-qa result: its runs as their raw lines describe them, its
inputs by sha256 (results.json's ``provenance``), and the signature that ends
results.md.

``RunFacts`` gathers, as the raw lines are read, what the provenance names of
them: the runs, tools, targets, providers, models, platform versions and run
dates. ``provenance`` puts it together with the question files, the reviews,
the rules' date and the scorer version those rules' output is
(evalkit/rubric/rulebook.py), and the sha256 of every input file, by file
name (no folder, so that the same files score the same wherever they are).

A run is labelled ``recorded_live_run`` when run.py asked every line,
``recorded_local_run`` when one answer was asked from this machine or a
private network (provenance.is_local_host, as written: the scenario and
intake suites label such runs so too), and ``not_run`` else.
"""

import os

from ..jsonl import sha256_file, sha256_of
from ..provenance import host_of, is_local_host

SCORER = "score.py"


class RunFacts:
    """What the provenance needs from the raw lines, gathered as they are
    read: the runs, tools, targets, providers, models, platform versions and
    dates they name."""

    def __init__(self):
        self.runs = {}
        self.tools = set()
        self.targets = set()
        self.urls = set()
        self.providers = set()
        self.models = set()
        self.platforms = set()
        self.dates = set()
        self.lines = 0

    def add(self, answer):
        run, target = answer["run"], answer["target"]
        self.lines += 1
        self.runs.setdefault(str(run.get("run_id")), run)  # a run's first line speaks for it
        self.tools.add(run.get("tool"))
        self.targets.add(f"{target.get('kind')} at {target.get('url')}")
        if isinstance(target.get("url"), str):
            self.urls.add(target["url"])
        if target.get("provider"):
            self.providers.add(str(target["provider"]))
        if target.get("model"):
            self.models.add(str(target["model"]))
        if answer["platform_version"]:
            self.platforms.add(answer["platform_version"])
        if isinstance(answer["started_at"], str):
            self.dates.add(answer["started_at"][:10])


def provenance(sets, facts, reviews_path, reviews, rules, other_inputs):
    """results.json's ``provenance`` (the module's docstring); ``other_inputs``
    are the ``(path, role)`` of the raw files, reviews and history."""
    commits = sorted({(str(run.get("git_commit") or ""), bool(run.get("git_dirty")))
                      for run in facts.runs.values()})
    return {
        "run": {"status": rules.run_status(facts)},
        "target": "; ".join(sorted(facts.targets)) or "none",
        "provider": _one_or_all(facts.providers),
        "model": _one_or_all(facts.models),
        "prompt_versions": [],
        "platform_versions": sorted(facts.platforms),
        "run_dates": sorted(facts.dates),
        "run_ids": sorted(facts.runs),
        "run_git_commits": [{"commit": c or None, "dirty": d} for c, d in commits],
        "python_of_runs": sorted({str(run.get("python")) for run in facts.runs.values()}),
        "cases": [{"file": os.path.basename(qset.path), "set": qset.set,
                   "sha256": qset.sha256} for qset in sets],
        "reviews": {"file": os.path.basename(reviews_path) if reviews_path else None,
                    "entries": sum(len(r["verdicts"]) + (r["faulty"] is not None)
                                   for r in reviews.values())},
        "decline_list_date": rules.rules_date,
        "scorer": {"tool": SCORER, "version": rules.version},
        "inputs": [{"file": os.path.basename(qset.path), "role": "questions", "sha256": qset.sha256}
                   for qset in sets] +
                  [{"file": os.path.basename(path), "role": role, "sha256": sha256_file(path)}
                   for path, role in other_inputs],
    }


def run_status(facts):
    """recorded_live_run when run.py asked every line, recorded_local_run when
    one was asked from this machine or a private network, not_run else."""
    if not facts.lines or facts.tools != {"run.py"}:
        return "not_run"
    if any(is_local_host(host_of(url)) for url in facts.urls):
        return "recorded_local_run"
    return "recorded_live_run"


def _one_or_all(names):
    """A name the raw lines all give, the sorted list of several, or None."""
    names = sorted(names)
    return names[0] if len(names) == 1 else (names or None)


# What a signature names, by the roles of the inputs it covers.
SIGNED = {("questions", "raw"): "questions and raw answers",
          ("questions", "raw", "reviews"): "questions, raw answers and reviews"}


def signature(p, roles=("questions", "raw", "reviews")):
    """The lines that end results.md: a blank one, and its signature, what
    made it in one line a quoted figure can carry, of the provenance ``p``.
    The inputs' sha256 is that of the lines ``sha256sum`` prints for the
    inputs of ``roles`` (the question, raw and reviews files),
    role by role, each in name order and without folders, so that in a
    quarter folder ``LC_ALL=C sha256sum questions-*.json raw-*.jsonl
    reviews-*.json | sha256sum`` prints it too (without the reviews file
    where there is none)."""
    inputs = [i for role in roles
              for i in sorted((i for i in p["inputs"] if i["role"] == role),
                              key=lambda i: i["file"])]
    listed = "".join(f"{item['sha256']}  {item['file']}\n" for item in inputs)
    covered = tuple(role for role in roles if any(i["role"] == role for i in inputs))
    return ["", f"Signature: site-qa, rules of {p['decline_list_date']}, "
                f"{p['scorer']['tool']} {p['scorer']['version']}, {SIGNED[covered]} "
                f"sha256 {sha256_of(listed)}"]
