"""Bad input to the quarter tools: publish.py, reproduce.py, compare.py, and
the --rules-as-of date of score.py and lint_questions.py. Each refusal is one
line on stderr naming the file and the place, with the exit code the README
gives (publish, compare, score: 2; reproduce: 2 when it cannot check, 1 when
the folder is not reproduced), never a traceback; publish.py leaves nothing
published or half-written behind."""

import json
import os
import shutil
import tempfile
import unittest

from tests import support
from tests.support import FIXTURES, ROOT, call_main

import compare  # noqa: E402
import lint_questions  # noqa: E402
import publish  # noqa: E402
import reproduce  # noqa: E402
import score  # noqa: E402
from evalkit import BadInput  # noqa: E402
from evalkit.rubric.rulebook import change_dates, rules_as_of  # noqa: E402

# An example input: its absence skips these tests (support.example_quarter).
DEMO, NEEDS_DEMO = support.example_quarter("demo-2026-12")


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def write(path, data):
    with open(path, "wb") as fh:
        fh.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def snapshot(folder):
    """Every file and folder under ``folder``, with its bytes."""
    out = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs:
            out[os.path.relpath(os.path.join(top, name), folder) + "/"] = None
        for name in files:
            path = os.path.join(top, name)
            out[os.path.relpath(path, folder)] = read(path)
    return out


def edit_first_line(path, change):
    """Rewrite the first JSON line of ``path`` with ``change(line)``."""
    lines = read(path).decode("utf-8").splitlines(keepends=True)
    line = json.loads(lines[0])
    change(line)
    lines[0] = json.dumps(line, ensure_ascii=False) + "\n"
    write(path, "".join(lines))


class Refusals(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def refused(self, module, argv, code, *expected):
        """Run ``module`` and check one line on stderr holding ``expected``;
        the line."""
        got, out, err = call_main(module, argv)
        self.assertNotIn("Traceback", err)
        self.assertEqual(got, code, err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith(module.PROG + ": "), err)
        for text in expected:
            self.assertIn(text, lines[0])
        return out, lines[0]


@NEEDS_DEMO
class PublishRefusals(Refusals):
    def setUp(self):
        super().setUp()
        self.bench = os.path.join(self.tmp, "bench")
        self.work = os.path.join(self.tmp, "work")
        os.makedirs(self.work)
        os.makedirs(self.bench)
        for name in ("questions-med.json", "questions-biz.json"):
            shutil.copy(os.path.join(DEMO, name), self.bench)
        for name in ("raw-med.jsonl", "raw-biz.jsonl"):
            shutil.copy(os.path.join(DEMO, name), self.work)

    def publish_refused(self, *expected):
        before = snapshot(self.bench)
        self.refused(publish, ["2026-Q2", "--from", self.work, "--bench", self.bench,
                               "--allow-unreviewed"], 2, *expected)
        # Nothing published, no staging folder left, the earlier quarter untouched.
        self.assertEqual(snapshot(self.bench), before)

    def test_a_bad_earlier_results_file_is_named_with_its_place(self):
        earlier = os.path.join(self.bench, "2026-Q1")
        os.makedirs(earlier)
        write(os.path.join(earlier, "MANIFEST.json"), read(os.path.join(DEMO, "MANIFEST.json")))
        results = os.path.join(earlier, "results.json")
        good = read(os.path.join(DEMO, "results.json"))
        doc = json.loads(good)
        overall = next(i for i, g in enumerate(doc["groups"]) if g["lang"] == "all")

        def changed(change):
            copy = json.loads(good)
            change(copy)
            return json.dumps(copy)

        cases = {
            "truncated": (good[:len(good) // 2], f"{results}:", "not valid JSON"),
            "a list": (b"[]", f"{results}: the whole file:"),
            "no format or set": (b'{"groups":[{"lang":"all"}]}', f"{results}: format:"),
            "no set": (changed(lambda d: d["groups"][0].pop("set")), f"{results}: groups[0].set:"),
            "no figures": (changed(lambda d: d["groups"][overall].pop("delivered")),
                           f"{results}: groups[{overall}].delivered:"),
            "a count as text": (changed(lambda d: d["groups"][overall]["delivered"]
                                        .update(passed="5")),
                                f"{results}: groups[{overall}].delivered:"),
            "groups not a list": (changed(lambda d: d.update(groups={})), f"{results}: groups:"),
            "measures not a list": (changed(lambda d: d.update(measures="delivered")),
                                    f"{results}: measures:"),
            "a measure missing": (changed(lambda d: d["measures"].remove("delivered")),
                                  f"{results}: measures: delivered"),
            "format 1.0": (changed(lambda d: d.update(format=1.0)), f"{results}: format:"),
            "not utf-8": (b"\xff" + good, f"{results}:1: not UTF-8"),
        }
        for label, (data, *expected) in cases.items():
            with self.subTest(label):
                write(results, data)
                self.publish_refused(*expected)
        with self.subTest("a folder"):
            os.unlink(results)
            os.makedirs(results)
            self.publish_refused(f"{results}: is a folder, not a file")

    def test_a_raw_line_whose_question_sha256_is_not_text(self):
        raw = os.path.join(self.work, "raw-med.jsonl")
        good = read(raw)
        for label, value in (("a list", ["0" * 64]), ("an object", {"sha": "0" * 64}),
                             ("a number", 5), ("null", None), ("not hex", "z" * 64)):
            with self.subTest(label):
                write(raw, good)
                edit_first_line(raw, lambda line: line["run"].update(cases_sha256=value))
                self.publish_refused(f"{self.work}/raw-med.jsonl:1: run.cases_sha256")

    def test_a_raw_line_whose_question_file_is_not_a_plain_name(self):
        raw = os.path.join(self.work, "raw-med.jsonl")
        good = read(raw)
        for value in ("..", "", "questions-\u0000.json", ["questions-med.json"]):
            with self.subTest(value=value):
                write(raw, good)
                edit_first_line(raw, lambda line: line["run"].update(cases_file=value))
                self.publish_refused(f"{self.work}/raw-med.jsonl:1: run.cases_file")


@NEEDS_DEMO
class ManifestRefusals(Refusals):
    """reproduce.py and compare.py read a quarter folder's MANIFEST.json; each
    field they read is checked in one place (evalkit/rubric/quarter.py)."""

    def setUp(self):
        super().setUp()
        self.folder = os.path.join(self.tmp, "quarter")
        shutil.copytree(DEMO, self.folder)
        self.manifest_path = os.path.join(self.folder, "MANIFEST.json")
        self.good = json.loads(read(self.manifest_path))

    def with_manifest(self, change):
        manifest = json.loads(json.dumps(self.good))
        change(manifest)
        write(self.manifest_path, json.dumps(manifest))

    def both_refuse(self, *expected):
        before = snapshot(self.folder)
        out, _ = self.refused(reproduce, [self.folder], 2, *expected)
        self.assertEqual(out, "")
        self.refused(compare, [self.folder, self.folder], 2, *expected)
        self.assertEqual(snapshot(self.folder), before)

    def scoring(self, key, value):
        return lambda m: m["scoring"].update({key: value})

    def test_scoring_lists_of_file_names(self):
        for key, name in (("questions", "questions-med.json"), ("raw", "raw-med.jsonl")):
            for label, value in (("a number", 5), ("null", None), ("a string", name),
                                 ("an object", {name: 1}), ("empty", []), ("a number in it", [5]),
                                 ("a name twice", [name, name]), ("not a file of it", ["q"])):
                with self.subTest(key=key, value=label):
                    self.with_manifest(self.scoring(key, value))
                    self.both_refuse(f"{self.manifest_path}: scoring.{key}")
        with self.subTest("the message of a list that is not one"):
            self.with_manifest(self.scoring("questions", 5))
            self.both_refuse(f"{self.manifest_path}: scoring.questions must be a list of "
                             "file names")

    def test_scoring_single_file_names(self):
        for key in ("reviews", "history"):
            for label, value in (("a number", 5), ("a list", ["reviews-demo-2026-12.json"]),
                                 ("a raw file", "raw-med.jsonl"), ("not a file of it", "x")):
                with self.subTest(key=key, value=label):
                    self.with_manifest(self.scoring(key, value))
                    self.both_refuse(f"{self.manifest_path}: scoring.{key}")

    def test_a_bad_rules_date_names_the_manifest_not_the_option(self):
        for value in ("yesterday", "1999-01-01", "2026-13-45", "2026-11-31", 20261201, None,
                      "2026-12-01\n"):
            with self.subTest(value=value):
                self.with_manifest(self.scoring("decline_as_of", value))
                _, line = self.refused(reproduce, [self.folder], 2,
                                       f"{self.manifest_path}: scoring.decline_as_of")
                self.assertNotIn("--rules-as-of", line)
                self.refused(compare, [self.folder, self.folder], 2,
                             f"{self.manifest_path}: scoring.decline_as_of")

    def test_scoring_with_a_field_too_many_or_too_few(self):
        self.with_manifest(lambda m: m["scoring"].update(extra=1))
        self.both_refuse(f"{self.manifest_path}: scoring")
        self.with_manifest(lambda m: m["scoring"].pop("history"))
        self.both_refuse(f"{self.manifest_path}: scoring")

    def test_file_entries(self):
        for label, change in (
                ("bytes as text", lambda e: e.update(bytes="116107")),
                ("bytes a float", lambda e: e.update(bytes=116107.0)),
                ("bytes true", lambda e: e.update(bytes=True)),
                ("bytes missing", lambda e: e.pop("bytes")),
                ("sha256 a number", lambda e: e.update(sha256=5)),
                ("sha256 not hex", lambda e: e.update(sha256="x"))):
            with self.subTest(label):
                self.with_manifest(lambda m: change(m["files"]["raw-med.jsonl"]))
                self.both_refuse(f"{self.manifest_path}: files.raw-med.jsonl")

    def test_a_format_number_is_a_whole_number(self):
        for value in (2.0, 1.0, True, "2", None, 1):
            with self.subTest(value=value):
                self.with_manifest(lambda m: m.update(format=value))
                self.both_refuse(f"{self.manifest_path}: format")


@NEEDS_DEMO
class ReproduceFolders(Refusals):
    def setUp(self):
        super().setUp()
        self.folder = os.path.join(self.tmp, "quarter")
        shutil.copytree(DEMO, self.folder)

    def make_folder(self, name):
        path = os.path.join(self.folder, name)
        os.unlink(path)
        os.makedirs(path)

    def test_a_folder_in_place_of_a_file_is_refused(self):
        # A quarter folder holds regular files only (evalkit/rubric/quarter.py): a
        # folder in it is refused before anything is read, not compared.
        for name in ("index.html", "raw-med.jsonl", "reviews-demo-2026-12.json",
                     "questions-biz.json"):
            with self.subTest(name=name):
                shutil.rmtree(self.folder)
                shutil.copytree(DEMO, self.folder)
                self.make_folder(name)
                path = os.path.join(self.folder, name)
                out, _ = self.refused(reproduce, [self.folder], 2,
                                      f"{path}: is a folder; a quarter folder holds regular "
                                      "files only")
                self.assertEqual(out, "")
                self.refused(compare, [self.folder, self.folder], 2, f"{path}: is a folder")

    def test_a_file_given_as_the_folder(self):
        path = os.path.join(self.folder, "results.md")
        self.refused(reproduce, [path], 2, f"{path}: is a file, not a quarter folder")
        missing = os.path.join(self.folder, "nothing")
        self.refused(reproduce, [missing], 2, f"{missing}: no such folder")


@NEEDS_DEMO
class CompareRawLines(Refusals):
    def test_a_question_file_that_is_not_a_plain_name(self):
        bench = os.path.join(self.tmp, "bench")
        os.makedirs(bench)
        shutil.copy(os.path.join(DEMO, "questions-med.json"), bench)
        raw = os.path.join(bench, "raw-med.jsonl")
        good = read(os.path.join(DEMO, "raw-med.jsonl"))
        for value in ("..", "", ".", "questions-med.json\u0000", 5, "sub/questions-med.json"):
            with self.subTest(value=value):
                write(raw, good)
                edit_first_line(raw, lambda line: line["run"].update(cases_file=value))
                self.refused(compare, [raw, raw, "--bench", bench], 2,
                             f"{raw}:1: run.cases_file")


class RulesDates(Refusals):
    QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
    RAW = os.path.join(FIXTURES, "raw-mini.jsonl")

    def test_only_a_day_of_the_calendar_is_a_date(self):
        for date in ("2026-13-45", "9999-99-99", "2026-11-31", "2027-02-29", "0000-12-01",
                     "2026-12-01\n", "\u0662\u0660\u0662\u0666-12-01"):
            with self.subTest(date=date):
                self.refused(score, [self.QUESTIONS, self.RAW, "--rules-as-of", date], 2,
                             "--rules-as-of", "YYYY-MM-DD")
                with self.assertRaises(BadInput):
                    rules_as_of(date)
        self.refused(lint_questions, [self.QUESTIONS, "--rules-as-of", "2026-99-99"], 2,
                     "--rules-as-of", "YYYY-MM-DD")

    def test_real_dates_still_pick_their_rules(self):
        self.assertEqual(rules_as_of("2028-02-29").rules_date, change_dates()[-1])
        self.assertEqual(rules_as_of("2026-12-01").rules_date, "2026-12-01")
        self.assertEqual(rules_as_of("2026-11-30").rules_date, "2026-11-05")
        self.refused(score, [self.QUESTIONS, self.RAW, "--rules-as-of", "2026-10-01"], 2,
                     "the rules begin on 2026-10-28")


if __name__ == "__main__":
    unittest.main()
