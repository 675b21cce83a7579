"""Exploring a quarter in its page: filters, a search box, and what each rule
found for each answer.

Plain HTML first: every figure, answer and verdict is on the page with
scripts off. ``SCRIPT``, small and inline (no library, nothing fetched, so it
works from ``file://``), shows the filter form (hidden without it) and hides
the questions that do not match: by set, language, measure and verdict
(passed, failed, overturned by review, faulty) and by words of the question,
answer, evidence or review reason.

Each question's section carries what the filters read, as data attributes:
``data-set``, ``data-lang``, ``data-faulty`` and ``data-verdicts``, one
``measure=state`` per measure that applies, the state ``overturned`` where a
review set the verdict against the rule's, else ``passed`` or ``failed``
after review. ``findings`` lists what the rule found (``details`` of the row,
as results.json holds it), ``review_changes`` the verdicts set by review, as
results.md lists them.
"""

from ..rubric.measures import APPLIES, MEASURES
from .pagelabels import e, label

STATES = ("passed", "failed", "overturned", "faulty")


def state(row, measure):
    after, mechanical = row["after_review"][measure], row["mechanical"][measure]
    if after is not None and mechanical is not None and after != mechanical:
        return "overturned"
    return "passed" if after else "failed"


def section_attrs(row):
    """The data attributes the filters read, for a question's section."""
    verdicts = " ".join(f"{m}={state(row, m)}" for m in MEASURES
                        if m in APPLIES[row["kind"]] and row["after_review"][m] is not None)
    return (f' data-set="{e(row["set"])}" data-lang="{e(row["lang"])}"'
            f' data-faulty="{int(bool(row["faulty"]))}" data-verdicts="{verdicts}"')


def filter_form(result, lang):
    """The filters, hidden until the script shows them."""
    rows = result["questions"]

    def select(name, values, shown):
        options = [f'<option value="">{label(lang, "any")}</option>'] + [
            f'<option value="{e(v)}">{shown(v)}</option>' for v in values]
        return (f'<label>{label(lang, "filter_" + name)} <select name="{name}">'
                + "".join(options) + "</select></label>")

    total = len(rows)
    return [f'<form id="explore" class="explore" hidden role="search" '
            f'aria-label="{e(label(lang, "explore"))}">',
            select("set", sorted({r["set"] for r in rows}), e),
            select("lang", sorted({r["lang"] for r in rows}), e),
            select("measure", MEASURES, lambda m: label(lang, m)),
            select("verdict", STATES, lambda s: label(lang, "state_" + s)),
            f'<label>{label(lang, "search")} <input type="search" name="search"></label>',
            f'<output id="shown" data-template="{e(label(lang, "shown"))}">'
            f'{e(label(lang, "shown").format(shown=total, total=total))}</output>',
            "</form>"]


def findings(row, lang):
    """What the rule found in the answer, one item per detail the row keeps."""
    details = row.get("details") or {}
    items = []
    for i, found in enumerate(details.get("facts_found") or []):
        items.append(label(lang, "fact_found", n=i + 1, found=f'<bdi dir="auto">{e(found)}</bdi>')
                     if found is not None else label(lang, "fact_missing", n=i + 1))
    for key in ("right_sources", "must_not_include_found", "flags", "other_values",
                "unbound_qualifiers"):
        if key in details:
            items.append(f"{label(lang, 'found_' + key)}: " + (
                ", ".join(f'<bdi dir="auto">{e(v)}</bdi>' for v in details[key])
                or label(lang, "nothing")))
    if "decline_phrase" in details:
        phrase = details["decline_phrase"]
        items.append(f"{label(lang, 'found_decline_phrase')}: "
                     + (f'<bdi dir="auto">{e(phrase)}</bdi>' if phrase else label(lang, "nothing")))
    if "letters" in details:
        letters = details["letters"]
        items.append(label(lang, "found_letters", script=letters["in_script"], all=letters["all"]))
    if not items:
        return []
    return ([f"<p>{label(lang, 'found')}</p>", '<ul class="found">']
            + [f"<li>{item}</li>" for item in items] + ["</ul>"])


def review_changes(result, lang):
    """The verdicts set by review, as results.md lists them."""
    changes = [(row["id"], m, row["mechanical"][m], row["after_review"][m],
                {r["measure"]: r["reason"] for r in row["reviews"]}.get(m, ""))
               for row in result["questions"] for m in MEASURES
               if state(row, m) == "overturned" and m in APPLIES[row["kind"]]]
    out = [f"<h2>{label(lang, 'set_by_review')}</h2>"]
    if not changes:
        return out + [f"<p>{label(lang, 'none')}</p>"]
    out.append("<ul>")
    for qid, m, old, new, reason in changes:
        out.append(f'<li><a href="#{e(qid)}"><bdi>{e(qid)}</bdi></a> {label(lang, m)}: '
                   f"{label(lang, 'pass' if old else 'fail')} → {label(lang, 'pass' if new else 'fail')}"
                   f': <span dir="auto">{e(reason)}</span></li>')
    return out + ["</ul>"]


# The filters: with scripts off the form stays hidden and every question shows.
SCRIPT = """(function () {
  var form = document.getElementById("explore");
  if (!form) return;
  form.hidden = false;
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.q"));
  var items = Array.prototype.slice.call(document.querySelectorAll("ul.index li[data-q]"));
  var shown = document.getElementById("shown");
  function matches(s, f) {
    if (f.set.value && s.dataset.set !== f.set.value) return false;
    if (f.lang.value && s.dataset.lang !== f.lang.value) return false;
    var want = f.verdict.value, measure = f.measure.value;
    if (want === "faulty") {
      if (s.dataset.faulty !== "1") return false;
    } else if (want || measure) {
      var hit = s.dataset.verdicts.split(" ").some(function (pair) {
        var p = pair.split("=");
        return (!measure || p[0] === measure) && (!want || p[1] === want);
      });
      if (!hit) return false;
    }
    var words = f.search.value.trim().toLowerCase();
    return !words || s.textContent.toLowerCase().indexOf(words) >= 0;
  }
  function apply() {
    var count = 0;
    sections.forEach(function (s) {
      s.hidden = !matches(s, form.elements);
      if (!s.hidden) count++;
    });
    items.forEach(function (li) {
      var s = document.getElementById(li.dataset.q);
      li.hidden = s ? s.hidden : false;
    });
    shown.textContent = shown.dataset.template.replace("{shown}", count)
      .replace("{total}", sections.length);
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  apply();
})();"""


