"""The job runner shared by run.py, atomize.py and ai_eval.py: every job
once, whole records, and a stop (an error in a job, or Ctrl-C) that starts no
new job but lets the ones in flight finish and be written. And the resumable
run around it: a second run does only what the first left, refuses a file
another run wrote, and says which cases failed; Ctrl-C is exit 130.

Nothing here waits for a time to pass: a job (or the server) presses Ctrl-C
itself, at a point the test sets, and the jobs wait for what the runner
does, not for a clock. HANG bounds only a broken run."""

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
from tests.support import FIXTURES, HANG, LoopbackServer, call_main, read_lines

import run  # noqa: E402
from evalkit import BadInput  # noqa: E402
from evalkit.asking import http, resume, siterun  # noqa: E402
from evalkit.asking.runner import run_jobs  # noqa: E402


class Records:
    def __init__(self):
        self.written = []

    def write(self, record):
        self.written.append(record)


class CtrlCKey:
    """Ctrl-C for one test, as the caller of the runner meets it: ``press``
    sends SIGINT to the main thread, where Python raises KeyboardInterrupt.

    To the thread, not the process: the kernel may hand a process's signal
    to another thread, and that does not wake a main thread blocked in a
    wait. Then, until ``taken`` (the test saw the runner react) or the end
    of the test, SIGUSR1, which does nothing here, every 10 ms: CPython
    misses a signal that comes just as its main thread blocks in a lock's
    wait until something wakes it, and each of these does; it then raises
    the KeyboardInterrupt it missed. One Ctrl-C, however it lands."""

    def __init__(self, test):
        support.sigint_raises_keyboard_interrupt(test)
        test.addCleanup(signal.signal, signal.SIGUSR1,
                        signal.signal(signal.SIGUSR1, lambda signum, frame: None))
        self.done = threading.Event()
        self.nudges = None
        test.addCleanup(self.taken)

    def press(self):
        main = threading.main_thread().ident
        signal.pthread_kill(main, signal.SIGINT)

        def nudge():
            for _ in range(HANG * 100):
                if self.done.wait(0.01):
                    return
                signal.pthread_kill(main, signal.SIGUSR1)
        nudges = threading.Thread(target=nudge, daemon=True)
        nudges.start()
        self.nudges = nudges  # started before another thread may join it

    def taken(self):
        self.done.set()
        if self.nudges is not None:
            self.nudges.join()


def after_the_stop():
    """Return once Ctrl-C has reached the runner and the stop is recorded.
    Once Ctrl-C has reached it (http.interrupt is the first thing it does
    then), the runner records the stop and waits for the jobs in flight: a
    job that sees the main thread, its caller, waiting knows that no new job
    will start."""
    http.pause(HANG)  # ended by the runner's http.interrupt
    deadline = time.monotonic() + HANG
    while not support.in_a_wait(threading.main_thread()):
        if time.monotonic() > deadline:
            raise AssertionError("the runner never waited for the jobs in flight")
        time.sleep(0.001)


def cut_by_ctrl_c():
    """Whether sending is refused (http.interrupt): what a job whose pause
    Ctrl-C ended sees, and not one whose pause ran out."""
    try:
        http.send("GET", "http://127.0.0.1:9/", {}, None, 1)
    except http.Interrupted:
        return True
    return False


class RunJobs(unittest.TestCase):
    def setUp(self):
        self.ctrl_c = CtrlCKey(self)
        self.addCleanup(http.allow)  # Ctrl-C leaves sending refused until allowed

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
        # Job 5 fails at once. A job taken after it ends only once the worker
        # of job 5 has stopped, which it does having recorded the error: so
        # at concurrency 4 at most the three other workers' jobs follow it.
        started, writer, lock = [], Records(), threading.Lock()
        failing = []  # the worker thread of job 5

        def job(n):
            with lock:
                started.append(n)
                if n == 5:
                    failing.append(threading.current_thread())
            if n == 5:
                raise BadInput(f"case {n}: broken")
            if n > 5:
                with lock:
                    worker = failing[0]
                worker.join(HANG)
            return {"n": n}
        with self.assertRaises(BadInput):
            run_jobs(range(100), job, writer, 4)
        self.assertLessEqual(set(range(6)), set(started))  # taken in order
        self.assertLessEqual(len(started), 6 + 3)
        self.assertEqual(sorted(r["n"] for r in writer.written), sorted(n for n in started if n != 5))

    def test_ctrl_c_starts_no_new_job_and_lets_the_jobs_in_flight_finish(self):
        # Eight jobs in flight together (they meet at a barrier); job 0
        # presses Ctrl-C. Each waits in a pause, as a request would, which
        # the runner ends as it takes Ctrl-C. A job taken after that ends only
        # once the stop is recorded, so each worker takes at most one more.
        started, cut, writer, lock = [], [], Records(), threading.Lock()
        in_flight = threading.Barrier(8, timeout=HANG)

        def job(n):
            with lock:
                started.append(n)
            if n >= 8:
                after_the_stop()
                return {"n": n}
            in_flight.wait()
            if n == 0:
                self.ctrl_c.press()
            http.pause(HANG)
            self.ctrl_c.taken()
            if cut_by_ctrl_c():
                with lock:
                    cut.append(n)
            return {"n": n}
        with self.assertRaises(KeyboardInterrupt):
            run_jobs(range(200), job, writer, 8)
        self.assertEqual(sorted(cut), list(range(8)))
        self.assertLessEqual(len(started), 8 + 8)
        self.assertEqual(sorted(r["n"] for r in writer.written), sorted(started))

    def test_ctrl_c_waits_for_a_long_job_and_writes_it(self):
        # Job 0 presses Ctrl-C once another job is in flight beside it, and
        # outlasts every other: it ends only after the other worker has
        # stopped. The caller, which took Ctrl-C while job 0 ran, waits for
        # it and writes it, last.
        started, others, writer, lock = [], set(), Records(), threading.Lock()
        beside = threading.Event()

        def job(n):
            with lock:
                started.append(n)
                if n:
                    others.add(threading.current_thread())
            if n:
                beside.set()
                http.pause(HANG)  # ended as the runner takes Ctrl-C
                return {"n": n}
            beside.wait(HANG)
            self.ctrl_c.press()
            http.pause(HANG)
            self.ctrl_c.taken()
            with lock:
                workers = list(others)
            for worker in workers:
                worker.join(HANG)
            return {"n": n}
        with self.assertRaises(KeyboardInterrupt):
            run_jobs(range(100), job, writer, 2)
        self.assertEqual(writer.written[-1], {"n": 0})
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
            out = resume.Output("tool.py", self.out, {i: {"id": i} for i in ids},
                                key_of=lambda line: line.get("id"), belongs=belongs,
                                describe=progress)
            with out:
                run_jobs(out.pending, self.do_job, out, concurrency)
        return out.finish(), err.getvalue()

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

    def redo(self, ids):
        out = resume.Output("tool.py", self.out, {i: {"id": i} for i in ids},
                            key_of=lambda line: line.get("id"), belongs=tagged("t"),
                            redo=lambda line: not line["ok"])
        with out:
            run_jobs(out.pending, self.do_job, out)
        return out.finish(lambda old, new: dict(new, redone=True))

    def test_redo_does_the_failed_cases_once_then_rewrites_the_file_at_once(self):
        self.run_cases(["a", "b", "c"])
        records = self.redo(["a", "b", "c"])
        self.assertEqual((self.asked, list(records)), (["a", "b", "c", "b"], ["a", "b", "c"]))
        self.assertEqual([line.get("redone") for line in read_lines(self.out)], [None, True, None])
        self.assertFalse(os.path.exists(self.out + resume.REDO))
        with open(self.out, "rb") as fh:
            before = fh.read()
        self.redo(["a", "b", "c"])   # b was redone: never a third time, and nothing rewritten
        self.assertEqual(self.asked, ["a", "b", "c", "b"])
        with open(self.out, "rb") as fh:
            self.assertEqual(fh.read(), before)
        self.assertFalse(os.path.exists(self.out + resume.REDO))

    def test_redo_continues_its_side_file_and_needs_a_file_to_redo(self):
        with self.assertRaises(BadInput) as ctx:
            self.redo(["a"])
        self.assertIn("out.jsonl: no such file, so nothing to do again", str(ctx.exception))
        self.run_cases(["a", "b"])
        with open(self.out + resume.REDO, "w", encoding="utf-8") as fh:
            fh.write('{"id": "b", "run": "t", "ok": true}\n')   # a redo stopped after b
        self.redo(["a", "b"])
        self.assertEqual(self.asked, ["a", "b"])
        self.assertEqual([line["ok"] for line in read_lines(self.out)], [True, True])

    def test_exit_code_lists_the_failed_cases_on_one_line(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(resume.exit_code("tool.py", [], 3, "case(s) errored"), 0)
            self.assertEqual(resume.exit_code("tool.py", ["b", "c"], 3, "case(s) errored"), 1)
        self.assertEqual(err.getvalue(), "tool.py: 2 of 3 case(s) errored: b, c\n")


class _PressesCtrlC(support._Handler):
    """The widget protocol (support's handler), except that the question
    that arrives ``press_at``-th (the greeting not counted) presses Ctrl-C
    in this process and is held unanswered until the client cuts it; a
    question that arrives after it is answered only then. None: no Ctrl-C."""

    def do_POST(self):
        server = self.server
        with server.lock:
            server.arrived += 1
            arrived = server.arrived
        if server.press_at is None or arrived < server.press_at:
            return super().do_POST()
        if arrived > server.press_at:
            server.cut.wait(HANG)
            return super().do_POST()
        question = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))["question"]
        with server.lock:
            server.counts[question] = server.counts.get(question, 0) + 1
        server.ctrl_c.press()
        self.connection.settimeout(HANG)
        try:
            self.connection.recv(1)  # b"" once the client has cut the request
        except OSError:
            pass
        server.ctrl_c.taken()
        server.cut.set()
        self.close_connection = True


class CtrlC(unittest.TestCase):
    def setUp(self):
        self.ctrl_c = CtrlCKey(self)

    def test_run_py_exits_130_with_whole_lines_and_the_same_command_continues(self):
        # run.py's endpoint check greets first (arrival 1); the third
        # question arrives fourth and presses Ctrl-C.
        with tempfile.TemporaryDirectory() as tmp, \
                LoopbackServer(_PressesCtrlC, counts={}, answers={}, modes={}, sleep=0, big=0,
                               delay=0, arrived=0, press_at=4, cut=threading.Event(),
                               ctrl_c=self.ctrl_c) as srv:
            url = f"http://127.0.0.1:{srv.httpd.server_address[1]}/api/query"
            out = os.path.join(tmp, "raw.jsonl")
            argv = [os.path.join(FIXTURES, "questions-mini.json"), out, "--endpoint", url,
                    "--concurrency", "2", "--quiet"]
            code, _, err = call_main(run, argv)
            self.assertEqual((code, err), (130, "run.py: interrupted: run the same command again to "
                                       "continue\n"))
            with open(out, "rb") as fh:
                data = fh.read()
            self.assertTrue(data.endswith(b"\n"))
            first = [json.loads(line) for line in data.splitlines()]
            # The questions in flight were sent: recorded as interrupted, the
            # one held among them.
            cut = [line["id"] for line in first if line["attempts"][-1]["error"] == "interrupted"]
            self.assertIn(len(cut), (1, 2))
            with open(argv[0], encoding="utf-8") as fh:
                total = len(json.load(fh)["questions"])
            self.assertLess(len(first), total)
            srv.httpd.press_at = None
            code, _, err = call_main(run, argv)
            self.assertEqual(code, 1, err)  # the interrupted ones are listed, not asked again
            ids = [line["id"] for line in read_lines(out)]
            self.assertEqual((ids[:len(first)], len(ids), len(set(ids))),
                             ([line["id"] for line in first], total, total))
            # The endpoint check's greeting once per command; no question asked twice.
            counts = dict(srv.httpd.counts)
            self.assertEqual(counts.pop(siterun.PROBE), 2)
            self.assertEqual(set(counts.values()), {1})


if __name__ == "__main__":
    unittest.main()
