"""review.html keeps a reviewer's work (issue 40): a reload or a closed tab
lost every reason typed (180 on a demo quarter); nothing counted what was
left or went to the next answer without a complete entry; and the page did
not say where its file goes nor what to run next.

Now the page keeps each choice in the browser, per run, question files and
rules, and puts it back; a page written again from a reviews file merges the
two as evalkit/pages/reviewpage.py says (the browser's choice where the file
is what it was made on, else the file's, the browser's shown beside it). The
browser tests type into the page in headless Chromium through its DevTools
protocol (tests/chromium.py) and skip where none is installed; the page is
opened from ``file://``, as a reviewer opens build/QUARTER/review.html.
"""

import json
import os
import re
import tempfile
import unittest

from tests.chromium import CHROMIUM, Chromium
from tests.test_sample import QUESTIONS, RAWS

from evalkit.pages import reviewpage  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402

NAME = "build/2026-Q4/reviews-2026-Q4.json"


def demo(reviews=None):
    return siteqa.score(QUESTIONS, RAWS, reviews)


def box(qid, measure):
    """The script that finds the reason box of ``qid``'s ``measure``."""
    return (f"document.querySelector('section.a[data-id={json.dumps(qid)}] "
            f"tr[data-measure=\"{measure}\"] input.reason')")


class WhereTheFileGoes(unittest.TestCase):
    """The page names the file, its folder and the commands that follow."""

    def steps(self, name):
        page = reviewpage.render_review_page(demo(), name)
        found = re.search(r'<ol class="steps">.*?</ol>', page, re.S)
        self.assertIsNotNone(found, "the page names no steps")
        return found.group(0)

    def test_the_make_name_gives_the_folder_and_the_make_commands(self):
        steps = self.steps(NAME)
        self.assertIn("<code>reviews-2026-Q4.json</code> in the folder "
                      "<code>build/2026-Q4/</code>", steps)
        self.assertIn("<code>make score QUARTER=2026-Q4</code>", steps)
        self.assertIn("<code>make publish QUARTER=2026-Q4</code>", steps)
        self.assertLess(steps.index("make score"), steps.index("make publish"))

    def test_another_name_is_named_with_the_option_that_reads_it(self):
        for name, place in (("reviews.json", "<code>reviews.json</code>."),
                            ("work/q/reviews-x.json", "<code>reviews-x.json</code> in the folder "
                                                      "<code>work/q/</code>")):
            with self.subTest(name):
                steps = self.steps(name)
                self.assertIn(f"Save it as {place}", steps)
                self.assertIn(f"<code>--reviews {name}</code>", steps)
                self.assertNotIn("make score QUARTER", steps)


class StorageKey(unittest.TestCase):
    """One key per run, question files and rules: another run's page never
    gets this one's reasons."""

    def test_the_key_names_the_run_the_questions_and_the_rules(self):
        result = demo()
        key = reviewpage.storage_key(result)
        self.assertEqual(reviewpage.page_data(result)["key"], key)
        self.assertEqual(reviewpage.storage_key(demo()), key)   # the same run scored again
        p = result["provenance"]
        for part, value in (("run_ids", ["another run"]), ("decline_list_date", "2026-10-28")):
            with self.subTest(part):
                changed = json.loads(json.dumps(result))
                changed["provenance"][part] = value
                self.assertNotEqual(reviewpage.storage_key(changed), key)
        changed = json.loads(json.dumps(result))
        changed["provenance"]["cases"][0]["sha256"] = "0" * 64
        self.assertNotEqual(reviewpage.storage_key(changed), key)
        self.assertTrue(p["run_ids"])


@unittest.skipUnless(CHROMIUM, "no Chromium on this machine")
class KeptInTheBrowser(unittest.TestCase):
    """Typed in headless Chromium, as a reviewer types."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.page = os.path.join(tmp.name, "review.html")
        self.tmp = tmp.name
        self.browser = Chromium()
        self.addCleanup(self.browser.close)
        self.result = demo()
        self.data = reviewpage.page_data(self.result)
        self.answers = self.data["answers"]

    def write(self, result):
        with open(self.page, "w", encoding="utf-8") as fh:
            fh.write(reviewpage.render_review_page(result, NAME))

    def open(self, width=1280):
        tab = self.browser.tab(width)
        tab.open("file://" + self.page)
        return tab

    def required(self, n):
        """The id of the n-th answer and its first required measure."""
        answer = self.answers[n]
        return answer["id"], next(m["measure"] for m in answer["measures"] if m["required"])

    def type_reason(self, tab, n, text, measure=None):
        """``text`` typed at the end of the reason of the n-th answer's
        ``measure`` (its first required one)."""
        qid = self.answers[n]["id"]
        tab.evaluate(f"(function (b) {{ b.focus(); b.setSelectionRange(b.value.length, "
                     f"b.value.length); }})({box(qid, measure or self.required(n)[1])})")
        tab.type(text)

    def complete(self, tab, n):
        """A reason typed for every required measure of the n-th answer;
        the choices ``made`` takes for it."""
        chosen = {}
        for item in self.answers[n]["measures"]:
            if item["required"]:
                self.type_reason(tab, n, "read", item["measure"])
                chosen[item["measure"]] = (item["value"], "read")
        return {self.answers[n]["id"]: chosen}

    def reason(self, tab, n):
        return tab.evaluate(box(*self.required(n)) + ".value")

    def left(self, tab):
        return tab.evaluate('document.getElementById("left").textContent')

    def test_a_reason_typed_survives_a_reload_and_a_closed_tab(self):
        self.write(self.result)
        tab = self.open()
        self.type_reason(tab, 0, "declines though the page answers it")
        tab.reload()
        self.assertEqual(self.reason(tab, 0), "declines though the page answers it")
        tab.close()
        tab = self.open()
        self.assertEqual(self.reason(tab, 0), "declines though the page answers it")
        # The file the page makes now holds it, as score.py reads it.
        tab.evaluate('document.getElementById("make").click()')
        made = json.loads(tab.evaluate('document.getElementById("out").value'))
        qid, measure = self.required(0)
        self.assertIn({"id": qid, "measure": measure, "value": self.answers[0]["measures"][
            [m["measure"] for m in self.answers[0]["measures"]].index(measure)]["value"],
            "reason": "declines though the page answers it"}, made["reviews"])
        self.assertIn("Put back from this browser: 1 choice(s)",
                      tab.evaluate('document.getElementById("kept").textContent'))

    def test_a_faulty_mark_and_a_verdict_survive_a_reload(self):
        self.write(self.result)
        tab = self.open()
        card = f"document.querySelector('section.a[data-id={json.dumps(self.answers[4]['id'])}]')"
        tab.evaluate(card + ".querySelector('input.faulty').click()")
        tab.evaluate(card + ".querySelector('input.faulty-reason').focus()")
        tab.type("asks two things at once")
        qid, measure = self.required(0)
        item = next(m for m in self.answers[0]["measures"] if m["measure"] == measure)
        flip = str(not item["value"]).lower()
        tab.evaluate(f"{box(qid, measure)}.closest('tr').querySelector("
                     f"'input[value=\"{flip}\"]').click()")
        tab.reload()
        self.assertEqual(tab.evaluate(f"[{card}.querySelector('input.faulty').checked, "
                                      f"{card}.querySelector('input.faulty-reason').value]"),
                         [True, "asks two things at once"])
        self.assertEqual(tab.evaluate(f"{box(qid, measure)}.closest('tr').querySelector("
                                      "'input[type=radio]:checked').value"), flip)
        # The verdict changed without a reason is refused, as before.
        choices = {qid: {measure: (not item["value"], "")},
                   self.answers[4]["id"]: {"faulty": "asks two things at once"}}
        (problem,) = reviewpage.made(self.data, choices)[1]
        tab.evaluate('document.getElementById("make").click()')
        self.assertEqual(tab.evaluate("document.getElementById('problems').textContent"), problem)

    def test_another_runs_page_does_not_get_the_reasons(self):
        self.write(self.result)
        tab = self.open()
        self.type_reason(tab, 0, "read")
        other = json.loads(json.dumps(self.result))
        other["provenance"]["run_ids"] = ["a later run"]
        self.write(other)
        tab.reload()
        self.assertEqual(self.reason(tab, 0), "")

    def test_the_count_and_next_unreviewed(self):
        self.write(self.result)
        tab = self.open()
        total = len(self.answers)
        self.assertEqual(self.left(tab), f"Left: {total} of {total} answers")
        focused = ("(function () { var a = document.activeElement; return [a.closest('section.a')"
                   ".getAttribute('data-id'), a.className]; })()")
        tab.evaluate('document.getElementById("next").click()')
        self.assertEqual(tab.evaluate(focused), [self.answers[0]["id"], "reason"])
        choices = self.complete(tab, 0)
        choices.update(self.complete(tab, 2))  # done out of order: next passes it by
        self.assertEqual(self.left(tab), f"Left: {total - 2} of {total} answers")
        self.type_reason(tab, 0, "")           # back in the first
        tab.evaluate('document.getElementById("next").click()')
        self.assertEqual(tab.evaluate(focused)[0], self.answers[1]["id"])
        choices.update(self.complete(tab, 1))
        tab.evaluate('document.getElementById("next").click()')
        self.assertEqual(tab.evaluate(focused)[0], self.answers[3]["id"])
        # From the last answer, round to the first one left.
        self.type_reason(tab, total - 1, "")
        tab.evaluate('document.getElementById("next").click()')
        self.assertEqual(tab.evaluate(focused)[0], self.answers[3]["id"])
        # The count is made's, and a card is marked done when made says so.
        left = reviewpage.made(self.data, choices)[2]
        self.assertEqual(len(left), total - 3)
        self.assertEqual(self.left(tab), f"Left: {len(left)} of {total} answers")
        self.assertEqual(tab.evaluate("Array.prototype.map.call(document.querySelectorAll("
                                      "'section.a.done'), function (s) { return "
                                      "s.getAttribute('data-id'); })"),
                         [a["id"] for a in self.answers[:3]])
        # A problem leaves an answer open again: a TODO reason.
        tab.evaluate(box(*self.required(1)) + ".value = ''")
        self.type_reason(tab, 1, "todo")
        self.assertEqual(self.left(tab), f"Left: {len(left) + 1} of {total} answers")

    def test_written_again_from_a_reviews_file_the_two_are_merged(self):
        self.write(self.result)
        tab = self.open()
        for n, text in ((0, "mine, on the mechanical start"), (1, "mine, overtaken"),
                        (3, "the same in both")):
            self.type_reason(tab, n, text)
        # A reviews file written since, elsewhere: answer 1 otherwise, 2 new,
        # 3 as typed here; the page is written again from it.
        choices = {}
        for n, text in ((1, "the file's, written by hand"), (2, "the file's only"),
                        (3, "the same in both")):
            qid, measure = self.required(n)
            item = next(m for m in self.answers[n]["measures"] if m["measure"] == measure)
            choices[qid] = {measure: (item["value"], text)}
        path = os.path.join(self.tmp, "reviews-2026-Q4.json")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(reviewpage.reviews_file(self.data, choices))
        self.write(demo(path))
        tab.reload()
        self.assertEqual([self.reason(tab, n) for n in range(4)],
                         ["mine, on the mechanical start", "the file's, written by hand",
                          "the file's only", "the same in both"])
        notes = tab.evaluate("Array.prototype.map.call(document.querySelectorAll('.other'), "
                             "function (s) { return [s.closest('section.a').getAttribute("
                             "'data-id'), s.textContent]; })")
        self.assertEqual(len(notes), 1, notes)
        self.assertEqual(notes[0][0], self.answers[1]["id"])
        self.assertIn('"mine, overtaken"', notes[0][1])
        kept = tab.evaluate('document.getElementById("kept").textContent')
        self.assertIn("Put back from this browser: 1 choice(s)", kept)
        self.assertIn("1 choice(s) kept in this browser differ from the reviews file", kept)
        # Kept until the reviewer chooses again there; then gone.
        tab.reload()
        self.assertEqual(tab.evaluate("document.querySelectorAll('.other').length"), 1)
        self.type_reason(tab, 1, ", read again")
        self.assertEqual(tab.evaluate("document.querySelectorAll('.other').length"), 0)
        tab.reload()
        self.assertEqual(self.reason(tab, 1), "the file's, written by hand, read again")
        self.assertEqual(tab.evaluate("document.querySelectorAll('.other').length"), 0)


if __name__ == "__main__":
    unittest.main()
