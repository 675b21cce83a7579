"""One run.py per raw file (issue 40): a second process on the same output is
refused in one line while the first runs, and a first one killed with SIGKILL
leaves no lock behind. Real processes, against a widget on 127.0.0.1 that
holds every request until the test lets it answer, so no test waits on a
clock."""

import os
import signal
import subprocess
import sys
import threading
import unittest

from tests import support
from tests.support import FIXTURES, HANG, TempDirCase, read_lines

from evalkit import BadInput  # noqa: E402
from evalkit.jsonl import OneWriter, fcntl  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")


class GatedWidget(support.WidgetServer):
    """The test widget, but every request waits until ``gate`` is set."""

    def __init__(self):
        super().__init__()
        self.gate, self.asked = threading.Event(), threading.Event()
        self.httpd.RequestHandlerClass = self.handler_class()

    def handler_class(self):
        gate, asked = self.gate, self.asked

        class Held(support._Handler):
            def _post(self):
                asked.set()
                gate.wait(HANG)
                super()._post()
        return Held


@unittest.skipIf(fcntl is None, "no fcntl here: no lock is taken (said in the tools README)")
class TwoProcesses(TempDirCase):
    def setUp(self):
        super().setUp()
        self.widget = GatedWidget()
        self.widget.__enter__()
        self.addCleanup(self.widget.__exit__)
        self.addCleanup(self.widget.gate.set)   # before the server stops: let held requests end
        self.out = self.path("raw.jsonl")

    def start(self):
        proc = subprocess.Popen([sys.executable, support.script("run.py"), QUESTIONS, self.out,
                                 "--endpoint", self.widget.url, "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.end, proc)
        return proc

    def end(self, proc):
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=HANG)

    def wait_for_a_request(self, proc):
        """Until the widget holds a request of ``proc``: it has the lock then."""
        self.assertTrue(self.widget.asked.wait(HANG), "the first run never asked")
        self.assertIsNone(proc.poll())

    def second(self):
        return support.run_script("run.py", QUESTIONS, self.out, "--endpoint", self.widget.url,
                                  "--quiet", timeout=HANG)

    def test_a_second_run_on_the_same_file_is_refused_in_one_line(self):
        first = self.start()
        self.wait_for_a_request(first)
        proc = self.second()
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stderr.count("\n"), 1, proc.stderr)
        self.assertTrue(proc.stderr.startswith(
            f"run.py: {self.out}: another process (pid {first.pid}) is writing it now"),
            proc.stderr)
        self.assertEqual(self.widget.requests, [])   # the second asked nothing
        self.widget.gate.set()
        _, err = first.communicate(timeout=HANG)
        self.assertEqual(first.returncode, 0, err)
        ids = [line["id"] for line in read_lines(self.out)]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(len(ids), 13)   # every question of the file, once
        self.assertEqual(sorted(os.listdir(self.tmp)), ["raw.jsonl"])   # the lock file is gone

    def test_a_killed_run_leaves_no_lock_and_the_same_command_continues(self):
        first = self.start()
        self.wait_for_a_request(first)
        first.send_signal(signal.SIGKILL)
        first.wait(HANG)
        self.assertIn("raw.jsonl.lock", os.listdir(self.tmp))   # the file stays, unlocked
        self.widget.gate.set()
        proc = self.second()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ids = [line["id"] for line in read_lines(self.out)]
        self.assertEqual((len(ids), len(set(ids))), (13, 13))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["raw.jsonl"])


@unittest.skipIf(fcntl is None, "no fcntl here: no lock is taken")
class InOneProcess(TempDirCase):
    def test_the_lock_is_taken_once_and_given_back(self):
        path = self.path("atoms.jsonl")
        first = OneWriter(path)
        with self.assertRaises(BadInput) as caught:
            OneWriter(path)
        self.assertIn(f"(pid {os.getpid()}) is writing it now", str(caught.exception))
        first.release()
        first.release()   # a second release does nothing
        OneWriter(path).release()
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    unittest.main()
