"""Terminal escape sequences never reach stderr (issue 26, B): a file name
holding ESC[31m and a server's error text holding ESC]0;title BEL are printed
as escapes (\\x1b, \\x07) by every script, in process and through a real
interpreter, and so are the progress lines, the providers' notes, resume's
and budget's lines."""

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error
from tests.standins import model
from tests.support import FIXTURES, ROOT, call_main

import atomize  # noqa: E402
import compare  # noqa: E402
import lint_questions  # noqa: E402
import reproduce  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.asking import budget, resume  # noqa: E402
from evalkit import cli  # noqa: E402
from evalkit.asking.progress import Progress  # noqa: E402
from evalkit.asking.providers import base  # noqa: E402

CASES = os.path.join(FIXTURES, "scenarios-mini.json")
QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
RED = "\x1b[31m"                      # a colour, in a file name
TITLE = "\x1b]0;owned\x07"            # retitles the terminal, in a server's error text
CLEAR = "\x1b[2J\u202e"               # clears the screen; a right-to-left override
# An example input: its absence skips the tests that copy it.
DEMO, NEEDS_DEMO = support.example_quarter("demo-2026-12")
SHOWN = {RED: "\\x1b[31m", TITLE: "\\x1b]0;owned\\x07", CLEAR: "\\x1b[2J\\u202e"}


class Escaped(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)

    def assert_escaped(self, err, *planted):
        for char in ("\x1b", "\x07", "\x9b", "\u202e", "\r"):
            self.assertNotIn(char, err)
        for text in planted:
            self.assertIn(SHOWN[text], err)

    def test_printable(self):
        printable = cli.printable
        self.assertEqual(printable(f"a{RED}b\nc{TITLE}"), "a\\x1b[31mb c\\x1b]0;owned\\x07")
        self.assertEqual(printable("\x00\x7f\x9b\u2066\u202a\udcff"),
                         "\\x00\\x7f\\x9b\\u2066\\u202a\\udcff")
        self.assertEqual(printable("plain: C:\\path, שלום, \u200f"), "plain: C:\\path, שלום, \u200f")

    def test_a_file_name_in_a_refusal(self):
        questions = os.path.join(self.tmp, f"{RED}questions.json")
        code, out, err = call_main(score, [questions, RAW])
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assert_escaped(err, RED)

    def test_a_file_name_through_a_real_interpreter(self):
        questions = os.path.join(self.tmp, f"{RED}questions.json")
        proc = support.run_script("score.py", questions, RAW)
        self.assertEqual((proc.returncode, proc.stdout), (2, ""))
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertTrue(proc.stderr.startswith("score.py: "), proc.stderr)
        self.assert_escaped(proc.stderr, RED)

    def test_the_parsers_error(self):
        code, _, err = call_main(score, [QUESTIONS, RAW, f"--colour{RED}"])
        self.assertEqual(code, 2)
        self.assertEqual(err, "score.py: unrecognized arguments: --colour\\x1b[31m (see --help)\n")

    def test_a_servers_error_text_on_the_progress_lines(self):
        raw, atoms = os.path.join(self.tmp, "raw.jsonl"), os.path.join(self.tmp, "atoms.jsonl")
        with ModelServer("openai", reply=model("openai", False)) as gen:
            os.environ.update(gen.environ())
            self.assertEqual(call_main(run, [CASES, raw, "--provider", "openai", "--model", "g",
                                             "--quiet"]), (0, "", ""))
        refusal = error("anthropic", 400, "invalid_request_error", f"bad {TITLE} request {CLEAR}")
        with ModelServer("anthropic", script=[refusal] * 2) as judge:
            os.environ.update(judge.environ())
            code, out, err = call_main(atomize, [raw, atoms, "--provider", "anthropic", "--model",
                                                 "j", "--cases", CASES])
        self.assertEqual((code, out), (1, ""))
        self.assertEqual(len(err.splitlines()), 4, err)  # 2 cases, the failures, the summary
        self.assert_escaped(err, TITLE, CLEAR)

    def test_a_servers_error_text_in_a_fatal_refusal(self):
        refusal = error("openai", 401, "invalid_api_key", f"no {TITLE} key")
        with ModelServer("openai", script=[refusal]) as gen:
            os.environ.update(gen.environ())
            code, out, err = call_main(run, [CASES, os.path.join(self.tmp, "raw.jsonl"),
                                             "--provider", "openai", "--model", "g"])
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assert_escaped(err, TITLE)

    def test_an_id_in_atomizes_own_line(self):
        raw = os.path.join(self.tmp, "raw.jsonl")
        refusal = error("openai", 400, "invalid_request_error", "no")
        with ModelServer("openai", script=[refusal] * 2) as gen:
            os.environ.update(gen.environ())
            self.assertEqual(call_main(run, [CASES, raw, "--provider", "openai", "--model", "g",
                                             "--quiet"])[0], 1)
        lines = support.read_lines(raw)
        lines[0]["id"] += RED  # a raw file as someone edited it
        with open(raw, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in lines)
        with ModelServer("anthropic", reply=model("anthropic", True)) as judge:
            os.environ.update(judge.environ())
            code, _, err = call_main(atomize, [raw, os.path.join(self.tmp, "atoms.jsonl"),
                                               "--provider", "anthropic", "--model", "j",
                                               "--cases", CASES])
        self.assertEqual(code, 0, err)
        self.assertIn("line(s) had no answer to atomize: tiny-house\\x1b[31m, fence", err)
        self.assert_escaped(err, RED)

    @NEEDS_DEMO
    def test_reproduces_verdict_names_the_folder(self):
        folder = os.path.join(self.tmp, f"demo{RED}")
        shutil.copytree(DEMO, folder)
        code, _, err = call_main(reproduce, [folder])
        self.assertEqual(code, 0, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assert_escaped(err, RED)

    @NEEDS_DEMO
    def test_names_from_a_folder_on_stdout(self):
        # A file named with escapes in a quarter folder (and one in the
        # manifest), a question file and a run file named so: reproduce.py,
        # lint_questions.py and compare.py list them on stdout escaped.
        folder = os.path.join(self.tmp, "demo")
        shutil.copytree(DEMO, folder)
        with open(os.path.join(folder, f"notes{TITLE}{CLEAR}.txt"), "w", encoding="utf-8") as fh:
            fh.write("a file no manifest lists\n")
        code, out, _ = call_main(reproduce, [folder])
        self.assertEqual(code, 1, out)
        self.assertIn(f"differs    notes{SHOWN[TITLE]}{SHOWN[CLEAR]}.txt (not in MANIFEST.json)\n",
                      out)
        self.assert_escaped(out, TITLE, CLEAR)
        questions = os.path.join(self.tmp, f"questions{RED}.json")
        shutil.copy(QUESTIONS, questions)
        code, out, _ = call_main(lint_questions, ["--sites", "none", questions])
        self.assertEqual(code, 1, out)
        self.assertIn(f"questions{SHOWN[RED]}.json: mini-", out)
        self.assert_escaped(out, RED)
        raw = os.path.join(self.tmp, f"raw{TITLE}.jsonl")
        shutil.copy(RAW, raw)
        code, out, err = call_main(compare, [raw, raw, "--questions", QUESTIONS])
        self.assertEqual(code, 0, err)
        self.assertIn(f"A: {raw.replace(TITLE, SHOWN[TITLE])} (mechanical)\n", out)
        self.assert_escaped(out, TITLE)

    def test_the_lines_of_the_library(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            base._to_stderr(f"openai: waiting 90 s as {TITLE} asked")          # a provider's note
            resume.exit_code("run.py", [f"case{RED}"], 3, "case(s) got no answer")
            account = budget.Account("atomize.py", budget.Meter(), None)
            self.assertEqual(account.stopped(budget.CallLimitReached(f"3{CLEAR}")), 1)
            cli.fail("publish.py", f"{RED}quarter: refused")
        self.assertEqual(len(err.getvalue().splitlines()), 5, err.getvalue())
        self.assert_escaped(err.getvalue(), TITLE, RED, CLEAR)

    def test_progress_lines_on_a_terminal_and_in_a_log(self):
        for terminal in (True, False):
            stream = io.StringIO()
            stream.isatty = lambda terminal=terminal: terminal
            progress = Progress(2, stream=stream, clock=lambda: 0.0)
            progress.case(f"[1/2] tiny-house error: {TITLE}{CLEAR}", 1)
            progress.close()
            text = stream.getvalue()
            with self.subTest(terminal=terminal):
                self.assertIn(f"[1/2] tiny-house error: {SHOWN[TITLE]}{SHOWN[CLEAR]}\n", text)
                # Only the progress line's own redraw: carriage return and erase-line.
                self.assertEqual(text.count("\x1b"), 1 if terminal else 0)
                self.assertNotIn("\x07", text)


if __name__ == "__main__":
    unittest.main()
