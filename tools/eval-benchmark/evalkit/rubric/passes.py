"""Every measure read on its own: which passes a person reads, the sample of
the rest, and how many of a figure's passes are true (rules of 2026-12-03,
evalkit/rubric/rulebook.py; the rules of 2026-12-02 drew a sample of whole
answers: evalkit/rubric/sampling.py).

  asked       the measures of an answer that the review sheet asks a person
              to judge, one entry each (``asked``): every measure it failed,
              the measure a review flag doubts (measures.FLAG_DOUBTS), and
              the decline of an answer to a not-on-site question.
  candidates  per measure, every pass no person is asked about: a
              mechanical pass of a measure that applies, not asked, of an
              answer with a raw line. Drawn from the run alone: no review
              entry can add or remove one.
  order       per set and measure, the candidates by ``draw_key``: the
              sha256 (hex) of the question file's sha256, a line feed, the
              question id, a line feed and the sha256 of the answer's
              recorded body (``response.body``, or ``body_base64`` where the
              bytes were not UTF-8), smallest first; the id breaks a tie.
              Nothing in it can be chosen once the answers are seen: the
              questions are frozen before the run, and the body is the
              answer itself. The run id, a file's name and the order of the
              lines are not read.
  size        every candidate, when a set has at most READ_ALL of the
              measure; else the first n of the order, n the fewest from
              which the 95% interval of the false-pass rate among the
              candidates is at most WIDTH wide at the rate the reviewed
              sample shows (``sample_size``): a reviewer reads the first n,
              scores again, and reads more when the sheet asks for more.
  reviewed    a sampled pass with an entry for its measure (an entry whose
              value is the mechanical verdict records agreement), or of a
              faulty question (then out of every count).
  rates       per set and language, per set and for all sets, per measure:
              candidates N, reviewed n, overturned k, the rate k/n, and the
              95% interval of the rate among the N candidates
              (stats.hypergeometric_interval of k in n of N, divided by N);
              one point when every candidate was read. For all sets, the
              sets' intervals at 95%/S each (S sets), summed.
  estimates   per set and for all sets, per measure: the passes after review
              P, and how many of them are true (``estimate``).

Worked example (by hand): a set's 100 candidates of Correct facts, 40 read,
2 overturned, 60 unread; 30 passes after review besides them, each read by a
person (asked, or sampled and upheld). P = 30 + 38 + 60 = 128. The interval
of the false passes among the 100 is (2, 14) (k = 2 in n = 40 of N = 100),
so among the 60 unread between 0 and 12 are false, about 100 x 2/40 - 2 = 3:
about 125.0 of the 128 passes are true, between 116 and 128.

What it leaves out: it never changes a verdict or a figure of the results
table (a reviewer's entry does, like any other); the estimate stands beside
the figure. A flag's pass not yet reviewed is counted as possibly false, with
no estimate, until it is.
"""

from fractions import Fraction
from operator import attrgetter

from ..jsonl import sha256_of
from ..schemas import LANGS
from ..stats import ALPHA95, first_true, hypergeometric_interval, rate
from .measures import APPLIES, FLAG_DOUBTS, MEASURES

# Up to 60 candidates of a measure in a set, a person reads them all: a
# quarter of the rubric's size has 45 answerable and 15 not-on-site
# questions a set, and reading every unread pass is cheaper than explaining
# an interval (0 overturned of 20 read still allows 16% false).
READ_ALL = 60
# Past READ_ALL, the sample grows until the 95% interval of the rate is at
# most 20 points wide; of 1,000 candidates at a rate of 10% that is about 45
# read a measure, at 0% 17 (a run of 100,000: 96 at a third false).
WIDTH = Fraction(1, 5)


def asked(kind, mechanical, flags):
    """The measures a person is asked to judge in one answer, in MEASURES
    order: every one it failed, the one its flags doubt, and a not-on-site
    answer's decline."""
    doubted = FLAG_DOUBTS[kind] if flags else None
    return [m for m in MEASURES if m in APPLIES[kind] and (
        mechanical[m] is False or m == doubted or m == "declined_when_not_on_site")]


def review_state(kind, mechanical, flags, review):
    """A row's review fields: its flags, the measures a person is asked to
    judge (``asked``), whether there is any (``review_required``), and
    whether each has an entry or the question is faulty (``reviewed``)."""
    measures = asked(kind, mechanical, flags)
    return {"flags": flags, "asked": measures, "review_required": bool(measures),
            "reviewed": review["faulty"] is not None
            or all(measure in review["verdicts"] for measure in measures)}


def draw_key(cases_sha256, question_id, body):
    """The draw's order of one answer: sha256 of the question file's sha256,
    the question id and the sha256 of the recorded ``body`` (its text, or its
    base64 where the bytes were not UTF-8), a line feed between them (UTF-8),
    as 64 hex digits."""
    return sha256_of(f"{cases_sha256}\n{question_id}\n{sha256_of(body)}")


def outcome(row, measure, entries):
    """What review says of one candidate: "faulty", "overturned" (an entry
    set it false), "stands" (an entry kept it), or None (no entry yet)."""
    if row["faulty"]:
        return "faulty"
    if measure not in entries:
        return None
    return "overturned" if row["after_review"][measure] is False else "stands"


# ---- the size of the sample ---------------------------------------------------------------

def narrow(seen, drawn, total):
    """True when the 95% interval of the rate (``seen`` false in ``drawn`` of
    ``total``) is at most WIDTH wide."""
    low, high = hypergeometric_interval(seen, drawn, total)
    return (high - low) * WIDTH.denominator <= WIDTH.numerator * total


def _fewest(start, total, enough):
    """The fewest in [start, total] that is ``enough`` (false, then true, as
    it grows); ``total`` when none is. Doubling from ``start`` first, so that
    the halving (stats.first_true) tries only sizes near the answer (a sample
    is tens of answers, a run may have a hundred thousand)."""
    low, step = start, 1
    while low + step < total and not enough(low + step):
        low, step = low + step, step * 2
    return first_true(low, min(total, low + step), enough)


def sample_size(outcomes):
    """How many of the order (``outcomes``, one per candidate in the draw's
    order: outcome()) are sampled: every one up to READ_ALL; else from the
    fewest that would do were none overturned, while the first n are all
    reviewed and their interval is wider than WIDTH, as many more as the rate
    found would need (it is predicted, then checked on what was read)."""
    if len(outcomes) <= READ_ALL:
        return len(outcomes)
    total = sum(o != "faulty" for o in outcomes)
    n = _fewest(1, len(outcomes), lambda m: narrow(0, m, total))
    while n < len(outcomes):
        read = outcomes[:n]
        if None in read:
            return n
        drawn, seen = n - read.count("faulty"), read.count("overturned")
        if narrow(seen, drawn, total):
            return n
        needed = _fewest(drawn + 1, total, lambda m: narrow(
            (2 * seen * m + drawn) // (2 * drawn), m, total))
        n += needed - drawn
    return len(outcomes)


# ---- the figures --------------------------------------------------------------------------

def false_interval(parts, alpha=ALPHA95):
    """``(low, high)`` of the false passes among the candidates of
    ``parts``, (candidates, reviewed, overturned) per set: each set's
    interval at alpha/S (S sets), summed, so that the sum holds at 1 - alpha
    (Bonferroni)."""
    share = alpha / max(1, len(parts))
    low = high = 0
    for total, drawn, seen in parts:
        ends = hypergeometric_interval(seen, drawn, total, share) if total else (0, 0)
        low, high = low + ends[0], high + ends[1]
    return low, high


def rate_figure(parts):
    """The rate of one group: ``parts``, (candidates, reviewed, overturned)
    per set."""
    total = sum(p[0] for p in parts)
    drawn = sum(p[1] for p in parts)
    seen = sum(p[2] for p in parts)
    low, high = false_interval(parts)
    return {"candidates": total, "reviewed": drawn, "overturned": seen,
            "rate": rate(seen, drawn),
            "interval": [round(low / total, 4), round(high / total, 4)] if total else None,
            "exact": drawn == total}


def estimate(passes, parts):
    """The true passes among a figure's ``passes`` (after review): ``parts``
    per set, (candidates, reviewed sampled, overturned of them, unread,
    overturned outside the sample, asked passes without an entry).

    The false passes among the unread are the candidates' false passes F
    (in the interval of k in n of N) less those read; an asked pass not yet
    reviewed may be false too. The point estimate takes F = k x N / n; there
    is none while a measure with unread passes has no reviewed sample, or an
    asked pass waits for its entry."""
    low = high = passes
    point = Fraction(passes)
    shares = [p[:3] for p in parts if p[3]]
    ends = iter([false_interval([part], ALPHA95 / max(1, len(shares))) for part in shares])
    for total, drawn, seen, unread, volunteered, pending in parts:
        high_false, low_false = pending, 0
        if unread:
            f_low, f_high = next(ends)
            low_false = max(0, f_low - seen - volunteered)
            high_false += min(unread, f_high - seen - volunteered)
            point = None if point is None or not drawn else \
                point - max(0, Fraction(seen * total, drawn) - seen - volunteered)
        if pending:
            point = None
        low, high = low - high_false, high - low_false
    return {"passes": passes, "estimate": None if point is None else _tenths(point),
            "interval": [low, high], "exact": low == high}


def _tenths(value):
    """A Fraction rounded half up to one decimal place, as a float."""
    return (value * 10 + Fraction(1, 2)).__floor__() / 10


# ---- one run's review of passes ----------------------------------------------------------

ORDER = ("sha256(questions sha256 + \"\\n\" + id + \"\\n\" + sha256 of the recorded body), "
         "smallest first, per set and measure")
SIZE = (f"every candidate when a set has at most {READ_ALL} of the measure; else the fewest "
        f"for a 95% interval of the false-pass rate at most {WIDTH.numerator * 100 // WIDTH.denominator} "
        "points wide at the rate read")


class Candidate:
    """One pass no person is asked about: the answer's ``id``, ``set`` and
    ``lang``, the ``measure``, the draw ``key``, what review says of it
    (``outcome``) and, once drawn, whether it was ``sampled``. Slots, not a
    dict: a run of 100,000 answers holds some 300,000 of them."""

    __slots__ = ("id", "set", "lang", "measure", "key", "outcome", "sampled")

    def __init__(self, row, measure, key, outcome_of):
        self.id, self.set, self.lang = row["id"], row["set"], row["lang"]
        self.measure, self.key, self.outcome = measure, key, outcome_of
        self.sampled = False


class PassReview:
    """The candidates of one run, gathered as its rows are counted (``add``),
    then drawn and counted (``finish``: results.json's ``sampled_review``) and
    marked on the rows kept (``mark``). Memory grows with the candidates, a
    few small fields each, not with the answers' texts."""

    def __init__(self):
        self.candidates = []  # Candidate
        self.pending = {}     # (set, measure): asked passes without an entry yet
        self.sampled = {}     # id: [measures], once drawn
        self.missing = {}     # id: [sampled measures without an entry]

    def add(self, row, answer, review, _where=None):
        """The candidates and pending asked passes of one row, its answer as
        siteqa.read_answer gives it (a question not asked has no body, and
        no pass)."""
        entries = review["verdicts"]
        key = None if answer.get("body") is None else \
            draw_key(answer["cases_sha256"], row["id"], answer["body"])
        for measure in APPLIES[row["kind"]]:
            passed = row["mechanical"][measure] is True
            if passed and measure in row["asked"]:
                if not row["faulty"] and measure not in entries:
                    group = (row["set"], measure)
                    self.pending[group] = self.pending.get(group, 0) + 1
            elif passed and key is not None:
                self.candidates.append(Candidate(row, measure, key,
                                                 outcome(row, measure, entries)))

    def draw(self):
        """``{(set, measure): [candidate, ...]}`` in the draw's order, each
        marked ``sampled`` or not."""
        groups = {}
        # The key alone orders them: it holds the question id, so two
        # candidates of one group never share it (the module's "order").
        self.candidates.sort(key=attrgetter("key"))
        for item in self.candidates:
            groups.setdefault((item.set, item.measure), []).append(item)
        for group in groups.values():
            size = sample_size([c.outcome for c in group])
            for place, item in enumerate(group):
                item.sampled = place < size
                if item.sampled:
                    self.sampled.setdefault(item.id, []).append(item.measure)
                    if item.outcome is None:
                        self.missing.setdefault(item.id, []).append(item.measure)
        return groups

    def finish(self, result, sets):
        """results.json's ``sampled_review`` (the module's docstring), once
        every row is counted, each row kept marked (``mark``); the answers
        still to review listed in the question files' order."""
        set_order = list(dict.fromkeys(qset.set for qset in sets))
        question_order = [q["id"] for qset in sets for q in qset.questions]
        drawn = self.draw()
        counts = self.tally()
        place = {qid: n for n, qid in enumerate(question_order)}
        missing = [{"id": qid, "measures": in_order(self.missing[qid])}
                   for qid in sorted(self.missing, key=place.get)]
        self.mark(result["questions"])
        result["sampled_review"] = {
            "order": ORDER, "size": SIZE,
            "sets": [{"set": name, "measures": [
                {"measure": m, "candidates": len(drawn[name, m]),
                 "sampled": [c.id for c in drawn[name, m] if c.sampled]}
                for m in MEASURES if (name, m) in drawn]} for name in set_order],
            "coverage": {"sampled": len(self.sampled),
                         "reviewed": len(self.sampled) - len(self.missing),
                         "missing": missing},
            "rates": self.rates(set_order, counts),
            "estimates": self.estimates(result["groups"], set_order, counts),
        }

    def mark(self, rows):
        """Each row kept: the measures sampled (``sampled``), and reviewed
        once every measure asked or sampled has an entry."""
        for row in rows:
            row["sampled"] = in_order(self.sampled.get(row["id"], []))
            if row["id"] in self.missing:
                row["reviewed"] = False

    def tally(self):
        """Per (set, language, measure), the counts of its candidates, faulty
        ones left out: [candidates, reviewed in the sample, overturned of
        them, sampled without an entry, without an entry, overturned outside
        the sample]."""
        counts = {}
        for c in self.candidates:
            if c.outcome == "faulty":
                continue
            part = counts.setdefault((c.set, c.lang, c.measure), [0] * 6)
            read = c.sampled and c.outcome is not None
            part[0] += 1
            part[1] += read
            part[2] += read and c.outcome == "overturned"
            part[3] += c.sampled and c.outcome is None
            part[4] += c.outcome is None
            part[5] += not c.sampled and c.outcome == "overturned"
        return counts

    def rates(self, set_order, counts):
        """The false-pass rates: per measure, per set and language, set and
        all sets, where a measure has a candidate."""
        out = []
        langs = sorted({lang for _s, lang, _m in counts}, key=LANGS.index)
        groups = set_order + (["all"] if len(set_order) > 1 else [])
        for measure in MEASURES:
            for name in groups:
                names = set_order if name == "all" else [name]
                for lang in ([] if name == "all" else langs) + ["all"]:
                    parts = [summed(counts, s, lang, measure) for s in names]
                    if any(p[0] for p in parts):
                        out.append(dict(set=name, lang=lang, measure=measure,
                                        not_reviewed=sum(p[3] for p in parts),
                                        **rate_figure([p[:3] for p in parts])))
        return out

    def estimates(self, groups, set_order, counts):
        """How many of each figure's passes are true: per set and all sets,
        per measure that applies to a question of the set."""
        out = []
        figure = {(g["set"], g["lang"]): g for g in groups}
        for name in set_order + (["all"] if len(set_order) > 1 else []):
            names = set_order if name == "all" else [name]
            for measure in MEASURES:
                passed = figure[name, "all"][measure]
                if passed["applicable"]:
                    parts = []
                    for s in names:
                        total, read, seen, _sampled_unread, unread, volunteered = \
                            summed(counts, s, "all", measure)
                        parts.append((total, read, seen, unread, volunteered,
                                      self.pending.get((s, measure), 0)))
                    out.append(dict(set=name, measure=measure, applicable=passed["applicable"],
                                    **estimate(passed["passed"], parts)))
        return out


def summed(counts, name, lang, measure):
    """The counts (PassReview.tally) of one set, language (or "all") and measure."""
    total = [0] * 6
    for (s, l, m), part in counts.items():
        if s == name and m == measure and lang in ("all", l):
            total = [a + b for a, b in zip(total, part)]
    return total


def in_order(measures):
    """``measures`` in MEASURES order."""
    return [m for m in MEASURES if m in measures]


