"""Counting verdicts and writing the results: results.json and results.md.

Counts come first (passed and applicable); a rate is derived from them at the
end, rounded once to 4 places. Every figure is given twice: after review, and
mechanical (no review applied: every question, every verdict as the rules gave
it). The markdown table shows the after-review figure and, where it differs,
the mechanical one in brackets: ``13/14 (12/15)``.

Median latency is over delivered answers, from the last attempt of each (the
one that delivered it); with an even count it is the mean of the two middle
values, rounded half up to a whole millisecond.
"""

import operator

from .measures import MEASURES, TITLES

LANG_ORDER = ("en", "he", "ru")


def rate(passed, applicable):
    return round(passed / applicable, 4) if applicable else None


def median_ms(values):
    if not values:
        return None
    values = sorted(values)
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    total = values[mid - 1] + values[mid]
    return total // 2 + (total % 2)  # half up, in integers


_VERDICTS = operator.itemgetter(*MEASURES)


class Tally:
    """Rows counted by (set, lang) as they are made: how often each pattern
    of verdicts (after review, mechanical) occurs, and the latencies that
    count. score.py counts each row as it judges it, while the other
    processes still read answers, rather than all of them at the end."""

    def __init__(self):
        self.parts = {}

    def add(self, row):
        key = (row["set"], row["lang"])
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = ({}, [])
        patterns, latencies = part
        after = None if row["faulty"] else _VERDICTS(row["after_review"])
        pattern = (after, _VERDICTS(row["mechanical"]))
        patterns[pattern] = patterns.get(pattern, 0) + 1
        if after is not None and row["after_review"]["delivered"] and row["latency_ms"] is not None:
            latencies.append(row["latency_ms"])

    def groups(self, set_order):
        """Per set and language, per set, and in total, in a fixed order."""
        parts = self.parts
        out = []
        for set_name in set_order:
            langs = [lang for lang in LANG_ORDER if (set_name, lang) in parts]
            for lang in langs:
                out.append({"set": set_name, "lang": lang, **_summary([parts[set_name, lang]])})
            out.append({"set": set_name, "lang": "all",
                        **_summary([parts[set_name, lang] for lang in langs])})
        if len(set_order) > 1:
            out.append({"set": "all", "lang": "all", **_summary(list(parts.values()))})
        return out


def _summary(tallies):
    """The figures of one group, from the tallies of its (set, lang) parts."""
    after = [[0, 0] for _ in MEASURES]
    mech = [[0, 0] for _ in MEASURES]
    questions = faulty = 0
    latencies = []
    for patterns, part_latencies in tallies:
        latencies += part_latencies
        for (after_verdicts, mech_verdicts), count in patterns.items():
            questions += count
            if after_verdicts is None:
                faulty += count
            else:
                for figure, value in zip(after, after_verdicts):
                    if value is not None:
                        figure[0] += count if value else 0
                        figure[1] += count
            for figure, value in zip(mech, mech_verdicts):
                if value is not None:
                    figure[0] += count if value else 0
                    figure[1] += count
    out = {}
    for index, measure in enumerate(MEASURES):
        passed, applicable = after[index]
        m_passed, m_applicable = mech[index]
        out[measure] = {"passed": passed, "applicable": applicable,
                        "rate": rate(passed, applicable),
                        "mechanical": {"passed": m_passed, "applicable": m_applicable,
                                       "rate": rate(m_passed, m_applicable)}}
    out["median_latency_ms"] = median_ms(latencies)
    out["questions"] = questions
    out["faulty"] = faulty
    return out


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
    cov = result["review_coverage"]
    lines.append("")
    lines.append(f"Human review: {cov['reviewed']} of {cov['required']} answers that the rubric "
                 "requires a person to read have a review entry"
                 + ("." if not cov["missing"] else
                    f"; not reviewed: {', '.join(cov['missing'])}."))
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
    lines += ["", "## Provenance", ""]
    p = result["provenance"]
    lines.append(f"- Run status: {p['run']['status']}")
    lines.append(f"- Target: {p['target']}")
    lines.append(f"- Platform version: {', '.join(p['platform_versions']) or 'not reported'}")
    lines.append(f"- Run date (UTC): {', '.join(p['run_dates']) or 'none'}")
    commits = [f"{c['commit'] or 'unknown'}{' (uncommitted changes)' if c['dirty'] else ''}"
               for c in p["run_git_commits"]]
    lines.append(f"- Tool commit of the run: {', '.join(commits) or 'unknown'}")
    for case in p["cases"]:
        lines.append(f"- Questions: {case['file']} sha256 {case['sha256']}")
    lines.append(f"- Reviews: {p['reviews']['file'] or 'none'}"
                 + (f" ({p['reviews']['entries']} entries)" if p['reviews']['file'] else ""))
    lines.append(f"- DECLINE list as of: {p['decline_list_date']}")
    lines.append(f"- Scored by: {p['scorer']['tool']} {p['scorer']['version']}")
    return "\n".join(lines) + "\n"
