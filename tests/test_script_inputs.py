"""Bad input to the scripts that ask, atomize and evaluate: each is refused
with one line on stderr naming the file and the line (or the option), exit 2,
no traceback, and no file changed. Against real loopback servers (a widget,
model APIs), which must see no request when the refusal comes first.

- a line of an output being continued (run.py's OUT, atomize.py's ATOMS,
  ai_eval.py's --raw) with a field of the wrong type;
- a numeric option that is not finite or out of its range;
- ai_eval.py's missing --cases file, named as itself;
- audit_answers.py's --collected-at that is not a date, and an OUT that is
  a folder.
"""

import json
import os
import shutil
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.support import FIXTURES, ROOT, WidgetServer, call_main, run_script

import ai_eval  # noqa: E402  (tools/eval-benchmark is on sys.path through support)
import atomize  # noqa: E402
import audit_answers  # noqa: E402
import run  # noqa: E402

# The benchmark's own question file (no quarter's: an operator's repository may hold others).
QUESTIONS = os.path.join(ROOT, "Documents", "c4-benchmark", "questions-med.json")
SCENARIOS = os.path.join(FIXTURES, "scenarios-mini.json")
KEYED_SCENARIOS = os.path.join(ROOT, "evals", "permits", "scenarios.json")
INTAKE_CASES = os.path.join(FIXTURES, "ai", "intake-cases.json")
NOT_FINITE = ("nan", "inf", "-inf", "1e999")


def atoms_reply(request):
    return {"atoms": [{"text": "A fence needs a permit.", "correctness": "correct",
                       "verified_truth": "It does.", "citation": None, "topic": "zoning",
                       "specificity": 0.5, "actionability": 0.5, "importance": 3}]}


def intake_reply(request):
    return {"project_type": "adu", "jurisdiction": "oakland", "fields": {}}


class ScriptInputs(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def serve(self, server):
        server.__enter__()
        self.addCleanup(server.__exit__)
        return server

    def model(self, flavour, reply):
        server = self.serve(ModelServer(flavour, reply=reply))
        os.environ.update(server.environ())
        return server

    def files(self):
        """Every file under the temporary folder, with its bytes."""
        found = {}
        for folder, _dirs, names in os.walk(self.tmp):
            for name in names:
                with open(os.path.join(folder, name), "rb") as fh:
                    found[os.path.join(folder, name)] = fh.read()
        return found

    def assert_refused(self, code, err, prog, place, *words):
        """Exit 2, and one line on stderr: ``prog: place...``, naming ``words``."""
        self.assertEqual(code, 2, err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith(f"{prog}: {place}"), err)
        for word in words:
            self.assertIn(word, err)

    def refused_untouched(self, module, argv, prog, place, *words, servers=()):
        """``module`` refuses ``argv`` as assert_refused says, with no file
        under the temporary folder changed and no request to ``servers``."""
        before = self.files()
        asked = [len(server.requests) for server in servers]
        code, out, err = call_main(module, argv)
        self.assert_refused(code, err, prog, place, *words)
        self.assertEqual(out, "")
        self.assertEqual(self.files(), before)
        self.assertEqual([len(server.requests) for server in servers], asked)

    def edit_line(self, path, number, **fields):
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines(True)
        line = json.loads(lines[number - 1])
        line.update(fields)
        lines[number - 1] = json.dumps(line, ensure_ascii=False) + "\n"
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("".join(lines))


class ContinuingRawAnswers(ScriptInputs):
    """run.py continuing an OUT whose line 1 has a field of the wrong type."""

    def setUp(self):
        super().setUp()
        self.questions = shutil.copy(QUESTIONS, self.path("questions-med.json"))
        self.widget = self.serve(WidgetServer())
        self.out = self.path("raw.jsonl")
        code, _, err = call_main(run, self.argv("--limit", "3"))
        self.assertEqual((code, err), (0, ""))
        with open(self.out, encoding="utf-8") as fh:
            self.written = fh.read()

    def argv(self, *extra):
        return [self.questions, self.out, "--endpoint", self.widget.url, "--retry-pause", "0",
                "--quiet"] + list(extra)

    def test_a_field_of_the_wrong_type_is_refused_before_anything_is_written(self):
        for field, value in [("response", [1]), ("response", "x"), ("derived", "x"),
                             ("derived", None), ("target", "x"), ("attempts", "x"),
                             ("attempts", [1]), ("attempts", None), ("earlier_responses", "x"),
                             ("redone", "yes")]:
            for extra in ([], ["--retry-failed"]):
                with self.subTest(field=field, value=value, extra=extra):
                    with open(self.out, "w", encoding="utf-8", newline="\n") as fh:
                        fh.write(self.written)
                    self.edit_line(self.out, 1, **{field: value})
                    self.refused_untouched(run, self.argv("--limit", "4", *extra), "run.py",
                                           f"{self.out}:1: ", field, servers=[self.widget])

    def test_through_a_real_interpreter(self):
        self.edit_line(self.out, 1, response=[1])
        before = self.files()
        proc = run_script("run.py", *self.argv("--limit", "4"))
        self.assert_refused(proc.returncode, proc.stderr, "run.py", f"{self.out}:1: ",
                            "response must be an object or null")
        self.assertEqual(self.files(), before)


class ContinuingAtoms(ScriptInputs):
    """atomize.py continuing an ATOMS whose line 1 has a field of the wrong type."""

    def setUp(self):
        super().setUp()
        generator = self.model("openai", lambda request: "Yes, a fence needs a permit.")
        self.raw = self.path("raw.jsonl")
        code, _, err = call_main(run, [SCENARIOS, self.raw, "--provider", "openai",
                                       "--model", "gen-1", "--quiet"])
        self.assertEqual((code, err), (0, ""))
        generator.__exit__()
        self.evaluator = self.model("anthropic", atoms_reply)
        self.out = self.path("atoms.jsonl")
        code, _, err = call_main(atomize, self.argv("--limit", "1"))
        self.assertEqual((code, err), (0, ""))
        with open(self.out, encoding="utf-8") as fh:
            self.written = fh.read()

    def argv(self, *extra):
        return [self.raw, self.out, "--provider", "anthropic", "--model", "claude-x",
                "--cases", SCENARIOS, "--quiet"] + list(extra)

    def test_a_field_of_the_wrong_type_is_refused_before_anything_is_written(self):
        for fields, extra, named in [
                ({"calls": "x"}, [], "calls"),
                ({"error": "boom", "atoms": None, "calls": "x"}, ["--retry-errors"], "calls"),
                ({"error": "boom", "atoms": None, "earlier_errors": "x"}, ["--retry-errors"],
                 "earlier_errors"),
                ({"error": 5}, [], "error"),
                ({"error": ["boom"]}, ["--retry-errors"], "error"),
                ({"repeat": "0"}, [], "repeat"),
                ({"id": ["tiny-house"]}, [], "id"),
                ({"atoms": "none"}, [], "atoms"),
                ({"redone": "yes"}, [], "redone")]:
            with self.subTest(fields=fields, extra=extra):
                with open(self.out, "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(self.written)
                self.edit_line(self.out, 1, **fields)
                self.refused_untouched(atomize, self.argv(*extra), "atomize.py",
                                       f"{self.out}:1: ", named, servers=[self.evaluator])


class ContinuingAiEvalRaw(ScriptInputs):
    """ai_eval.py continuing a --raw whose line 1 has a field of the wrong type."""

    def setUp(self):
        super().setUp()
        self.server = self.model("openai", intake_reply)
        self.raw, self.output = self.path("intake.raw.jsonl"), self.path("intake.json")
        code, _, err = call_main(ai_eval, self.argv("--limit", "2"))
        self.assertEqual(code, 1, err)   # the replies are scored wrong: a result all the same
        self.assertTrue(os.path.exists(self.output))
        with open(self.raw, encoding="utf-8") as fh:
            self.written = fh.read()

    def argv(self, *extra):
        return ["intake", "--cases", INTAKE_CASES, "--output", self.output, "--raw", self.raw,
                "--provider", "openai", "--model", "loopback-model", "--quiet"] + list(extra)

    def test_a_field_of_the_wrong_type_is_refused_before_anything_is_written(self):
        for fields, named in [({"calls": "x"}, "calls"), ({"calls": [1]}, "calls"),
                              ({"calls": [{"usage": "x"}]}, "calls[0].usage"),
                              ({"calls": [{"usage": {"input_tokens": "12"}}]},
                               "calls[0].usage.input_tokens"),
                              ({"started_at": 5}, "started_at"),
                              ({"started_at": "yesterday"}, "started_at"),
                              # The shape of a time on no day of the calendar.
                              ({"started_at": "2026-02-30T10:00:00Z"}, "started_at"),
                              ({"error": ["x"]}, "error"), ({"id": ["i-en-1"]}, "id")]:
            with self.subTest(fields=fields):
                with open(self.raw, "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(self.written)
                self.edit_line(self.raw, 1, **fields)
                self.refused_untouched(ai_eval, self.argv(), "ai_eval.py", f"{self.raw}:1: ",
                                       named, servers=[self.server])


class NumericOptions(ScriptInputs):
    """Every numeric option refuses a number that is not finite or out of
    its range while parsing, naming the option: nothing is asked."""

    def check(self, module, prog, argv, options, servers):
        for option, values in options.items():
            for value in values:
                with self.subTest(option=option, value=value):
                    self.refused_untouched(module, argv + [f"{option}={value}"], prog,
                                           f"argument {option}: ", repr(value),
                                           servers=servers)

    def test_run_py_asking_a_website_assistant(self):
        with open(QUESTIONS, encoding="utf-8") as fh:
            first = json.load(fh)["questions"][0]["question"]
        widget = self.serve(WidgetServer(modes={first: "http500"}))   # so the retry pause runs
        argv = [QUESTIONS, self.path("raw.jsonl"), "--endpoint", widget.url, "--limit", "1",
                "--quiet"]
        self.check(run, "run.py", argv, {
            "--timeout": NOT_FINITE + ("0", "-1", "1e12"),
            "--retry-pause": NOT_FINITE + ("-1", "1e12"),
            "--concurrency": ("nan", "0", "257"),
            "--max-bytes": ("inf", "0", str(2 ** 64)),
            "--limit": ("nan", "0")}, [widget])

    def test_run_py_asking_a_model(self):
        server = self.model("openai", lambda request: "An answer.")
        argv = [SCENARIOS, self.path("raw.jsonl"), "--provider", "openai", "--model", "gen-1",
                "--quiet"]
        self.check(run, "run.py", argv, {"--timeout": NOT_FINITE,
                                         "--max-tokens": ("nan", "0", "-5", str(10 ** 12)),
                                         "--temperature": NOT_FINITE + ("-0.5", "3")},
                   [server])

    def test_atomize_py(self):
        generator = self.model("openai", lambda request: "Yes, a fence needs a permit.")
        raw = self.path("raw.jsonl")
        self.assertEqual(call_main(run, [SCENARIOS, raw, "--provider", "openai", "--model",
                                         "gen-1", "--quiet"])[0], 0)
        generator.__exit__()
        evaluator = self.model("anthropic", atoms_reply)
        argv = [raw, self.path("atoms.jsonl"), "--provider", "anthropic", "--model", "claude-x",
                "--cases", SCENARIOS, "--quiet"]
        self.check(atomize, "atomize.py", argv, {
            "--timeout": NOT_FINITE + ("0", "1e12"),
            "--max-tokens": ("inf", "0", str(10 ** 12)),
            "--concurrency": ("nan", "0", "1001"), "--repeat": ("inf", "0"),
            "--limit": ("nan", "0")}, [evaluator])

    def test_ai_eval_py(self):
        server = self.model("openai", intake_reply)
        argv = ["intake", "--cases", INTAKE_CASES, "--output", self.path("intake.json"),
                "--raw", self.path("intake.raw.jsonl"), "--provider", "openai",
                "--model", "loopback-model", "--quiet"]
        self.check(ai_eval, "ai_eval.py", argv, {
            "--timeout": NOT_FINITE + ("0", "1e12"), "--max-tokens": ("inf", "0"),
            "--concurrency": ("nan", "0", "65"), "--limit": ("nan", "0")}, [server])

    def test_through_a_real_interpreter(self):
        widget = self.serve(WidgetServer())
        out = self.path("raw.jsonl")
        for option, value in (("--retry-pause", "nan"), ("--retry-pause", "inf"),
                              ("--timeout", "inf")):
            with self.subTest(option=option, value=value):
                proc = run_script("run.py", QUESTIONS, out, "--endpoint", widget.url,
                                  "--limit", "4", option, value)
                self.assert_refused(proc.returncode, proc.stderr, "run.py",
                                    f"argument {option}: ", repr(value))
                self.assertFalse(os.path.exists(out))
                self.assertEqual(widget.requests, [])


class MissingCases(ScriptInputs):
    def test_ai_eval_names_the_missing_cases_file(self):
        server = self.model("openai", intake_reply)
        cases = self.path("nope.json")
        for extra in ([], ["--vocabulary", os.path.join(FIXTURES, "ai", "vocabulary.json")]):
            with self.subTest(extra=extra):
                before = self.files()
                code, _, err = call_main(ai_eval, [
                    "intake", "--cases", cases, "--output", self.path("e.json"),
                    "--raw", self.path("e.raw.jsonl"), "--provider", "openai",
                    "--model", "loopback-model", "--quiet"] + extra)
                self.assertEqual((code, err), (2, f"ai_eval.py: {cases}: no such file\n"))
                self.assertEqual(self.files(), before)
                self.assertEqual(server.requests, [])


class AuditAnswers(ScriptInputs):
    def test_collected_at_must_be_a_real_date(self):
        out = self.path("answers.jsonl")
        for value in ("yesterday", "2026-02-30", "2026-12-1", "20261201", "2026-12-01T10:00Z",
                      ""):
            with self.subTest(value=value):
                self.refused_untouched(audit_answers, [KEYED_SCENARIOS, out, "--collected-at",
                                                       value], "audit_answers.py",
                                       "argument --collected-at: ", "YYYY-MM-DD")
        code, _, err = call_main(audit_answers, [KEYED_SCENARIOS, out,
                                                 "--collected-at", "2026-11-30"])
        self.assertEqual((code, err), (0, ""))
        self.assertEqual({line["collected_at"] for line in support.read_lines(out)},
                         {"2026-11-30"})

    def test_out_a_folder_is_named_as_given(self):
        folder = self.path("s")
        os.mkdir(folder)
        before = self.files()
        proc = run_script("audit_answers.py", KEYED_SCENARIOS, folder)
        self.assertEqual((proc.returncode, proc.stderr),
                         (2, f"audit_answers.py: {folder}: is a folder, not a file\n"))
        self.assertEqual(self.files(), before)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["s"])


if __name__ == "__main__":
    unittest.main()
