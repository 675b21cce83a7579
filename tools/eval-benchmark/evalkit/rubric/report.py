"""Counting verdicts and writing the tables: results.md and the review sheet.

Counts come first (passed and applicable); a rate is derived from them at the
end, rounded once to 4 places. Every figure is given twice: after review, and
mechanical (no review applied: every question, every verdict as the rules gave
it). The markdown table shows the after-review figure and, where it differs,
the mechanical one in brackets: ``13/14 (12/15)``.

From the rules of 2026-12-02, results.md and the review sheet have a
section on the sampled review of passes (evalkit/rubric/sampling.py); its figures
are formatted once, by ``sample_texts``, for results.md and the pages. From
those of 2026-12-02.2, results.md ends with its signature (``signature``).
From those of 2026-12-03, every measure is read on its own
(evalkit/rubric/passes.py): results.md shows beside the figures how many of
their passes are true (``truth_markdown``), the false-pass rates per set and
language (``rates_markdown``), and the review sheet lists each answer once
with an entry for every measure a person is asked or sampled to read; the
signature covers the reviews file too.

Median latency is over delivered answers, from the last attempt of each (the
one that delivered it); with an even count it is the mean of the two middle
values, rounded half up to a whole millisecond.

Text that came from a server (an answer, its sources, a problem or error
text, a platform version, a model's name, an atom, an evaluator's error)
goes into Markdown only through ``inert``: one line, and no character of it
can open Markdown structure. The review sheet and results.md of both suites
use it.
"""

import json
import re
from collections import Counter, defaultdict

from .measures import APPLIES, FLAGS, MEASURES, TITLES
from .rulebook import rules_as_of
from ..stats import rate, wilson

LANG_ORDER = ("en", "he", "ru")

# What ``inert`` escapes: the characters that open Markdown structure
# wherever they stand (an escape, a code span, emphasis, a link or image: "!["
# needs the "[", raw HTML or an autolink, a table cell, a strikethrough), "&"
# that would start an entity or a numeric character reference, and "_" but
# between two letters or digits ([^\W_] is what str.isalnum() takes).
_ACTIVE = re.compile(r"[\\`*\[\]<>|~]|&(?=#?[0-9A-Za-z]+;)|(?<![^\W_])_|_(?![^\W_])")
# C0 and C1 control characters and DEL, folded like a line break.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
# What opens a block when it starts a line: a heading, a quote, a list item,
# a setext underline or a thematic break.
_LINE_START = re.compile(r" *(?:[#>+=-]|[0-9]+[.)])")


def inert(text):
    r"""``text`` as Markdown that shows it and opens nothing: one line, every
    character that could start a link, an image, an HTML tag, a heading, a
    list, a table cell, emphasis or a code span escaped with a backslash.

    Every line break Unicode has (\n, \r, U+2028, U+2029, \x85 ...) and every
    other control character becomes a space. Always escaped: \ ` * [ ] < > |
    ~. Escaped where they would act: "_" unless between two letters or
    digits (snake_case stays as it is), "&" when it would start an entity
    (&amp; &#60;), and at the start of the text "#", ">", "+", "=", "-" or
    the "." or ")" of "1." (a block opens only at a line's start). "!" is left
    alone: it opens an image only before "[", which is escaped.

    A URL is inert text like any other: never a Markdown link or autolink,
    so no ``javascript:`` or ``data:`` address is ever clickable (a viewer
    that links bare http(s) addresses by itself may link those).

    >>> inert("[x](javascript:alert(1))\n## fake")
    '\\[x\\](javascript:alert(1)) ## fake'
    """
    text = _ACTIVE.sub(r"\\\g<0>", _CONTROL.sub(" ", " ".join(str(text).splitlines())))
    opener = _LINE_START.match(text)
    if opener:  # "\#", "\-", "1\.": the marker's last character escaped
        at = opener.end() - 1
        text = text[:at] + "\\" + text[at:]
    return text


def median_ms(values):
    if not values:
        return None
    values = sorted(values)
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    total = values[mid - 1] + values[mid]
    return total // 2 + (total % 2)  # half up, in integers


class Tally:
    """The rows counted as they are judged, per (set, language) (``parts``):
    per measure, passed and applicable after review (faulty questions left
    out) and mechanical (every question), the questions and the faulty ones;
    and the latencies of the answers delivered after review. And how many
    answers the rubric requires a person to read, and how many of those have
    no review entry."""

    def __init__(self):
        self.parts = defaultdict(Counter)
        self.latencies = defaultdict(list)
        self.review_required = 0
        self.review_missing = 0

    def add(self, row):
        if row["review_required"]:
            self.review_required += 1
            self.review_missing += not row["reviewed"]
        key = (row["set"], row["lang"])
        counts = self.parts[key]
        counts["questions"] += 1
        _count(counts, "mechanical", row["mechanical"])
        if row["faulty"]:
            counts["faulty"] += 1
            return
        _count(counts, "after", row["after_review"])
        if row["after_review"]["delivered"] and row["latency_ms"] is not None:
            self.latencies[key].append(row["latency_ms"])

    def groups(self, set_order):
        """The figures of every group, in the table's order (``group_keys``).
        A total is the sum of its parts' counts."""
        out = []
        for set_name, lang in group_keys(set_order, self.parts):
            keys = [(s, l) for s, l in self.parts if set_name in ("all", s) and lang in ("all", l)]
            out.append({"set": set_name, "lang": lang, **figures(
                sum((self.parts[key] for key in keys), Counter()),
                [ms for key in keys for ms in self.latencies[key]])})
        return out


def _count(counts, kind, verdicts):
    """One row's verdicts of one kind (after review, mechanical) counted."""
    for measure, value in verdicts.items():
        if value is not None:
            counts[kind, measure, "passed"] += value
            counts[kind, measure, "applicable"] += 1


def group_keys(set_order, present):
    """The groups of a results table, in its order: per set its languages
    (en, he, ru) and its total, then the total of all sets when there are
    several. ``present`` holds the (set, language) pairs that have answers."""
    keys = []
    for set_name in set_order:
        keys += [(set_name, lang) for lang in LANG_ORDER if (set_name, lang) in present]
        keys.append((set_name, "all"))
    if len(set_order) > 1:
        keys.append(("all", "all"))
    return keys


def figures(counts, latencies):
    """A group's figures as results.json holds them: counts, then rates."""
    out = {measure: {**_figure(counts, "after", measure),
                     "mechanical": _figure(counts, "mechanical", measure)} for measure in MEASURES}
    out.update(median_latency_ms=median_ms(latencies), questions=counts["questions"],
               faulty=counts["faulty"])
    return out


def _figure(counts, kind, measure):
    passed, applicable = counts[kind, measure, "passed"], counts[kind, measure, "applicable"]
    return {"passed": passed, "applicable": applicable, "rate": rate(passed, applicable)}


def cell(figure):
    text = f"{figure['passed']}/{figure['applicable']}" if figure["applicable"] else "–"
    mech = figure["mechanical"]
    if (mech["passed"], mech["applicable"]) != (figure["passed"], figure["applicable"]):
        mech_text = f"{mech['passed']}/{mech['applicable']}" if mech["applicable"] else "–"
        text += f" ({mech_text})"
    return text


def render_markdown(result):
    sets = ", ".join(c["set"] for c in result["provenance"]["cases"])
    lines = [f"# Site-QA results: {sets}", ""]
    header = ["Set", "Lang"] + [TITLES[m] for m in MEASURES] + ["Median latency"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join(["---"] * 2 + ["--:"] * (len(header) - 2)) + "|")
    for group in result["groups"]:
        latency = group["median_latency_ms"]
        row = [group["set"], group["lang"]] + [cell(group[m]) for m in MEASURES] + [
            f"{latency} ms" if latency is not None else "–"]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Passed/applicable after human review; the mechanical figure (every "
                 "question, no review applied) in brackets where it differs. "
                 "– means the measure does not apply.")
    faulty = result["faulty"]
    lines += review_markdown(result)
    lines += ["", "## Faulty questions (left out of every score)", ""]
    lines += [f"- {item['id']}: {item['reason']}" for item in faulty] or ["None."]
    changes = [(row["id"], measure, row["mechanical"][measure], value, reason)
               for row in result["questions"] if row["review_changes"]
               for measure, (value, reason) in sorted(row["review_changes"].items())]
    lines += ["", "## Verdicts set by review", ""]
    lines += [f"- {qid} {measure}: {str(old).lower()} -> {str(new).lower()}: {reason}"
              for qid, measure, old, new, reason in changes] or ["None."]
    missing = [row["id"] for row in result["questions"] if row["problem"] == "not asked"]
    if missing:
        lines += ["", "## Not asked (counted as not delivered)", "",
                  ", ".join(missing)]
    lines += provenance_lines(result["provenance"])
    return "\n".join(lines) + "\n"


def review_markdown(result):
    """The human review's coverage, and the sampled review of passes: under
    the rules of 2026-12-03 on, how many of each figure's passes are true and
    the rates (evalkit/rubric/passes.py); under those of 2026-12-02, the
    whole-answer sample (evalkit/rubric/sampling.py)."""
    cov = result["review_coverage"]
    lines = ["", f"Human review: {cov['reviewed']} of {cov['required']} answers that the rubric "
                 "requires a person to read have a review entry"
             + ("." if not cov["missing"] else f"; not reviewed: {', '.join(cov['missing'])}.")]
    block = result.get("sampled_review")
    if block and "rates" in block:
        lines += truth_markdown(block) + rates_markdown(block)
    elif block:
        lines += sample_markdown(block)
    return lines


def provenance_lines(p):
    """The provenance section of results.md, and the signature the rules of
    its date write (evalkit/rubric/runs.py)."""
    lines = ["", "## Provenance", "", f"- Run status: {p['run']['status']}"]
    # The target, platform version, dates and commits are as the raw lines
    # recorded them, the platform version as the server sent it.
    lines.append(f"- Target: {inert(p['target'])}")
    lines.append("- Platform version: "
                 + (", ".join(inert(v) for v in p["platform_versions"]) or "not reported"))
    lines.append(f"- Run date (UTC): {', '.join(inert(d) for d in p['run_dates']) or 'none'}")
    commits = [f"{inert(c['commit']) if c['commit'] else 'unknown'}"
               f"{' (uncommitted changes)' if c['dirty'] else ''}"
               for c in p["run_git_commits"]]
    lines.append(f"- Tool commit of the run: {', '.join(commits) or 'unknown'}")
    for case in p["cases"]:
        lines.append(f"- Questions: {case['file']} sha256 {case['sha256']}")
    lines.append(f"- Reviews: {p['reviews']['file'] or 'none'}"
                 + (f" ({p['reviews']['entries']} entries)" if p['reviews']['file'] else ""))
    lines.append(f"- DECLINE list as of: {p['decline_list_date']}")
    lines.append(f"- Scored by: {p['scorer']['tool']} {p['scorer']['version']}")
    return lines + rules_as_of(p["decline_list_date"]).signature(p)


def percent(x):
    return f"{x * 100:.0f}%"


def sample_texts(fig):
    """One measure's sampled-review figures as results.md and the pages show
    them, formatted here once: ``overturned`` "k/n" (of the sampled passes
    reviewed), ``rate`` "5%", ``interval`` "1%–17%" (Wilson 95%, from the
    counts), ``unsampled`` N (the passes outside the sample) and ``expected``
    "1.4 (0.4–4.5)": the false passes among those N by the rate, and by the
    interval's ends. "–" where nothing was reviewed, or no pass is outside
    the sample."""
    n, k, unsampled = fig["reviewed"], fig["overturned"], fig["unsampled_passes"]
    out = {"overturned": f"{k}/{n}" if n else "–", "rate": "–", "interval": "–",
           "unsampled": str(unsampled), "expected": "–"}
    if n:
        low, high = wilson(k, n)
        out.update(rate=percent(k / n), interval=f"{percent(low)}–{percent(high)}")
        if unsampled:
            out["expected"] = (f"{k * unsampled / n:.1f} "
                               f"({low * unsampled:.1f}–{high * unsampled:.1f})")
    return out


def sample_rows(block):
    """``[(set, measure, texts)]`` of the sampled review's table: per group
    (each set, then all), the measures with a pass sampled or outside the
    sample (none of Declined when not on the site: every such answer is read)."""
    return [(group["set"], measure, sample_texts(group[measure]))
            for group in block["figures"] for measure in MEASURES
            if group[measure]["reviewed"] + group[measure]["not_reviewed"]
            + group[measure]["unsampled_passes"]]


def sample_markdown(block):
    """The sampled review's section of results.md (evalkit/rubric/sampling.py)."""
    lines = ["", "## Sampled review of passes", "",
             "The passes no rule sends to a person (every measure that applies passed, no "
             f"flag), drawn per set in the order of the sha256 of the run id and the question "
             f"id, {block['per_set']} a set (all where fewer), each read on every measure that "
             "applies: overturned/reviewed, the false-pass rate and its 95% Wilson interval. "
             "It speaks for the passes outside the sample: about rate × their number of them "
             "are false, between the interval's ends × their number. – means nothing to count.",
             "",
             "| Set | Measure | Overturned | False-pass rate | 95% interval "
             "| Passes outside the sample | False among them |",
             "|---|---|--:|--:|--:|--:|--:|"]
    for set_name, measure, t in sample_rows(block):
        lines.append(f"| {set_name} | {TITLES[measure]} | {t['overturned']} | {t['rate']} | "
                     f"{t['interval']} | {t['unsampled']} | {t['expected']} |")
    drawn = ", ".join(f"{s['set']} {len(s['sampled'])}/{s['candidates']}" for s in block["sets"])
    cov = block["coverage"]
    lines += ["", f"Sampled/candidates: {drawn}. Review of the sample: {cov['reviewed']} of "
                  f"{cov['sampled']} sampled answers have an entry for every measure that "
                  "applies" + ("." if not cov["missing"] else
                               "; not reviewed: "
                               + ", ".join(item["id"] for item in cov["missing"]) + ".")]
    return lines


def truth_texts(item, exact="exact", about="about "):
    """One figure's estimate (evalkit/rubric/passes.py) as results.md shows
    it: "13/45 (exact)", "13/45: about 12.4 (10–13)", or "13/45: 9–13" while
    no point estimate can be made; the pages give their own words for
    ``exact`` and ``about``."""
    low, high = item["interval"]
    figure = f"{item['passes']}/{item['applicable']}"
    if item["exact"]:
        return f"{figure} ({exact})"
    if item["estimate"] is None:
        return f"{figure}: {low}–{high}"
    return f"{figure}: {about}{item['estimate']:.1f} ({low}–{high})"


def truth_markdown(block):
    """results.md's table of how many passes are true, per set and all sets,
    a column a measure, beside the results table."""
    lines = ["", "## How many of the passes are true", "",
             "Each figure's passes after review, and how many of them are true: exact where "
             "a person read every pass, else about so many, with the 95% interval, from the "
             "sampled review below (evalkit/rubric/passes.py). – means the measure does not "
             "apply.", "",
             "| Set | " + " | ".join(TITLES[m] for m in MEASURES) + " |",
             "|---|" + "--:|" * len(MEASURES)]
    by_set = {}
    for item in block["estimates"]:
        by_set.setdefault(item["set"], {})[item["measure"]] = item
    for name, items in by_set.items():
        lines.append(f"| {name} | " + " | ".join(
            truth_texts(items[m]) if m in items else "–" for m in MEASURES) + " |")
    return lines


def rate_texts(item):
    """One group's false-pass rate (evalkit/rubric/passes.py) as results.md
    and the pages show it: ``read`` "k/n", ``rate`` "5%", ``interval``
    "1%–17%" (of the rate among every candidate) or "exact"."""
    out = {"read": f"{item['overturned']}/{item['reviewed']}" if item["reviewed"] else "–",
           "rate": percent(item["rate"]) if item["rate"] is not None else "–",
           "interval": "exact" if item["exact"] else
           f"{percent(item['interval'][0])}–{percent(item['interval'][1])}"}
    return out


def rates_markdown(block):
    """results.md's section on the sampled review of passes, rules of
    2026-12-03 on: per set and language, set, and all sets, per measure."""
    lines = ["", "## Sampled review of passes", "",
             "Every pass no person is asked to read is a candidate of its measure; per set and "
             "measure, the candidates are read in the order of the sha256 of the question file, "
             "the question id and the answer's recorded body: every one when a set has at most "
             "60, else enough for a 95% interval at most 20 points wide. Overturned/read, the "
             "false-pass rate found, and its 95% interval among all the candidates (exact where "
             "every one was read).", "",
             "| Measure | Set | Lang | Candidates | Overturned/read | False-pass rate "
             "| 95% interval |",
             "|---|---|---|--:|--:|--:|--:|"]
    for item in block["rates"]:
        t = rate_texts(item)
        lines.append(f"| {TITLES[item['measure']]} | {item['set']} | {item['lang']} | "
                     f"{item['candidates']} | {t['read']} | {t['rate']} | {t['interval']} |")
    cov = block["coverage"]
    lines += ["", f"Review of the sample: {cov['reviewed']} of {cov['sampled']} sampled answers "
                  "have an entry for every measure sampled" +
              ("." if not cov["missing"] else "; not reviewed: " + ", ".join(
                  f"{item['id']} ({', '.join(item['measures'])})"
                  for item in cov["missing"]) + ".")]
    return lines


def render_review_sheet(result, reviews_path=None):
    """A markdown sheet of the answers a person must read, each with the
    reviews entry to write for it once the reason is written (a reason left
    as TODO is refused), and at the end the whole reviews file with every
    entry, valid JSON as it stands, to copy to ``reviews_path``. Every text
    of an answer or a question is shown through ``inert``: one line each,
    and none can add a section, a code block, a link or HTML to the sheet.

    The sheet is the reviewer's worksheet, not a published output: no quarter
    folder holds it and reproduce.py never compares it, so its words may
    change without a dated rule (rulebook.py dates what moves a published
    number or page), under every rules' date alike. Under the rules of
    2026-12-03 on, each answer is listed once, with an entry for each measure
    to read (``sheet_by_measure``)."""
    target = f"`{reviews_path}`" if reviews_path else "the quarter's reviews file " \
        "(`reviews-QUARTER.json` beside the raw answers)"
    if "rates" in result.get("sampled_review", {}):
        return sheet_by_measure(result, target)
    lines = ["# Review sheet", "",
             f"Read each answer below and write your verdicts into {target}. The last "
             "section holds that whole file, every entry with its reason TODO: copy it as it "
             "stands, then for each answer set `value` to your verdict and write a one-line "
             "`reason`. An entry whose value equals the mechanical verdict records that you "
             "read it and agree; `{\"id\": ..., \"faulty\": true, \"reason\": ...}` marks "
             "a faulty question instead. Each answer comes with one entry, for one measure; any "
             "other measure it failed (its Mechanical line lists them all) may get an entry of "
             "its own too, with the same id.", ""]
    coverage = result["review_coverage"]
    lines.append(f"{coverage['required']} answers to read; {coverage['reviewed']} already "
                 "have an entry.")
    entries = []
    for row in result["questions"]:
        if row["review_required"]:
            measure = review_measure(row)
            entry = {"id": row["id"], "measure": measure, "value": row["mechanical"][measure],
                     "reason": "TODO"}
            entries.append(entry)
            lines += _review_entry(row) + ["", "    " + json.dumps(entry, ensure_ascii=False)]
    if "sampled_review" in result:  # rules of 2026-12-02 on
        lines += _sampled_section(result, entries)
    return _with_reviews_file(lines, entries)


def to_read(row):
    """``[(measure, why)]``: the measures of a row (rules of 2026-12-03 on)
    that a person must judge, in MEASURES order, each with why: "failed",
    "flagged", "not on the site" or "sampled"."""
    out = []
    for measure in MEASURES:
        if measure in row["asked"]:
            why = "failed" if row["mechanical"][measure] is False else \
                "not on the site" if row["kind"] == "not_on_site" else "flagged"
            out.append((measure, why))
        elif measure in row["sampled"]:
            out.append((measure, "sampled"))
    return out


def sheet_entries(row):
    """The reviews entries of a row on the sheet: those the reviews file
    holds, as written, and a TODO entry (the mechanical verdict) for each
    measure to read that has none."""
    written = {r["measure"]: r for r in row["reviews"]}
    entries = [{"id": row["id"], "measure": r["measure"], "value": r["value"],
                "reason": r["reason"]} for r in row["reviews"]]
    entries += [{"id": row["id"], "measure": m, "value": row["mechanical"][m], "reason": "TODO"}
                for m, _why in to_read(row) if m not in written]
    return sorted(entries, key=lambda e: MEASURES.index(e["measure"]))


def sheet_by_measure(result, target):
    """The review sheet under the rules of 2026-12-03 on: each answer with a
    measure to read listed once, with one entry a measure (render_review_sheet)."""
    faulty = {item["id"]: item["reason"] for item in result["faulty"]}
    listed = [row for row in result["questions"] if to_read(row) or row["id"] in faulty]
    entries = []
    body = []
    for row in listed:
        mine = [{"id": row["id"], "faulty": True, "reason": faulty[row["id"]]}] \
            if row["id"] in faulty else sheet_entries(row)
        entries += mine
        body += _review_entry(row) + [
            "- To judge: " + ", ".join(f"{m} ({why})" for m, why in to_read(row)), ""]
        body += ["    " + json.dumps(entry, ensure_ascii=False) for entry in mine]
    todo = sum(entry.get("reason") == "TODO" for entry in entries)
    lines = ["# Review sheet", "",
             f"Read each answer below and write your verdicts into {target}. Each answer is "
             "listed once, with one entry for every measure a person must judge: each measure "
             "it failed, Correct facts where a flag doubts it, the decline of an answer to a "
             "not-on-site question, and each measure the sampled review of passes drew (read "
             "it as carefully: the rate of false passes is published from it). Entries the "
             "reviews file holds are shown as written; the others carry the mechanical verdict "
             "and the reason TODO. The last section holds the whole file: copy it, then set "
             "each TODO entry's `value` to your verdict (true where the pass stands) and write "
             "a one-line `reason`. `{\"id\": ..., \"faulty\": true, \"reason\": ...}` marks "
             "a faulty question instead.", "",
             f"{len(listed)} answers to read, {len(entries)} entries; {todo} still TODO."]
    return _with_reviews_file(lines + body, entries)


def _with_reviews_file(lines, entries):
    """The sheet: ``lines``, then its last section, the whole reviews file
    of ``entries``, valid JSON as it stands."""
    lines += ["", "## The reviews file", "", "```json", '{"format": 1, "reviews": [']
    lines += ["  " + json.dumps(entry, ensure_ascii=False) + ("," if n < len(entries) - 1 else "")
              for n, entry in enumerate(entries)]
    return "\n".join(lines + ["]}", "```"]) + "\n"


def _sampled_section(result, entries):
    """The sheet's section of the sampled passes: each answer, and an entry
    for every measure that applies to it (added to ``entries``)."""
    block = result["sampled_review"]
    cov = block["coverage"]
    lines = ["", "## Sampled passes", "",
             f"These {cov['sampled']} answers passed every measure that applies and no flag "
             "sent them to a person: the rule drew them (the sha256 of the run id and the "
             f"question id, {block['per_set']} a set) so that the rate of false passes can be "
             "published. Read each on every measure: one entry a measure, `value` your verdict "
             f"(true where the pass stands). {cov['reviewed']} already have every entry."]
    for row in result["questions"]:
        if row.get("sampled"):
            answer = _review_entry(row)
            # Its heading one level down: the answers are this section's.
            at = next(n for n, line in enumerate(answer) if line.startswith("## "))
            answer[at] = "#" + answer[at]
            lines += answer + [""]
            for measure in MEASURES:
                if measure in APPLIES[row["kind"]]:
                    entry = {"id": row["id"], "measure": measure,
                             "value": row["mechanical"][measure], "reason": "TODO"}
                    entries.append(entry)
                    lines.append("    " + json.dumps(entry, ensure_ascii=False))
    return lines


def review_measure(row):
    """The measure the sheet's entry of a flagged answer names: a not-on-site
    answer's decline, else the first measure it failed, else Correct facts."""
    if row["kind"] == "not_on_site":
        return "declined_when_not_on_site"
    failed = [m for m in MEASURES if row["mechanical"][m] is False]
    return failed[0] if failed else "correct_facts"


def _review_entry(row):
    lines = ["", f"## {inert(row['id'])} ({inert(row['kind'])})"
             f"{' - reviewed' if row['reviewed'] else ''}",
             "", f"- Question: {inert(row['question'])}"]
    if row.get("evidence"):
        lines.append(f"- Evidence: {inert(row['evidence'])} ({inert(row['source_url'])})")
    if row.get("must_not_include"):
        lines.append(f"- Must not include: {', '.join(inert(s) for s in row['must_not_include'])}")
    answer = row["answer"] if row["answer"] is not None else f"(no answer: {row['problem']})"
    lines.append(f"- Answer: {inert(' '.join(answer.split()))}")
    lines.append(f"- Sources: {', '.join(inert(s) for s in row['sources']) or 'none'}; "
                 f"grounded: {inert(json.dumps(row['grounded']))}")
    verdicts = ", ".join(f"{m} {json.dumps(row['mechanical'][m])}" for m in MEASURES
                         if m in APPLIES[row["kind"]])
    lines.append(f"- Mechanical: {verdicts}")
    if row.get("flags"):
        lines.append("- Flags (it passed, but): " + "; ".join(_flag_text(flag, row)
                                                              for flag in row["flags"]))
    return lines


# The flags of the rules of 2026-12-02 that name what they found, and where
# in a row's details it is.
FLAG_FOUND = {"negation": "negation_words", "value": "other_values", "qualifier": "unbound_qualifiers"}


def _flag_text(flag, row):
    """A flag as the review sheet shows it; the flags of 2026-12-02 with what
    they found (the negation words, the numbers, the qualifiers), as the
    answer has them."""
    found = (row.get("details") or {}).get(FLAG_FOUND.get(flag))
    if found:
        return f"{FLAGS[flag]} ({', '.join(inert(word) for word in found)})"
    return FLAGS[flag]
