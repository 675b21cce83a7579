"""score.py: the golden tables, order independence, the dated DECLINE list,
reviews, and every refusal (one line on stderr, exit 2, no traceback)."""

import json
import os
import random
import re
import shutil
import tempfile
import unittest

from tests import support
from tests.support import FIXTURES, ROOT, call_main

import score  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.rubric.measures import declined_when_not_on_site  # noqa: E402
from evalkit import VERSION  # noqa: E402
from evalkit.rubric.rulebook import change_dates, rules_as_of  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
REVIEWS = os.path.join(FIXTURES, "reviews-mini.json")
GOLDEN = os.path.join(ROOT, "tests", "golden")


def scored(reviews=None, rules_date=None, raw=RAW):
    return siteqa.score([QUESTIONS], [raw], reviews, rules_date)


def unsigned(markdown):
    """results.md without the sha256 of its signature, which names the raw
    files' bytes: the same table from other files is signed otherwise."""
    return re.sub(r"(?m)^(Signature: .* sha256) [0-9a-f]{64}$", r"\1 ...", markdown)


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


class ScoreTestCase(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        return self.path(name)

    def refuse(self, argv, expected):
        code, out, err = call_main(score, argv)
        self.assertEqual(code, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("score.py: "), err)
        self.assertIn(expected, err)
        self.assertNotIn("Traceback", err)


class Golden(ScoreTestCase):
    def test_golden_tables_byte_for_byte(self):
        md, js, page = self.path("results.md"), self.path("results.json"), self.path("index.html")
        proc = support.run_script("score.py", QUESTIONS, RAW, "--reviews", REVIEWS,
                                  "--out", md, "--json", js, "--html", page)
        self.assertEqual((proc.returncode, proc.stdout, proc.stderr), (0, "", ""))
        self.assertEqual(read(md), read(os.path.join(GOLDEN, "mini-results.md")))
        self.assertEqual(read(js), read(os.path.join(GOLDEN, "mini-results.json")))
        self.assertEqual(read(page), read(os.path.join(GOLDEN, "mini-index.html")))

    def test_the_worked_example_is_what_its_script_writes(self):
        proc = support.subprocess.run(
            [support.sys.executable, os.path.join(FIXTURES, "make_mini_raw.py")],
            capture_output=True, text=True, encoding="utf-8")
        self.assertEqual(proc.stdout, read(RAW))

    def test_hand_computed_figures(self):
        result = scored(REVIEWS)
        rows = {(g["set"], g["lang"]): g for g in result["groups"]}
        en = rows[("mini", "en")]
        # Mechanical: en-01 and en-04 have their facts; en-02 says "eight", en-03 says $1200.
        self.assertEqual(en["correct_facts"]["mechanical"], {"passed": 2, "applicable": 4, "rate": 0.5})
        # After review: en-02 set true, en-03 faulty (out of every score).
        self.assertEqual((en["correct_facts"]["passed"], en["correct_facts"]["applicable"]), (3, 3))
        self.assertEqual((en["declined_when_not_on_site"]["passed"],
                          en["declined_when_not_on_site"]["applicable"]), (1, 2))
        # Latencies of delivered, non-faulty en answers: 737 774 849 885 922.
        self.assertEqual(en["median_latency_ms"], 849)
        ru = rows[("mini", "ru")]
        self.assertEqual((ru["delivered"]["passed"], ru["delivered"]["applicable"]), (3, 4))
        self.assertEqual((ru["right_page_cited"]["passed"], ru["right_page_cited"]["applicable"]), (1, 2))
        self.assertEqual(result["provenance"]["run"]["status"], "not_run")
        self.assertEqual(result["provenance"]["decline_list_date"], change_dates()[-1])

    def test_order_of_raw_lines_does_not_matter(self):
        # Every output the same, but for the raw file's own sha256 (and the
        # signature of results.md, made of it: class Signature below).
        lines = read(RAW).splitlines(keepends=True)
        expected = None
        for seed in range(3):
            random.Random(seed).shuffle(lines)
            raw = self.write("raw.jsonl", "".join(lines))
            md, js = self.path(f"r{seed}.md"), self.path(f"r{seed}.json")
            self.assertEqual(call_main(score, [QUESTIONS, raw, "--reviews", REVIEWS,
                                               "--out", md, "--json", js])[0], 0)
            doc = json.loads(read(js))
            raw_input = next(i for i in doc["provenance"]["inputs"] if i["role"] == "raw")
            self.assertEqual(raw_input["sha256"], support.sha256_text("".join(lines)))
            raw_input["sha256"] = "shuffled"
            got = (unsigned(read(md)), doc)
            expected = expected or got
            self.assertEqual(got, expected)

    def test_split_raw_files_give_the_same_table(self):
        lines = read(RAW).splitlines(keepends=True)
        a = self.write("a.jsonl", "".join(lines[:5]))
        b = self.write("b.jsonl", "".join(lines[5:]))
        code, out, _ = call_main(score, [QUESTIONS, a, b, "--reviews", REVIEWS])
        self.assertEqual(code, 0)
        self.assertEqual(unsigned(out), unsigned(read(os.path.join(GOLDEN, "mini-results.md"))))


class LinesAndQuestions(ScoreTestCase):
    """Each raw line is matched to its question; a refusal names the line."""

    def test_refusals_name_the_line(self):
        good = read(RAW).splitlines()
        cases = [
            ("not json at line 10", good[:9] + ["{oops"] + good[9:], "raw.jsonl:10: not valid JSON"),
            ("second answer", good + [good[3]],
             "raw.jsonl:13: a second answer to mini-en-04 (first at "),
            ("unknown id at line 12", good[:11] + [good[0].replace('"id":"mini-en-01"', '"id":"mini-xx"')],
             "raw.jsonl:12: mini-xx is not a question of"),
        ]
        for name, lines, expected in cases:
            with self.subTest(name):
                raw = self.write("raw.jsonl", "\n".join(lines) + "\n")
                code, _out, err = call_main(score, [QUESTIONS, raw])
                self.assertEqual(code, 2)
                self.assertIn(expected, err)
                if name == "second answer":
                    self.assertIn("raw.jsonl:4)", err)

    def test_a_raw_file_given_twice_is_named_as_such(self):
        # Not "a second answer ... (first at raw.jsonl:1)", the file against itself.
        for second in (RAW, os.path.join(os.path.dirname(RAW), ".", os.path.basename(RAW))):
            with self.subTest(second=second):
                code, _out, err = call_main(score, [QUESTIONS, RAW, second])
                self.assertEqual(code, 2)
                self.assertEqual(err, f"score.py: {second}: the same raw file as {RAW}, "
                                      "given twice\n")

    def test_two_question_files_of_one_set(self):
        # Each group of the table counts a set's questions once: a set split
        # over two files would count its rows twice and add a total row.
        doc = json.loads(read(QUESTIONS))
        half = len(doc["questions"]) // 2
        first = self.write("q1.json", json.dumps(dict(doc, questions=doc["questions"][:half])))
        second = self.write("q2.json", json.dumps(dict(doc, questions=doc["questions"][half:])))
        code, _out, err = call_main(score, [first, second, RAW])
        self.assertEqual(code, 2)
        self.assertIn(f"{second}: a second question file of set {doc['set']!r} (the first: "
                      f"{first}); a set's questions are one file", err)

    def test_a_line_that_names_another_language_or_kind_is_judged_by_its_question(self):
        # The raw lines' lang and kind are the question's, copied when asked;
        # were they changed, the question still decides.
        lines = read(RAW).splitlines()
        swapped = [line.replace('"lang":"en"', '"lang":"ru"').replace('"lang":"he"', '"lang":"xx"')
                   .replace('"kind":"not_on_site"', '"kind":"answerable"') for line in lines]
        self.assertNotEqual(swapped, lines)
        raw = self.write("raw.jsonl", "\n".join(swapped) + "\n")
        md, js = self.path("s.md"), self.path("s.json")
        code, _out, err = call_main(score, [QUESTIONS, raw, "--reviews", REVIEWS, "--out", md])
        self.assertEqual(code, 0, err)
        self.assertEqual(unsigned(read(md)), unsigned(read(os.path.join(GOLDEN, "mini-results.md"))))
        code, _out, err = call_main(score, [QUESTIONS, raw, "--reviews", REVIEWS, "--json", js])
        self.assertEqual(code, 0, err)
        rows = json.loads(read(js))["questions"]
        self.assertEqual(rows, json.loads(read(os.path.join(GOLDEN, "mini-results.json")))["questions"])

    def test_the_table_alone_keeps_only_the_rows_it_lists(self):
        # Without --json, --html or --review-sheet only the rows the table
        # names are kept, and the table is the same.
        light = siteqa.score([QUESTIONS], [RAW], REVIEWS, keep_detail=False)
        full = scored(REVIEWS)
        self.assertEqual(light["groups"], full["groups"])
        self.assertEqual(light["review_coverage"], full["review_coverage"])
        self.assertLess(len(light["questions"]), len(full["questions"]))
        self.assertNotIn("answer", light["questions"][0])


class DeclineList(ScoreTestCase):
    def test_as_of_an_earlier_date(self):
        result = scored(None, "2026-11-01")
        row = next(r for r in result["questions"] if r["id"] == "mini-ru-16")
        self.assertFalse(row["mechanical"]["declined_when_not_on_site"])
        self.assertEqual(result["provenance"]["decline_list_date"], "2026-10-28")
        result = scored(None, "2026-11-05")
        row = next(r for r in result["questions"] if r["id"] == "mini-ru-16")
        self.assertTrue(row["mechanical"]["declined_when_not_on_site"])

    def test_the_2026_11_05_additions(self):
        before = rules_as_of("2026-11-04").phrases
        after = rules_as_of("2026-11-05").phrases
        for phrase in ("does not provide", "does not specify", "does not cover"):
            self.assertNotIn(phrase, before)
            self.assertIn(phrase, after)
        added = set(after) - set(before)
        self.assertTrue(any("\u0590" <= ch <= "\u05ff" for p in added for ch in p))
        self.assertTrue(any("\u0400" <= ch <= "\u04ff" for p in added for ch in p))

    def test_a_decline_then_an_invented_price_fails(self):
        result = scored()
        row = next(r for r in result["questions"] if r["id"] == "mini-en-16")
        self.assertEqual(row["details"]["decline_phrase"], "i couldn't find")
        self.assertEqual(row["details"]["must_not_include_found"], ["acupuncture session costs", "$80"])
        self.assertFalse(row["mechanical"]["declined_when_not_on_site"])

    def test_the_first_phrase_in_the_lists_order_is_reported(self):
        rules = rules_as_of()
        question = {"must_not_include": [], "lang": "en"}

        def phrase(text):
            return declined_when_not_on_site(text, None, question, rules)[1]["decline_phrase"]

        # "no information" comes before "i don't know" in the text, after it in the list.
        self.assertEqual(phrase("no information here, and i don't know"), "i don't know")
        self.assertIsNone(phrase("we open at 8"))
        # Phrases are compared normalised: a typographic apostrophe is its own phrase.
        self.assertEqual(phrase("i don’t know"), "i don’t know")

    def test_bad_dates(self):
        self.refuse([QUESTIONS, RAW, "--decline-as-of", "2026-10-01"], "the rules begin on")
        self.refuse([QUESTIONS, RAW, "--decline-as-of", "yesterday"], "YYYY-MM-DD")


def question_file(tmp, mutate):
    with open(QUESTIONS, encoding="utf-8") as fh:
        doc = json.load(fh)
    mutate(doc)
    path = os.path.join(tmp, "questions-bad.json")
    support.write_json(path, doc)
    return path


class QuestionRefusals(ScoreTestCase):
    CASES = [
        ("duplicate id", lambda d: d["questions"][1].update(id="mini-en-01"),
         "mini-en-01: duplicate id"),
        ("unknown lang", lambda d: d["questions"][0].update(lang="fr"), "unknown lang 'fr'"),
        ("unknown kind", lambda d: d["questions"][0].update(kind="trick"), "unknown kind 'trick'"),
        ("no source_url", lambda d: d["questions"][0].pop("source_url"),
         "mini-en-01: answerable question has no source_url"),
        ("no evidence", lambda d: d["questions"][0].pop("evidence"),
         "answerable question has no evidence"),
        ("no fact groups", lambda d: d["questions"][0].update(facts=[]),
         "mini-en-01: answerable question has no fact groups"),
        ("empty fact group", lambda d: d["questions"][0].update(facts=[[]]),
         "fact group 1 must be a non-empty list"),
        ("not on site with facts", lambda d: d["questions"][4].update(facts=[["1"]]),
         "mini-en-16: a not-on-site question cannot carry facts"),
        ("not on site with source", lambda d: d["questions"][4].update(source_url="http://x/"),
         "cannot carry source_url"),
        ("empty string", lambda d: d["questions"][0].update(question="  "),
         "question must be a non-empty string"),
        ("empty spelling", lambda d: d["questions"][0].update(facts=[["120", ""]]),
         "fact group 1"),
        ("unknown key", lambda d: d["questions"][0].update(note="x"), "unknown key(s) note"),
        ("unknown top key", lambda d: d.update(extra=1), "unknown key(s) extra"),
        ("format", lambda d: d.update(format=2), "format 2 is not one this tool knows"),
        ("suite", lambda d: d.update(suite="trivia"), "this loader reads 'site-qa'"),
        ("no questions", lambda d: d.update(questions=[]), "questions must be a non-empty list"),
        ("site without key", lambda d: d["sites"]["en"].pop("widget_key"),
         "widget_key must be a non-empty string"),
    ]

    def test_each_refusal(self):
        for name, mutate, expected in self.CASES:
            with self.subTest(name):
                self.refuse([question_file(self.tmp, mutate), RAW], expected)

    def test_not_json_names_line_and_column(self):
        path = self.write("questions-broken.json", '{\n  "suite": "site-qa",\n  "set": ]\n}\n')
        self.refuse([path, RAW], "questions-broken.json:3:10: not valid JSON")

    def test_not_utf8(self):
        path = self.path("questions-latin1.json")
        with open(path, "wb") as fh:
            fh.write('{\n"set": "caf\u00e9"}\n'.encode("latin-1"))
        self.refuse([path, RAW], "questions-latin1.json:2: not UTF-8")

    def test_missing_file(self):
        self.refuse([self.path("nope.json"), RAW], "nope.json: no such file")

    def test_through_a_real_interpreter(self):
        path = question_file(self.tmp, lambda d: d["questions"][0].update(facts=[]))
        proc = support.run_script("score.py", path, RAW)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(proc.stderr, f"score.py: {path}: mini-en-01: answerable question "
                                      "has no fact groups\n")


class RawRefusals(ScoreTestCase):
    def test_frozen_questions(self):
        other = self.path("questions-mini.json")
        shutil.copy(QUESTIONS, other)
        with open(other, "a", encoding="utf-8") as fh:
            fh.write(" ")
        self.refuse([other, RAW], "matches none of the files given; questions are frozen")

    def test_torn_last_line(self):
        raw = self.write("raw.jsonl", read(RAW)[:-30])
        self.refuse([QUESTIONS, raw], "raw.jsonl:12: last line is cut off")

    def test_bad_lines(self):
        good = read(RAW).splitlines()
        cases = [
            ("not json", "{oops", "raw.jsonl:1: not valid JSON"),
            ("blank", "", "raw.jsonl:1: blank line"),
            ("a list", "[1, 2]", "a line must be a JSON object"),
            ("nan", good[0].replace('"latency_ms":737', '"latency_ms":NaN'), "NaN is not a JSON number"),
            ("second answer", good[0], "a second answer to mini-en-01"),
            ("unknown id", good[0].replace('"id":"mini-en-01"', '"id":"mini-xx-01"'),
             "mini-xx-01 is not a question of"),
            ("no sha", good[0].replace('"cases_sha256"', '"cases_sha"'),
             "no run.cases_sha256"),
            ("format", good[0].replace('"format":1', '"format":1.0'),
             "format 1.0 is not one this tool knows (1)"),
            ("blank id", good[0].replace('"id":"mini-en-01"', '"id":""'),
             "raw.jsonl:1: no id"),
            ("no answer path", good[0].replace('"answer":"answer",', ''),
             "raw.jsonl:1: no target.response.answer"),
            ("sources path", good[0].replace('"sources":"sources"', '"sources":7'),
             "target.response.sources must be a path in the body (a string) or absent"),
            ("no attempts", '{"attempts":[]' + good[0][good[0].index('],"format"') + 1:],
             "attempts must be a non-empty list of objects"),
            ("latency", good[0].replace('"latency_ms":737', '"latency_ms":-1'),
             "raw.jsonl:1: latency_ms must be a non-negative integer"),
            ("truncated", good[0].replace('"truncated":false', '"truncated":0'),
             "response.truncated must be true or false"),
            ("body", good[0].replace('"body_base64":null', '"body_base64":[]'),
             "response.body and body_base64 must be strings or null"),
            ("response", good[0][:good[0].index('"response":{')] + '"response":[]'
             + good[0][good[0].index(',"run":'):],
             "response must be an object or null"),
            ("version header", good[0].replace('"x-assistant-version":"mini-assistant 2.3"',
                                               '"x-assistant-version":2'),
             "response.headers.x-assistant-version must be a string"),
            ("bad status", good[0].replace('"status":200,"truncated"', '"status":"200","truncated"'),
             "response.status must be an integer"),
        ]
        for name, line, expected in cases:
            with self.subTest(name):
                raw = self.write("raw.jsonl", line + "\n" + "\n".join(good) + "\n")
                self.refuse([QUESTIONS, raw], expected)

    def test_every_attempt_is_held_to_the_raw_line_s_rules(self):
        # The one record checker reads every attempt's latency_ms, as it reads
        # every started_at: a hand-edited earlier attempt is refused too.
        good = read(RAW).splitlines()
        line = json.loads(good[0])
        line["attempts"] = [dict(line["attempts"][0], latency_ms=-1)] + line["attempts"]
        raw = self.write("raw.jsonl", json.dumps(line) + "\n" + "\n".join(good[1:]) + "\n")
        self.refuse([QUESTIONS, raw], "raw.jsonl:1: latency_ms must be a non-negative integer")

    def test_a_later_line_is_checked_whole(self):
        # read_answer checks a run's run and target blocks once: a later line
        # whose blocks differ is checked again, one whose blocks are the same
        # is still checked for its own fields.
        good = read(RAW).splitlines()
        cases = [("run", good[1].replace('"cases_sha256"', '"cases_sha"'), "no run.cases_sha256"),
                 ("target", good[1].replace('"answer":"answer",', ''), "no target.response.answer"),
                 ("tool", good[1].replace('"tool":"worked-example"', '"tool":5'), "run.tool must be"),
                 ("attempts", '{"attempts":[]' + good[1][good[1].index('],"format"') + 1:],
                  "attempts must be a non-empty list of objects")]
        for name, line, expected in cases:
            with self.subTest(name):
                self.assertNotEqual(line, good[1])
                raw = self.write("raw.jsonl", "\n".join([good[0], line] + good[2:]) + "\n")
                self.refuse([QUESTIONS, raw], f"raw.jsonl:2: {expected}")

    def test_files_must_be_named_for_what_they_are(self):
        self.refuse([QUESTIONS], "give at least one question file (.json) and one raw file")
        self.refuse([QUESTIONS, RAW, "notes.txt"], "notes.txt: name a question file")


class ReviewRefusals(ScoreTestCase):
    def reviews(self, entries, fmt=1):
        return self.write("reviews.json", json.dumps({"format": fmt, "reviews": entries}))

    def test_each_refusal(self):
        cases = [
            ("unknown id", [{"id": "nope", "measure": "delivered", "value": True, "reason": "x"}],
             "unknown question id 'nope'"),
            ("unknown measure", [{"id": "mini-en-01", "measure": "vibes", "value": True,
                                  "reason": "x"}], "unknown measure 'vibes'"),
            ("measure does not apply", [{"id": "mini-en-01", "measure": "declined_when_not_on_site",
                                         "value": True, "reason": "x"}],
             "declined_when_not_on_site does not apply to a answerable question"),
            ("empty reason", [{"id": "mini-en-01", "measure": "delivered", "value": True,
                               "reason": " "}], "reason must be a non-empty line"),
            ("multi-line reason", [{"id": "mini-en-01", "measure": "delivered", "value": True,
                                    "reason": "a\nb"}], "reason must be one line"),
            ("not a boolean", [{"id": "mini-en-01", "measure": "delivered", "value": 1,
                                "reason": "x"}], "value must be true or false"),
            ("twice", [{"id": "mini-en-01", "measure": "delivered", "value": True, "reason": "x"}] * 2,
             "two entries for delivered"),
            ("faulty and a verdict", [{"id": "mini-en-01", "faulty": True, "reason": "x"},
                                      {"id": "mini-en-01", "measure": "delivered", "value": True,
                                       "reason": "x"}], "cannot also have verdict entries"),
            ("unknown key", [{"id": "mini-en-01", "faulty": True, "reason": "x", "by": "me"}],
             "unknown key(s) by"),
        ]
        for name, entries, expected in cases:
            with self.subTest(name):
                self.refuse([QUESTIONS, RAW, "--reviews", self.reviews(entries)], expected)

    def test_format(self):
        self.refuse([QUESTIONS, RAW, "--reviews", self.reviews([], fmt=7)], "format 1")

    def test_a_confirming_review_changes_no_figure(self):
        path = self.reviews([{"id": "mini-en-16", "measure": "declined_when_not_on_site",
                              "value": False, "reason": "declines, then invents a price"}])
        reviewed = scored(path)
        plain = scored()
        self.assertEqual(reviewed["groups"], plain["groups"])
        self.assertEqual(reviewed["review_coverage"]["reviewed"], 1)
        self.assertEqual(plain["review_coverage"],
                         {"required": 8, "reviewed": 0, "missing": [
                             "mini-en-02", "mini-en-03", "mini-en-16", "mini-en-17",
                             "mini-he-16", "mini-ru-01", "mini-ru-16", "mini-ru-17"]})

    def test_todo_reason_is_refused(self):
        self.refuse([QUESTIONS, RAW, "--reviews", self.reviews(
            [{"id": "mini-en-02", "measure": "correct_facts", "value": False, "reason": "TODO"}])],
            "reason is still TODO")

    def test_every_problem_at_once(self):
        entries = [{"id": q, "measure": "correct_facts", "value": False, "reason": "TODO"}
                   for q in ("mini-en-02", "mini-en-03")]
        entries.append({"id": "mini-ru-01", "measure": "correct_facts", "value": "no",
                        "reason": "x"})
        code, _, err = call_main(score, [QUESTIONS, RAW, "--reviews", self.reviews(entries)])
        self.assertEqual(code, 2)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn("reviews.json: reason is still TODO (write what you read): mini-en-02 "
                      "correct_facts, mini-en-03 correct_facts; value must be true or false: "
                      "mini-ru-01 correct_facts", err)

    def test_review_sheet(self):
        sheet = self.path("sheet.md")
        code, out, err = call_main(score, [QUESTIONS, RAW, "--review-sheet", sheet,
                                           "--reviews-to", "build/x/reviews-x.json"])
        self.assertEqual((code, out, err), (0, "", ""))
        text = read(sheet)
        # Each answer once, with an entry for every measure to read: the
        # mini fixture's 13 answers, every pass a candidate (fewer than 60).
        self.assertIn("13 answers to read, 47 entries; 47 still TODO.", text)
        self.assertIn("write your verdicts into `build/x/reviews-x.json`", text)
        self.assertEqual(text.count("\n## "), 13 + 1)
        self.assertIn("- To judge: delivered (sampled), correct_facts (failed), right_page_cited "
                      "(sampled), in_question_language (sampled)\n", text)
        entry = '{"id": "mini-en-02", "measure": "correct_facts", "value": false, "reason": "TODO"}'
        self.assertIn("\n    " + entry + "\n", text)  # valid JSON as it stands
        # The whole file, pasted as it stands, is a reviews file that needs only reasons.
        pasted = json.loads(text.split("```json\n")[1].split("```")[0])
        self.assertEqual(len(pasted["reviews"]), 47)
        for item in pasted["reviews"]:
            item["reason"] = "read; the mechanical verdict stands"
        path = self.write("reviews.json", json.dumps(pasted))
        self.assertEqual(scored(path)["review_coverage"]["missing"], [])
        self.assertEqual(scored(path)["sampled_review"]["coverage"]["missing"], [])
        # Under the rules of 2026-12-02 the sheet had one entry an answer and
        # a section of sampled passes.
        code, _, err = call_main(score, [QUESTIONS, RAW, "--review-sheet", sheet,
                                         "--rules-as-of", "2026-12-02.3"])
        self.assertEqual(code, 0, err)
        self.assertIn("8 answers to read; 0 already have an entry.", read(sheet))
        self.assertEqual(read(sheet).count("\n### "), 5)
        # Under the rules before 2026-12-02 the sheet has no sampled passes.
        code, _, err = call_main(score, [QUESTIONS, RAW, "--review-sheet", sheet,
                                         "--rules-as-of", "2026-12-01"])
        self.assertEqual(code, 0, err)
        self.assertEqual(read(sheet).count("\n## "), 9)
        self.assertNotIn("Sampled", read(sheet))

if __name__ == "__main__":
    unittest.main()


class RulesHelp(unittest.TestCase):
    """score.py --rules prints what a quoted number was scored with, as
    trec_eval prints its measures: each rule in its function's words and the
    dated changes, split at the date asked for."""

    def test_every_rule_and_the_changes_in_force(self):
        from evalkit.rubric.measures import MEASURES, TITLES
        from evalkit.rubric.rulebook import CHANGES
        code, out, err = call_main(score, ["--rules"])
        self.assertEqual((code, err), (0, ""))
        flat = " ".join(out.split())
        for measure in MEASURES:
            self.assertIn(f"{TITLES[measure]}: Rubric: ", flat)
        for date, key, _what in CHANGES:
            self.assertIn(f"{date} {key}: ", flat)
        self.assertNotIn("not in force", out)

    def test_an_older_date_lists_the_later_changes_apart(self):
        code, out, _ = call_main(score, ["--rules", "--rules-as-of", "2026-11-05"])
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("The rules of 2026-11-05: their results are those of "
                                       "tools 0.2.0"), out[:80])
        in_force, later = out.split("Dated after these rules, not in force:")
        in_force = in_force.split("Dated changes in force")[1]
        self.assertIn("2026-11-05 decline:", in_force)
        self.assertNotIn("2026-12-01", in_force)
        self.assertIn("2026-12-01 word_bounds:", later)
        self.assertIn("2026-12-02 sampled_review:", later)

    def test_without_files_and_without_rules_it_says_what_to_give(self):
        code, _, err = call_main(score, [])
        self.assertEqual(code, 2)
        self.assertEqual(err, "score.py: give at least one question file (.json) and one raw "
                              "file (.jsonl)\n")


class Signature(unittest.TestCase):
    """From the rules of 2026-12-02.2 results.md ends with one line a quoted
    figure can carry; its sha256 is what ``sha256sum`` of the question files,
    then the raw files, piped to ``sha256sum`` prints (the methodology page's
    recipe), whatever the order the files were given in."""

    def results_md(self, raws, *options):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "results.md")
            code, _, err = call_main(score, [QUESTIONS, *raws, "--out", out, *options])
            self.assertEqual(code, 0, err)
            return read(out)

    def split_raw(self, tmp):
        """raw-mini.jsonl as two files, b before a in name order reversed."""
        with open(RAW, encoding="utf-8") as fh:
            lines = fh.readlines()
        paths = [os.path.join(tmp, "raw-b.jsonl"), os.path.join(tmp, "raw-a.jsonl")]
        for path, part in zip(paths, (lines[::2], lines[1::2])):
            with open(path, "w", encoding="utf-8") as fh:
                fh.writelines(part)
        return paths

    @staticmethod
    def sha256sum_recipe(questions, raws):
        import hashlib

        def digest(path):
            with open(path, "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest()
        listing = "".join(f"{digest(p)}  {os.path.basename(p)}\n"
                          for group in (questions, raws)
                          for p in sorted(group, key=os.path.basename))
        return hashlib.sha256(listing.encode()).hexdigest()

    def test_the_last_line_is_the_signature_of_the_inputs(self):
        with tempfile.TemporaryDirectory() as tmp:
            raws = self.split_raw(tmp)
            text = self.results_md(raws)
            reversed_text = self.results_md(raws[::-1])
            expected = self.sha256sum_recipe([QUESTIONS], raws)
        last = text.rstrip("\n").split("\n")[-1]
        self.assertEqual(last, f"Signature: site-qa, rules of {change_dates()[-1]}, score.py "
                               f"{VERSION}, questions and raw answers sha256 {expected}")
        self.assertEqual(text, reversed_text)

    def test_another_raw_file_another_signature(self):
        with tempfile.TemporaryDirectory() as tmp:
            raws = self.split_raw(tmp)
            whole = self.results_md([RAW]).rstrip("\n").split("\n")[-1]
            split = self.results_md(raws).rstrip("\n").split("\n")[-1]
        self.assertNotEqual(whole, split)

    def test_earlier_rules_write_no_signature(self):
        text = self.results_md([RAW], "--rules-as-of", "2026-12-02")
        self.assertNotIn("Signature:", text)
        self.assertTrue(text.endswith("- Scored by: score.py 0.5.0\n"), text[-80:])
