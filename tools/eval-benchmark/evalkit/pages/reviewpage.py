"""review.html: the review sheet as a page a reviewer fills in the browser.

``score.py --review-page FILE`` (``make score``) writes it beside the review
sheet. Each answer the sheet asks for (the answers a rule sends to a person,
then the sampled passes) comes with why it is there (what it failed, its
flags and what they found, the sampled-pass mark: the sheet's words), its
question, evidence, answer, sources and mechanical verdicts, and, for each
measure that applies, a pass/fail choice and a reason; a box marks the
question faulty instead. The choices start from the reviews file the quarter
was scored with, when it has one. The page's head names the file it makes
and what the result carries: the rules' date, the scorer version, the
question files and the reviews file it started from.

A button makes the reviews file, shown in a box to copy and offered as a
download: nothing is sent anywhere, the page fetches nothing, and works from
``file://``; without scripts a notice says to write the file from the
sheet's last section. Beside the button the page names where the file goes
and what comes next: for the name ``make score`` gives it
(build/QUARTER/reviews-QUARTER.json), that folder, then ``make score
QUARTER=...`` and ``make publish QUARTER=...``. Its rule, which ``SCRIPT``
follows and ``made`` states in Python for the tests (tests/test_reviewpage.py
and tests/test_review_found.py hold the two to the same output in the format
``score.py --reviews`` reads):

- first every entry of the reviews file for a question the page does not
  show, as it was;
- then, answer by answer in the page's order: a question marked faulty gets
  one entry ``{"id", "faulty": true, "reason"}`` and no verdicts (the loader
  refuses both); otherwise each measure whose reason is not empty gets
  ``{"id", "measure", "value", "reason"}``, in the order of the measures.

The file is not made, and every problem is named with its answer and
measure, where score.py would refuse it or where a choice made on the page
would be lost: a faulty box ticked with no reason, a reason still TODO or of
more than one line (evalkit/rubric/reviews.py), a verdict other than the
mechanical one with no reason (without an entry the mechanical verdict
stands). A measure the sheet requires (the one each flagged answer's entry
names; every measure of a sampled pass) is marked. An answer has a complete
entry when it is marked faulty with a reason, or when none of its measures
has a problem and every required one has a reason; the page counts the
answers still without one as the reviewer goes, marks the others, and its
"Next unreviewed" button goes to the next of them (wrapping round). The JSON
sheet (review-sheet.md) stays for those who prefer it.

What the reviewer chooses is kept in the browser (localStorage) as they
choose it, so a reload or a closed tab loses nothing: under a key of the
run (its run ids), the question files (their sha256) and the rules' date
(``storage_key``), so that another run's answers never get these reasons.
The browser keeps, for each choice changed, the choice the page started from
and the one made (``{"from", "to"}``). Opened again, the page puts back
each choice made on the start it was made on. A page written again from a
reviews file starts from that file's entries, so the two are merged a
choice at a time: where the file's entry is what the browser's choice was
made on, the browser's choice is newer and wins; where the file holds the
browser's choice already (the file was made on this page), there is nothing
to merge; where the file holds something else (written by hand or in
another browser since), the file wins, because it is what score.py read and
what will be published, and the browser's choice is shown beside it, never
dropped, until the reviewer chooses again. Nothing of the state leaves the
browser; the reviews file is still what counts.

Every text of an answer is shown inert: each bidi control (U+202A-U+202E,
U+2066-U+2069, U+200E, U+200F, U+061C) as a visible marker, never acting, so
that "$53" cannot show as "$35"; each source isolated, so that one cannot
reorder the next. A stored reason holding one, which its text box must keep
as it is, is shown again beside the box with its controls as markers.
"""

import hashlib
import json
import re

from ..rubric.measures import APPLIES, FLAGS, MEASURES, TITLES
from ..rubric.report import FLAG_FOUND, review_measure, to_read
from .explore import BIDI, inert
from .pagelabels import e, page


def required_measures(row):
    """The measures the review sheet asks a person to write for ``row``:
    under the rules of 2026-12-03 on, each measure asked or sampled
    (report.to_read); before, every measure of a sampled pass, else the one
    the sheet's entry names."""
    if "asked" in row:
        return [measure for measure, _why in to_read(row)]
    if row.get("sampled"):
        return [m for m in MEASURES if m in APPLIES[row["kind"]]]
    return [review_measure(row)]


def storage_key(result):
    """The key the page keeps its state under in the browser: one for each
    run (its run ids), question files (their sha256) and rules' date, so a
    reason is never put back on another run's answer."""
    p = result["provenance"]
    what = {"runs": p.get("run_ids", []), "questions": [c["sha256"] for c in p["cases"]],
            "rules": p["decline_list_date"]}
    digest = hashlib.sha256(json.dumps(what, sort_keys=True).encode("utf-8")).hexdigest()
    return "review.html " + digest


def page_data(result):
    """What the page shows and starts from: ``answers`` (each with its
    measures, the choice and reason to start from, and its faulty reason),
    ``kept``, the entries of questions the page does not show, and ``key``,
    where the browser keeps the reviewer's choices (``storage_key``)."""
    faulty = {f["id"]: f["reason"] for f in result["faulty"]}
    answers, kept = [], []
    for row in result["questions"]:
        given = {r["measure"]: r for r in row["reviews"]}
        if not (row["review_required"] or row.get("sampled")):
            kept += ([{"id": row["id"], "faulty": True, "reason": faulty[row["id"]]}]
                     if row["id"] in faulty else
                     [{"id": row["id"], "measure": m, "value": given[m]["value"],
                       "reason": given[m]["reason"]} for m in MEASURES if m in given])
            continue
        required = required_measures(row)
        answers.append({
            "id": row["id"], "faulty": faulty.get(row["id"]),
            "measures": [{"measure": m, "mechanical": row["mechanical"][m],
                          "value": given[m]["value"] if m in given else row["mechanical"][m],
                          "reason": given[m]["reason"] if m in given else "",
                          "required": m in required}
                         for m in MEASURES if m in APPLIES[row["kind"]]]})
    return {"answers": answers, "kept": kept, "key": storage_key(result)}


# What score.py refuses in a reason (evalkit/rubric/reviews.py: empty, TODO,
# more than one line), in the words the page shows; SCRIPT says the same.
# Every line break str.splitlines knows, which the loader counts: a text box
# drops \n and \r but keeps a pasted U+2028.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def reason_problem(reason):
    """Why score.py would refuse ``reason`` (already stripped), or ""."""
    if not reason:
        return "the reason is empty"
    if reason.upper() == "TODO":
        return "the reason is still TODO (write what you read)"
    if any(c in LINE_BREAKS for c in reason):
        return "the reason must be one line"
    return ""


def made(data, choices=None):
    """What the page makes from ``data`` and the reviewer's ``choices``
    (``{id: {"faulty": reason, or None for the box not ticked; measure:
    (value, reason)}}``; what is not in it stays as the page started):
    ``(entries, problems, left)``, the problems in the page's words, left the
    ids of the answers without a complete entry (a problem, or a required
    measure without a reason). The file is made only when there is no
    problem."""
    entries, problems, left = list(data["kept"]), [], []
    for answer in data["answers"]:
        chosen = (choices or {}).get(answer["id"], {})
        faulty = chosen.get("faulty", answer["faulty"])
        if faulty is not None:
            wrong = reason_problem(faulty.strip())
            if wrong:
                problems.append(f"{answer['id']}, faulty question: {wrong}")
                left.append(answer["id"])
            else:
                entries.append({"id": answer["id"], "faulty": True, "reason": faulty.strip()})
            continue
        made_here, wrong, todo = measure_entries(answer, chosen)
        entries += made_here
        problems += wrong
        if wrong or todo:
            left.append(answer["id"])
    return entries, problems, left


def measure_entries(answer, chosen):
    """``(entries, problems, todo)`` of one answer not marked faulty: todo
    is whether a required measure is still without a reason."""
    entries, problems, todo = [], [], False
    for item in answer["measures"]:
        value, reason = chosen.get(item["measure"], (item["value"], item["reason"]))
        reason, where = reason.strip(), f"{answer['id']}, {TITLES[item['measure']]}"
        if reason and reason_problem(reason):
            problems.append(f"{where}: {reason_problem(reason)}")
        elif reason:
            entries.append({"id": answer["id"], "measure": item["measure"], "value": value,
                            "reason": reason})
        elif value != item["mechanical"]:
            # Without an entry the mechanical verdict stands: the choice
            # the page shows would be lost.
            problems.append(f"{where}: {'pass' if value else 'fail'} is not the mechanical "
                            "verdict and needs a reason, or it is left out")
        elif item["required"]:
            todo = True
    return entries, problems, todo


def reviews_file(data, choices=None):
    """The reviews file the page makes, as text, from ``data`` and the
    reviewer's ``choices`` (as ``made`` takes them); ValueError naming every
    problem where the page makes none."""
    entries, problems, _left = made(data, choices)
    if problems:
        raise ValueError("; ".join(problems))
    return json.dumps({"format": 1, "reviews": entries}, ensure_ascii=False, indent=1) + "\n"


def render_review_page(result, reviews_name):
    """The page, for a reviews file to be saved as ``reviews_name``."""
    data = page_data(result)
    rows = {row["id"]: row for row in result["questions"]}
    name = reviews_name.split("/")[-1]
    per_set = result.get("sampled_review", {}).get("per_set")
    out = [f"<h1>Review: <bdi>{e(name)}</bdi></h1>"] + about(result, reviews_name) + [
        "<p>Read each answer, choose pass or fail for each measure and write a one-line "
        "reason where you decide (a measure marked * needs one, and so does a verdict "
        "other than the mechanical one; TODO is no reason). An answer is left until it has "
        "a complete entry: a reason for each measure marked *, and no problem (or the "
        "question marked faulty, with a reason). Then make the reviews file "
        f"and save it as <code>{e(reviews_name)}</code>. Nothing leaves this page.</p>",
        # Filled by the script: what this browser keeps, and what it put back.
        '<p id="kept" class="kept" hidden></p>',
        # Shown by the script, and kept in sight while the reviewer scrolls.
        '<div id="bar" class="bar" hidden><span id="left" aria-live="polite"></span> '
        '<button type="button" id="next">Next unreviewed</button> '
        '<a href="#maker">Make the file ↓</a></div>']
    # Before the answers: a reviewer without scripts learns it before writing.
    out.append('<noscript><p class="notice"><strong>Scripts are off, so this page cannot make '
               "the reviews file.</strong> Write it by hand from the review sheet, "
               "review-sheet.md beside this page: its last section, &quot;The reviews "
               "file&quot;, holds the whole file, every entry with its reason TODO. Copy it "
               f"to <code>{e(reviews_name)}</code>, then for each entry set <code>value</code> "
               "to your verdict and write a one-line <code>reason</code>.</p></noscript>")
    for answer in data["answers"]:
        out += answer_card(rows[answer["id"]], answer, per_set)
    # Shown by the script: without it the button would do nothing.
    out += ['<div id="maker" hidden>', "<h2>The reviews file</h2>",
            '<p><button type="button" id="make">Make the reviews file</button> '
            '<span id="todo" aria-live="polite"></span></p>',
            '<ul id="problems" class="problems"></ul>',
            '<textarea id="out" rows="12" readonly></textarea>',
            f'<p><a id="save" download="{e(name)}" hidden>Download</a> '
            '<button type="button" id="copy" hidden>Copy</button></p>',
            *next_steps(reviews_name), "</div>",
            '<script type="application/json" id="data">'
            # Every < escaped: no text of an answer can end the block or open a tag.
            + json.dumps(data, ensure_ascii=False).replace("<", "\\u003c") + "</script>",
            f"<script>{SCRIPT}</script>"]
    return page(f"Review: {name}", STYLE, out)


# The name make score gives the reviews file (Makefile: build/QUARTER/).
MAKE_NAME = re.compile(r"(?:.*/)?build/(?P<quarter>[^/]+)/reviews-(?P=quarter)\.json")


def next_steps(reviews_name):
    """Where the file goes and what comes after it: for the name ``make
    score`` gives it, the folder and the two make commands."""
    folder, _, name = reviews_name.rpartition("/")
    place = (f"<code>{e(name)}</code> in the folder <code>{e(folder)}/</code>" if folder
             else f"<code>{e(name)}</code>")
    steps = [
        "Make the file (the button above) once no answer is left.",
        f"Save it as {place}. Download puts it in the browser's downloads folder (with a "
        "number added to its name when one of that name is there already): move it there "
        "under that name. Or paste what Copy took into that file."]
    found = MAKE_NAME.fullmatch(reviews_name)
    if found:
        quarter = e(found.group("quarter"))
        steps += [f"Run <code>make score QUARTER={quarter}</code>: the figures after review "
                  "(a problem in the file is named there).",
                  f"Run <code>make publish QUARTER={quarter}</code>."]
    else:
        steps.append(f"Score the quarter again with <code>--reviews {e(reviews_name)}</code>, "
                     "then publish it.")
    return ['<ol class="steps">'] + [f"<li>{step}</li>" for step in steps] + ["</ol>"]


def about(result, reviews_name):
    """What the result the page was made from carries: the file it makes,
    the reviews file it started from, the rules' date and scorer version it
    was scored with, its question files and run dates."""
    p = result["provenance"]
    started = p["reviews"]["file"]
    items = [
        ("Makes", f"<code>{e(reviews_name)}</code>"),
        ("Started from", f"<code>{e(started)}</code> ({p['reviews']['entries']} entries)"
         if started else "no reviews file: every choice is the mechanical verdict"),
        ("Scoring rules as of", e(p["decline_list_date"])),
        ("Scored by", e(f"{p['scorer']['tool']} {p['scorer']['version']}")),
        ("Questions", ", ".join(f"<code>{e(c['file'])}</code>" for c in p["cases"])),
        ("Run dates (UTC)", e(", ".join(p["run_dates"]) or "none"))]
    return ['<ul class="about">' + "".join(f"<li>{k}: {v}</li>" for k, v in items) + "</ul>"]


def answer_card(row, answer, per_set=None):
    """One answer: its id marked sampled pass or reviewed as the sheet marks
    it, why it is here, its texts, a row a measure, and the faulty box."""
    qid = e(row["id"])
    marks = [mark for mark, on in (("sampled pass", row.get("sampled")),
                                   ("reviewed", row["reviewed"])) if on]
    out = [f'<section class="a" data-id="{qid}">',
           f"<h2><bdi>{inert(row['id'])}</bdi> ({e(row['kind'])})"
           + "".join(f' <span class="mark">{m}</span>' for m in marks) + "</h2>"]
    out += why_here(row, per_set) + answer_texts(row)
    out += ['<table class="m"><thead><tr><th>Measure</th><th>Mechanical</th>'
            "<th>Your verdict</th><th>Reason</th></tr></thead><tbody>"]
    out += [measure_row(qid, item) for item in answer["measures"]]
    faulty = answer["faulty"]
    box = ('<input type="checkbox" class="faulty" autocomplete="off"'
           + (" checked" if faulty else "") + ">")
    out += ["</tbody></table>",
            f'<p class="faulty-row"><label>{box} faulty question (left out of every score; '
            "its verdicts are not written), because: </label>"
            f'<input type="text" class="faulty-reason" dir="auto" autocomplete="off" '
            f'value="{e(faulty or "")}">'
            f"{stored(faulty or '')}</p>", "</section>"]
    return out


def why_here(row, per_set):
    """Why a person reads the answer, in the review sheet's words: the
    sampled pass, or what it failed, its kind and its flags with what each
    found. Under the rules of 2026-12-03 on, each measure to read with why
    (report.to_read)."""
    if "asked" in row:
        out = ['<p class="why">Why it is here: ' + "; ".join(
            f"{e(TITLES[m])} ({WHY[why]})" for m, why in to_read(row)) + ".</p>"]
        if row.get("flags"):
            out.append('<div class="why">Flags (Correct facts passed, but):<ul class="flags">'
                       + "".join(flag_item(flag, row) for flag in row["flags"]) + "</ul></div>")
        return out
    if row.get("sampled"):
        return ['<p class="why"><strong>Sampled pass:</strong> it passed every measure that '
                "applies and no flag sent it to a person; the rule drew it (the sha256 of the "
                f"run id and the question id, {e(per_set)} a set) so that the rate of false "
                "passes can be published. Read it on every measure.</p>"]
    why = ["every answer to a not-on-site question is read by a person"
           ] if row["kind"] == "not_on_site" else []
    failed = [TITLES[m] for m in MEASURES if row["mechanical"][m] is False]
    why += ["it failed " + ", ".join(failed)] if failed else []
    out = [f'<p class="why">Why it is here: {"; ".join(why)}.</p>'] if why else []
    if row.get("flags"):
        out.append('<div class="why">Flags (it passed, but):<ul class="flags">'
                   + "".join(flag_item(flag, row) for flag in row["flags"]) + "</ul></div>")
    return out


# Why a measure is to be read (report.to_read), in the page's words.
WHY = {"failed": "it failed", "flagged": "a flag doubts the pass",
       "not on the site": "every not-on-site answer is read",
       "sampled": "a sampled pass: read it so that the rate of false passes can be published"}


def flag_item(flag, row):
    """One flag as the sheet words it, with what it found as the answer has
    it (each word isolated: a Hebrew one among English ones keeps its place)."""
    found = (row.get("details") or {}).get(FLAG_FOUND.get(flag)) or []
    return (f"<li><code>{e(flag)}</code>: {e(FLAGS[flag])}"
            + (" (" + ", ".join(f"<bdi>{inert(w)}</bdi>" for w in found) + ")" if found else "")
            + "</li>")


def answer_texts(row):
    """The question, its evidence, what the answer must not hold, the answer
    and its sources, as the review sheet lists them; each text inert, each
    source isolated from the next."""
    out = [f'<p>Question: <span dir="auto">{inert(row["question"])}</span></p>']
    if row.get("evidence"):
        out.append(f'<p>Evidence: <span dir="auto">{inert(row["evidence"])}</span> '
                   f'(<code dir="ltr">{inert(row["source_url"])}</code>)</p>')
    if row.get("must_not_include"):
        out.append("<p>Must not include: " + ", ".join(
            f"<bdi>{inert(s)}</bdi>" for s in row["must_not_include"]) + "</p>")
    answer_text = row["answer"] if row["answer"] is not None else f"(no answer: {row['problem']})"
    sources = ", ".join(f'<code dir="ltr">{inert(s)}</code>' for s in row["sources"])
    return out + [f'<blockquote dir="auto">{inert(answer_text)}</blockquote>',
                  f'<p class="sources">Sources: {sources or "none"}; grounded: '
                  f"{e(json.dumps(row['grounded']))}</p>"]


def stored(reason):
    """A stored reason again, its bidi controls as markers, where it holds
    one: its text box must keep the characters, and shows them acting."""
    if not BIDI.search(reason):
        return ""
    return f'<span class="stored">stored as: <bdi>{inert(reason)}</bdi></span>'


def measure_row(qid, item):
    """One measure of an answer: its mechanical verdict, the reviewer's
    choice (started from ``item["value"]``) and reason (* where required).
    The labels are the cells' headings on a phone, where a row is a card."""
    m, name = item["measure"], f'{qid}|{item["measure"]}'

    def choice(value, text):
        checked = " checked" if item["value"] is value else ""
        return (f'<label><input type="radio" name="{name}" value="{str(value).lower()}"'
                f' autocomplete="off"{checked}> {text}</label>')

    required = " required" if item["required"] else ""
    return (f'<tr data-measure="{m}" data-title="{e(TITLES[m])}">'
            f'<td class="name">{e(TITLES[m])}{" *" if item["required"] else ""}</td>'
            f'<td data-label="Mechanical">{"pass" if item["mechanical"] else "fail"}</td>'
            f"<td data-label=\"Your verdict\">{choice(True, 'pass')} {choice(False, 'fail')}</td>"
            f'<td data-label="Reason"><input type="text" class="reason" dir="auto" '
            f'autocomplete="off" value="{e(item["reason"])}"{required}>'
            f'{stored(item["reason"])}</td></tr>')


STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;line-height:1.45;margin:0 auto;max-width:60rem;padding:.5rem 1rem 3rem;color:#222}
h1,section.a{overflow-wrap:anywhere}
section.a{border-top:1px solid #ccc;margin-top:1rem}
ul.about{margin:.3rem 0;padding-inline-start:1.2rem}
.mark{font-size:.65em;font-weight:normal;background:#fde9b8;border-radius:.3em;padding:.05em .4em;white-space:nowrap}
.why{background:#eef4fb;margin:.3rem 0;padding:.3rem .6rem}
ul.flags{margin:.2rem 0;padding-inline-start:1.2rem}
blockquote{margin:.3rem 0;padding:.3rem .6rem;background:#f6f6f6;white-space:pre-wrap;overflow-wrap:anywhere}
code.bidi{direction:ltr;unicode-bidi:isolate;font-size:.75em;color:#900;background:#fee;border:1px solid #d99;border-radius:.2em;padding:0 .15em}
.stored{display:block;font-size:.9em;color:#444}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ddd;padding:.25rem .4rem;text-align:start;vertical-align:top}
th{overflow-wrap:normal}
table.m td:last-child{width:45%}
input.reason,input.faulty-reason{width:100%}
textarea{width:100%;font-family:monospace}
code{overflow-wrap:anywhere}
ul.problems{color:#a00}
.bar{position:sticky;top:0;z-index:1;display:flex;flex-wrap:wrap;align-items:center;gap:.3rem .8rem;background:#fff;border-bottom:1px solid #ccc;padding:.4rem 0}
.bar #left{font-weight:600}
section.a{scroll-margin-top:6rem}
section.a.done>h2::after{content:"complete";margin-inline-start:.4em;font-size:.65em;font-weight:normal;background:#d7f0dc;border-radius:.3em;padding:.05em .4em}
.kept{background:#f3f6fb;padding:.3rem .6rem}
.other{display:block;font-size:.9em;background:#fff4ce;padding:.1rem .3rem;margin-top:.2rem}
.notice{border:2px solid #c60;padding:.4rem .6rem}
[hidden]{display:none!important}
@media (max-width:44rem){
table.m,table.m tbody,table.m tr,table.m td,table.m td:last-child{display:block;width:100%}
table.m thead{display:none}
table.m tr{border:1px solid #ddd;margin:.4rem 0}
table.m td{border:0;padding:.15rem .4rem}
table.m td.name{font-weight:600}
table.m td[data-label]::before{content:attr(data-label) ": "}
}
"""

# The rule of the module's docstring, in the browser, as ``made`` states it
# in Python: the same entries, the same problems in the same words; then
# what the page keeps in the browser and puts back, as the docstring says.
# No library, nothing fetched; the data is read from the page's own JSON block.
SCRIPT = r"""(function () {
  var data = JSON.parse(document.getElementById("data").textContent);
  var BREAK = /[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
  var BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  var byId = function (id) { return document.getElementById(id); };
  var cards = {}, answers = {};
  data.answers.forEach(function (answer) {
    answers[answer.id] = answer;
    cards[answer.id] = document.querySelector('section.a[data-id="' + CSS.escape(answer.id) + '"]');
  });
  function wrong(reason) {
    if (!reason) return "the reason is empty";
    if (reason.toUpperCase() === "TODO") return "the reason is still TODO (write what you read)";
    return BREAK.test(reason) ? "the reason must be one line" : "";
  }
  // A choice: a measure's [verdict, reason] or the faulty box's [ticked, reason].
  function row(card, measure) { return card.querySelector('tr[data-measure="' + measure + '"]'); }
  function read(card, field) {
    if (field === "faulty")
      return [card.querySelector("input.faulty").checked, card.querySelector("input.faulty-reason").value];
    var tr = row(card, field);
    return [tr.querySelector('input[type="radio"]:checked').value === "true", tr.querySelector("input.reason").value];
  }
  function write(card, field, choice) {
    if (field === "faulty") {
      card.querySelector("input.faulty").checked = choice[0];
      card.querySelector("input.faulty-reason").value = choice[1];
      return;
    }
    row(card, field).querySelector('input[value="' + choice[0] + '"]').checked = true;
    row(card, field).querySelector("input.reason").value = choice[1];
  }
  function start(answer, field) {
    if (field === "faulty") return [answer.faulty !== null, answer.faulty || ""];
    var item = answer.measures.filter(function (i) { return i.measure === field; })[0];
    return item ? [item.value, item.reason] : null;
  }
  function build() {
    var entries = data.kept.slice(), problems = [], left = [];
    data.answers.forEach(function (answer) {
      var card = cards[answer.id], before = problems.length, todo = false;
      var faulty = read(card, "faulty");
      if (faulty[0]) {
        var why = faulty[1].trim();
        if (wrong(why)) problems.push(answer.id + ", faulty question: " + wrong(why));
        else entries.push({id: answer.id, faulty: true, reason: why});
      } else answer.measures.forEach(function (item) {
        var where = answer.id + ", " + row(card, item.measure).getAttribute("data-title");
        var choice = read(card, item.measure), value = choice[0], reason = choice[1].trim();
        if (reason && wrong(reason)) problems.push(where + ": " + wrong(reason));
        else if (reason) entries.push({id: answer.id, measure: item.measure, value: value, reason: reason});
        else if (value !== item.mechanical) problems.push(where + ": " + (value ? "pass" : "fail") +
          " is not the mechanical verdict and needs a reason, or it is left out");
        else if (item.required) todo = true;
      });
      if (todo || problems.length > before) left.push(answer.id);
    });
    return {text: JSON.stringify({format: 1, reviews: entries}, null, 1) + "\n", left: left,
            problems: problems};
  }
  // What the answers left are, as the reviewer goes.
  function count() {
    var left = build().left, open = {};
    left.forEach(function (id) { open[id] = true; });
    data.answers.forEach(function (answer) { cards[answer.id].classList.toggle("done", !open[answer.id]); });
    byId("left").textContent = left.length ? "Left: " + left.length + " of " + data.answers.length +
      " answers" : "Left: none of " + data.answers.length + " answers";
    byId("next").disabled = !left.length;
    return left;
  }
  // The browser's state: {edits: {id: {field: {from: choice, to: choice}}}}.
  var same = function (a, b) { return JSON.stringify(a) === JSON.stringify(b); };
  function load() {
    var text;
    try { text = localStorage.getItem(data.key); } catch (e) { return null; }
    try { var state = JSON.parse(text); if (state && state.edits) return state; } catch (e) {}
    return {edits: {}};
  }
  var state = load(), keeps = state !== null;
  state = state || {edits: {}};
  function save() {
    try { localStorage.setItem(data.key, JSON.stringify(state)); } catch (e) { keeps = false; tell(0, 0); }
  }
  function visible(text) {
    return text.replace(BIDI, function (c) { return "[U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "]"; });
  }
  function note(card, field, choice) {
    var place = field === "faulty" ? card.querySelector("p.faulty-row") :
      row(card, field).querySelector('td[data-label="Reason"]');
    var what = field === "faulty" ? (choice[0] ? "faulty" : "not faulty") : (choice[0] ? "pass" : "fail");
    var other = place.appendChild(document.createElement("span"));
    other.className = "other";
    other.setAttribute("data-field", field);
    other.textContent = "This browser holds another choice here, made when the page started from " +
      "other entries: " + what + ', "' + visible(choice[1]) + '". The reviews file\'s entry is ' +
      "shown; choose again to replace it.";
  }
  function restore() {
    var put = 0, other = 0;
    Object.keys(state.edits).forEach(function (id) {
      var edits = state.edits[id], answer = answers[id];
      Object.keys(answer ? edits : {}).forEach(function (field) {
        var was = start(answer, field), edit = edits[field];
        if (!was) return;
        if (same(edit.from, was)) { write(cards[id], field, edit.to); put++; }
        else if (same(edit.to, was)) delete edits[field];
        else { note(cards[id], field, edit.to); other++; }
      });
    });
    return [put, other];
  }
  function tell(put, other) {
    var kept = byId("kept");
    kept.hidden = false;
    kept.textContent = !keeps ? "This browser keeps nothing of this page (its storage is off or " +
      "full): make the reviews file before you close it." :
      (put ? "Put back from this browser: " + put + " choice(s) made on this page before. " : "") +
      (other ? other + " choice(s) kept in this browser differ from the reviews file this page " +
       "started from: the file's are shown, each with the browser's beside it. " : "") +
      "Your choices are kept in this browser as you make them (for this run, its question files " +
      "and rules), so a reload or a closed tab loses nothing (a private window forgets them when " +
      "it closes); the reviews file you make is what counts.";
  }
  function changed(event) {
    var card = event.target.closest && event.target.closest("section.a");
    if (!card) return;
    var id = card.getAttribute("data-id"), tr = event.target.closest("tr[data-measure]");
    var field = tr ? tr.getAttribute("data-measure") : "faulty";
    var now = read(card, field), was = start(answers[id], field);
    var edits = state.edits[id] || (state.edits[id] = {});
    if (same(now, was)) delete edits[field];
    else edits[field] = {from: was, to: now};
    if (!Object.keys(edits).length) delete state.edits[id];
    Array.prototype.forEach.call(card.querySelectorAll('.other[data-field="' + field + '"]'),
      function (other) { other.parentNode.removeChild(other); });
    save();
    count();
  }
  var restored = restore();
  tell(restored[0], restored[1]);
  document.addEventListener("input", changed);
  document.addEventListener("change", changed);
  byId("bar").hidden = false;
  byId("maker").hidden = false;
  count();
  // The next answer without a complete entry after the one in hand (the
  // last one typed in, while it is in sight, or the last one scrolled to the
  // top), round to the first.
  var current = null;
  document.addEventListener("focusin", function (event) {
    var card = event.target.closest && event.target.closest("section.a");
    if (card) current = card.getAttribute("data-id");
  });
  byId("next").addEventListener("click", function () {
    var left = count(), order = data.answers.map(function (answer) { return answer.id; }), at = -1;
    if (!left.length) return;
    order.forEach(function (id, i) {
      var box = cards[id].getBoundingClientRect();
      var top = parseFloat(getComputedStyle(cards[id]).scrollMarginTop) + 2;
      if (box.top <= top || (id === current && box.top < innerHeight && box.bottom > 0)) at = i;
    });
    var id = left.filter(function (id) { return order.indexOf(id) > at; })[0] || left[0];
    var boxes = Array.prototype.slice.call(cards[id].querySelectorAll("input.reason, input.faulty-reason"));
    var box = boxes.filter(function (b) { return b.required && wrong(b.value.trim()); })[0] || boxes[0];
    cards[id].scrollIntoView({block: "start"});
    box.focus({preventScroll: true});
  });
  byId("make").addEventListener("click", function () {
    var made = build(), out = byId("out"), link = byId("save");
    var list = byId("problems"), refused = made.problems.length > 0;
    list.textContent = "";
    made.problems.forEach(function (problem) {
      list.appendChild(document.createElement("li")).textContent = problem;
    });
    out.value = refused ? "" : made.text;
    byId("todo").textContent = refused ?
      "Not made: " + made.problems.length + " problem(s) below (score.py would refuse " +
      "the file, or a choice made here would be lost)" : made.left.length ?
      made.left.length + " answer(s) still without a complete entry" : "every answer has a complete entry";
    if (!refused) link.href = URL.createObjectURL(new Blob([made.text], {type: "application/json"}));
    link.hidden = refused;
    byId("copy").hidden = refused;
  });
  byId("copy").addEventListener("click", function () {
    var out = byId("out");
    out.select();
    if (navigator.clipboard) navigator.clipboard.writeText(out.value);
  });
})();"""
