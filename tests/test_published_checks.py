"""The checks of published results, held to what an outside tester found
them let through: a quarter manifest whose runs or review coverage is of
another type (quarters.py), a scenario run's manifest with a file's sha256 or
bytes missing or of another type, or format true (reproduce.py), an AI result
file whose figures are equal only to Python (0 for false, 2.0 for 2), an
empty run published, run dates that are no times, a site-qa raw line of
another suite, messages as long as the value they name, and a publish's
unfinished staging folder listed as a quarter."""

import json
import os
import re
import shutil
import unittest

from tests import support
from tests.support import FIXTURES, ROOT, call_main

import publish  # noqa: E402
import quarters  # noqa: E402
import reproduce  # noqa: E402
import score  # noqa: E402
from evalkit.aieval import resultfile  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402
from evalkit.jsonl import iter_jsonl  # noqa: E402

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
QUARTERS = ("demo", "demo-2026-12", "demo-2026-12b")
SCENARIO_RUN = os.path.join(ROOT, "evals", "permits", "results", "2026-12-01-local-cpu")
AI_RESULTS = os.path.join(ROOT, "evals", "ai", "results")
INTAKE = os.path.join(AI_RESULTS, "2026-12-01-intake-openai-qwen2.5-coder-1.5b-instruct.json")
MINI_QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
MINI_RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
MINI_REVIEWS = os.path.join(FIXTURES, "reviews-mini.json")
# A value from the input that no message may repeat whole.
LONG = "x" * 200_000
# The longest refusal any of these inputs may give: a path, a place, a value
# cut short; a reviews file's five problems named at once.
SHORT = 1500


class Files(support.TempDirCase):
    def write_json(self, path, doc):
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            json.dump(doc, fh)

    def read_json(self, path):
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)

    def write_lines(self, path, lines):
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in lines)

    def mini_lines(self):
        return [line for _, line in iter_jsonl(MINI_RAW)]

    def refused(self, module, argv, *named):
        """Exit 2, one short line on stderr naming each of ``named``."""
        code, _, err = call_main(module, argv)
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err[:2000])
        self.assertLess(len(err), SHORT, err[:2000])
        for words in named:
            self.assertIn(words, err)
        return err


class QuarterListing(Files):
    """quarters.py: a manifest whose runs or review_coverage is of another
    type is listed as one that cannot be read, as other bad manifests are;
    a hidden folder (a publish's unfinished staging folder) is never listed."""

    def quarter(self, name, **changes):
        folder = self.path("bench", name)
        os.makedirs(folder)
        manifest = self.read_json(os.path.join(BENCH, "demo", "MANIFEST.json"))
        manifest.update(changes)
        self.write_json(os.path.join(folder, "MANIFEST.json"), manifest)

    def listing(self):
        code, out, err = call_main(quarters, ["--bench", self.path("bench")])
        self.assertEqual(code, 0, err)
        return out.splitlines(), err

    def test_runs_or_coverage_of_another_type_cannot_be_read(self):
        for changes, place in [({"runs": {"run_dates": [1]}}, "runs.run_dates[0]"),
                               ({"runs": {"run_dates": "2026-11-29"}}, "runs.run_dates"),
                               ({"runs": {"platform_versions": [None]}},
                                "runs.platform_versions[0]"),
                               ({"runs": "2026-11-29"}, "runs must be an object"),
                               ({"review_coverage": []}, "review_coverage must be an object"),
                               ({"review_coverage": 0.5}, "review_coverage must be an object"),
                               ({"review_coverage": {"reviewed": "98"}},
                                "review_coverage.reviewed")]:
            with self.subTest(changes=changes):
                shutil.rmtree(self.path("bench"), ignore_errors=True)
                self.quarter("bad", **changes)
                self.quarter("good")
                lines, _ = self.listing()
                self.assertEqual(len(lines), 2, lines)
                self.assertTrue(lines[0].startswith("bad: cannot be read: "), lines[0])
                self.assertIn(place, lines[0])
                self.assertTrue(lines[1].startswith("good | asked 2026-11-29 | "), lines[1])

    def test_a_publish_killed_before_its_rename_leaves_no_quarter(self):
        self.quarter("2026-Q1")
        self.quarter(".2026-Q2.staging-k1ll3d")
        lines, err = self.listing()
        self.assertEqual([line.split(" | ")[0] for line in lines], ["2026-Q1"])
        self.assertIn("1 published quarter(s)", err)


class ScenarioRunManifest(Files):
    """reproduce.py on a published scenario run: the manifest is checked by
    the record checker before a field is followed; nothing it did not check
    is called verified."""

    def run_with(self, edit):
        folder = self.path("run")
        shutil.copytree(SCENARIO_RUN, folder)
        manifest = self.read_json(os.path.join(folder, "MANIFEST.json"))
        edit(manifest)
        self.write_json(os.path.join(folder, "MANIFEST.json"), manifest)
        return folder

    def test_a_file_entry_or_format_of_another_type_is_refused(self):
        def drop(key):
            return lambda m: m["files"]["results.md"].pop(key)

        def put(key, value):
            return lambda m: m["files"]["results.md"].__setitem__(key, value)

        for label, edit, named in [
                ("no sha256", drop("sha256"), "files.results.md.sha256"),
                ("no bytes", drop("bytes"), "files.results.md.bytes"),
                ("bytes lots", put("bytes", "lots"), "files.results.md.bytes"),
                ("bytes 1.5", put("bytes", 1.5), "files.results.md.bytes"),
                ("sha256 short", put("sha256", "abc"), "files.results.md.sha256"),
                ("no role", drop("role"), "files.results.md.role"),
                ("format true", lambda m: m.__setitem__("format", True), "format"),
                ("format 1.0", lambda m: m.__setitem__("format", 1.0), "format"),
                ("entry a list", lambda m: m["files"].__setitem__("results.md", []),
                 "files.results.md"),
                ("unknown key", lambda m: m.__setitem__("extra", 1), "unknown key(s) extra")]:
            with self.subTest(label):
                shutil.rmtree(self.path("run"), ignore_errors=True)
                folder = self.run_with(edit)
                self.refused(reproduce, [folder], os.path.join(folder, "MANIFEST.json"), named)

    def test_an_input_of_another_size_than_listed_differs(self):
        def grow(manifest):
            manifest["files"]["raw-smol.jsonl"]["bytes"] += 1
        folder = self.run_with(grow)
        code, out, err = call_main(reproduce, [folder])
        self.assertEqual(code, 1, out + err)
        self.assertIn("differs    raw-smol.jsonl (input does not match MANIFEST.json)", out)
        self.assertNotIn("verified and identical", err)

    def test_a_long_file_name_is_named_short(self):
        folder = self.run_with(lambda m: m["files"].__setitem__(
            "../" + LONG, {"sha256": "0" * 64, "bytes": 1, "role": "output"}))
        self.refused(reproduce, [folder], "is not a file of the run", "...")


class AiResultFigures(Files):
    """reproduce.py on an AI result file: a figure equal to the recomputed one
    only to Python (false and 0, 2 and 2.0) is not the figure recomputed."""

    def edited(self, old, new):
        with open(INTAKE, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn(old, text)
        path = self.path("intake.json")
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text.replace(old, new, 1))
        return path

    def test_a_bool_written_as_a_number_or_a_count_as_a_float_differs(self):
        for old, new, problem in [('"match": false', '"match": 0', "per-case records"),
                                  ('"match": true', '"match": 1', "per-case records"),
                                  ('"count": 2,', '"count": 2.0,', "summary"),
                                  ('"rate": 0.5', '"rate": 0.50', None)]:
            with self.subTest(old=old, new=new):
                code, out, err = call_main(reproduce, [self.edited(old, new)])
                if problem is None:   # the same JSON number, written otherwise: the same figure
                    self.assertEqual(code, 0, out + err)
                    continue
                self.assertEqual(code, 1, out + err)
                self.assertIn(problem, out)
                self.assertNotIn("every figure recomputed", err)

    def test_same_is_equality_with_types_at_every_depth(self):
        self.assertTrue(resultfile.same({"a": [1, 0.5, None, "x", True]},
                                        {"a": [1, 0.5, None, "x", True]}))
        for mine, theirs in [(False, 0), (True, 1), (2, 2.0), ({"a": 1}, {"a": 1.0}),
                             ([{"m": False}], [{"m": 0}]), ({"a": 1}, {"a": 1, "b": 1}),
                             ([1], [1, 1]), ({"a": {"b": [2]}}, {"a": {"b": [2.0]}})]:
            with self.subTest(mine=mine, theirs=theirs):
                self.assertFalse(resultfile.same(mine, theirs))


class EmptyRun(Files):
    """publish.py refuses a run whose raw files hold no answer before it
    writes anything: no question file would be scored."""

    def test_an_empty_run_is_refused_and_nothing_is_written(self):
        work, bench = self.path("work"), self.path("bench")
        os.makedirs(work)
        for names in (["raw-x.jsonl"], ["raw-x.jsonl", "raw-y.jsonl"]):
            for name in names:
                open(os.path.join(work, name), "w").close()
            with self.subTest(names=names):
                for extra in ([], ["--allow-unreviewed"], ["--check"]):
                    self.refused(publish, ["2026-Q3", "--from", work, "--bench", bench] + extra,
                                 os.path.join(work, "raw-x.jsonl"), "no answer line",
                                 "nothing to publish")
                    self.assertFalse(os.path.exists(bench), os.listdir(self.tmp))


class RawLines(Files):
    """score.py refuses a site-qa raw line whose started_at is no time as
    run.py writes it (the run dates are read from it) or whose suite is
    another's, naming the file and line."""

    def score_mini(self, lines):
        raw = self.path("raw-mini.jsonl")
        self.write_lines(raw, lines)
        return raw, [MINI_QUESTIONS, raw, "--out", self.path("results.md")]

    def test_a_started_at_that_is_no_time_as_run_py_writes_it_is_refused(self):
        for value in ["yesterday, around 3", "2026-11-20", "2026-11-20T10:01:00Z",
                      "2026-11-20T10:01:00.000+00:00", "2026-11-20 10:01:00.000Z",
                      "2026-02-30T10:01:00.000Z", "2026-11-20T24:01:00.000Z",
                      "2026-11-20T10:01:00.000Z\n", "٢٠٢٦-11-20T10:01:00.000Z", 5, None,
                      ["2026-11-20T10:01:00.000Z"], LONG]:
            with self.subTest(value=str(value)[:40]):
                lines = self.mini_lines()
                lines[2]["attempts"][-1]["started_at"] = value
                raw, argv = self.score_mini(lines)
                self.refused(score, argv, f"{raw}:3: attempts[0].started_at",
                             "is not a UTC time as run.py writes it")
        # Every raw line of the published quarters is one run.py wrote: they reproduce.
        for quarter in QUARTERS:
            folder = os.path.join(BENCH, quarter)
            for name in sorted(os.listdir(folder)):
                if name.startswith("raw-"):
                    for number, line in iter_jsonl(os.path.join(folder, name)):
                        siteqa.read_answer(line, f"{quarter}/{name}:{number}")

    def test_an_earlier_attempt_is_held_to_it_too(self):
        lines = self.mini_lines()
        line = next(n for n, line in enumerate(lines, 1) if len(line["attempts"]) > 1)
        lines[line - 1]["attempts"][0]["started_at"] = "yesterday"
        raw, argv = self.score_mini(lines)
        self.refused(score, argv, f"{raw}:{line}: attempts[0].started_at 'yesterday'")

    def test_a_line_of_another_suite_is_refused(self):
        for value in ["scenario", 5, None, "", LONG]:
            with self.subTest(value=str(value)[:40]):
                lines = self.mini_lines()
                lines[1]["suite"] = value
                raw, argv = self.score_mini(lines)
                self.refused(score, argv, f"{raw}:2: suite ", "not a site-qa raw line")
        # A line without suite (written by hand, as the worked examples are) or
        # without started_at is read as before.
        lines = self.mini_lines()
        for line in lines:
            del line["suite"]
        del lines[0]["attempts"][-1]["started_at"]
        _, argv = self.score_mini(lines)
        code, _, err = call_main(score, argv)
        self.assertEqual(code, 0, err)


class ShortMessages(Files):
    """A value from the input is cut short in every message: a 200,000
    character id, key, suite, format or measure gives a line of stderr one
    can read, not one as long as the value."""

    def questions(self, edit):
        doc = self.read_json(MINI_QUESTIONS)
        edit(doc)
        path = self.path("questions-mini.json")
        self.write_json(path, doc)
        return path

    def score_questions(self, edit, *named):
        path = self.questions(edit)
        self.refused(score, [path, MINI_RAW, "--out", self.path("results.md")], path, *named)

    def test_a_long_value_in_a_question_file(self):
        def duplicate(doc):
            doc["questions"][0]["id"] = doc["questions"][1]["id"] = LONG

        def key_of_question(doc):
            doc["questions"][0][LONG] = 1

        def id_and_bad_field(doc):
            doc["questions"][0]["id"] = LONG
            doc["questions"][0]["question"] = ""

        for label, edit, named in [
                ("duplicate id", duplicate, "duplicate id"),
                ("unknown key of a question", key_of_question, "unknown key(s)"),
                ("unknown key of sites", lambda d: d["sites"].__setitem__(LONG, {}),
                 "sites: unknown key(s)"),
                ("many unknown keys", lambda d: d["questions"][0].update(
                    {f"k{i}": 1 for i in range(20_000)}), "and 19995 more"),
                ("an id named as the place", id_and_bad_field, "question must be"),
                ("suite", lambda d: d.__setitem__("suite", LONG), "suite is 'xxx"),
                ("format", lambda d: d.__setitem__("format", LONG), "format 'xxx")]:
            with self.subTest(label):
                self.score_questions(edit, *named)
        # A short value is named as it always was.
        self.score_questions(
            lambda d: d["questions"][1].__setitem__("id", d["questions"][0]["id"]),
            ": mini-en-01: duplicate id")
        self.score_questions(lambda d: d["questions"][0].__setitem__("colour", 1),
                             ": mini-en-01: unknown key(s) colour")
        self.score_questions(lambda d: d.__setitem__("format", "1"),
                             "format '1' is not one this tool knows (1)")

    def test_a_long_key_or_value_of_an_ai_result_file(self):
        with open(INTAKE, encoding="utf-8") as fh:
            doc = json.load(fh)
        for label, edit, named in [
                ("key", lambda d: d.__setitem__(LONG, 1), "is not a field of a result file"),
                ("status", lambda d: d["run"].__setitem__("status", LONG), "run.status 'xxx"),
                ("role", lambda d: d["run"]["inputs"].__setitem__(LONG, None),
                 "must give the input file's path")]:
            with self.subTest(label):
                changed = json.loads(json.dumps(doc))
                edit(changed)
                path = self.path("intake.json")
                self.write_json(path, changed)
                code, out, err = call_main(reproduce, [path])
                self.assertEqual(code, 1, err)
                self.assertIn(named, out)
                for line in (out + err).splitlines():
                    self.assertLess(len(line), SHORT, line[:2000])

    def test_a_long_id_of_a_raw_line(self):
        lines = self.mini_lines()
        lines[0]["id"] = LONG
        raw = self.path("raw-mini.jsonl")
        self.write_lines(raw, lines)
        self.refused(score, [MINI_QUESTIONS, raw, "--out", self.path("results.md")],
                     f"{raw}:1: xxx", "is not a question of")

    def test_a_long_id_key_or_measure_of_a_review(self):
        entry = {"id": "mini-en-02", "measure": "correct_facts", "value": True, "reason": "read"}
        for label, entries, named in [
                ("id", [dict(entry, id=LONG)], "unknown question id 'xxx"),
                ("key", [dict(entry, **{LONG: 1})], "unknown key(s) xxx"),
                ("measure", [dict(entry, measure=LONG)], "unknown measure 'xxx"),
                ("1,000 entries of one problem", [dict(entry, reason="")] * 1000,
                 "correct_facts and 990 more"),
                ("1,000 problems", [dict(entry, measure=f"m{i}") for i in range(1000)],
                 "and 995 more problem(s)")]:
            with self.subTest(label):
                reviews = self.path("reviews-mini.json")
                self.write_json(reviews, {"format": 1, "reviews": entries})
                err = self.refused(score, [MINI_QUESTIONS, MINI_RAW, "--reviews", reviews,
                                           "--out", self.path("results.md")], reviews, named)
                # The measure is named twice (the entry, the problem), each cut short.
                self.assertLessEqual(len(re.findall("x{50,}", err)), 2, err)


if __name__ == "__main__":
    unittest.main()
