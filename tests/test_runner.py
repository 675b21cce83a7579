"""The job runner shared by run.py, atomize.py and ai_eval.py: every job
once, whole records, and a stop (an error in a job, or Ctrl-C) that starts no
new job but lets the ones in flight finish and be written."""

import os
import signal
import threading
import time
import unittest

from tests import support  # noqa: F401  (puts tools/eval-benchmark on sys.path)

from evalkit import BadInput
from evalkit.runner import run_jobs


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


if __name__ == "__main__":
    unittest.main()
