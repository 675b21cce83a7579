"""Nothing the user gave is lost: a file that is not the tool's own output is
never cut as if a crash had torn it, an output named as an input is refused
before anything is written, and a number option takes ASCII digits alone.

Each refusal is exit 2 with one line on stderr naming the file, and leaves
every file byte for byte as it was."""

import contextlib
import io
import json
import os
import shutil
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import model as standin_model
from tests.support import FIXTURES, call_main, read_lines

import agreement  # noqa: E402
import ai_eval  # noqa: E402
import atomize  # noqa: E402
import audit_answers  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit import BadInput, cli, jsonl  # noqa: E402
from evalkit.asking import prompts, resume  # noqa: E402

SCENARIOS = os.path.join(FIXTURES, "scenarios-mini.json")
QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
AI = os.path.join(FIXTURES, "ai")
PERMITS = os.path.join(support.ROOT, "evals", "permits", "scenarios.json")
COLLECTED = [{"id": case, "answer": answer, "collected_by": "A. Reviewer",
              "collected_at": "2026-11-20", "product": "Chat", "product_version": "1"}
             for case, answer in (("tiny-house", "Yes, with a permit."),
                                  ("fence", "Front fences may be 3.5 feet tall."))]


class TmpTestCase(support.TempDirCase):
    def make(self, name, data):
        with open(self.path(name), "wb") as fh:
            fh.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        return self.path(name)

    def copy(self, source, name):
        return shutil.copy(source, self.path(name))

    def bytes_of(self, path):
        with open(path, "rb") as fh:
            return fh.read()

    def snapshot(self):
        """``{name: bytes}`` of every file under the temporary folder."""
        found = {}
        for folder, _dirs, files in os.walk(self.tmp):
            for name in files:
                path = os.path.join(folder, name)
                found[os.path.relpath(path, self.tmp)] = self.bytes_of(path)
        return found

    def assert_refused(self, module, argv, *expected):
        """``module.main(argv)`` exits 2 with one line naming ``expected``,
        and every file of the temporary folder is as it was."""
        before = self.snapshot()
        code, _out, err = call_main(module, argv)
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        for text in expected:
            self.assertIn(text, err)
        self.assertEqual(self.snapshot(), before)
        return err

    def model_server(self, reply=None):
        srv = ModelServer("openai", reply=reply)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        return srv

    def collected(self):
        return self.make("collected.jsonl", "".join(json.dumps(line) + "\n" for line in COLLECTED))

    def scenario_run(self):
        """``[scenario file, raw file, atoms file]`` of a small scenario run,
        its atoms from a loopback stand-in evaluator."""
        cases = self.copy(SCENARIOS, "scenarios.json")
        for name in ("sources.json", "jargon.json"):
            self.copy(os.path.join(FIXTURES, name), name)
        raw = self.scenario_raw()
        self.model_server(standin_model("openai", False))
        atoms = self.path("atoms.jsonl")
        code, _, err = call_main(atomize, [raw, atoms, "--cases", cases, "--provider", "openai",
                                           "--model", "evaluator-x", "--quiet"])
        self.assertEqual(code, 0, err)
        return [cases, raw, atoms]

    def scenario_raw(self, name="gen.jsonl"):
        """Raw scenario answers, imported by hand (run.py --provider manual)."""
        raw = self.path(name)
        code, _, err = call_main(run, [SCENARIOS, raw, "--provider", "manual",
                                       "--from", self.collected(), "--quiet"])
        self.assertEqual(code, 0, err)
        return raw


class ForeignFilesAreNotCut(TmpTestCase):
    """Defect 1: the resume reader cut the last line of any file without a
    final newline before it knew the file was the tool's own."""

    def test_an_env_file_given_as_raw_is_refused_and_kept(self):
        self.model_server()
        notes = self.make("notes.env", "OPENAI_API_KEY=sk-live-x")
        err = self.assert_refused(ai_eval, [
            "intake", "--cases", os.path.join(AI, "intake-cases.json"), "--raw", notes,
            "--output", self.path("o.json"), "--provider", "openai", "--model", "m", "--quiet"],
            "notes.env:1: the last line has no newline and is not the beginning of a line "
            "this tool writes")
        self.assertNotIn("sk-live", err)
        self.assertEqual(self.bytes_of(notes), b"OPENAI_API_KEY=sk-live-x")

    def test_a_json_file_saved_without_its_newline_is_refused_and_kept(self):
        target = self.make("x.json", json.dumps({"a": 1, "suite": "scenario"}))
        self.assert_refused(run, [SCENARIOS, target, "--provider", "manual",
                                  "--from", self.collected(), "--quiet"],
                            "x.json:1: not a raw answer line (no id)")

    def test_a_foreign_first_line_is_found_before_the_last_is_cut(self):
        raw = self.scenario_raw()
        self.model_server()
        target = self.make("o.jsonl", '{"a":1}\n{"id":"x"}')
        self.assert_refused(atomize, [raw, target, "--provider", "openai", "--model", "m",
                                      "--cases", SCENARIOS, "--quiet"],
                            "o.jsonl:1: written by another evaluator")
        self.assertEqual(self.bytes_of(target), b'{"a":1}\n{"id":"x"}')

    def test_a_whole_last_line_without_its_newline_must_belong_too(self):
        raw = self.scenario_raw()
        line = dict(read_lines(raw)[0], run={"cases_sha256": "0" * 64})
        target = self.make("raw.jsonl", jsonl.dumps_line(line))
        self.assert_refused(run, [SCENARIOS, target, "--provider", "manual",
                                  "--from", self.collected(), "--quiet"],
                            "raw.jsonl:1: written for another question file")


def tagged(where, line):
    """``belongs`` for the lines of the tests' tool: ``{"run": "t"}``."""
    if line.get("run") != "t":
        raise BadInput(f"{where}: written by another run")


class TornOrForeign(TmpTestCase):
    """What may follow the last newline of a file the tool continues: the
    beginning of a record (cut anywhere, a character in two included), or a
    whole record without its newline; nothing else."""

    def done(self, path):
        """``(done, stderr)`` of continuing ``path``."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            done = resume.read_done("tool.py", path, lambda line: line.get("id"), tagged)
        return done, err.getvalue()

    def test_every_beginning_of_a_record_is_a_torn_line_and_only_read(self):
        records = [read_lines(RAW)[0], {"id": "b", "run": "t", "text": "é\u05d0 \"q\" \\ \n😀",
                                        "n": [-2.5e-3, 0, True, False, None, [], {}]}]
        for record in records:
            data = (jsonl.dumps_line(record)).encode("utf-8")
            for cut in range(1, len(data) + 1):
                path = self.make("f.jsonl", b'{"id":"a","run":"t"}\n' + data[:cut])
                lines, torn = jsonl.read_resumable(path)
                self.assertEqual([number for number, _ in lines], [1])
                self.assertEqual((torn.number, torn.offset), (2, 21), data[:cut])
                self.assertEqual(torn.line, record if cut == len(data) else None)
                self.assertEqual(self.bytes_of(path), b'{"id":"a","run":"t"}\n' + data[:cut])

    def test_a_tail_no_record_begins_with_is_refused_and_kept(self):
        tails = [b"OPENAI_API_KEY=sk-live-x", b" ", b"[1]", b'"text"', b"# a note",
                 b'{"a": 1}{', b'{"a": 1} x', b'{"a" 1', b'{"a": 01', b'{"a": tx',
                 b'{"a": "\\x', b'{"a": "\\u12g', b'{"a": 1,}', b'{"a": [1,]', b'{"a": 1}\xc3',
                 b'{"a": "\xff', b'{"a": NaN', b"\xef\xbb\xbf{", b'{"a": 1.e']
        for tail in tails:
            with self.subTest(tail=tail):
                data = b'{"id":"a","run":"t"}\n' + tail
                path = self.make("f.jsonl", data)
                with self.assertRaises(BadInput) as caught:
                    self.done(path)
                self.assertIn("f.jsonl:2: the last line has no newline and is not the "
                              "beginning of a line this tool writes", str(caught.exception))
                self.assertEqual(self.bytes_of(path), data)

    def test_a_torn_line_is_kept_when_an_earlier_line_is_refused(self):
        for first, message in (('{"id":"a","run":"other"}\n', "f.jsonl:1: written by another run"),
                               ('{"id":"a","run":"t"}\n{"id":"a","run":"t"}\n',
                                "f.jsonl:2: a is already on an earlier line")):
            with self.subTest(message):
                data = (first + '{"id":"b","run":"t","ok":tr').encode("utf-8")
                path = self.make("f.jsonl", data)
                with self.assertRaises(BadInput) as caught:
                    self.done(path)
                self.assertIn(message, str(caught.exception))
                self.assertEqual(self.bytes_of(path), data)

    def test_a_torn_line_of_the_tools_own_is_cut_once_all_belong(self):
        for tail in ('{"id":"b","run":"t","text":"caf\xc3', '{"id":"b","run":"t"}'):
            with self.subTest(tail=tail):
                path = self.make("f.jsonl", b'{"id":"a","run":"t"}\n' + tail.encode("latin-1"))
                done, err = self.done(path)
                self.assertEqual(list(done), ["a"])
                self.assertIn("f.jsonl: the last line was cut off by an interrupted run", err)
                self.assertEqual(self.bytes_of(path), b'{"id":"a","run":"t"}\n')
        path = self.make("f.jsonl", b'{"id":"a","run":"t"}\n{"id":"b","run":"x"}')
        with self.assertRaises(BadInput) as caught:
            self.done(path)
        self.assertIn("f.jsonl:2: written by another run", str(caught.exception))


class OutputsAreNotInputs(TmpTestCase):
    """Defect 2: an output named as an input was written over it, exit 0."""

    def test_score_refuses_each_output_that_is_an_input(self):
        q, raw = self.copy(QUESTIONS, "q.json"), self.copy(RAW, "raw.jsonl")
        for option in ("--out", "--json", "--csv", "--html", "--review-sheet", "--review-page"):
            for given, name in ((raw, "raw.jsonl"), (q, "q.json")):
                with self.subTest(option=option, name=name):
                    self.assert_refused(score, [q, raw, option, given],
                                        f"{given}: {option} is the same file as the input {given}")

    def test_another_spelling_or_a_link_is_the_same_file(self):
        q, raw = self.copy(QUESTIONS, "q.json"), self.copy(RAW, "raw.jsonl")
        reviews = self.copy(os.path.join(FIXTURES, "reviews-mini.json"), "reviews.json")
        os.symlink(raw, self.path("link.md"))
        spelled = os.path.join(self.tmp, ".", "sub", "..", "q.json")
        os.mkdir(self.path("sub"))
        self.assert_refused(score, [q, raw, "--out", self.path("link.md")],
                            "link.md: --out is the same file as the input", "raw.jsonl")
        self.assert_refused(score, [q, raw, "--json", spelled], "--json is the same file")
        self.assert_refused(score, [q, raw, "--reviews", reviews, "--csv", reviews],
                            "--csv is the same file as the input")

    def test_score_of_the_scenario_suite_refuses_its_inputs_too(self):
        cases, raw, atoms = self.scenario_run()
        for option, given in (("--out", raw), ("--json", atoms),
                              ("--out", self.path("sources.json"))):
            with self.subTest(option=option, given=given):
                self.assert_refused(score, [cases, raw, atoms, "--example", option, given],
                                    f"{option} is the same file as the input")

    def test_ai_eval_writes_neither_over_its_cases_nor_the_result_over_the_raw(self):
        self.model_server()
        cases = self.copy(os.path.join(AI, "intake-cases.json"), "intake-cases.json")
        self.copy(os.path.join(AI, "vocabulary.json"), "vocabulary.json")
        base = ["intake", "--cases", cases, "--provider", "openai", "--model", "m", "--quiet"]
        self.assert_refused(ai_eval, base + ["--output", cases, "--raw", self.path("r.jsonl")],
                            "--output is the same file as the input")
        self.assert_refused(ai_eval, base + ["--output", self.path("x.json"),
                                             "--raw", self.path("x.json")],
                            "x.json: --output is the same file as the input")
        self.assert_refused(ai_eval, base + ["--raw", self.path("vocabulary.json")],
                            "--raw is the same file as the input")

    def test_audit_answers_refuses_its_scenario_file(self):
        cases = self.copy(PERMITS, "scenarios.json")
        self.assert_refused(audit_answers, [cases, cases],
                            "scenarios.json: OUT is the same file as the input")

    def test_run_and_atomize_refuse_a_case_file_saved_on_one_line(self):
        # A case file on one line without its newline was taken for a torn
        # raw line: emptied, then filled with answers.
        with open(SCENARIOS, encoding="utf-8") as fh:
            one_line = json.dumps(json.load(fh))
        cases = self.make("scenarios.json", one_line)
        self.assert_refused(run, [cases, cases, "--provider", "manual",
                                  "--from", self.collected(), "--quiet"],
                            "OUT is the same file as the input")
        raw = self.scenario_raw()
        self.model_server()
        self.assert_refused(atomize, [raw, cases, "--cases", cases, "--provider", "openai",
                                      "--model", "m", "--quiet"],
                            "ATOMS is the same file as the input")

    def test_same_file(self):
        raw = self.copy(RAW, "raw.jsonl")
        os.symlink(raw, self.path("link"))
        os.link(raw, self.path("hard"))
        for other in ("link", "hard", "./raw.jsonl", "sub/../raw.jsonl"):
            self.assertTrue(cli.same_file(self.path(other), raw), other)
        self.assertTrue(cli.same_file(self.path("new"), os.path.join(self.tmp, ".", "new")))
        self.assertFalse(cli.same_file(self.path("new"), raw))


class NothingPassedOver(TmpTestCase):
    """Found by a second outside tester: outputs into a folder read whole,
    two outputs in one file, options one suite passes over, answers of the
    agreement set counted twice or under another language."""

    def test_score_writes_nothing_into_the_code_beside_the_scenarios(self):
        run_files = self.scenario_run()
        os.makedirs(self.path("code"))
        self.copy(os.path.join(FIXTURES, "code-mini.json"), os.path.join("code", "city.json"))
        for option in ("--json", "--out"):
            for name in ("city.json", "new.json"):
                with self.subTest(option=option, name=name):
                    self.assert_refused(score, run_files + [option, self.path("code", name)],
                                        "whose every file is read as an input")

    def test_options_a_suite_does_not_read_are_refused(self):
        run_files = self.scenario_run()
        self.assert_refused(score, run_files + ["--csv", self.path("x.csv")],
                            "--csv: not read by the scenario suite")
        self.assert_refused(score, run_files + ["--publish", self.path("pub"),
                                                "--out", self.path("x.md")],
                            "--out: not with --publish")
        self.assert_refused(score, [QUESTIONS, RAW, "--html-dir", self.path("pages")],
                            "--html-dir: read by the scenario suite only")

    def test_two_outputs_in_one_file(self):
        self.assert_refused(score, [QUESTIONS, RAW, "--out", self.path("x"),
                                    "--json", self.path("x")],
                            "--json is the same file as --out")

    def test_ai_eval_writes_no_result_among_its_prompts_or_corpus(self):
        self.model_server()
        base = ["--provider", "openai", "--model", "m", "--quiet"]
        intake = ["intake", "--cases", os.path.join(AI, "intake-cases.json")] + base
        self.assert_refused(ai_eval, intake + ["--output", os.path.join(prompts.PROMPTS_DIR,
                                                                        "intake-v2.json")],
                            "whose every file is read as an input")
        corpus = self.path("corpus")
        shutil.copytree(os.path.join(AI, "corpus"), corpus)
        grounding = ["grounding", "--cases", os.path.join(AI, "grounding-cases.json"),
                     "--corpus", corpus, "--rules", os.path.join(AI, "rules.json"),
                     "--vocabulary", os.path.join(AI, "vocabulary.json")] + base
        self.assert_refused(ai_eval, grounding + ["--output", os.path.join(corpus, "new.json")],
                            "whose every file is read as an input")

    def agreement_set(self, edit):
        """A copy of the agreement set with ``edit(name, doc)`` applied."""
        folder = self.path("agreement")
        shutil.copytree(os.path.join(agreement.BENCH, "agreement"), folder)
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                doc = json.load(fh)
            edit(name, doc)
            with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
                json.dump(doc, fh, ensure_ascii=False)
        return folder

    def test_an_agreement_answer_counts_once_and_in_its_language(self):
        def twice(name, doc):
            if name == "agreement-en.json":
                doc["answers"].append(doc["answers"][0])

        def hebrew_in_english(name, doc):
            if name == "agreement-en.json":
                doc["answers"][0]["question"] = doc["answers"][0]["question"].replace("-en-",
                                                                                      "-he-")

        def russian_file_said_hebrew(name, doc):
            if name == "agreement-ru-2.json":
                doc["lang"] = "he"
        for edit, expected in ((twice, "is also in"), (hebrew_in_english, "is a question in he"),
                               (russian_file_said_hebrew, "an agreement file is {format: 1, "
                                                          "lang: 'ru'")):
            with self.subTest(edit.__name__):
                folder = self.agreement_set(edit)
                self.assert_refused(agreement, ["--set", folder], expected)
                shutil.rmtree(folder)


class AsciiNumbers(TmpTestCase):
    """Defect 3: int() and float() took other scripts' digits and 1_0."""

    def test_whole_numbers(self):
        parse = cli.number(minimum=1, integer=True)
        for text, value in (("1", 1), ("10", 10), ("+3", 3), (" 7 ", 7)):
            self.assertEqual(parse(text), value)
        self.refused_texts(parse, ("١", "١٠", "１", "1_0", "1.0", "", "0x10", "1e3", "٣"),
                           "a whole number of at least 1")

    def test_fractions(self):
        parse = cli.number(above=0, maximum=cli.MAX_SECONDS)
        for text, value in (("1", 1.0), ("1.5", 1.5), (".5", 0.5), ("2.", 2.0), ("1e3", 1000.0),
                            ("15E-1", 1.5), (" 3 ", 3.0)):
            self.assertEqual(parse(text), value)
        self.refused_texts(parse, ("1_0", "1_0.5", "١.٥", "٣", "１", "inf", "nan", "Infinity",
                                   "1e999", "0x1p0", "1.5.", "e3"),
                           "a number above 0 and at most 86400")

    def refused_texts(self, parse, texts, wanted):
        for text in texts:
            with self.subTest(text=text):
                with self.assertRaises(Exception) as caught:
                    parse(text)
                self.assertIn(f"must be {wanted}, not {text!r}", str(caught.exception))

    def test_run_refuses_a_limit_in_other_digits(self):
        for text in ("١", "1_0"):
            with self.subTest(text=text):
                err = self.assert_refused(run, [SCENARIOS, self.path("raw.jsonl"), "--limit", text,
                                                "--provider", "manual", "--from", self.collected()])
                self.assertEqual(err, f"run.py: argument --limit: must be a whole number of at "
                                      f"least 1, not {text!r} (see --help)\n")
                self.assertFalse(os.path.exists(self.path("raw.jsonl")))


if __name__ == "__main__":
    unittest.main()
