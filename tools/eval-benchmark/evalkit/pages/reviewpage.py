"""review.html: the review sheet as a page a reviewer fills in the browser.

``score.py --review-page FILE`` (``make score``) writes it beside the review
sheet. Each answer the sheet asks for (the answers a rule sends to a person,
then the sampled passes) comes with its question, evidence, answer, sources
and mechanical verdicts, and, for each measure that applies, a pass/fail
choice and a reason; a box marks the question faulty instead. The choices
start from the reviews file the quarter was scored with, when it has one.

A button makes the reviews file, shown in a box to copy and offered as a
download: nothing is sent anywhere, the page fetches nothing, and works from
``file://``. Its rule, which ``SCRIPT`` follows and ``reviews_file`` states
in Python for the tests (tests/test_reviewpage.py holds the two to the same
output in the format ``score.py --reviews`` reads):

- first every entry of the reviews file for a question the page does not
  show, as it was;
- then, answer by answer in the page's order: a question marked faulty gets
  one entry ``{"id", "faulty": true, "reason"}`` and no verdicts (the loader
  refuses both); otherwise each measure whose reason is not empty gets
  ``{"id", "measure", "value", "reason"}``, in the order of the measures.

A measure the sheet requires (the one each flagged answer's entry names;
every measure of a sampled pass) is marked; the page counts the required
ones still without a reason. The JSON sheet (review-sheet.md) stays for
those who prefer it.
"""

import json

from ..rubric.measures import APPLIES, MEASURES, TITLES
from ..rubric.report import review_measure
from .pagelabels import e, page


def required_measures(row):
    """The measures the review sheet asks a person to write for ``row``."""
    if row.get("sampled"):
        return [m for m in MEASURES if m in APPLIES[row["kind"]]]
    return [review_measure(row)]  # the one the sheet's entry names


def page_data(result):
    """What the page shows and starts from: ``answers`` (each with its
    measures, the choice and reason to start from, and its faulty reason)
    and ``kept``, the entries of questions the page does not show."""
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
    return {"answers": answers, "kept": kept}


def reviews_file(data, choices=None):
    """The reviews file the page makes, as text, from ``data`` and the
    reviewer's ``choices`` (``{id: {"faulty": reason or None, measure:
    (value, reason)}}``; what is not in it stays as the page started)."""
    entries = list(data["kept"])
    for answer in data["answers"]:
        chosen = (choices or {}).get(answer["id"], {})
        faulty = (chosen.get("faulty", answer["faulty"]) or "").strip()
        if faulty:
            entries.append({"id": answer["id"], "faulty": True, "reason": faulty})
            continue
        for item in answer["measures"]:
            value, reason = chosen.get(item["measure"], (item["value"], item["reason"]))
            if reason.strip():
                entries.append({"id": answer["id"], "measure": item["measure"], "value": value,
                                "reason": reason.strip()})
    return json.dumps({"format": 1, "reviews": entries}, ensure_ascii=False, indent=1) + "\n"


def render_review_page(result, reviews_name):
    """The page, for a reviews file to be saved as ``reviews_name``."""
    data = page_data(result)
    rows = {row["id"]: row for row in result["questions"]}
    out = ["<h1>Review</h1>",
           f"<p>Read each answer, choose pass or fail for each measure and write a one-line "
           f"reason where you decide (a measure marked * needs one). Then make the reviews "
           f"file and save it as <code>{e(reviews_name)}</code>. Nothing leaves this page.</p>"]
    for answer in data["answers"]:
        out += answer_card(rows[answer["id"]], answer)
    out += ['<p><button type="button" id="make">Make the reviews file</button> '
            '<span id="todo"></span></p>',
            '<textarea id="out" rows="12" readonly></textarea>',
            f'<p><a id="save" download="{e(reviews_name.split("/")[-1])}" hidden>Download</a> '
            '<button type="button" id="copy" hidden>Copy</button></p>',
            '<script type="application/json" id="data">'
            # Every < escaped: no text of an answer can end the block or open a tag.
            + json.dumps(data, ensure_ascii=False).replace("<", "\\u003c") + "</script>",
            f"<script>{SCRIPT}</script>"]
    return page("Review", STYLE, out)


def answer_card(row, answer):
    qid = e(row["id"])
    out = [f'<section class="a" data-id="{qid}">', f"<h2><bdi>{qid}</bdi> ({e(row['kind'])})</h2>",
           f'<p>Question: <span dir="auto">{e(row["question"])}</span></p>']
    if row.get("evidence"):
        out.append(f'<p>Evidence: <span dir="auto">{e(row["evidence"])}</span> '
                   f'(<code>{e(row["source_url"])}</code>)</p>')
    answer_text = row["answer"] if row["answer"] is not None else f"(no answer: {row['problem']})"
    out += [f'<blockquote dir="auto">{e(answer_text)}</blockquote>',
            "<p>Sources: " + (", ".join(f"<code>{e(s)}</code>" for s in row["sources"]) or "none")
            + "</p>", "<table><tr><th>Measure</th><th>Mechanical</th><th>Your verdict</th>"
            "<th>Reason</th></tr>"]
    out += [measure_row(qid, item) for item in answer["measures"]]
    faulty = answer["faulty"]
    box = '<input type="checkbox" class="faulty"' + (" checked" if faulty else "") + ">"
    out += ["</table>",
            f"<p><label>{box} faulty question (left out of every score), because: </label>"
            f'<input type="text" class="faulty-reason" value="{e(faulty or "")}"></p>',
            "</section>"]
    return out


def measure_row(qid, item):
    """One measure of an answer: its mechanical verdict, the reviewer's
    choice (started from ``item["value"]``) and reason (* where required)."""
    m, name = item["measure"], f'{qid}|{item["measure"]}'

    def choice(value, text):
        checked = " checked" if item["value"] is value else ""
        return (f'<label><input type="radio" name="{name}" value="{str(value).lower()}"'
                f"{checked}> {text}</label>")

    required = " required" if item["required"] else ""
    return (f'<tr data-measure="{m}"><td>{e(TITLES[m])}{" *" if item["required"] else ""}</td>'
            f'<td>{"pass" if item["mechanical"] else "fail"}</td>'
            f"<td>{choice(True, 'pass')} {choice(False, 'fail')}</td>"
            f'<td><input type="text" class="reason" value="{e(item["reason"])}"{required}></td>'
            "</tr>")


STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;line-height:1.45;margin:0 auto;max-width:60rem;padding:.5rem 1rem 3rem;color:#222}
section.a{border-top:1px solid #ccc;margin-top:1rem}
blockquote{margin:.3rem 0;padding:.3rem .6rem;background:#f6f6f6;white-space:pre-wrap}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ddd;padding:.25rem .4rem;text-align:start;vertical-align:top}
input.reason,input.faulty-reason{width:100%}
textarea{width:100%;font-family:monospace}
code{overflow-wrap:anywhere}
[hidden]{display:none!important}
"""

# The rule of the module's docstring, in the browser. No library, nothing
# fetched; the data is read from the page's own JSON block.
SCRIPT = """(function () {
  var data = JSON.parse(document.getElementById("data").textContent);
  function build() {
    var entries = data.kept.slice(), todo = 0;
    data.answers.forEach(function (answer) {
      var card = document.querySelector('section.a[data-id="' + CSS.escape(answer.id) + '"]');
      var why = card.querySelector("input.faulty-reason").value.trim();
      if (card.querySelector("input.faulty").checked && why) {
        entries.push({id: answer.id, faulty: true, reason: why});
        return;
      }
      answer.measures.forEach(function (item) {
        var row = card.querySelector('tr[data-measure="' + item.measure + '"]');
        var reason = row.querySelector("input.reason").value.trim();
        var value = row.querySelector('input[type="radio"]:checked').value === "true";
        if (reason) entries.push({id: answer.id, measure: item.measure, value: value, reason: reason});
        else if (item.required) todo++;
      });
    });
    return {text: JSON.stringify({format: 1, reviews: entries}, null, 1) + "\\n", todo: todo};
  }
  document.getElementById("make").addEventListener("click", function () {
    var made = build(), out = document.getElementById("out"), save = document.getElementById("save");
    out.value = made.text;
    document.getElementById("todo").textContent = made.todo ?
      made.todo + " required verdict(s) still without a reason" : "every required verdict has a reason";
    save.href = URL.createObjectURL(new Blob([made.text], {type: "application/json"}));
    save.hidden = false;
    document.getElementById("copy").hidden = false;
  });
  document.getElementById("copy").addEventListener("click", function () {
    var out = document.getElementById("out");
    out.select();
    if (navigator.clipboard) navigator.clipboard.writeText(out.value);
  });
})();"""
