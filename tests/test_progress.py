"""The progress line of a long run (issue 19): done/total, calls a minute,
retries, elapsed and time left; rewritten in place on a terminal, a line every
few seconds elsewhere; nothing with --quiet. On a clock the test moves."""

import io
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error
from tests.support import FIXTURES, call_main

import run  # noqa: E402
from evalkit.asking import budget  # noqa: E402
from evalkit.asking.progress import Progress  # noqa: E402


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Lines(unittest.TestCase):
    def test_elsewhere_a_line_every_five_seconds(self):
        clock, stream = Clock(), io.StringIO()
        meter = budget.Meter(clock=clock)
        progress = Progress(10, done=2, meter=meter, stream=stream, clock=clock)
        for n in range(3, 7):
            clock.now += 2.0
            meter.calls += 1
            meter.attempts += 1 if n != 4 else 2
            progress.case(f"[{n}/10] case-{n}", n)
        progress.close()
        self.assertEqual(stream.getvalue().splitlines(), [
            "[3/10] case-3", "[4/10] case-4", "[5/10] case-5",
            # 3 cases in 6 s: 2 s a case, 5 cases left
            "progress: 5/10 done, 30 calls/min, 1 retry, elapsed 0:06, about 0:10 left",
            "[6/10] case-6"])

    def test_on_a_terminal_one_line_rewritten_in_place(self):
        clock, stream = Clock(), Terminal()
        progress = Progress(2, stream=stream, clock=clock)
        clock.now = 30.0
        progress.case("[1/2] a", 1)
        clock.now = 3700.0
        progress.case("[2/2] b", 2)
        progress.close()
        self.assertEqual(stream.getvalue(),
                         "\r\x1b[K[1/2] a\nprogress: 1/2 done, 2 calls/min, elapsed 0:30, about 0:30 left"
                         "\r\x1b[K[2/2] b\nprogress: 2/2 done, 0 calls/min, elapsed 1:01:40\n")


class Scripts(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        os.environ.pop("OPENAI_RPM", None)
        os.environ.pop("OPENAI_TPM", None)

    def test_run_py_shows_calls_and_retries_and_quiet_shows_nothing(self):
        with ModelServer("openai", reply=lambda r: "Yes.") as srv:
            srv.queue(error("openai", 500, "server_error", "oops", headers={"retry-after-ms": "1"}))
            os.environ.update(srv.environ())
            stream = Terminal()
            out = os.path.join(self.tmp, "raw.jsonl")
            argv = [os.path.join(FIXTURES, "scenarios-mini.json"), out, "--provider", "openai",
                    "--model", "g"]
            real = run.sys.stderr
            run.sys.stderr = stream
            try:
                code = run.main(argv)
            finally:
                run.sys.stderr = real
            self.assertEqual(code, 0)
            self.assertRegex(stream.getvalue(), r"\r\x1b\[K\[2/2\] \S+ 200 \d+ ms\nprogress: 2/2 "
                                                 r"done, \d+ calls/min, 1 retry, elapsed \d+(:\d\d)+\n")
            os.unlink(out)
            code, _, err = call_main(run, argv + ["--quiet"])
            self.assertEqual((code, err), (0, ""))


if __name__ == "__main__":
    unittest.main()
