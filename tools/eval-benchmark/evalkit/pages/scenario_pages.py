"""The scenario suite's tables and pages: results.md, a static dashboard
(index.html: scenarios x variants, four scores per cell, colour plus the
number, never a composite) and one detail page per scenario, variant and
evaluator (the verbatim response, the atoms, the arithmetic of each score,
the jargon found, "verified by: <evaluator>"). Every string from an answer or
an atom is escaped: html.escape on the pages, report.inert in results.md (a
model's name, an evaluator's error, an id); no JavaScript.
"""

import json
import os
import re

from ..jsonl import sha256_of
from ..scenario.atomscore import CREDIT, DIMENSIONS, GAP
from ..rubric.report import inert
from .pagelabels import e, page

TITLES = {"accurate": "Accurate", "complete": "Complete", "cited": "Cited", "useful": "Useful"}
SHORT = {"accurate": "A", "complete": "C", "cited": "Ci", "useful": "U"}
COLOURS = {0: "#f4c7c3", 1: "#fce8b2", 2: "#d9ead3", 3: "#93c47d", None: "#e0e0e0"}
# The spec's score scale of each dimension, 0 to 3, in its words; the city
# and its site stand where the spec names Portland and portland.gov.
QUESTIONS = {
    "accurate": "Of the specific factual claims this response made, how many were actually correct?",
    "complete": "Did this response cover the topics a resident actually needs to act on?",
    "cited": "Are the cited sources actually authoritative for the city's code?",
    "useful": "Would an average resident or business owner, with no permitting expertise, "
              "understand this response and feel equipped to act on it?"}
SCALES = {
    "accurate": ("Mostly wrong on the specifics that matter.",
                 "Mix of right and wrong; the resident can't trust unverified claims.",
                 "Right on most specifics but with at least one material error.",
                 "All material specifics check out under independent verification."),
    "complete": ("Missed almost everything material.",
                 "Hit a few topics, missed most.",
                 "Covered most topics; one or two material gaps.",
                 "Covered every topic on the must-cover list."),
    "cited": ("No authoritative sources at all.",
              "Mostly uncited or third-party-cited.",
              "Mix — some city sources, some non-authoritative.",
              "Cited claims overwhelmingly resolve to the city's site / the city code / "
              "authoritative state sources."),
    "useful": ("Inaccessible. Jargon-dense, no scaffolding.",
               "Partially accessible. Mostly readable but unexplained terms.",
               "Accessible. Key terms defined, concrete next steps stated.",
               "Resident-ready. Plainly written, anticipates resident-level confusion, "
               "scaffolds next steps.")}
# No text is wider than its box: a sha256, a model's id or a long word breaks
# where it must (overflow-wrap) and a wide table scrolls inside its own box
# (.wide), so a phone of 390 px never gets a page wider than itself.
STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#222}
p,li,h1,h2,blockquote{overflow-wrap:anywhere}td,th{overflow-wrap:break-word}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top}
.s{display:inline-block;min-width:2.6em;margin:1px;padding:0 .2em;text-align:center;border-radius:3px}
blockquote{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}
.note{background:#fff4ce;padding:.5rem}
.wide{overflow-x:auto}
@media (max-width:40rem){body{margin:1rem auto;padding:0 .5rem}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block}
table.cards thead{display:none}table.cards tr{border:1px solid #ccc;margin:.6rem 0}
table.cards td{border:0;border-top:1px solid #eee}
table.cards td::before{content:attr(data-label);display:block;font-size:.85em;color:#555}}
"""
# What an n/a cell, an empty one and a "verified K/N" mark mean, on the
# dashboard as in results.md.
NOT_SCORED = ("n/a where there was nothing to score (no atom); failed: the atomization "
              "failed; not reached: the evaluator has no atoms line for the answer; refused: "
              "the evaluator and the generator are one model family (the family rule). "
              "With an evaluator that looked the code up, each cell also says how many of "
              "its factual atoms rest on a section the evaluator read (verified K/N); "
              "Accurate counts them all.")
# Why an atom is set aside (evalkit/scenario/atomchecks.py), in words.
SET_ASIDE = {"unsupported": "the answer does not say it (no content word in common)",
             "duplicate": "a copy of an earlier atom",
             "truth_only_negates": "its verified truth only negates the claim"}
READING = ("Four scores per cell, 0-3, never combined: A = Accurate, C = Complete, "
           "Ci = Cited, U = Useful; " + NOT_SCORED)


def fmt(score):
    return "n/a" if score is None else str(score)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "x"


def detail_name(cell):
    """The file of a cell's detail page: the slugs of its scenario, variant
    and evaluator, its repeat, and 12 hex digits of the sha256 of the four
    exactly as written. Slugs alone collide (Case-1, case-1 and case_1 are
    all case-1, and a file system that ignores case would make Case-1 and
    case-1 one file anyway); the digest keeps every cell's page its own, the
    same on every run.

    >>> detail_name({"scenario": "Case-1", "variant": "openai:g", "evaluator": "anthropic:j",
    ...              "repeat": 0})
    'case-1--openai-g--anthropic-j--r0-f3aaa4377102.html'
    """
    exact = json.dumps([cell["scenario"], cell["variant"], cell["evaluator"], cell["repeat"]],
                       ensure_ascii=False)
    digest = sha256_of(exact)[:12]
    return (f"{slug(cell['scenario'])}--{slug(cell['variant'])}--{slug(cell['evaluator'])}"
            f"--r{cell['repeat']}-{digest}.html")


def first_cells(result, evaluator):
    return {(c["scenario"], c["variant"]): c for c in result["cells"]
            if c["evaluator"] == evaluator and c["repeat"] == 0}


CONTEXT_NOTE = ("A generator named with +corpus was given, for each question, the passages of "
                "the city's code its search found (run.py --context corpus): a "
                "retrieval-augmented assistant. The others answered from their own knowledge.")


def context_note(result):
    """The note on grounded generators, or None when none was."""
    gens = result["cross_evaluation"]["generators"]
    return CONTEXT_NOTE if any(g.endswith("+corpus") for g in gens) else None


CUT_OFF = ("Answers cut off at the generator's token limit ({}; scored as they came, what "
           "they would have gone on to say unknown): ")


def status_line(result):
    p = result["provenance"]
    if p["run"]["status"] == "recorded_live_run":
        return "Run status: recorded_live_run."
    if p["run"]["status"] == "recorded_local_run":
        return ("Run status: recorded_local_run: a measurement of models served on the machine "
                "that ran it (the models its servers reported are under Provenance).")
    stand_ins = p.get("stand_ins") or []
    return ("Run status: not_run. This is an EXAMPLE, not a measurement"
            + (" (an example run against loopback stand-ins)." if p.get("example") else ".")
            + ("".join(f" Stand-in: {x}." for x in stand_ins)))


def render_markdown(result):
    gens = result["cross_evaluation"]["generators"]
    lines = ["# Scenario results", "", status_line(result), ""]
    note = context_note(result)
    if note:
        lines += [note, ""]
    lines += [READING, ""]
    for evaluator in result["cross_evaluation"]["evaluators"]:
        lines += evaluator_section(result, evaluator, gens)
    lines += ["## Cross-evaluation (mean score per evaluator and generator)", ""]
    lines += md_table(CROSS_HEADS, cross_rows(result, inert), 2)
    if result["cross_evaluation"]["agreement"]:
        lines += ["", "Agreement between evaluators, per dimension:", ""]
        lines += md_table(["Evaluator A", "Evaluator B", "Dimension", "Responses", "Same score",
                           "Mean abs. difference"],
                          [[inert(a["a"]), inert(a["b"]), TITLES[a["dimension"]], a["responses"],
                            f"{a['same']}/{a['responses']}", fmt(a["mean_abs_diff"])]
                           for a in result["cross_evaluation"]["agreement"]], 3)
    if result["stability"]:
        lines += ["", "## Judge stability (atomize.py --repeat)", "", STABILITY_NOTE, ""]
        lines += md_table(STABILITY_HEADS, stability_rows(result, inert), 2)
    if result["not_atomized"]:
        lines += ["", "Answers with no atoms line: "
                  + ", ".join(inert(x) for x in result["not_atomized"])]
    if result.get("cut_off"):
        lines += ["", CUT_OFF.format(len(result["cut_off"]))
                  + ", ".join(inert(x) for x in result["cut_off"])]
    errors = atomization_errors(result)
    if errors:
        lines += ["", "## Atomization errors (scored n/a)", ""] + [f"- {inert(x)}" for x in errors]
    lines += ["", "## Score scales", ""] + scale_lines()
    lines += ["", "## Provenance", ""] + [f"- {label}: {inert(text)}"
                                          for label, text in provenance_items(result)]
    return "\n".join(lines) + "\n"


def md_table(heads, rows, text_columns):
    """A table of results.md: the first ``text_columns`` columns text, the
    others numbers (aligned right)."""
    return (["| " + " | ".join(heads) + " |",
             "|" + "---|" * text_columns + "--:|" * (len(heads) - text_columns)]
            + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows])


def cards(heads, rows):
    """A table of the dashboard that a phone shows as cards, each cell
    labelled with its column's head."""
    return (['<div class="wide"><table class="cards"><thead><tr>'
             + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead><tbody>"]
            + ["<tr>" + "".join(f'<td data-label="{h}">{cell}</td>' for h, cell in zip(heads, row))
               + "</tr>" for row in rows]
            + ["</tbody></table></div>"])


ATOM_HEADS = ["Claim", "Correctness", "Verified truth", "Citation", "Bucket", "Topic",
              "Importance", "Actionability", "Set aside"]
CROSS_HEADS = ["Evaluator", "Generator", "Scored", "Failed", "Not reached"] + \
    [TITLES[d] for d in DIMENSIONS]
# What an empty row of the cross-evaluation table says in each dimension.
EMPTY_ROW = {"family rule": "refused (one model family)", "failed": "none scored: all failed",
             "not reached": "none scored: not reached"}
STABILITY_HEADS = ["Evaluator", "Dimension", "Answers repeated", "Scored in every repeat",
                   "Repeats", "All repeats agree"]
STABILITY_NOTE = ("Over the answers every repeat scored: a failed atomization, or n/a, in any "
                  "repeat leaves the answer out (two failures are not an agreement).")


def cross_rows(result, text):
    """The cells of the cross-evaluation table (CROSS_HEADS), the names
    through ``text``: inert in results.md, e on the dashboard. A mean is over
    the answers scored; an empty row says why (EMPTY_ROW)."""
    return [[text(row["evaluator"]), text(row["generator"]), row["scored"], row["failed"],
             row["not_reached"]]
            + ([EMPTY_ROW[row["empty"]]] * len(DIMENSIONS) if row["empty"]
               else [fmt(row[d]) for d in DIMENSIONS])
            for row in result["cross_evaluation"]["table"]]


def self_pairs(result):
    """The (evaluator, generator) pairs the family rule refuses."""
    return {(row["evaluator"], row["generator"]) for row in result["cross_evaluation"]["table"]
            if row["self"]}


def empty_cell(result, evaluator, generator):
    """What an answer's cell says when the evaluator has no atoms line for it."""
    return "refused: one family" if (evaluator, generator) in self_pairs(result) \
        else "not reached"


def stability_rows(result, text):
    """The cells of the judge stability table (STABILITY_HEADS), as ``cross_rows``."""
    return [[text(s["evaluator"]), TITLES[s["dimension"]], s["answers_repeated"],
             s["responses"], s["repeats"], f"{s['all_agree']}/{s['responses']}"]
            for s in result["stability"]]


def evaluator_section(result, evaluator, gens):
    """One evaluator's part of results.md: its tokens, its audit, and the
    four scores of each scenario per generator."""
    cells = first_cells(result, evaluator)
    lines = [f"## Verified by: {inert(evaluator)}", "",
             f"The evaluator's tokens per answer: {per_answer(result, evaluator)}.", ""]
    for text in evaluator_texts(result, evaluator):
        lines += [inert(text), ""]
    rows = []
    for s in result["scenarios"]:
        row = [inert(s["id"])]
        for g in gens:
            c = cells.get((s["id"], g))
            if c is None:
                row.append(empty_cell(result, evaluator, g))
            elif c["error"]:
                row.append("failed")
            else:
                row.append(" ".join(f"{SHORT[d]} {fmt(c['scores'][d]['score'])}" for d in DIMENSIONS)
                           + verified_mark(c))
        rows.append(row)
    return lines + md_table(["Scenario"] + [inert(g) for g in gens], rows, len(gens) + 1) + [""]


def evaluator_texts(result, evaluator):
    """What results.md and the dashboard say of an evaluator above its
    table: its settings, what the checks set aside, its audit, its lookups."""
    texts = [f"Settings: {text}" for text in settings_texts(result, "evaluator", evaluator)]
    texts += [checks_text(result, evaluator), audit_text(result, evaluator)]
    return [t for t in texts + lookup_texts(result, evaluator) if t]


def settings_texts(result, role, model):
    """Each set of settings a generator's or evaluator's lines recorded, in
    words, with the answers it shaped."""
    return [f"{describe_settings(x['settings'], x['model'])} ({x['answers']} answer(s))"
            for x in result["provenance"].get("settings", [])
            if x["role"] == role and x["model"] == model]


def describe_settings(settings, model=""):
    """A line's settings in words; "not recorded" for a line without them
    (none for answers collected by hand: ``model`` manual:...)."""
    if settings is None:
        return "none (answers collected by hand)" if model.startswith("manual:") \
            else "not recorded"
    parts = [f"JSON mode {settings['json_mode']}"] if settings.get("json_mode") else []
    temperature = settings.get("temperature")
    parts += [f"max tokens {settings.get('max_tokens')}",
              "temperature not sent (the server's default)" if temperature is None
              else f"temperature {temperature}",
              f"context {settings.get('context')}", f"prompt {settings.get('prompt')}"]
    return ", ".join(parts)


def checks_text(result, evaluator):
    """What the checks against the answers set aside of an evaluator's atoms
    (first repeat), and how many factual atoms Accurate rests on before and
    after; None when it scored no answer."""
    checks = [c["atom_checks"] for c in first_cells(result, evaluator).values()
              if "atom_checks" in c]
    if not checks:
        return None
    total = {k: sum(c[k] for c in checks) for k in checks[0]}
    return (f"Atoms checked against the answers (first repeat): of {total['atoms']}, "
            f"{total['unsupported']} the answer does not say, {total['duplicate']} copies of an "
            f"earlier atom, {total['truth_only_negates']} whose verified truth only negates the "
            f"claim; Accurate rests on {total['factual_atoms']} factual atom(s), "
            f"{total['factual_atoms_kept']} once those are set aside (it counts them all, as "
            "the spec's formula does).")


def verified_mark(cell):
    """`` (verified K/N)`` after a cell's scores when its evaluator looked the
    code up: K of its N factual atoms rest on a section it read."""
    figure = cell.get("verified")
    if figure is None:
        return ""
    return f" (verified {figure['resting_on_a_section_read']}/{figure['factual_atoms']})"


def lookup_texts(result, evaluator):
    """An evaluator's lookups in words: how many of its factual atoms rest on
    a section it read (first repeat, as the tables), and how many of the
    answers it atomized with tools it made not one lookup call for. None of
    either without lookups."""
    use = result["provenance"].get("evaluator_lookups", {}).get(evaluator)
    if use is None:
        return []
    figures = [c["verified"] for c in first_cells(result, evaluator).values() if "verified" in c]
    read = sum(f["resting_on_a_section_read"] for f in figures)
    facts = sum(f["factual_atoms"] for f in figures)
    return [f"Verified: {read} of {facts} factual atoms rest on a section the evaluator read "
            "(first repeat; Accurate counts every factual atom).",
            f"Lookups: {use['tools']} answer(s) atomized with tools, "
            f"{use['tools_without_a_lookup']} of them without one lookup call; "
            f"{use['passages']} with the passages in the prompt"
            + (f" ({use['passages_asked']} of them because the run asked for the passages, "
               "atomize.py --passages: the model makes no real tool call)."
               if use.get("passages_asked") else ".")]


def atomization_errors(result):
    """One line per answer whose atomization failed (its scores are n/a)."""
    return [f"{c['scenario']} ({c['variant']}, {c['evaluator']}): {c['error']}"
            for c in result["cells"] if c["error"]]


def scale_lines():
    """The legend of results.md: each dimension's question and 0-3 scale."""
    return md_table(["Dimension", "Question", "0", "1", "2", "3"],
                    [[TITLES[d], QUESTIONS[d], *SCALES[d]] for d in DIMENSIONS], 6)


def prompts(p, role):
    found = [f"{v['name']} {v['sha256']}" for v in p["prompt_versions"] if v["role"] == role]
    if found:
        return ", ".join(found)
    return "none (answers collected by hand)" if role == "generator" else "none"


def served_text(p):
    """Each model asked for, with the models its server said answered (a
    path of a file shown as the file's name, and said so)."""
    pairs = p.get("served_models") or []
    return "; ".join(f"{x['role']} {x['asked']}: {x['served'] or 'not reported'}"
                     + (" (the server named a file by its path: its name kept)"
                        if x.get("reduced") else "")
                     for x in pairs) or "none (answers collected by hand)"


def all_settings_text(p):
    """Every generator's and evaluator's settings, as their lines record them."""
    return "; ".join(f"{x['role']} {x['model']}: {describe_settings(x['settings'], x['model'])} "
                     f"({x['answers']} answer(s))" for x in p.get("settings", [])) or "none"


def provenance_items(result):
    """``(label, text)`` of the provenance, the same in results.md and index.html."""
    p = result["provenance"]
    return [("Run dates (UTC, of the answers)", ", ".join(p["run_dates"]) or "none recorded"),
            ("Scenarios", f"{p['cases']['file']} sha256 {p['cases']['sha256']}"),
            ("Source table", f"{p['sources']['file']} sha256 {p['sources']['sha256']}"),
            ("Jargon table", f"{p['jargon']['file']} sha256 {p['jargon']['sha256']}"),
            ("Models (asked for: as the server reported)", served_text(p)),
            ("Settings (what shaped the replies)", all_settings_text(p)),
            ("Generator prompts", prompts(p, "generator")),
            ("Evaluator prompts", prompts(p, "evaluator")),
            ("Scored by", f"{p['scorer']['tool']} {p['scorer']['version']}")]


def badge(dimension, score):
    return (f'<span class="s" style="background:{COLOURS[score]}" title="{TITLES[dimension]}">'
            f'{SHORT[dimension]}&nbsp;{fmt(score)}</span>')


def name_badge(dimension):
    """The dimension's badge with its name for a score, as the legends show it."""
    return badge(dimension, None).replace("n/a", e(TITLES[dimension]))


def tag_agreement(kind, tags):
    """``(agreeing, judged)``: of the claims tagged other than admitted-gap,
    those a true answer's tag calls right (any tag with Accurate credit) or a
    false answer's calls wrong (WRONG, PARTIAL-WRONG)."""
    judged = sum(n for tag, n in tags.items() if tag != GAP)
    if kind == "true_claims":
        agree = sum(n for tag, n in tags.items() if CREDIT.get(tag, 0) > 0)
    else:
        agree = sum(n for tag, n in tags.items() if tag in ("WRONG", "PARTIAL-WRONG"))
    return agree, judged


def audit_text(result, evaluator):
    """What the reference keys say of the evaluator (scenario_score.
    evaluator_audit), in one line, or None."""
    entry = result.get("evaluator_audit", {}).get(evaluator)
    if not entry:
        return None
    parts = []
    counts = entry.get("sections")
    if counts:
        parts.append(f"of {counts['atoms']} factual atom(s) ({counts['atoms_kept_after_checks']} "
                     f"kept after the checks), {counts['resting_on_a_section']} "
                     f"rest on a section of the code, {counts['on_a_key_section_of_the_topic']} "
                     "on a section the key names for their topic; "
                     f"{counts['naming_a_section_the_code_lacks']} name a section the code "
                     "does not have")
    for kind, label in (("true_claims", "the key's true answers"),
                        ("false_claims", "the altered (false) answers")):
        tags = entry.get("tags", {}).get(kind)
        if tags:
            agree, judged = tag_agreement(kind, tags)
            kept = tag_agreement(kind, entry.get("tags_kept", {}).get(kind, {}))
            parts.append(f"tags on {label}: " + ", ".join(f"{t} {n}" for t, n in sorted(tags.items()))
                         + f" (agreeing with the key: {agree} of {judged}; over the atoms kept "
                           f"after the checks: {kept[0]} of {kept[1]})")
    return "Checked against the reference keys: " + "; ".join(parts) + "."


def tokens_text(tokens):
    text = f"{tokens['input']} tokens in, {tokens['output']} out"
    if tokens["unreported"]:
        text += f", {tokens['unreported']} call(s) with no usage reported"
    return text


def per_answer(result, evaluator):
    """The evaluator's mean tokens per answer it atomized (every repeat)."""
    cells = [c for c in result["cells"] if c["evaluator"] == evaluator]
    total = {k: sum(c["evaluator_tokens"][k] for c in cells)
             for k in ("input", "output", "unreported")}
    return (f"{round(total['input'] / len(cells))} in, {round(total['output'] / len(cells))} "
            f"out, over {len(cells)} answer(s)"
            + (f"; {total['unreported']} call(s) with no usage reported"
               if total["unreported"] else ""))


def render_dashboard(result):
    gens = result["cross_evaluation"]["generators"]
    body = ["<h1>Scenario results</h1>", f'<p class="note">{e(status_line(result))}</p>']
    note = context_note(result)
    if note:
        body.append(f"<p>{e(note)}</p>")
    body.append("<p>Four scores per cell, 0-3, never combined into one number: "
                + " ".join(name_badge(d) for d in DIMENSIONS) + f"; {e(NOT_SCORED)}</p>")
    for evaluator in result["cross_evaluation"]["evaluators"]:
        body += dashboard_section(result, evaluator, gens)
    cross = cards(CROSS_HEADS, cross_rows(result, e))
    body += ["<h2>Cross-evaluation</h2>" + cross[0]] + cross[1:]
    if result["stability"]:
        body += ["<h2>Judge stability (atomize.py --repeat)</h2>", f"<p>{STABILITY_NOTE}</p>"]
        body += cards(STABILITY_HEADS, stability_rows(result, e))
    body += problem_sections(result) + legend()
    body.append("<h2>Provenance</h2><ul>" + "".join(
        f"<li>{e(label)}: {e(text)}</li>" for label, text in provenance_items(result)) + "</ul>")
    return page("Scenario results", STYLE, body)


def dashboard_section(result, evaluator, gens):
    """One evaluator's part of the dashboard, as ``evaluator_section`` of
    results.md, each cell a link to its detail page."""
    cells = first_cells(result, evaluator)
    body = [f"<h2>Verified by: {e(evaluator)}</h2>",
            f"<p>The evaluator's tokens per answer: {e(per_answer(result, evaluator))}</p>"]
    body += [f"<p>{e(text)}</p>" for text in evaluator_texts(result, evaluator)]
    # On a phone each scenario is a card, each generator's cell labelled.
    body.append('<div class="wide"><table class="cards"><thead><tr><th>Scenario</th>'
                + "".join(f"<th>{e(g)}</th>" for g in gens) + "</tr></thead><tbody>")
    for s in result["scenarios"]:
        row = [f'<td><span dir="auto">{e(s["id"])}</span></td>']
        for g in gens:
            c = cells.get((s["id"], g))
            if c is None:
                row.append(f'<td data-label="{e(g)}">{e(empty_cell(result, evaluator, g))}</td>')
                continue
            inner = ("failed" if c["error"] else
                     "".join(badge(d, c["scores"][d]["score"]) for d in DIMENSIONS)
                     + e(verified_mark(c)))
            row.append(f'<td data-label="{e(g)}"><a href="detail/{e(detail_name(c))}">'
                       f"{inner}</a></td>")
        body.append("<tr>" + "".join(row) + "</tr>")
    return body + ["</tbody></table></div>"]


def problem_sections(result):
    """What results.md lists beside the tables: answers with no atoms line and
    failed atomizations (scored n/a)."""
    body = []
    if result["not_atomized"]:
        body.append(f"<p>Answers with no atoms line: {e(', '.join(result['not_atomized']))}</p>")
    if result.get("cut_off"):
        body.append(f"<p>{e(CUT_OFF.format(len(result['cut_off'])) + ', '.join(result['cut_off']))}"
                    "</p>")
    errors = atomization_errors(result)
    if errors:
        body.append("<h2>Atomization errors (scored n/a)</h2><ul>"
                    + "".join(f'<li dir="auto">{e(x)}</li>' for x in errors) + "</ul>")
    return body


def legend():
    """The 0-3 scale of each dimension in the spec's words, in the badges' colours."""
    rows = ["<h2>Score scales</h2>", '<div class="wide"><table><tr><th>Dimension</th><th>Question</th>'
            + "".join(f'<th style="background:{COLOURS[n]}">{n}</th>' for n in range(4)) + "</tr>"]
    for d in DIMENSIONS:
        rows.append(f"<tr><td>{name_badge(d)}</td><td>{e(QUESTIONS[d])}</td>"
                    + "".join(f"<td>{e(text)}</td>" for text in SCALES[d]) + "</tr>")
    rows.append("</table></div>")
    return rows


def verdict(token):
    """A jargon token's verdict with what explained it, so a reader can check it."""
    if not token["explained"]:
        return "not explained"
    return f"explained by \u201c{token['explained_by']}\u201d" if token.get("explained_by") else "explained"


def lookup_lines(cell):
    """What the evaluator consulted, call by call, and what each atom rests on."""
    lookups = cell.get("lookups")
    if lookups is None:
        return []
    out = [f"<h2>What the evaluator looked up ({e(lookups.get('mode'))}, "
           f"{e(lookups.get('corpus'))})</h2><ol>"]
    for call in lookups.get("calls") or []:
        output = call.get("output")
        if call.get("error"):
            found = call["error"]
        elif isinstance(output, list):
            found = ", ".join(str(hit.get("section")) for hit in output
                              if isinstance(hit, dict)) or "nothing"
        else:
            found = output.get("id") or "the parcel" if isinstance(output, dict) else "nothing"
        out.append(f"<li>{e(call.get('tool'))} {e(json.dumps(call.get('input'), ensure_ascii=False))}"
                   f": {e(found)}</li>")
    if not lookups.get("calls") and lookups.get("mode") == "tools":
        out.append("<li>no lookup at all</li>")
    if lookups.get("sections"):
        out.append(f"<li>passages given in the prompt: {e(', '.join(lookups['sections']))}</li>")
    out.append("</ol><ul>")
    for atom in cell["atoms"] or []:
        out.append(f'<li><span dir="auto">{e(atom["text"])}</span>: {e(rests_text(atom))}</li>')
    return out + ["</ul>"]


def rests_text(atom):
    """What one atom's verified truth rests on, and whether the evaluator
    read it for this answer (scenario_score.grounding): "verified: rests on
    RCC 33.205.040, read", "unverified; named but never read: RCC 33.110.220"."""
    named = (atom.get("rests_on") or []) + (atom.get("rests_on_parcel") or [])
    read = atom.get("rests_on_read") or []
    unread = [n for n in named if n not in read]
    parts = [f"verified: rests on {', '.join(read)}, read" if read else "unverified"]
    if unread:
        parts.append("named but never read: " + ", ".join(unread))
    elif not named:
        parts.append("no section of the code named")
    unknown = atom.get("unknown_sections")
    return "; ".join(parts) + (f" (not in the code: {', '.join(unknown)})" if unknown else "")


def bucket_text(atom):
    """An atom's citation bucket, with the sources the answer never gave
    (not_in_answer: they earn nothing)."""
    missing = atom.get("citation_not_in_answer")
    if not missing:
        return atom["citation_bucket"]
    return f"{atom['citation_bucket']} (not_in_answer: {'; '.join(missing)})"


def arithmetic_lines(cell):
    """The arithmetic of each of the four scores, one item each."""
    s = cell["scores"]
    acc, com, cit, use = s["accurate"], s["complete"], s["cited"], s["useful"]
    figure = cell.get("verified")
    out = ["<h2>The arithmetic</h2><ul>",
           f"<li>{badge('accurate', acc['score'])} importance-weighted credit "
           f"{e(acc['weighted_credit'])} / weight {e(acc['weight'])} = {e(fmt(acc['raw']))}; "
           f"floor(raw × 3 + 0.5); {e(acc['skipped_admitted_gaps'])} admitted gap(s) skipped; "
           f"rests on {e(acc['atoms'])} factual atom(s), {e(acc['atoms_kept_after_checks'])} "
           "once the atoms set aside by the checks below are left out"
           + (f"; verified: {e(figure['resting_on_a_section_read'])} of {e(figure['factual_atoms'])} "
              "factual atoms rest on a section the evaluator read" if figure else "") + "</li>",
           f"<li>{badge('complete', com['score'])} covered {e(', '.join(com['covered']) or 'none')} "
           f"of {e(', '.join(com['must_cover']))} = {e(fmt(com['raw']))}"
           + (f"; capped at 2 by an admitted gap on {e(', '.join(com['capped_by_admitted_gap_on']))}"
              if com["capped_by_admitted_gap_on"] else "") + "</li>",
           f"<li>{badge('cited', cit['score'])} mean source credit over {e(cit['atoms'])} "
           f"factual atom(s) = {e(fmt(cit['raw']))}; buckets "
           f"{e(', '.join(f'{k} {v}' for k, v in cit['buckets'].items()) or 'none')}"
           + (f"; {e(cit['not_in_answer'])} citation(s) naming a source the answer does not "
              "give (not_in_answer: no credit for it)" if cit.get("not_in_answer") else "")
           + "</li>",
           f"<li>{badge('useful', use['score'])} mean actionability {e(fmt(use['mean_actionability']))} "
           f"minus jargon penalty {e(fmt(use['jargon_penalty']))} ({e(use['unexplained_jargon'])} "
           f"unexplained token(s) in {e(use['words'])} words) = {e(fmt(use['raw']))}</li></ul>"]
    return out


def render_detail(result, cell, scenario=None):
    """A cell's detail page; ``scenario``, its scenario, when the caller has
    it at hand (write_pages: found once for every page, not by a search)."""
    scenario = scenario or next(s for s in result["scenarios"] if s["id"] == cell["scenario"])
    body = [f"<h1>{e(cell['scenario'])}: {e(cell['variant'])}</h1>",
            f'<p class="note">{e(status_line(result))}</p>',
            f"<p>Verified by: {e(cell['evaluator'])} (prompt {e(cell['evaluator_prompt']['name'])}, "
            f"repeat {cell['repeat']}; {e(tokens_text(cell['evaluator_tokens']))})</p>",
            f"<p>Settings: {e(describe_settings(cell['settings']))}</p>",
            f'<p>Question: <span dir="auto">{e(scenario["question"])}</span></p>',
            "<h2>The response, verbatim</h2>",
            f'<blockquote dir="auto">{e(cell["response"])}</blockquote>']
    if cell["error"]:
        body.append(f"<p>Atomization failed: {e(cell['error'])}</p>")
        return page(cell["scenario"], STYLE, body)
    # On a phone each atom is a card, each field labelled (cards).
    body.append("<h2>Atoms</h2>")
    rows = [[f'<span dir="auto">{e(a["text"])}</span>', e(a["correctness"]),
             f'<span dir="auto">{e(a["verified_truth"])}</span>', e(a["citation"] or "none"),
             e(bucket_text(a)), e(a["topic"]), e(a["importance"]), e(a["actionability"]),
             e("; ".join(SET_ASIDE[f] for f in a["set_aside"]) or "no")] for a in cell["atoms"]]
    body += cards(ATOM_HEADS, rows)
    body.append(f"<p>{e(cell_checks_text(cell['atom_checks']))}</p>")
    body += arithmetic_lines(cell)
    body += lookup_lines(cell)
    use = cell["scores"]["useful"]
    body.append("<h2>Jargon found</h2>")
    if use["jargon"]:
        body.append("<ul>" + "".join(f"<li>{e(t['token'])} ({e(t['kind'])}): {e(verdict(t))}</li>"
                                     for t in use["jargon"]) + "</ul>")
    else:
        body.append("<p>None.</p>")
    body.append('<p><a href="../index.html">Back to the dashboard</a></p>')
    return page(f"{cell['scenario']} - {cell['variant']}", STYLE, body)


def cell_checks_text(checks):
    """One answer's atoms checked against it, in words."""
    return (f"Checked against the response: of {checks['atoms']} atom(s), "
            f"{checks['unsupported']} unsupported (the response shares no content word with "
            f"them), {checks['duplicate']} duplicate(s), {checks['truth_only_negates']} whose "
            f"verified truth only negates the claim; {checks['set_aside']} set aside in all. "
            "The scores count every atom, as the spec's formulas do.")


def write_pages(result, folder, write):
    """The dashboard and every detail page, through ``write(path, text)``."""
    os.makedirs(os.path.join(folder, "detail"), exist_ok=True)
    write(os.path.join(folder, "index.html"), render_dashboard(result))
    scenarios = {s["id"]: s for s in result["scenarios"]}
    for cell in result["cells"]:
        write(os.path.join(folder, "detail", detail_name(cell)),
              render_detail(result, cell, scenarios[cell["scenario"]]))
