"""What an outside tester found in the results pages, each held here.

1. A bidi control in an answer, a source, a reason or a question file was
   rendered live: "We are at \\u202e214 Orchard\\u202c Street" read "drahcrO 412"
   beside rules that found "214 Orchard", "$\\u202e53\\u202c" read "$35". Each
   is shown as a mark naming it, in the text's logical order, and
   evalkit/pages/shown.py reads the mark as the control (and a page's script
   and style as nothing).
2. The filters counted a faulty question (out of every score) as passed and
   an overturned verdict as neither passed nor failed: "Correct facts:
   passed" 22 and "failed" 67 beside a table of 21/89.
3. The search box matched the page's own labels ("pass", "review",
   "question": every question), not the question, answer, evidence and
   review reason it is said to search; an index heading stayed when all its
   questions were filtered out.
4. On a 390 px phone the sampled review's table showed Set and Measure only.
5. The pages named no outputs beside them.
6. (issue 40) A figure of the results table did not link to its questions,
   and the filters did not go into the page's address: a filtered view could
   not be shared, nor kept over a reload.

The filters are JavaScript: what they read is held here, and they were run
in headless Chromium on the tester's case (the counts 21/68 and the search
and headings, at 390 px) when these were fixed; the figures' links and the
address are run in headless Chromium here (tests/chromium.py), where one is
installed.
"""

import copy
import json
import os
import re
import tempfile
import unittest
from html import unescape
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

from tests.chromium import CHROMIUM, Chromium
from tests.support import FIXTURES

from evalkit.pages import explore, shown  # noqa: E402
from evalkit.pages.htmlpage import overall, render_pages  # noqa: E402
from evalkit.pages.pagelabels import page_names  # noqa: E402
from evalkit.pages.pagelabels import LABELS, LANGS  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.rubric.measures import APPLIES, MEASURES  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
REVIEWS = os.path.join(FIXTURES, "reviews-mini.json")
CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
ORCHARD = "We are at \u202e214 Orchard\u202c Street, for $\u202e53\u202c."


def mini_result(reviews=REVIEWS):
    return siteqa.score([QUESTIONS], [RAW], reviews)


class Text(HTMLParser):
    """The text a reader sees (no script, no style), and the text of the
    elements the search box reads, per question's section."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.seen, self.searched = [], {}
        self.stack, self.section, self.marked = [], None, 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.stack.append(tag)
        if tag == "section":
            self.section = attrs.get("id")
            self.searched[self.section] = []
        if "data-search" in attrs:
            self.marked = len(self.stack)
            self.searched[self.section].append("")

    def handle_endtag(self, tag):
        if self.marked == len(self.stack):
            self.marked = 0
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("script", "style"):
            return
        self.seen.append(data)
        if self.marked:
            self.searched[self.section][-1] += data


def read(page):
    parser = Text()
    parser.feed(page)
    parser.close()
    return parser


def with_controls(result):
    """``result`` with bidi controls in every text a page takes from the
    data: a set, an id, a question, evidence, an answer, sources, a reason,
    what the rules found."""
    result = copy.deepcopy(result)
    bad_set, bad_id = "mi\u2067ni\u2069", "mini-\u202een-01"
    rename = {"mini": bad_set}
    for group in result["groups"]:
        group["set"] = rename.get(group["set"], group["set"])
    for case in result["provenance"]["cases"]:
        case["set"] = rename.get(case["set"], case["set"])
    for sample in result["sampled_review"]["sets"]:
        sample["set"] = rename.get(sample["set"], sample["set"])
    for row in result["questions"]:
        row["set"] = bad_set
        if row["id"] == "mini-en-01":
            row["id"] = bad_id
            row["question"] = "how much\u200f is it\u061c?"
            row["evidence"] = "It costs \u202d$120\u202c."
            row["source_url"] = "http://mini.example/\u202etxt.exe"
            row["answer"] = ORCHARD
            row["sources"] = ["http://mini.example/\u202egpj.exe\u202c"]
            row["details"]["facts_found"] = ["\u202b120\u202c"]
        for review in row["reviews"]:
            review["reason"] = "read \u2066it\u2069 \u202aagain\u202c"
    for item in result["faulty"]:
        item["reason"] = "two \u200eright\u200e answers"
    return result


class Bidi(unittest.TestCase):
    def setUp(self):
        self.result = with_controls(mini_result())
        self.pages = render_pages(self.result)

    def test_no_control_reaches_what_a_reader_sees(self):
        for name, page in self.pages.items():
            with self.subTest(name):
                seen = "".join(read(page).seen)
                self.assertEqual([c for c in CONTROLS if c in seen], [])
                self.assertIn('We are at <code class="bidi" dir="ltr" title="RIGHT-TO-LEFT '
                              'OVERRIDE">U+202E</code>214 Orchard<code class="bidi" dir="ltr" '
                              'title="POP DIRECTIONAL FORMATTING">U+202C</code> Street', page)
                self.assertIn("for $U+202E53U+202C.", seen)
                for mark in ("U+200F", "U+061C", "U+202D", "U+202B", "U+2066", "U+2067",
                             "U+200E", "U+202A"):
                    self.assertIn(mark, seen)
                # Where no element can stand: the title, an option, a chart's label.
                self.assertIn("mi[U+2067]ni[U+2069]", page[:page.index("</title>")])
                self.assertIn('<option value="mi\u2067ni\u2069">mi[U+2067]ni[U+2069]</option>',
                              page)
                self.assertIn(">mi[U+2067]ni[U+2069] en</text>", page)

    def test_a_mark_keeps_out_of_the_direction_guess(self):
        # A Hebrew answer that opens with RLM stays right to left: every mark
        # has its own dir, so dir="auto" skips its Latin letters.
        for name, page in self.pages.items():
            marks = page.count('<code class="bidi"')
            self.assertGreater(marks, 10, name)
            self.assertEqual(len(re.findall(r'<code class="bidi" dir="ltr" title="[A-Z -]+">'
                                            r"U\+[0-9A-F]{4}</code>", page)), marks, name)

    def test_shown_reads_a_mark_as_its_control(self):
        for name, page in self.pages.items():
            with self.subTest(name):
                self.assertEqual(shown.problems(page, self.result)[0], [])
        # A page written before the marks, with the control itself, too.
        page = self.pages["index.html"]
        old = re.sub(r'<code class="bidi"[^>]*>U\+([0-9A-F]{4})</code>',
                     lambda m: chr(int(m.group(1), 16)), page)
        self.assertEqual(shown.problems(old, self.result)[0], [])

    def test_shown_reads_no_script_nor_style(self):
        result = mini_result()
        page = render_pages(result)["index.html"]
        gone = page.replace("mini-en-02", "gone").replace("</body>",
                                                           "<script>// mini-en-02</script>"
                                                           "<style>/* mini-en-02 */</style></body>")
        self.assertEqual(shown.problems(gone, result)[0],
                         ["1 question(s) of results.json not on the page (first: mini-en-02)"])


class FilterCounts(unittest.TestCase):
    """The tester's case on the mini fixture: a question that passed marked
    faulty, another's pass overturned to a fail."""

    @classmethod
    def setUpClass(cls):
        base = mini_result()
        passing = [row["id"] for row in base["questions"] if not row["faulty"]
                   and not row["reviews"] and row["after_review"]["correct_facts"]]
        cls.faulty, cls.overturned = passing[:2]
        with open(REVIEWS, encoding="utf-8") as fh:
            reviews = json.load(fh)
        reviews["reviews"] += [
            {"id": cls.faulty, "faulty": True, "reason": "two right answers"},
            {"id": cls.overturned, "measure": "correct_facts", "value": False,
             "reason": "the price is of another service"}]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "reviews.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(reviews, fh)
            cls.result = mini_result(path)
        cls.pages = render_pages(cls.result)

    def verdicts(self, page):
        return dict(re.findall(r'<section class="q" id="([^"]+)"[^>]*data-verdicts="([^"]*)"',
                               page))

    def test_the_filters_count_what_the_table_counts(self):
        table = overall(self.result["groups"])
        faulty = [row for row in self.result["questions"] if row["faulty"]]
        changed = sum(row["after_review"][m] is not None and row["mechanical"][m] is not None
                      and row["after_review"][m] != row["mechanical"][m]
                      for row in self.result["questions"] for m in MEASURES)
        self.assertGreaterEqual(len(faulty), 2)
        for name, page in self.pages.items():
            pairs = [pair for marks in self.verdicts(page).values() for pair in marks.split()]
            for m in MEASURES:
                with self.subTest(name, measure=m):
                    passed, applicable = table[m]
                    self.assertEqual(pairs.count(f"{m}=passed"), passed)
                    self.assertEqual(pairs.count(f"{m}=failed"), applicable - passed)
                    self.assertEqual(pairs.count(f"{m}=faulty"), sum(
                        m in APPLIES[row["kind"]] and row["after_review"][m] is not None
                        for row in faulty))
            self.assertEqual(sum(pair.endswith("=overturned") for pair in pairs), changed)

    def test_an_overturned_verdict_is_counted_as_it_ended(self):
        marks = self.verdicts(self.pages["index.html"])[self.overturned].split()
        self.assertIn("correct_facts=failed", marks)
        self.assertIn("correct_facts=overturned", marks)

    def test_a_faulty_question_is_faulty_after_review(self):
        for lang, name in zip(LANGS, ("index.html", "index.he.html", "index.ru.html")):
            page = self.pages[name]
            marks = self.verdicts(page)[self.faulty].split()
            self.assertEqual({pair.split("=")[1] for pair in marks}, {"faulty"}, name)
            section = re.search(rf'<section class="q" id="{self.faulty}".*?</section>', page,
                                re.S).group(0)
            after = re.findall(rf'<td data-label="{LABELS["after_review"][lang]}">(.*?)</td>',
                               section)
            self.assertEqual(set(after), {LABELS["state_faulty"][lang]}, name)


def tester_result():
    """FilterCounts' case: a question that passed marked faulty, another's
    pass overturned to a fail."""
    base = mini_result()
    passing = [row["id"] for row in base["questions"] if not row["faulty"]
               and not row["reviews"] and row["after_review"]["correct_facts"]]
    with open(REVIEWS, encoding="utf-8") as fh:
        reviews = json.load(fh)
    reviews["reviews"] += [
        {"id": passing[0], "faulty": True, "reason": "two right answers"},
        {"id": passing[1], "measure": "correct_facts", "value": False,
         "reason": "the price is of another service"}]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "reviews.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(reviews, fh)
        return mini_result(path)


def filtered(page, query):
    """The ids of the questions the filters show for ``query``, as the
    page's script reads its sections' data attributes (explore.SCRIPT)."""
    asked = dict(parse_qsl(query))
    shown = []
    for qid, attrs in re.findall(r'<section class="q" id="([^"]+)"([^>]*)>', page):
        data = dict(re.findall(r'data-([a-z]+)="([^"]*)"', attrs))
        pairs = [pair.split("=") for pair in unescape(data["verdicts"]).split()]
        want, measure = asked.get("verdict"), asked.get("measure")
        if any(asked.get(key) not in (None, data[key]) for key in ("set", "lang")):
            continue
        if (want or measure) and not any(
                (not measure or m == measure) and (not want or state == want or (
                    want == "counted" and state in ("passed", "failed"))) for m, state in pairs):
            continue
        shown.append(qid)
    return shown


class FigureLinks(unittest.TestCase):
    """6. Each figure's counts link to the questions it counts: the filters
    of its set, language and measure, every question counted (passed or
    failed; a faulty one nowhere), on every page."""

    @classmethod
    def setUpClass(cls):
        cls.result = tester_result()
        cls.pages = render_pages(cls.result)

    def test_a_figure_links_to_the_questions_it_counts(self):
        links = 0
        for name, page in self.pages.items():
            table = page[page.index('<table class="results">'):]
            table = table[:table.index("</table>")]
            for group in self.result["groups"]:
                for m in MEASURES:
                    fig = group[m]
                    if not fig["applicable"]:
                        continue
                    with self.subTest(name, set=group["set"], lang=group["lang"], measure=m):
                        href = explore.figure_query(group, m)
                        self.assertIn(f'<a href="{href.replace("&", "&amp;")}"><span class="fig">'
                                      f'{fig["passed"]}/{fig["applicable"]}', table)
                        query = urlsplit(href).query
                        self.assertEqual(len(filtered(page, query)), fig["applicable"])
                        narrowed = query.replace("verdict=counted", "verdict=passed")
                        self.assertEqual(len(filtered(page, narrowed)), fig["passed"])
                        links += 1
        self.assertEqual(links, 3 * sum(1 for g in self.result["groups"] for m in MEASURES
                                        if g[m]["applicable"]))
        self.assertTrue(any(row["faulty"] for row in self.result["questions"]))

    def test_the_query_names_only_what_the_figure_filters(self):
        group = next(g for g in self.result["groups"] if g["lang"] == "all")
        self.assertEqual(explore.figure_query(group, "correct_facts"),
                         f"?set={group['set']}&measure=correct_facts&verdict=counted#index")
        self.assertIn('<option value="counted">passed or failed</option>',
                      self.pages["index.html"])


@unittest.skipUnless(CHROMIUM, "no Chromium on this machine")
class FiltersInTheAddress(unittest.TestCase):
    """6, as a reader clicks: a figure's link shows its questions; a filter
    chosen goes into the address, comes back on a reload and goes with the
    language links; what the page does not offer is ignored."""

    @classmethod
    def setUpClass(cls):
        cls.result = tester_result()
        tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(tmp.cleanup)
        for name, page in render_pages(cls.result).items():
            with open(os.path.join(tmp.name, name), "w", encoding="utf-8") as fh:
                fh.write(page)
        cls.url = "file://" + os.path.join(tmp.name, "index.html")
        cls.browser = Chromium()
        cls.addClassCleanup(cls.browser.close)

    def setUp(self):
        self.tab = self.browser.tab(390)
        self.addCleanup(self.tab.close)

    def view(self):
        return self.tab.evaluate(
            "(function () { var f = document.getElementById('explore').elements; return {"
            "query: location.search, hash: location.hash, shown: document.getElementById("
            "'shown').textContent, visible: Array.prototype.filter.call(document."
            "querySelectorAll('section.q'), function (s) { return !s.hidden; }).length, "
            "form: [f.set.value, f.lang.value, f.measure.value, f.verdict.value, f.search.value],"
            " langs: Array.prototype.map.call(document.querySelectorAll('nav.langs a'), "
            "function (a) { return a.getAttribute('href'); })}; })()")

    def test_a_figures_link_shows_its_questions(self):
        group = next(g for g in self.result["groups"] if g["lang"] == "all")
        fig = group["correct_facts"]
        self.tab.open(self.url)
        href = explore.figure_query(group, "correct_facts")
        self.tab.follow(f"document.querySelector('table.results a[href={json.dumps(href)}]')"
                        ".click()")
        view = self.view()
        total = len(self.result["questions"])
        self.assertEqual(view["query"], href.split("#")[0])
        self.assertEqual(view["hash"], "#index")
        self.assertEqual(view["form"], [group["set"], "", "correct_facts", "counted", ""])
        self.assertEqual(view["visible"], fig["applicable"])
        self.assertEqual(view["shown"], f"{fig['applicable']} of {total} questions shown")

    def test_a_filter_chosen_is_in_the_address_and_kept(self):
        fig = next(g for g in self.result["groups"] if g["lang"] == "all")["correct_facts"]
        self.tab.open(self.url)
        self.tab.evaluate("(function (f) { f.elements.measure.value = 'correct_facts'; "
                          "f.elements.verdict.value = 'failed'; f.dispatchEvent(new Event("
                          "'change')); })(document.getElementById('explore'))")
        query = "?measure=correct_facts&verdict=failed"
        failed = fig["applicable"] - fig["passed"]
        self.assertEqual(self.view()["query"], query)
        self.assertEqual(self.view()["visible"], failed)
        self.assertEqual(self.view()["langs"],
                         [page_names()["he"] + query, page_names()["ru"] + query])
        self.tab.reload()
        self.assertEqual(self.view()["form"], ["", "", "correct_facts", "failed", ""])
        self.assertEqual(self.view()["visible"], failed)
        # The Hebrew page opens on the same view.
        self.tab.follow("document.querySelector('nav.langs a[hreflang=he]').click()")
        view = self.view()
        self.assertTrue(self.tab.evaluate("location.pathname").endswith("/index.he.html"))
        self.assertEqual((view["query"], view["visible"]), (query, failed))
        self.assertEqual(view["langs"], ["index.html" + query, page_names()["ru"] + query])

    def test_what_the_page_does_not_offer_is_ignored(self):
        self.tab.open(self.url + "?set=nowhere&verdict=passed&search=%D0%BF%D1%80%D0%B8%D1%91%D0%BC")
        view = self.view()
        self.assertEqual(view["form"], ["", "", "", "passed", "приём"])
        self.assertEqual(view["query"], "?verdict=passed&search=%D0%BF%D1%80%D0%B8%D1%91%D0%BC")
        self.assertGreater(view["visible"], 0)


class Search(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.result = with_controls(mini_result())
        cls.pages = render_pages(cls.result)

    def test_the_search_reads_the_question_answer_evidence_and_reasons_only(self):
        for name, page in self.pages.items():
            searched = read(page).searched
            for row in self.result["questions"]:
                with self.subTest(name, question=row["id"]):
                    reasons = {r["measure"]: r["reason"] for r in row["reviews"]}
                    want = [row["question"]] + ([row["evidence"]] if row.get("evidence") else []) \
                        + ([row["answer"]] if row["answer"] is not None else []) \
                        + [reasons.get(m, "") for m in MEASURES if m in APPLIES[row["kind"]]]
                    # As shown, each control its mark.
                    want = [re.sub(f"[{CONTROLS}]", lambda c: f"U+{ord(c.group(0)):04X}", text)
                            for text in want]
                    self.assertEqual(searched[row["id"]], want)

    def test_the_script_searches_those_and_hides_an_empty_heading(self):
        self.assertIn('"[data-search]"', explore.SCRIPT)
        self.assertNotIn("s.textContent", explore.SCRIPT)
        self.assertIn('"ul.index li.head"', explore.SCRIPT)
        page = self.pages["index.html"]
        index = page[page.index('<ul class="index">'):]
        index = index[:index.index("</ul>")]
        heads = re.findall(r'<li class="head" data-g="(\d+)">', index)
        self.assertEqual(heads, ["1", "2", "3"])  # mini en, he, ru
        for row in self.result["questions"]:
            group = str(("en", "he", "ru").index(row["lang"]) + 1)
            self.assertIn(f'data-g="{group}"><a href=', index.split(f'data-q="{row["id"]}"')[1])


class PhoneAndOutputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pages = render_pages(mini_result())

    def test_the_sampled_review_is_a_card_per_row_on_a_phone(self):
        for lang, name in zip(LANGS, ("index.html", "index.he.html", "index.ru.html")):
            page = self.pages[name]
            style = page[page.index("<style>"):page.index("</style>")]
            phone = style[style.index("@media (max-width:44rem){"):]
            for rule in ("table.sample td,table.truth,table.truth tbody,table.truth tr,"
                         "table.truth td{display:block;width:100%}",
                         "table.sample thead,table.truth thead{display:none}",
                         "table.sample td:first-child{border-top:0;min-width:0}",
                         "table.truth td:first-child{border-top:0;font-weight:700;",
                         "table.sample td:nth-child(-n+2){display:inline-block;"):
                self.assertIn(rule, phone, name)
            # Each figure after its column's name, in the page's language:
            # the rates' and the true passes' tables (rules of 2026-12-03 on).
            for table, keys, first in (
                    ("rates", ("lang", "candidates", "read", "false_pass_rate", "interval"), 3),
                    ("truth", ("delivered", "correct_facts", "right_page_cited",
                               "in_question_language", "declined_when_not_on_site"), 2)):
                for i, key in enumerate(keys, first):
                    self.assertIn(f'table.{table} td:nth-child({i})::before{{content:"'
                                  f'{LABELS[key][lang]}"}}', phone, name)

    def test_the_sample_of_2026_12_02_is_a_card_per_row_on_a_phone(self):
        for lang, name in zip(LANGS, ("index.html", "index.he.html", "index.ru.html")):
            page = render_pages(siteqa.score([QUESTIONS], [RAW], REVIEWS, "2026-12-02.3"))[name]
            style = page[page.index("<style>"):page.index("</style>")]
            for i, key in enumerate(("overturned", "false_pass_rate", "interval", "unsampled",
                                     "expected_false"), 3):
                self.assertIn(f'table.sample td:nth-child({i})::before{{content:"'
                              f'{LABELS[key][lang]}"}}', style, name)

    def test_the_outputs_beside_the_page_are_named(self):
        for lang, name in zip(LANGS, ("index.html", "index.he.html", "index.ru.html")):
            page = self.pages[name]
            scored = page[page.index(f"<li>{LABELS['scored_by'][lang]}: "):]
            scored = scored[:scored.index("</li>")]
            self.assertIn('(<a href="results.json">results.json</a>, '
                          '<a href="results.md">results.md</a>)', scored, name)
            # results.json does not say whether results.csv was written.
            self.assertNotIn("results.csv", page, name)


if __name__ == "__main__":
    unittest.main()
