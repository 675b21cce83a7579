"""The sampled review of passes (rules of 2026-12-02, evalkit/rubric/rulebook.py):
which passing answers a person reads beside those the rubric sends, and the
false-pass rate found in them.

The rubric sends a person every not-on-site answer, every answerable one that
failed a measure and, from 2026-12-01, every passing one with a flag. A pass
no rule sends to a person is never read, so a false pass among them would
never be seen. A sample of them is read too, and what the reviewers overturn
there is published per measure as a rate with its Wilson 95% interval.

  candidates  the answers the rubric does not send to a person
              (``review_required`` false: delivered, every measure that
              applies passed, no flag), with a raw line: only answerable
              questions, since every not-on-site answer is read. Drawn from
              the run alone: no review entry can add or remove one.
  order       per question set, the candidates by the sha256 (hex) of their
              raw line's ``run.run_id``, a line feed and the question id
              (``sample_key``), smallest first; the id breaks a tie. run.py
              draws the run id (uuid4) when the run starts, before any
              answer exists, so the operator cannot pick it to suit the
              answers.
  size        the first PER_SET of that order in each set, or all of them
              when there are fewer (why 20: PER_SET).
  reviewed    a sampled answer is reviewed when the reviews file holds an
              entry for every measure that applies to it (an entry whose
              value is the mechanical verdict records agreement), or marks
              it faulty (then it is left out of every rate, as out of every
              score).
  figures     per set, and for all sets together, per measure: ``reviewed``
              (n: sampled passes with an entry for the measure), ``overturned``
              (k: of them, set false by the entry), ``rate`` (k/n, 4 places),
              ``interval`` (the Wilson 95% interval of k in n, 4 places),
              ``not_reviewed`` (sampled passes without an entry yet) and
              ``unsampled_passes`` (N: the passes of the measure that no rule
              sends to a person, the candidates not drawn, not faulty, passing
              after review: the passes the rate speaks for). A reader
              adjusts a figure by it: about rate x N of those N passes are
              false, between low x N and high x N.

Worked example: 2 overturned of 40 sampled passes: rate 0.05, Wilson
interval (0.0138, 0.1650); with 27 passes outside the sample, about 1.4 of
them are false, between 0.4 and 4.5.

What it leaves out: it never changes a verdict (a reviewer's entry does, like
any other), and never a figure of the results table; the rate is of the
sample, not a correction applied to the table.
"""

from .. import BadInput
from ..jsonl import sha256_of
from .measures import APPLIES, MEASURES
from ..stats import rate, wilson

# With none of n sampled passes overturned, the Wilson 95% interval's upper
# end is z²/(n + z²): 16% for 20, 9% for 40 (two sets). 20 a set is the
# fewest that bounds a set's false-pass rate under one pass in five when the
# reviewers overturn none; the bound falls slowly after (5% would take 73).
# The cost: a person reads 20 more answers a set, on up to four measures each.
PER_SET = 20


def sample_key(run_id, question_id):
    """The draw's order of one answer: sha256 of ``run_id``, a line feed and
    ``question_id`` (UTF-8), as 64 hex digits."""
    return sha256_of(f"{run_id}\n{question_id}")


def candidate(row, answer, review, where):
    """What the draw and the figures need of one row the rubric does not send
    to a person: its id, set, kind, run id, sample key, verdicts after review,
    whether it is faulty and which measures have an entry. The raw line must
    name its run (``run.run_id``, text): the draw is made from it."""
    run_id = answer["run"].get("run_id")
    if not isinstance(run_id, str) or not run_id:
        raise BadInput(f"{where}: run.run_id must be a non-empty string: the sampled review "
                       "of passes is drawn from it (rules of 2026-12-02)")
    return {"id": row["id"], "set": row["set"], "kind": row["kind"], "run_id": run_id,
            "sha256": sample_key(run_id, row["id"]), "after_review": row["after_review"],
            "faulty": row["faulty"], "entries": set(review["verdicts"])}


def draw(candidates, set_order):
    """``{set: [candidate, ...]}``: each set's sample, in the draw's order."""
    drawn = {}
    for set_name in set_order:
        ordered = sorted((c for c in candidates if c["set"] == set_name),
                         key=lambda c: (c["sha256"], c["id"]))
        drawn[set_name] = ordered[:PER_SET]
    return drawn


def missing_entries(item):
    """The measures of a sampled answer that still need an entry, in
    MEASURES order (none for a faulty one: it is out of every rate)."""
    if item["faulty"]:
        return []
    return [m for m in MEASURES if m in APPLIES[item["kind"]] and m not in item["entries"]]


def sampled_review(candidates, set_order):
    """The ``sampled_review`` block of results.json (see the module's
    docstring), and the ids drawn."""
    set_order = list(dict.fromkeys(set_order))
    drawn = draw(candidates, set_order)
    ids = {c["id"] for items in drawn.values() for c in items}
    missing = [{"id": c["id"], "measures": missing_entries(c)}
               for set_name in set_order for c in drawn[set_name] if missing_entries(c)]
    groups = [(name, [name]) for name in set_order]
    if len(set_order) > 1:
        groups.append(("all", set_order))
    block = {
        "per_set": PER_SET,
        "order": "sha256(run.run_id + \"\\n\" + id), smallest first",
        "sets": [{"set": name,
                  "candidates": sum(c["set"] == name for c in candidates),
                  "sampled": [{"id": c["id"], "run_id": c["run_id"], "sha256": c["sha256"]}
                              for c in drawn[name]]}
                 for name in set_order],
        "coverage": {"sampled": len(ids), "reviewed": len(ids) - len(missing),
                     "missing": missing},
        "figures": [dict(set=name, **group_figures(
            [c for s in names for c in drawn[s]],
            [c for c in candidates if c["set"] in names and c["id"] not in ids]))
                    for name, names in groups],
    }
    return block, ids


def group_figures(sampled, unsampled):
    """``{measure: figures}`` of one group: its sampled and unsampled candidates."""
    out = {}
    for measure in MEASURES:
        counted = [c for c in sampled if not c["faulty"] and measure in APPLIES[c["kind"]]]
        reviewed = [c for c in counted if measure in c["entries"]]
        overturned = sum(c["after_review"][measure] is False for c in reviewed)
        interval = wilson(overturned, len(reviewed))
        out[measure] = {
            "reviewed": len(reviewed), "overturned": overturned,
            "rate": rate(overturned, len(reviewed)),
            "interval": [round(end, 4) for end in interval] if interval else None,
            "not_reviewed": len(counted) - len(reviewed),
            "unsampled_passes": sum(not c["faulty"] and c["after_review"][measure] is True
                                    for c in unsampled)}
    return out


class WholeAnswers:
    """The sample of the rules of 2026-12-02, gathered as rows are counted
    (``add``: the rows no rule sends to a person), then drawn (``finish``:
    results.json's ``sampled_review``), each row marked ``sampled`` or not. A
    sampled answer is ``reviewed`` once every measure that applies has an
    entry; the others keep what make_row said."""

    def __init__(self):
        self.candidates = []

    def add(self, row, answer, review, where):
        if not row["review_required"]:
            self.candidates.append(candidate(row, answer, review, where))

    def finish(self, result, sets):
        """results.json's ``sampled_review``, once every row is counted."""
        block, drawn = sampled_review(self.candidates, [qset.set for qset in sets])
        incomplete = {item["id"] for item in block["coverage"]["missing"]}
        for row in result["questions"]:
            row["sampled"] = row["id"] in drawn
            if row["sampled"]:
                row["reviewed"] = row["id"] not in incomplete
        result["sampled_review"] = block
