"""The static results pages of a quarter: one per language (English, Hebrew
right to left, Russian), from one template and one table of labels
(evalkit/pages/pagelabels.py), linked to each other. Readable offline and
whole with scripts off; one small inline script adds the filters
(evalkit/pages/explore.py); every string from an answer or a question escaped,
and each bidi control in it shown as a mark naming it, never applied
(explore.inert: an override turned "214" into "412" on the page).

``render_pages(result, index_name)`` gives ``{file name: text}`` of a result's
pages: index.html, index.he.html and index.ru.html, for a quarter scored under
any rules. A page is a presentation of results.json: reproduce.py checks a
published page by what it shows (evalkit/pages/shown.py), not by its bytes, so
that an old quarter's pages need no renderer frozen at its date.

A page: the results table (after review, mechanical in brackets where they
differ, a 95% Wilson interval beside every rate, each figure's counts a link to
the questions it counts; on a phone each row becomes a card), from the rules of 2026-12-02 the sampled review of passes beside it
(the false-pass rate per set and measure with its interval, the numbers of
results.md: report.sample_rows; on a phone each row a card too; and at the
top whether the sample is reviewed), a bar chart of the measures per set and
language and, where earlier quarters exist (history.json, frozen into the
folder by publish.py), a trend chart (evalkit/pages/svgcharts.py), the faulty
questions, the verdicts set by review, the provenance (with links to
results.json and results.md beside the page), an index of the questions
under the filters (which the page's address holds: explore.py) and one entry per question (question, evidence, the answer as
given, its sources, each verdict with the review's reason, and what the rules
found). Only the labels differ between the languages: the numbers, the rows
and the data are the same bytes on every page. Text of unknown direction
(answers, questions) is marked ``dir="auto"``; numbers and data in a label are
isolated (``<bdi>``, ``dir="ltr"``) so that a right-to-left page keeps them in
order.
"""

from urllib.parse import quote, urlsplit

from ..rubric.measures import APPLIES, MEASURES
from ..rubric.report import rate_texts, sample_rows, truth_texts
from ..stats import wilson
from . import explore
from .explore import inert, inert_plain
from .pagelabels import LANGS, RTL, e, label, page_names
from .svgcharts import bar_chart, trend_chart

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;line-height:1.45;margin:0 auto;max-width:72rem;padding:.5rem 1rem 2rem;color:#222}
nav.langs{display:flex;flex-wrap:wrap;gap:.3rem 1rem;justify-content:flex-end;font-size:.95em}
table{border-collapse:collapse;margin:1rem 0}
th,td{border:1px solid #ccc;padding:.3rem .45rem;vertical-align:top;text-align:start}
table.results{width:100%}
table.results th{font-size:.9em}
td.n,th.n{text-align:end}
.fig{white-space:nowrap}
.ci{color:#555;font-size:.85em}
.pass{color:#1a7f37}.fail{color:#b42318}
figure{margin:1rem 0}
div.wide{overflow-x:auto}
div.wide td:first-child{min-width:8rem}
figcaption{font-size:.9em;color:#444}
svg{max-width:100%;height:auto;direction:ltr}
code,blockquote,.data{overflow-wrap:anywhere}
code.bidi{font-size:.75em;white-space:nowrap;overflow-wrap:normal;padding:0 .2em;border:1px solid #c8a600;border-radius:3px;background:#fff4ce;color:#5c4a00}
ul.index{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.2rem .9rem}
ul.index li.head{flex-basis:100%;font-weight:600;margin-top:.4rem}
section.q{border-top:1px solid #ddd;margin-top:1rem}
section.q table{width:100%}
blockquote{margin:.3rem 0;padding:.3rem .6rem;background:#f6f6f6;white-space:pre-wrap}
.note{background:#fff4ce;padding:.5rem}
a.up{font-size:.9em}
[hidden]{display:none!important}
form.explore{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;margin:1rem 0;padding:.5rem;background:#f3f6fb}
ul.found{margin:.3rem 0;font-size:.92em;overflow-wrap:anywhere}
@media (max-width:44rem){
body{padding:.5rem .6rem 2rem}
table.results,table.results tbody,table.results tr,table.results td,table.sample,table.sample tbody,table.sample tr,table.sample td,table.truth,table.truth tbody,table.truth tr,table.truth td{display:block;width:100%}
table.results thead,table.sample thead,table.truth thead{display:none}
table.results tr,table.sample tr,table.truth tr{border:1px solid #ccc;margin:0 0 .7rem}
table.results td,table.sample td,table.truth td{border:0;border-top:1px solid #eee;display:flex;justify-content:space-between;gap:1rem;text-align:end}
table.results td:first-child,table.sample td:first-child{border-top:0;min-width:0}
table.truth td:first-child{border-top:0;font-weight:700;font-size:1.1em}
table.results td::before{content:attr(data-label);font-weight:600;text-align:start}
table.sample td::before,table.truth td::before{font-weight:600;text-align:start}
table.results td:nth-child(-n+2),table.sample td:nth-child(-n+2){display:inline-block;width:auto;border:0;font-weight:700;font-size:1.1em}
table.results td:nth-child(-n+2)::before,table.sample td:nth-child(-n+2)::before{content:none}
table.verdicts,table.verdicts tbody,table.verdicts tr,table.verdicts td{display:block;width:100%}
table.verdicts thead{display:none}
table.verdicts tr{border:1px solid #ccc;margin:0 0 .5rem}
table.verdicts td{border:0;border-top:1px solid #eee}
table.verdicts td:first-child{border-top:0;font-weight:600}
table.verdicts td::before{content:attr(data-label) ": ";color:#555}
table.verdicts td:first-child::before{content:none}
table.verdicts td:empty{display:none}
}
"""


def pct(x):
    return f"{x * 100:.0f}%"


def source_link(url, attrs=""):
    """A question's source URL: a link when it is an http or https address,
    else the same text unlinked (a javascript: or data: URL is never clickable)."""
    try:
        web = urlsplit(url).scheme in ("http", "https")
    except ValueError:  # a malformed address (an unclosed "[" of an IPv6 host)
        web = False
    shown = inert(url)
    return f'<a href="{e(url)}"{attrs}>{shown}</a>' if web else f"<span{attrs}>{shown}</span>"


def render_pages(result, index_name="index.html"):
    """``{file name: page}`` of a result (``index_name`` is the English
    page's name), whatever the rules it was scored with."""
    names = page_names(index_name)
    return {names[lang]: render_html(result, lang, names) for lang in LANGS}


def render_html(result, lang="en", names=None):
    """The page of ``result`` in ``lang``; ``names`` are the pages' file
    names, for the links between them."""
    names = names or page_names()
    p = result["provenance"]
    sets = ", ".join(c["set"] for c in p["cases"])
    title = label(lang, "title", sets=f"<bdi>{inert(sets)}</bdi>")
    out = ["<!DOCTYPE html>",
           f'<html lang="{lang}" dir="{"rtl" if lang in RTL else "ltr"}">', "<head>",
           '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{label(lang, 'title', sets=e(inert_plain(sets)))}</title>"]
    out += [f'<link rel="alternate" hreflang="{other}" href="{e(names[other])}">'
            for other in LANGS if other != lang]
    cov = result["review_coverage"]
    block = result.get("sampled_review")
    style = STYLE + (card_style(lang, block) if block else "")
    out += [f"<style>{style}</style>", "</head>", "<body>", language_links(lang, names),
            f"<h1>{title}</h1>",
            coverage_note(lang, "review", cov["reviewed"], cov["missing"], required=cov["required"])]
    if "sampled_review" in result:  # rules of 2026-12-02 on
        cov = result["sampled_review"]["coverage"]
        out.append(coverage_note(lang, "sample", cov["reviewed"], [m["id"] for m in cov["missing"]],
                                 sampled=cov["sampled"]))
    out += [f"<h2>{label(lang, 'results')}</h2>", f"<p>{label(lang, 'results_note')}</p>"]
    out += results_table(result["groups"], lang)
    if block and "rates" in block:  # rules of 2026-12-03 on
        out += truth_section(block, lang) + rates_section(block, lang)
    elif block:
        out += sample_section(block, lang)
    out += charts(result, lang)
    out.append(f"<h2>{label(lang, 'faulty')}</h2>")
    if result["faulty"]:
        out.append("<ul>" + "".join(f'<li><bdi>{inert(f["id"])}</bdi>: '
                                    f'<span dir="auto">{inert(f["reason"])}</span></li>'
                                    for f in result["faulty"]) + "</ul>")
    else:
        out.append(f"<p>{label(lang, 'none')}</p>")
    out += explore.review_changes(result, lang)
    out += provenance(p, lang)
    out += question_index(result["questions"], lang, explore.filter_form(result, lang))
    out.append(f"<h2>{label(lang, 'every_question')}</h2>")
    for row in result["questions"]:
        out += question_section(row, lang)
    out += [f"<script>{explore.SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def language_links(lang, names):
    """Each language's page, named in its own language; this one not a link."""
    links = []
    for other in LANGS:
        name = label(other, "lang_name")
        direction = "rtl" if other in RTL else "ltr"
        if other == lang:
            links.append(f'<span lang="{other}" dir="{direction}" aria-current="page">'
                         f'<b>{name}</b></span>')
        else:
            links.append(f'<a href="{e(names[other])}" hreflang="{other}" lang="{other}" '
                         f'dir="{direction}">{name}</a>')
    return (f'<nav class="langs" aria-label="{e(label(lang, "other_languages"))}">'
            + " ".join(links) + "</nav>")


def coverage_note(lang, kind, reviewed, missing, **total):
    """Whether every answer the human review (``kind`` "review") or the
    sampled review ("sample") asks for has its entries, said at the top:
    ``reviewed`` of ``total`` have them, ``missing`` are the ids of the others."""
    if missing:
        return ('<p class="note">' + label(
            lang, kind + "_missing", reviewed=reviewed, **total,
            missing=f'<bdi class="data">{inert(", ".join(missing))}</bdi>') + "</p>")
    return f"<p>{label(lang, kind + '_complete', **total)}</p>"


def sample_section(block, lang):
    """The sampled review's table, beside the results (evalkit/rubric/sampling.py);
    its numbers are results.md's (report.sample_rows)."""
    heads = [label(lang, key) for key in ("set", "measure") + SAMPLE_FIGURES]
    out = [f"<h2>{label(lang, 'sample')}</h2>",
           f"<p>{label(lang, 'sample_note', per_set=block['per_set'])}</p>",
           '<div class="wide"><table class="sample">', head_row(heads), "<tbody>"]
    for set_name, measure, t in sample_rows(block):
        out.append(f"<tr><td>{code_of(set_name, lang)}</td><td>{label(lang, measure)}</td>"
                   + "".join(f'<td class="n"><span dir="ltr" class="fig">{e(t[key])}</span></td>'
                             for key in ("overturned", "rate", "interval", "unsampled",
                                         "expected")) + "</tr>")
    out += ["</tbody>", "</table></div>"]
    drawn = ", ".join(f"{s['set']} {len(s['sampled'])}/{s['candidates']}" for s in block["sets"])
    out.append(f"<p>{label(lang, 'sample_drawn', sets=f'<bdi>{inert(drawn)}</bdi>')}</p>")
    return out


SAMPLE_FIGURES = ("overturned", "false_pass_rate", "interval", "unsampled", "expected_false")
RATE_FIGURES = ("lang", "candidates", "read", "false_pass_rate", "interval")


def truth_section(block, lang):
    """How many of each figure's passes are true (rules of 2026-12-03 on:
    evalkit/rubric/passes.py), a row a set, beside the results table."""
    heads = [label(lang, "set")] + [label(lang, m) for m in MEASURES]
    out = [f"<h2>{label(lang, 'truth')}</h2>", f"<p>{label(lang, 'truth_note')}</p>",
           '<div class="wide"><table class="truth">', head_row(heads), "<tbody>"]
    by_set = {}
    for item in block["estimates"]:
        by_set.setdefault(item["set"], {})[item["measure"]] = item
    exact = label(lang, "exact")
    for name, items in by_set.items():
        out.append(f"<tr><td>{code_of(name, lang)}</td>" + "".join(
            f'<td class="n"><span dir="ltr" class="fig">{e(truth_texts(items[m], exact, "≈"))}'
            '</span></td>' if m in items else '<td class="n">–</td>' for m in MEASURES) + "</tr>")
    return out + ["</tbody>", "</table></div>"]


def rates_section(block, lang):
    """The false-pass rates of the sampled review (rules of 2026-12-03 on),
    per set and language, set and all sets; the numbers are results.md's
    (report.rate_texts). The measure leads each row, so that no row begins
    as a row of the results table does (set, language: shown.py)."""
    heads = [label(lang, key) for key in ("measure", "set") + RATE_FIGURES]
    out = [f"<h2>{label(lang, 'sample')}</h2>", f"<p>{label(lang, 'rates_note')}</p>",
           '<div class="wide"><table class="sample rates">', head_row(heads), "<tbody>"]
    for item in block["rates"]:
        t = rate_texts(item)
        out.append(f"<tr><td>{label(lang, item['measure'])}</td><td>{code_of(item['set'], lang)}"
                   f"</td><td>{code_of(item['lang'], lang)}</td>"
                   + "".join(f'<td class="n"><span dir="ltr" class="fig">{e(text)}</span></td>'
                             for text in (str(item["candidates"]), t["read"], t["rate"],
                                          label(lang, "exact") if item["exact"]
                                          else t["interval"])) + "</tr>")
    return out + ["</tbody>", "</table></div>"]


def card_style(lang, block):
    """On a phone the sampled review's rows are cards too (seven columns
    cannot fit 390 px: the figures were off the screen), each figure after
    its column's name. The cells are the same bytes on every page, so the
    names come from the style, by column, in the page's language."""
    if "rates" in block:
        tables = (("rates", RATE_FIGURES, 3), ("truth", MEASURES, 2))
    else:
        tables = (("sample", SAMPLE_FIGURES, 3),)
    rules = "".join(f'table.{name} td:nth-child({i})::before'
                    f'{{content:"{css_string(label(lang, key))}"}}'
                    for name, keys, first in tables for i, key in enumerate(keys, first))
    return f"@media (max-width:44rem){{\n{rules}\n}}\n"


def css_string(text):
    """``text`` inside a CSS string: a quote, a backslash or a "<" (which
    could close the style element) written as its escape."""
    return "".join(f"\\{ord(c):x} " if c in '"\\<' else c for c in text)


def code_of(value, lang):
    """A set or language code of a row as shown: "all" is a label."""
    return label(lang, "all") if value == "all" else inert(value)


NUMERIC = ' class="n"'
NOT_APPLICABLE = '<td class="n">–</td>'


def head_row(heads):
    """A table's head, the columns from the third on numbers."""
    return ("<thead><tr>" + "".join(f'<th scope="col"{NUMERIC if i > 1 else ""}>{h}</th>'
                                    for i, h in enumerate(heads)) + "</tr></thead>")


def results_table(groups, lang):
    """The table, with each cell's column name in ``data-label`` for the
    phone layout, where every row is a card."""
    heads = [label(lang, "set"), label(lang, "lang")] + [label(lang, m) for m in MEASURES] \
        + [label(lang, "median_latency")]
    out = ['<table class="results">', head_row(heads), "<tbody>"]
    for group in groups:
        latency = group["median_latency_ms"]
        cells = [f"<td>{code_of(group['set'], lang)}</td>", f"<td>{code_of(group['lang'], lang)}</td>"]
        cells += [figure_cell(group, m) for m in MEASURES]
        cells.append(f'<td class="n">{e(latency) if latency is not None else "–"}</td>')
        out.append("<tr>" + "".join(cell.replace("<td", f'<td data-label="{e(head)}"', 1)
                                    for head, cell in zip(heads, cells)) + "</tr>")
    out += ["</tbody>", "</table>"]
    return out


def figure_cell(group, measure):
    """``13/15 (12/15) 87% [62%–96%]`` of ``group``'s ``measure``, always
    left to right; it may break between the counts and the rate, never
    inside either. The counts link to the questions the figure counts
    (explore.figure_query)."""
    fig = group[measure]
    if not fig["applicable"]:
        return NOT_APPLICABLE
    text = f"{fig['passed']}/{fig['applicable']}"
    mech = fig["mechanical"]
    if (mech["passed"], mech["applicable"]) != (fig["passed"], fig["applicable"]):
        text += f" ({mech['passed']}/{mech['applicable']})"
    low, high = wilson(fig["passed"], fig["applicable"])
    return rate_cell(text, fig["passed"] / fig["applicable"],
                     f' <span class="ci">[{pct(low)}–{pct(high)}]</span>',
                     explore.figure_query(group, measure))


def rate_cell(counts, rate, interval="", link=None):
    """A rate's cell, always left to right: its counts (a link to ``link``
    when given), then the rate and ``interval``."""
    counts = f'<span class="fig">{e(counts)}</span>'
    if link:
        counts = f'<a href="{e(link)}">{counts}</a>'
    return (f'<td class="n"><span dir="ltr">{counts} '
            f'<span class="fig">{pct(rate)}{interval}</span></span></td>')


def overall(groups):
    """``{measure: (passed, applicable)}`` summed over the sets' totals
    (a history entry's groups carry them under ``figures``)."""
    sums = {m: [0, 0] for m in MEASURES}
    for group in groups:
        if group["set"] != "all" and group["lang"] == "all":
            for m in MEASURES:
                fig = group["figures"][m] if "figures" in group else group[m]
                sums[m][0] += fig["passed"]
                sums[m][1] += fig["applicable"]
    return {m: tuple(counts) for m, counts in sums.items()}


def charts(result, lang):
    """The bar chart and, with earlier quarters, the trend chart."""
    titles = {m: label(lang, m) for m in MEASURES}
    rtl = lang in RTL
    groups = [(inert_plain(f"{g['set']} {g['lang']}"), {m: (g[m]["passed"], g[m]["applicable"])
                                           for m in MEASURES})
              for g in result["groups"] if g["lang"] != "all"]
    caption = label(lang, "chart")
    out = [f"<figure>{bar_chart(groups, titles, caption, rtl)}",
           f"<figcaption>{caption}</figcaption></figure>"]
    if result.get("history"):
        points = [(entry["quarter"], overall(entry["groups"])) for entry in result["history"]]
        points.append((label(lang, "this_run"), overall(result["groups"])))
        # A chart's label holds no element: its bidi controls written out.
        named = [(inert_plain(name), sums) for name, sums in points]
        out += [f"<h2>{label(lang, 'trend')}</h2>", f"<p>{label(lang, 'trend_note')}</p>",
                f"<figure>{trend_chart(named, titles, label(lang, 'trend'), rtl)}</figure>"]
        out += trend_table(points, titles, lang)
    return out


def trend_table(points, titles, lang):
    """The trend chart's numbers, a row per measure: lines on the same rate
    hide each other in the chart, never here."""
    out = ['<div class="wide"><table>',
           f"<tr><th>{label(lang, 'measure')}</th>"
           + "".join(f"<th{NUMERIC}><bdi>{inert(name)}</bdi></th>" for name, _ in points) + "</tr>"]
    for measure, title in titles.items():
        cells = [rate_cell(f"{passed}/{applicable}", passed / applicable) if applicable
                 else NOT_APPLICABLE for passed, applicable in (sums[measure] for _, sums in points)]
        out.append(f"<tr><td>{title}</td>{''.join(cells)}</tr>")
    out.append("</table></div>")
    return out


# The outputs a quarter folder holds beside its pages (publish.py,
# evalkit/pages/outputs.py), named where the page says what scored it.
# results.csv is not among them: the three demo quarters were published
# without it, and results.json does not say whether it was written.
BESIDE = ("results.json", "results.md")


def provenance(p, lang):
    def data(text):
        return f'<bdi class="data">{inert(text)}</bdi>'

    def commit(c):
        return (data(c["commit"]) if c["commit"] else label(lang, "unknown")) \
            + (" " + label(lang, "uncommitted") if c["dirty"] else "")

    outputs = ", ".join(f'<a href="{name}">{name}</a>' for name in BESIDE)
    items = (
        ("run_status", data(p["run"]["status"])), ("target", data(p["target"])),
        ("platform_version", data(", ".join(p["platform_versions"]))
         if p["platform_versions"] else label(lang, "not_reported")),
        ("run_dates", data(", ".join(p["run_dates"]))),
        ("run_commit", ", ".join(commit(c) for c in p["run_git_commits"])),
        ("rules_date", data(p["decline_list_date"])),
        ("reviews", data(p["reviews"]["file"]) if p["reviews"]["file"]
         else label(lang, "no_reviews")),
        ("scored_by", data(f"{p['scorer']['tool']} {p['scorer']['version']}")
         + f' <bdi dir="ltr">({outputs})</bdi>'))
    out = [f"<h2>{label(lang, 'provenance')}</h2>", "<ul>"]
    out += [f"<li>{label(lang, key)}: {value}</li>" for key, value in items]
    out += [f"<li>{label(lang, 'questions_file')}: {data(case['file'])} sha256 "
            f"<code>{inert(case['sha256'])}</code></li>" for case in p["cases"]]
    out.append("</ul>")
    return out


def anchor(qid):
    return "#" + e(quote(qid, safe=""))


def question_index(rows, lang, form):
    """A link to every question's entry, by set and language, marked where
    it failed a measure after review or is faulty, under the filters'
    ``form`` (where a figure's link lands). A heading and its questions
    share ``data-g``, so the filters hide a heading whose questions are all
    hidden."""
    out = [f'<h2 id="index">{label(lang, "index")}</h2>', f"<p>{label(lang, 'index_note')}</p>",
           *form, '<ul class="index">']
    groups = []
    for row in rows:
        if not groups or (row["set"], row["lang"]) != groups[-1]:
            groups.append((row["set"], row["lang"]))
            out.append(f'<li class="head" data-g="{len(groups)}">'
                       f'<bdi>{inert(row["set"])} {inert(row["lang"])}</bdi></li>')
        link = f'<a href="{anchor(row["id"])}"><bdi>{inert(row["id"])}</bdi></a>'
        if row["faulty"]:
            link = f"<s>{link}</s>"
        elif any(value is False for value in row["after_review"].values()):
            link += ' <span class="fail">✗</span>'
        out.append(f'<li data-q="{e(row["id"])}" data-g="{len(groups)}">{link}</li>')
    out.append("</ul>")
    return out


def verdict(value, lang):
    if value is None:
        return "–"
    return (f'<span class="pass">{label(lang, "pass")}</span>' if value
            else f'<span class="fail">{label(lang, "fail")}</span>')


def question_section(row, lang):
    """One question: its text, evidence, the answer as given, its sources,
    and each verdict, mechanical and after review, with the review's reason.
    The texts the search box reads are marked ``data-search``
    (evalkit/pages/explore.py)."""
    qlang = e(row["lang"])
    out = [f'<section class="q" id="{e(row["id"])}"{explore.section_attrs(row)}>',
           f"<h3><bdi>{inert(row['id'])}</bdi> ({label(lang, row['kind'])})"
           + (label(lang, "faulty_marker") if row["faulty"] else "") + "</h3>",
           f'<p>{label(lang, "question")}: <span dir="auto" lang="{qlang}" data-search>'
           f'{inert(row["question"])}</span></p>']
    if row.get("evidence"):
        source = source_link(row["source_url"], ' class="data"')
        out.append(f'<p>{label(lang, "evidence")}: <span dir="auto" lang="{qlang}" data-search>'
                   f'{inert(row["evidence"])}</span> <bdi dir="ltr">({source})</bdi></p>')
    if row["answer"] is None:
        out.append(f'<p>{label(lang, "no_answer")}: <bdi>{inert(row["problem"])}</bdi></p>')
    else:
        out.append(f'<blockquote dir="auto" lang="{qlang}" data-search>'
                   f'{inert(row["answer"])}</blockquote>')
    if row["sources"]:
        out.append(f"<p>{label(lang, 'sources')}: "
                   + ", ".join(f'<code dir="ltr">{inert(s)}</code>' for s in row["sources"])
                   + "</p>")
    out += verdict_table(row, lang)
    out += explore.findings(row, lang)
    out += [f'<p><a class="up" href="#index">{label(lang, "to_index")}</a></p>', "</section>"]
    return out


def verdict_table(row, lang):
    """Each measure that applies to a question: its verdict by the rule and
    after review, and the review's reason. A faulty question's verdict after
    review is "faulty": the table counts it nowhere, so no pass or fail."""
    # On a phone each measure is a card, its cells labelled (the reason, which
    # can be long, on its own line instead of a fourth column off the screen).
    heads = [label(lang, key) for key in ("measure", "mechanical", "after_review", "review_reason")]
    out = ['<table class="verdicts"><thead><tr>' + "".join(f"<th>{h}</th>" for h in heads)
           + "</tr></thead><tbody>"]
    reasons = {r["measure"]: r["reason"] for r in row["reviews"]}
    for m in MEASURES:
        if m in APPLIES[row["kind"]]:
            after = verdict(row["after_review"][m], lang)
            if row["faulty"] and row["after_review"][m] is not None:
                after = label(lang, "state_faulty")
            out.append(f"<tr><td>{label(lang, m)}</td>"
                       f'<td data-label="{heads[1]}">{verdict(row["mechanical"][m], lang)}</td>'
                       f'<td data-label="{heads[2]}">{after}</td>'
                       f'<td data-label="{heads[3]}" dir="auto" data-search>'
                       f'{inert(reasons.get(m, ""))}</td></tr>')
    out.append("</tbody></table>")
    return out
