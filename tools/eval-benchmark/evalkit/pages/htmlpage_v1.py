"""FROZEN: the one English results page (index.html) of quarters scored under
the rules before 2026-12-01 (``Rules.pages == 1``, tools 0.2.0 and 0.3.0).

Why it is kept, unchanged: a published quarter re-scores byte for byte with the
current code (reproduce.py), index.html included, and the pages of 2026-12-01
(evalkit/pages/htmlpage.py: three languages, another layout) cannot write these
bytes. Do not edit this module, not even to share a helper with the new pages:
any change to its output breaks the quarters published before that date
(Documents/c4-benchmark/demo; tests/test_golden_versions.py holds it to the
0.2.0 sums). Below, its docstring as it was.

The static results page of a quarter (index.html): no JavaScript, readable
offline, every string from an answer or a question escaped.

It shows the results table (after review, mechanical in brackets where they
differ) with a 95% Wilson interval beside every rate, an inline SVG chart of
the measures per set and language, one detail section per question (question,
evidence, the answer as given, its sources, each verdict, the review reason
where one changed a verdict), review coverage and provenance. Text of unknown
direction (answers, questions) is marked ``dir="auto"`` so Hebrew renders
right to left inside a left-to-right page.

Where earlier quarters exist, publish.py freezes their overall figures into
the folder (history.json) and the page draws a trend chart from them, so the
page still re-scores from its own folder alone.
"""

from html import escape
from urllib.parse import urlsplit

from ..rubric.measures import APPLIES, MEASURES, TITLES
from ..stats import wilson

COLOURS = {"delivered": "#4c72b0", "correct_facts": "#55a868", "right_page_cited": "#c44e52",
           "in_question_language": "#8172b2", "declined_when_not_on_site": "#ccb974"}

STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0}
th,td{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top}
td.n{text-align:right;white-space:nowrap}
.ci{color:#666;font-size:.85em}
.pass{color:#1a7f37}.fail{color:#b42318}
section.q{border-top:1px solid #ddd;margin-top:1rem}
blockquote{margin:.3rem 0;padding:.3rem .6rem;background:#f6f6f6;white-space:pre-wrap}
.note{background:#fff4ce;padding:.5rem}
"""


def e(text):
    return escape("" if text is None else str(text), quote=True)


def source_link(url, attrs=""):
    """A question's source URL: a link when it is an http or https address,
    else the same text unlinked (a javascript: or data: URL is never clickable)."""
    try:
        web = urlsplit(url).scheme in ("http", "https")
    except ValueError:  # a malformed address (an unclosed "[" of an IPv6 host)
        web = False
    return f'<a href="{e(url)}"{attrs}>{e(url)}</a>' if web else f"<span{attrs}>{e(url)}</span>"


def pct(x):
    return f"{x * 100:.0f}%"


def figure_cell(fig):
    if not fig["applicable"]:
        return '<td class="n">–</td>'
    text = f"{fig['passed']}/{fig['applicable']}"
    mech = fig["mechanical"]
    if (mech["passed"], mech["applicable"]) != (fig["passed"], fig["applicable"]):
        text += f" ({mech['passed']}/{mech['applicable']})"
    low, high = wilson(fig["passed"], fig["applicable"])
    rate = fig["passed"] / fig["applicable"]
    return (f'<td class="n">{e(text)} {pct(rate)} '
            f'<span class="ci">[{pct(low)}–{pct(high)}]</span></td>')


def chart(groups):
    """Grouped bars: one group per set and language, one bar per measure."""
    rows = [g for g in groups if g["lang"] != "all"]
    bar, gap, height, left, top = 9, 14, 160, 40, 10
    width = left + len(rows) * (len(MEASURES) * bar + gap) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 60}" '
             f'role="img" aria-label="Rates after review per set and language">']
    for tick in (0, 50, 100):
        y = top + height - height * tick / 100
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="10" '
                     f'text-anchor="end">{tick}%</text>')
    for i, group in enumerate(rows):
        x0 = left + i * (len(MEASURES) * bar + gap) + gap / 2
        for j, measure in enumerate(MEASURES):
            fig = group[measure]
            if not fig["applicable"]:
                continue
            h = height * fig["passed"] / fig["applicable"]
            parts.append(f'<rect x="{x0 + j * bar:.1f}" y="{top + height - h:.1f}" width="{bar - 1}" '
                         f'height="{h:.1f}" fill="{COLOURS[measure]}"><title>{e(group["set"])} '
                         f'{e(group["lang"])} {e(TITLES[measure])}: {fig["passed"]}/'
                         f'{fig["applicable"]}</title></rect>')
        parts.append(f'<text x="{x0 + len(MEASURES) * bar / 2:.1f}" y="{top + height + 14}" '
                     f'font-size="11" text-anchor="middle">{e(group["set"])} {e(group["lang"])}</text>')
    for j, measure in enumerate(MEASURES):
        x = left + j * 150
        parts.append(f'<rect x="{x}" y="{top + height + 28}" width="10" height="10" '
                     f'fill="{COLOURS[measure]}"/><text x="{x + 14}" y="{top + height + 37}" '
                     f'font-size="10">{e(TITLES[measure])}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def overall(groups):
    """Passed and applicable per measure, summed over the sets' totals."""
    sums = {m: [0, 0] for m in MEASURES}
    for group in groups:
        if group["set"] != "all" and group["lang"] == "all":
            for m in MEASURES:
                fig = group["figures"][m] if "figures" in group else group[m]
                sums[m][0] += fig["passed"]
                sums[m][1] += fig["applicable"]
    return sums


def trend(history, groups):
    """One line per measure across the earlier quarters and this run."""
    points = [(entry["quarter"], overall(entry["groups"])) for entry in history]
    points.append(("this run", overall(groups)))
    left, top, width, height = 40, 10, max(120 * (len(points) - 1), 120), 160
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 160}" '
             f'height="{height + 40}" role="img" aria-label="Trend across quarters">']
    for tick in (0, 50, 100):
        y = top + height - height * tick / 100
        parts.append(f'<line x1="{left}" x2="{left + width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{tick}%</text>')
    step = width / max(len(points) - 1, 1)
    for i, (label, _sums) in enumerate(points):
        parts.append(f'<text x="{left + i * step:.1f}" y="{top + height + 16}" font-size="10" '
                     f'text-anchor="middle">{e(label)}</text>')
    for j, m in enumerate(MEASURES):
        coords = []
        for i, (_label, sums) in enumerate(points):
            passed, applicable = sums[m]
            if applicable:
                coords.append(f"{left + i * step:.1f},{top + height - height * passed / applicable:.1f}")
        if coords:
            parts.append(f'<polyline fill="none" stroke="{COLOURS[m]}" stroke-width="2" '
                         f'points="{" ".join(coords)}"><title>{e(TITLES[m])}</title></polyline>')
        parts.append(f'<text x="{left + width + 10}" y="{top + 12 + 14 * j}" font-size="10" '
                     f'fill="{COLOURS[m]}">{e(TITLES[m])}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def verdict(value):
    if value is None:
        return "–"
    return '<span class="pass">pass</span>' if value else '<span class="fail">fail</span>'


def render_html(result):
    p = result["provenance"]
    sets = ", ".join(c["set"] for c in p["cases"])
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>Site-QA results: {e(sets)}</title>", f"<style>{STYLE}</style>", "</head>",
           "<body>", f"<h1>Site-QA results: {e(sets)}</h1>"]
    cov = result["review_coverage"]
    if cov["missing"]:
        out.append(f'<p class="note">Not fully reviewed: {cov["reviewed"]} of {cov["required"]} '
                   "answers that the rubric requires a person to read have a review entry. "
                   f"Not reviewed: {e(', '.join(cov['missing']))}.</p>")
    else:
        out.append(f"<p>Human review: all {cov['required']} answers that the rubric requires a "
                   "person to read have a review entry.</p>")
    out.append("<h2>Results</h2>")
    out.append("<p>Passed/applicable after human review, the mechanical figure (every question, "
               "no review) in brackets where it differs, the rate, and its 95% Wilson interval "
               "in square brackets.</p>")
    out.append("<table>")
    out.append("<tr><th>Set</th><th>Lang</th>" + "".join(f"<th>{e(TITLES[m])}</th>" for m in MEASURES)
               + "<th>Median latency</th></tr>")
    for group in result["groups"]:
        latency = group["median_latency_ms"]
        out.append(f"<tr><td>{e(group['set'])}</td><td>{e(group['lang'])}</td>"
                   + "".join(figure_cell(group[m]) for m in MEASURES)
                   + f'<td class="n">{e(latency) + " ms" if latency is not None else "–"}</td></tr>')
    out.append("</table>")
    out.append(chart(result["groups"]))
    if result.get("history"):
        out.append("<h2>Trend across quarters</h2>")
        out.append("<p>Overall rates after review, per measure: the earlier quarters as "
                   "published (frozen in history.json) and this run.</p>")
        out.append(trend(result["history"], result["groups"]))
    out.append("<h2>Faulty questions</h2>")
    if result["faulty"]:
        out.append("<ul>" + "".join(f"<li>{e(f['id'])}: {e(f['reason'])}</li>"
                                    for f in result["faulty"]) + "</ul>")
    else:
        out.append("<p>None.</p>")
    out.append("<h2>Provenance</h2><ul>")
    commits = ", ".join(f"{c['commit'] or 'unknown'}{' (uncommitted changes)' if c['dirty'] else ''}"
                        for c in p["run_git_commits"])
    for label, value in (
            ("Run status", p["run"]["status"]), ("Target", p["target"]),
            ("Platform version", ", ".join(p["platform_versions"]) or "not reported"),
            ("Run date (UTC)", ", ".join(p["run_dates"])), ("Tool commit of the run", commits),
            ("DECLINE list as of", p["decline_list_date"]),
            ("Reviews", p["reviews"]["file"] or "none"),
            ("Scored by", f"{p['scorer']['tool']} {p['scorer']['version']}")):
        out.append(f"<li>{e(label)}: {e(value)}</li>")
    for case in p["cases"]:
        out.append(f"<li>Questions: {e(case['file'])} sha256 <code>{e(case['sha256'])}</code></li>")
    out.append("</ul>")
    out.append("<h2>Every question</h2>")
    for row in result["questions"]:
        out += question_section(row)
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def question_section(row):
    """One question: its text, evidence, the answer as given, its sources,
    and each verdict, mechanical and after review, with the review's reason."""
    out = []
    out.append(f'<section class="q" id="{e(row["id"])}">')
    out.append(f"<h3>{e(row['id'])} ({e(row['kind'])})"
               + (" – faulty, left out of every score" if row["faulty"] else "") + "</h3>")
    out.append(f'<p>Question: <span dir="auto" lang="{e(row["lang"])}">{e(row["question"])}</span></p>')
    if row.get("evidence"):
        out.append(f'<p>Evidence: <span dir="auto" lang="{e(row["lang"])}">{e(row["evidence"])}'
                   f'</span> ({source_link(row["source_url"])})</p>')
    if row["answer"] is None:
        out.append(f"<p>No answer: {e(row['problem'])}</p>")
    else:
        out.append(f'<blockquote dir="auto" lang="{e(row["lang"])}">{e(row["answer"])}</blockquote>')
    if row["sources"]:
        out.append("<p>Sources: " + ", ".join(f"<code>{e(s)}</code>" for s in row["sources"]) + "</p>")
    out.append("<table><tr><th>Measure</th><th>Mechanical</th><th>After review</th><th>Review</th></tr>")
    reasons = {r["measure"]: r["reason"] for r in row["reviews"]}
    for m in MEASURES:
        if m not in APPLIES[row["kind"]]:
            continue
        out.append(f"<tr><td>{e(TITLES[m])}</td><td>{verdict(row['mechanical'][m])}</td>"
                   f"<td>{verdict(row['after_review'][m])}</td><td>{e(reasons.get(m, ''))}</td></tr>")
    out.append("</table></section>")
    return out
