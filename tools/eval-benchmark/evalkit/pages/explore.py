"""Exploring a quarter in its page: filters, a search box, and what each rule
found for each answer.

Plain HTML first: every figure, answer and verdict is on the page with
scripts off. ``SCRIPT``, small and inline (no library, nothing fetched, so it
works from ``file://``), shows the filter form (hidden without it) and hides
the questions that do not match: by set, language, measure and verdict
(passed, failed, either of the two, overturned by review, faulty) and by words
of the question, answer, evidence or review reason (the elements marked
``data-search``, never the page's own labels); a heading of the index whose
questions are all hidden is hidden with them.

The filters are the page's address too: its query (``?set=biz&lang=en&
measure=correct_facts&verdict=passed&search=...``, only those chosen) is
read when the page opens and written as they change, so a filtered view is
shared by its address, and the links to the other languages carry it. The
results table's figures link to their questions so (``figure_query``):
"13/45" to the 45 questions the figure counts (verdict ``counted``: passed or
failed, as the table counts; a faulty question is counted nowhere), where the
verdict can be narrowed to the 13 passed or the 32 failed. A value the page
does not offer is ignored.

Each question's section carries what the filters read, as data attributes:
``data-set``, ``data-lang``, ``data-faulty`` and ``data-verdicts``, one
``measure=state`` per measure that applies (``marks``): ``passed`` or
``failed`` after review, as the results table counts it, and besides that
``measure=overturned`` where a review set the verdict against the rule's; a
faulty question, out of every score, ``measure=faulty`` only. So the filters
count what the table counts. ``findings`` lists what the rule found
(``details`` of the row, as results.json holds it), ``review_changes`` the
verdicts set by review, as results.md lists them.

Text from the data (an answer, a source, a reason, a question file) is shown
by ``inert``: escaped, and each bidi control shown as a mark naming it
(``BIDI``), never applied.
"""

import re
import unicodedata
from urllib.parse import urlencode

from ..rubric.measures import APPLIES, MEASURES
from ..textmatch import BIDI_CONTROLS
from .pagelabels import e, label

STATES = ("counted", "passed", "failed", "overturned", "faulty")

# The bidi controls: embeddings and overrides (U+202A-U+202E), isolates
# (U+2066-U+2069) and the marks LRM, RLM and ALM, the ones the scorer removes
# before matching (evalkit/textmatch.py). Applied on a page they reorder what
# a reader sees ("$\u202e53\u202c" reads "$35" beside a rule that found 53),
# so a page shows each as a mark naming it, in the text's logical order.
BIDI = re.compile(f"[{BIDI_CONTROLS}]")
BIDI_CLASS = "bidi"


def code_point(char):
    return f"U+{ord(char):04X}"


def inert(text):
    """``text`` as HTML: escaped, each bidi control a ``<code>`` naming it. Its
    own ``dir`` keeps the mark out of a ``dir="auto"`` parent's guess and
    isolated from the text around it."""
    return BIDI.sub(lambda m: f'<code class="{BIDI_CLASS}" dir="ltr" title='
                              f'"{unicodedata.name(m.group(0))}">{code_point(m.group(0))}'
                              "</code>", e(text))


def inert_plain(text):
    """``text`` where no element can stand (a title, an option, a chart's
    label), each bidi control written ``[U+202E]``; not escaped."""
    return BIDI.sub(lambda m: f"[{code_point(m.group(0))}]", "" if text is None else str(text))


def overturned(row, measure):
    """A review set the verdict against the rule's."""
    after, mechanical = row["after_review"][measure], row["mechanical"][measure]
    return after is not None and mechanical is not None and after != mechanical


def marks(row, measure):
    """The filters' states of one measure: the verdict after review the
    results table counts, ``overturned`` besides where review changed it; a
    faulty question's is ``faulty`` only (the table counts it nowhere)."""
    if row["faulty"]:
        return ["faulty"]
    return (["passed" if row["after_review"][measure] else "failed"]
            + (["overturned"] if overturned(row, measure) else []))


def section_attrs(row):
    """The data attributes the filters read, for a question's section."""
    verdicts = " ".join(f"{m}={state}" for m in MEASURES
                        if m in APPLIES[row["kind"]] and row["after_review"][m] is not None
                        for state in marks(row, m))
    return (f' data-set="{e(row["set"])}" data-lang="{e(row["lang"])}"'
            f' data-faulty="{int(bool(row["faulty"]))}" data-verdicts="{verdicts}"')


def figure_query(group, measure):
    """The address of the questions a results table's figure counts:
    ``group``'s set and language (none for "all"), ``measure`` and the
    verdict ``counted``, at the index of the questions."""
    chosen = [("set", group["set"]), ("lang", group["lang"])]
    chosen = [(name, value) for name, value in chosen if value != "all"]
    return "?" + urlencode(chosen + [("measure", measure), ("verdict", "counted")]) + "#index"


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
            select("set", sorted({r["set"] for r in rows}), lambda v: e(inert_plain(v))),
            select("lang", sorted({r["lang"] for r in rows}), lambda v: e(inert_plain(v))),
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
        items.append(label(lang, "fact_found", n=i + 1,
                           found=f'<bdi dir="auto">{inert(found)}</bdi>')
                     if found is not None else label(lang, "fact_missing", n=i + 1))
    for key in ("right_sources", "must_not_include_found", "flags", "other_values",
                "unbound_qualifiers"):
        if key in details:
            items.append(f"{label(lang, 'found_' + key)}: " + (
                ", ".join(f'<bdi dir="auto">{inert(v)}</bdi>' for v in details[key])
                or label(lang, "nothing")))
    if "decline_phrase" in details:
        phrase = details["decline_phrase"]
        items.append(f"{label(lang, 'found_decline_phrase')}: "
                     + (f'<bdi dir="auto">{inert(phrase)}</bdi>' if phrase
                        else label(lang, "nothing")))
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
               if overturned(row, m) and m in APPLIES[row["kind"]]]
    out = [f"<h2>{label(lang, 'set_by_review')}</h2>"]
    if not changes:
        return out + [f"<p>{label(lang, 'none')}</p>"]
    out.append("<ul>")
    for qid, m, old, new, reason in changes:
        out.append(f'<li><a href="#{e(qid)}"><bdi>{inert(qid)}</bdi></a> {label(lang, m)}: '
                   f"{label(lang, 'pass' if old else 'fail')} → {label(lang, 'pass' if new else 'fail')}"
                   f': <span dir="auto">{inert(reason)}</span></li>')
    return out + ["</ul>"]


# The filters: with scripts off the form stays hidden and every question shows.
# A section's words are its marked texts, as shown (a bidi control's mark
# "U+202E" found too) and without the marks (the text the scorer matched).
# The address holds the filters chosen (the module's docstring).
SCRIPT = """(function () {
  var form = document.getElementById("explore");
  if (!form) return;
  form.hidden = false;
  var all = function (root, css) { return Array.prototype.slice.call(root.querySelectorAll(css)); };
  var sections = all(document, "section.q"), items = all(document, "ul.index li[data-q]");
  var heads = all(document, "ul.index li.head"), shown = document.getElementById("shown");
  var names = ["set", "lang", "measure", "verdict", "search"], asked = new URLSearchParams(location.search);
  var langs = all(document, "nav.langs a").map(function (a) { return [a, a.getAttribute("href")]; });
  names.forEach(function (name) {
    var field = form.elements[name], value = asked.get(name);
    if (value !== null && (!field.options || all(field, "option").some(function (o) { return o.value === value; })))
      field.value = value;
  });
  sections.forEach(function (s) {
    s.words = all(s, "[data-search]").map(function (el) {
      var bare = el.cloneNode(true);
      all(bare, "code.bidi").forEach(function (c) { c.parentNode.removeChild(c); });
      return el.textContent + "\\n" + bare.textContent;
    }).join("\\n").toLowerCase();
  });
  function matches(s, f) {
    if (f.set.value && s.dataset.set !== f.set.value) return false;
    if (f.lang.value && s.dataset.lang !== f.lang.value) return false;
    var want = f.verdict.value, measure = f.measure.value;
    if ((want || measure) && !s.dataset.verdicts.split(" ").some(function (pair) {
      var p = pair.split("="), counted = p[1] === "passed" || p[1] === "failed";
      return (!measure || p[0] === measure) && (!want || p[1] === want || (want === "counted" && counted));
    })) return false;
    var words = f.search.value.trim().toLowerCase();
    return !words || s.words.indexOf(words) >= 0;
  }
  function remember() {
    var query = new URLSearchParams();
    names.forEach(function (name) {
      if (form.elements[name].value.trim()) query.set(name, form.elements[name].value);
    });
    var search = query.toString() ? "?" + query.toString() : "";
    try { history.replaceState(null, "", location.pathname + search + location.hash); } catch (e) {}
    langs.forEach(function (link) { link[0].setAttribute("href", link[1] + search); });
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
    heads.forEach(function (h) {
      h.hidden = !items.some(function (li) { return li.dataset.g === h.dataset.g && !li.hidden; });
    });
    shown.textContent = shown.dataset.template.replace("{shown}", count)
      .replace("{total}", sections.length);
    remember();
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  apply();
})();"""
