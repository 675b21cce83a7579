"""Server text in Markdown is inert (issue 26, A): answers, sources, problem
and error texts, platform versions and model names planted through score.py
open no heading, code block, link, HTML tag or table cell in the review sheet
or in results.md of either suite; the HTML pages link a question's source
only when it is an http or https address."""

import json
import os
import re
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import model
from tests.support import FIXTURES, call_main, read_lines
from tests.test_htmlpage import check

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.rubric import report  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
CASES = os.path.join(FIXTURES, "scenarios-mini.json")

# A source URL that would add a section and a whole reviews file, every
# verdict true, ahead of the real one.
FAKE_REVIEWS = ('{"format": 1, "reviews": [{"id": "mini-en-02", "measure": "correct_facts", '
                '"value": true, "reason": "planted"}]}')
SOURCE = f"http://evil.example/a\n## fake section\n```json\n{FAKE_REVIEWS}\n```\n"
ANSWER = ("<script>alert(1)</script> [x](javascript:alert(1)) ![i](data:image/png;base64,AA) "
          "<javascript:alert(1)> | a | b |\u2028## after U+2028\u2029# h\r\n- item\x85> quote "
          "&lt;b&gt; &#60;i&#62; `code` *em* __strong__ ~~gone~~ \\[kept\\]")
ERROR = "reset\r\n## fake\n<img src=x onerror=alert(1)> [y](javascript:alert(2))\x1b[31m"
PLATFORM = "evil 1.0\n## Fake provenance\n<b>bold</b> [x](javascript:alert(1)) | cell |"

BREAKS = ("\r", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\u2028", "\u2029", "\x1b")


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    return path


def headings(text):
    return [line for line in text.split("\n") if line.startswith("#")]


def cells(row):
    """The cells of a table row, split at the pipes Markdown would split at."""
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


def inert(text):
    return report.inert(text)


class InertText(unittest.TestCase):
    def test_the_characters_that_open_structure_are_escaped(self):
        self.assertEqual(inert("[x](javascript:alert(1))"), "\\[x\\](javascript:alert(1))")
        self.assertEqual(inert("a\nb\r\nc\u2028d\u2029e\x85f\x1bg"), "a b c d e f g")
        self.assertEqual(inert("<b> `c` *e* | ~s~ \\"), "\\<b\\> \\`c\\` \\*e\\* \\| \\~s\\~ \\\\")
        self.assertEqual(inert("&amp; &#60; & AT&T"), "\\&amp; \\&#60; & AT&T")
        self.assertEqual(inert("_em_ snake_case"), "\\_em\\_ snake_case")
        for line_start, shown in (("# h", "\\# h"), ("## h", "\\## h"), ("- i", "\\- i"),
                                  ("+ i", "\\+ i"), ("1. i", "1\\. i"), ("12) i", "12\\) i"),
                                  ("> q", "\\> q"), ("===", "\\==="), ("  # h", "  \\# h")):
            with self.subTest(text=line_start):
                self.assertEqual(inert(line_start), shown)

    def test_ordinary_text_is_left_as_it_is(self):
        for text in ("demo-assistant 0.1.0", "widget at http://127.0.0.1:8080/api/query",
                     "http://mini.example/en/prices#fees", "A first consultation costs $120.",
                     "Hello! Is it 3.5 feet? utm_source=x", "שלום, מה שלומך?", "Привет!"):
            with self.subTest(text=text):
                self.assertEqual(inert(text), text)


class SiteQA(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def hostile_raw(self):
        lines = read_lines(RAW)
        by_id = {line["id"]: line for line in lines}
        # mini-en-02 fails correct_facts, so a person must read it.
        body = json.loads(by_id["mini-en-02"]["response"]["body"])
        body["answer"] = ANSWER + " " + body["answer"]
        body["sources"] = [SOURCE, "javascript:alert(1)"]
        by_id["mini-en-02"]["response"]["body"] = json.dumps(body, ensure_ascii=False)
        by_id["mini-en-01"]["response"]["headers"]["x-assistant-version"] = PLATFORM
        # No response: not delivered, so read by a person, with the error as its problem.
        failed = by_id["mini-en-04"]
        failed["response"] = None
        failed["attempts"][-1].update(status=None, error=ERROR)
        return write_lines(os.path.join(self.tmp, "raw-hostile.jsonl"), lines)

    def score(self, raw, *extra):
        sheet, md = os.path.join(self.tmp, "sheet.md"), os.path.join(self.tmp, "results.md")
        code, out, err = call_main(score, [QUESTIONS, raw, "--review-sheet", sheet, "--out", md]
                                   + list(extra))
        self.assertEqual((code, out, err), (0, "", ""))
        return read(sheet), read(md)

    def assert_inert(self, text):
        for char in BREAKS:
            self.assertNotIn(char, text)
        self.assertEqual(text.splitlines(), text.rstrip("\n").split("\n"))
        self.assertNotIn("](", text.replace("\\](", ""))
        self.assertNotRegex(text, r"(?<!\\)<")  # no HTML tag, no autolink
        self.assertNotIn("fake", "\n".join(headings(text)).lower())

    def test_the_review_sheet(self):
        sheet, _ = self.score(self.hostile_raw())
        self.assert_inert(sheet)
        # One code block, the real reviews file, with no planted verdict in it.
        fences = [line for line in sheet.split("\n") if line.startswith("```")]
        self.assertEqual(fences, ["```json", "```"])
        pasted = json.loads(sheet.split("```json\n")[1].split("```")[0])
        # The sections of the sheet: one per answer to read, each with an
        # entry a measure (rules of 2026-12-03 on), and the reviews file.
        kinds = {True: "not_on_site", False: "answerable"}
        ids = list(dict.fromkeys(item["id"] for item in pasted["reviews"]))
        not_on_site = {item["id"] for item in pasted["reviews"]
                       if item["measure"] == "declined_when_not_on_site"}
        self.assertEqual(headings(sheet), ["# Review sheet"] + [
            f"## {qid} ({kinds[qid in not_on_site]})" for qid in ids]
            + ["## The reviews file"])
        self.assertEqual({item["reason"] for item in pasted["reviews"]}, {"TODO"})
        self.assertIn("mini-en-04", [item["id"] for item in pasted["reviews"]])
        # What the server sent is still there to read, on its own line.
        (answer,) = [line for line in sheet.split("\n") if line.startswith("- Answer: \\<script")]
        self.assertIn("\\[x\\](javascript:alert(1))", answer)
        self.assertIn("\\| a \\| b \\|", answer)
        (sources,) = [line for line in sheet.split("\n") if "evil.example" in line]
        self.assertTrue(sources.startswith("- Sources: http://evil.example/a ## fake section "
                                           "\\`\\`\\`json {"), sources)
        self.assertIn("javascript:alert(1);", sources)  # text, not a link
        (problem,) = [line for line in sheet.split("\n") if "onerror" in line]
        self.assertEqual(problem, "- Answer: (no answer: reset ## fake \\<img src=x onerror=alert(1)\\> "
                                  "\\[y\\](javascript:alert(2)) \\[31m)")

    def test_results_md(self):
        _, clean = self.score(RAW)
        _, md = self.score(self.hostile_raw())
        self.assert_inert(md)
        self.assertEqual(headings(md), headings(clean))
        (platform,) = [line for line in md.split("\n") if line.startswith("- Platform version:")]
        self.assertEqual(platform, "- Platform version: evil 1.0 ## Fake provenance \\<b\\>bold\\</b\\> "
                                   "\\[x\\](javascript:alert(1)) \\| cell \\|, mini-assistant 2.3")
        # Every table (the results, and from 2026-12-02 the sampled review) keeps its columns.
        for block in md.split("\n\n"):
            table = [line for line in block.split("\n") if line.startswith("|")]
            if table:
                self.assertEqual({len(cells(row)) for row in table}, {len(cells(table[0]))})

    def test_the_html_pages_link_only_http_sources(self):
        """A question's source URL is a link only when it is http or https,
        on the pages of every rules date."""
        doc = json.loads(read(QUESTIONS))
        first = next(q for q in doc["questions"] if q.get("source_url"))
        first["source_url"] = "javascript:alert(document.cookie)"
        questions = support.write_json(os.path.join(self.tmp, "questions-mini.json"), doc)
        sha = support.sha256_text(read(questions))
        lines = read_lines(RAW)
        for line in lines:
            line["run"]["cases_sha256"] = sha
        raw = write_lines(os.path.join(self.tmp, "raw-mini.jsonl"), lines)
        for rules in ("2026-12-01", "2026-11-05"):
            page = os.path.join(self.tmp, rules, "index.html")
            os.makedirs(os.path.dirname(page))
            code, _, err = call_main(score, [questions, raw, "--html", page, "--rules-as-of", rules])
            self.assertEqual(code, 0, err)
            text = read(page)
            with self.subTest(rules=rules):
                self.assertEqual(check(text).errors, [])
                self.assertNotIn("javascript:", re.sub(r">[^<]*<", "><", text))  # no attribute
                self.assertIn("javascript:alert(document.cookie)</span>", text)
                self.assertIn('href="http://mini.example/', text)


class Scenario(unittest.TestCase):
    def test_results_md_of_the_scenario_suite(self):
        with tempfile.TemporaryDirectory() as tmp:
            saved = dict(os.environ)
            self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
            raw, atoms = os.path.join(tmp, "raw.jsonl"), os.path.join(tmp, "atoms.jsonl")
            with ModelServer("openai", reply=lambda r: ANSWER + " Apply for a permit.") as gen, \
                    ModelServer("anthropic", reply=model("anthropic", True)) as judge:
                os.environ.update(gen.environ())
                self.assertEqual(call_main(run, [CASES, raw, "--provider", "openai", "--model",
                                                 "g", "--quiet"])[0], 0)
                os.environ.update(judge.environ())
                self.assertEqual(call_main(atomize, [raw, atoms, "--provider", "anthropic",
                                                     "--model", "j", "--cases", CASES,
                                                     "--quiet"])[0], 0)
            # A model's name as a server might report it, and an evaluator's error.
            lines = read_lines(raw)
            lines[0]["target"]["model"] = "g | x\n## Fake <b>b</b>"
            write_lines(raw, lines)
            atom_lines = read_lines(atoms)
            atom_lines[0]["variant"] = "openai:" + lines[0]["target"]["model"]
            atom_lines[0]["atoms"], atom_lines[0]["error"] = None, ERROR
            atom_lines[1]["evaluator"]["model"] = "j2 | <script>x</script>\u2028## fake"
            write_lines(atoms, atom_lines)
            md, pages = os.path.join(tmp, "results.md"), os.path.join(tmp, "pages")
            code, out, err = call_main(score, [CASES, raw, atoms, "--out", md, "--html-dir", pages,
                                               "--example"])
            self.assertEqual((code, out, err), (0, "", ""))
            text = read(md)
            for char in BREAKS:
                self.assertNotIn(char, text)
            self.assertNotRegex(text, r"(?<!\\)<")
            self.assertNotIn("](", text.replace("\\](", ""))
            sections = ("# Scenario results", "## Verified by: ", "## Cross-evaluation ",
                        "## Atomization errors ", "## Score scales", "## Provenance")
            self.assertEqual([h for h in headings(text) if not h.startswith(sections)], [])
            self.assertEqual(len([h for h in headings(text) if h.startswith("## Verified by: ")]), 2)
            self.assertIn("## Verified by: anthropic:j2 \\| \\<script\\>x\\</script\\> ## fake", text)
            self.assertIn("- tiny-house (openai:g \\| x ## Fake \\<b\\>b\\</b\\>, anthropic:j): reset "
                          "## fake \\<img src=x onerror=alert(1)\\> \\[y\\](javascript:alert(2)) \\[31m",
                          text)
            # Every row of a table has its header's cells.
            block = []
            for line in text.split("\n") + [""]:
                if line.startswith("|"):
                    block.append(line)
                elif block:
                    self.assertEqual({len(cells(row)) for row in block}, {len(cells(block[0]))},
                                     block)
                    block = []
            for folder, _dirs, names in os.walk(pages):
                for name in names:
                    page = read(os.path.join(folder, name))
                    self.assertEqual(check(page).scripts, 0, name)
                    self.assertNotIn('href="javascript', page)


if __name__ == "__main__":
    unittest.main()
