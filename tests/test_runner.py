"""The job runner shared by run.py, atomize.py and ai_eval.py: every job
once, whole records, and a stop (an error in a job, or Ctrl-C) that starts no
new job but lets the ones in flight finish and be written. And the resumable
run around it: a second run does only what the first left, refuses a file
another run wrote, and says which cases failed; Ctrl-C is exit 130."""

import contextlib
import io
import json
import os
import signal
import tempfile
import threading
import time
import unittest

from tests import support
from tests.support import FIXTURES, WidgetServer, call_main, read_lines

import run  # noqa: E402
from evalkit import BadInput  # noqa: E402
from evalkit.asking import resume  # noqa: E402
from evalkit.asking.runner import run_jobs  # noqa: E402


class Records:
    def __init__(self):
        self.written = []

    def write(self, record):
        self.written.append(record)


def sleeping_job(started, seconds, fails=None):
    """A job that notes its start, sleeps, and raises BadInput for ``fails``."""
    lock = threading.Lock()

    def job(n):
        with lock:
            started.append(n)
        if n == fails:
            raise BadInput(f"case {n}: broken")
        time.sleep(seconds)
        return {"n": n}
    return job


class RunJobs(unittest.TestCase):
    def setUp(self):
        # Ctrl-C must raise KeyboardInterrupt, even under a parent that
        # ignores SIGINT (nohup, say).
        self.addCleanup(signal.signal, signal.SIGINT,
                        signal.signal(signal.SIGINT, signal.default_int_handler))

    def test_every_job_once_on_threads_and_in_order_alone(self):
        for concurrency in (1, 8):
            writer = Records()
            seen = []
            run_jobs(range(50), lambda n: {"n": n}, writer, concurrency,
                     on_record=lambda r: seen.append(r["n"]))
            self.assertEqual(sorted(r["n"] for r in writer.written), list(range(50)))
            self.assertEqual(seen, [r["n"] for r in writer.written])
            if concurrency == 1:
                self.assertEqual(seen, list(range(50)))

    def test_none_writes_nothing(self):
        writer = Records()
        run_jobs(range(10), lambda n: None if n % 2 else {"n": n}, writer, 4)
        self.assertEqual(sorted(r["n"] for r in writer.written), [0, 2, 4, 6, 8])

    def test_an_error_starts_no_new_job_and_the_ones_in_flight_are_written(self):
        started = []
        writer = Records()
        with self.assertRaises(BadInput):
            run_jobs(range(100), sleeping_job(started, 0.05, fails=5), writer, 4)
        self.assertLess(len(started), 20)
        self.assertEqual(sorted(r["n"] for r in writer.written), sorted(n for n in started if n != 5))

    def test_ctrl_c_lets_the_jobs_in_flight_finish(self):
        started = []
        writer = Records()
        timer = threading.Timer(0.15, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        self.addCleanup(timer.cancel)
        with self.assertRaises(KeyboardInterrupt):
            run_jobs(range(200), sleeping_job(started, 0.1), writer, 8)
        self.assertLess(len(started), 50)
        self.assertEqual(sorted(r["n"] for r in writer.written), sorted(started))

    def test_ctrl_c_waits_for_a_long_job_on_the_first_thread(self):
        # The caller is waiting for the first worker when Ctrl-C comes; its
        # job outlasts every other, and is written all the same.
        writer = Records()
        lock = threading.Lock()

        def job(n):
            with lock:
                started.append(n)
            time.sleep(0.6 if n == 0 else 0.05)
            return {"n": n}
        started = []
        timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        self.addCleanup(timer.cancel)
        with self.assertRaises(KeyboardInterrupt):
            run_jobs(range(100), job, writer, 2)
        self.assertIn(0, [r["n"] for r in writer.written])
        self.assertEqual(sorted(r["n"] for r in writer.written), sorted(started))



def tagged(tag):
    """``belongs`` for lines that carry ``{"run": tag}``."""
    def belongs(where, line):
        if line.get("run") != tag:
            raise BadInput(f"{where}: written by another run")
    return belongs


class Resume(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.out = os.path.join(tmp.name, "out.jsonl")
        self.asked = []

    def do_job(self, case):
        self.asked.append(case["id"])
        return {"id": case["id"], "run": "t", "ok": case["id"] != "b"}

    def run_cases(self, ids, belongs=tagged("t"), progress=None, concurrency=1):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            records = resume.run("tool.py", self.out, {i: {"id": i} for i in ids},
                                 key_of=lambda line: line.get("id"), belongs=belongs,
                                 do_job=self.do_job, concurrency=concurrency, progress=progress)
        return records, err.getvalue()

    def write(self, text):
        with open(self.out, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)

    def test_a_second_run_does_only_what_the_first_left(self):
        self.run_cases(["a", "b"])
        for concurrency in (1, 4):
            records, err = self.run_cases(["c", "a", "b", "d"], concurrency=concurrency)
        self.assertEqual((self.asked, err), (["a", "b", "c", "d"], ""))
        self.assertEqual(list(records), ["c", "a", "b", "d"])   # in the order of the cases
        self.assertEqual([line["id"] for line in read_lines(self.out)], ["a", "b", "c", "d"])

    def test_records_of_other_cases_in_the_file_are_kept_but_not_returned(self):
        self.run_cases(["a", "b", "c"])
        records, _ = self.run_cases(["b"])
        self.assertEqual((list(records), len(read_lines(self.out))), (["b"], 3))

    def test_a_torn_last_line_is_dropped_and_its_case_done_again(self):
        self.write('{"id": "a", "run": "t", "ok": true}\n{"id": "b", "ru')
        records, err = self.run_cases(["a", "b"])
        self.assertEqual(self.asked, ["b"])
        self.assertIn("cut off", err)
        self.assertEqual([line["id"] for line in read_lines(self.out)], ["a", "b"])

    def test_a_line_of_another_run_or_a_key_twice_is_refused_and_nothing_done(self):
        for text, message in (('{"id": "a", "run": "other"}\n', "out.jsonl:1: written by another run"),
                              ('{"id": "a", "run": "t"}\n{"id": "a", "run": "t"}\n',
                               "out.jsonl:2: a is already on an earlier line")):
            with self.subTest(message):
                self.write(text)
                with self.assertRaises(BadInput) as ctx:
                    self.run_cases(["a", "b"])
                self.assertIn(message, str(ctx.exception))
                self.assertEqual(self.asked, [])

    def test_a_file_that_cannot_be_written_is_refused(self):
        self.out = os.path.join(self.out, "nested.jsonl")   # under a folder that is not there
        with self.assertRaises(BadInput) as ctx:
            self.run_cases(["a"])
        self.assertIn("nested.jsonl: cannot write:", str(ctx.exception))
        self.assertEqual(self.asked, [])

    def test_progress_counts_from_what_was_done_before(self):
        self.run_cases(["a"])
        _, err = self.run_cases(["a", "b", "c"], progress=lambda record: f"{record['id']} ok")
        self.assertEqual(err, "[2/3] b ok\n[3/3] c ok\n")

    def test_exit_code_lists_the_failed_cases_on_one_line(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(resume.exit_code("tool.py", [], 3, "case(s) errored"), 0)
            self.assertEqual(resume.exit_code("tool.py", ["b", "c"], 3, "case(s) errored"), 1)
        self.assertEqual(err.getvalue(), "tool.py: 2 of 3 case(s) errored: b, c\n")


class CtrlC(unittest.TestCase):
    def setUp(self):
        # The test needs Ctrl-C to raise KeyboardInterrupt, even when it runs
        # with SIGINT ignored (under nohup, say).
        self.addCleanup(signal.signal, signal.SIGINT,
                        signal.signal(signal.SIGINT, signal.default_int_handler))

    def test_run_py_exits_130_with_whole_lines_and_the_same_command_continues(self):
        with tempfile.TemporaryDirectory() as tmp, WidgetServer(delay=0.3) as srv:
            out = os.path.join(tmp, "raw.jsonl")
            argv = [os.path.join(FIXTURES, "questions-mini.json"), out, "--endpoint", srv.url,
                    "--concurrency", "2", "--quiet"]
            timer = threading.Timer(0.6, os.kill, (os.getpid(), signal.SIGINT))
            timer.start()
            self.addCleanup(timer.cancel)
            code, _, err = call_main(run, argv)
            self.assertEqual((code, err), (130, "run.py: interrupted\n"))
            with open(out, "rb") as fh:
                data = fh.read()
            self.assertTrue(data == b"" or data.endswith(b"\n"))
            first = [json.loads(line) for line in data.splitlines()]
            # The questions in flight were sent: recorded as interrupted.
            cut = [line["id"] for line in first if line["attempts"][-1]["error"] == "interrupted"]
            self.assertLessEqual(len(cut), 2)
            with open(argv[0], encoding="utf-8") as fh:
                total = len(json.load(fh)["questions"])
            self.assertLess(len(first), total)
            code, _, err = call_main(run, argv)
            self.assertEqual(code, 1 if cut else 0, err)
            ids = [line["id"] for line in read_lines(out)]
            self.assertEqual((ids[:len(first)], len(ids), len(set(ids))),
                             ([line["id"] for line in first], total, total))
            # The endpoint check's greeting once per command; no question asked twice.
            self.assertEqual(srv.counts.pop(run.PROBE), 2)
            self.assertEqual(set(srv.counts.values()), {1})


if __name__ == "__main__":
    unittest.main()
