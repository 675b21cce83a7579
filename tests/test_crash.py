"""Crashes: run.py and atomize.py killed with SIGKILL at seeded random
points, then the same command run again. The output then holds every case
exactly once, no line is torn, and no case that had a recorded answer was
asked again. 20 trials per tool: 10 at concurrency 1, 10 at concurrency 8.

Half the kills come at a seeded random time (anywhere: before the first
answer, in the middle of a write, after the last); the other half once a
seeded number of cases is recorded, the server holding every later answer
back, so that those kills land in the middle of a run however slow the
machine is."""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import model
from tests.support import FIXTURES, HANG, ROOT, LoopbackServer, read_lines

SEED = 8
TRIALS = 20
SCENARIOS = os.path.join(ROOT, "evals", "permits", "scenarios.json")
DELAY = 0.03  # seconds before each answer while a kill may come at any time


class Gate:
    """Lets a number of requests through, then holds every later one until
    it opens (or HANG passes); open at first."""

    def __init__(self):
        self.state = threading.Condition()
        self.left = None  # requests still let through; None: open

    def let_through(self, requests):
        with self.state:
            self.left = requests

    def open(self):
        with self.state:
            self.left = None
            self.state.notify_all()

    def wait_turn(self):
        with self.state:
            if self.left is not None and self.left > 0:
                self.left -= 1
            else:
                self.state.wait_for(lambda: self.left is None, HANG)


class _GatedWidget(support._Handler):
    """support's widget server, each request waiting its turn at the
    server's gate before it is read."""

    def _post(self):
        self.server.gate.wait_turn()
        return super()._post()


def ids_in(path):
    """Ids of the whole lines in a file a killed process left (a torn tail ignored)."""
    if not os.path.exists(path):
        return set()
    with open(path, "rb") as fh:
        data = fh.read()
    whole = data[:data.rfind(b"\n") + 1]
    return {json.loads(line)["id"] for line in whole.splitlines()}


def wait_for_lines(path, count):
    """Return once ``path`` holds ``count`` whole lines."""
    deadline = time.monotonic() + HANG
    while len(ids_in(path)) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"{path}: {len(ids_in(path))} whole lines, not {count}")
        time.sleep(0.01)


class Crashes(unittest.TestCase):
    def trial(self, rng, argv, env, out, server, key_of, cases, concurrency, gate, first=0):
        """Start, kill, re-run; return what the checks need. With ``gate``
        None the kill comes at a random time, the ``server`` answering each
        request after DELAY; else once a random number of the ``cases`` is
        recorded, ``gate`` letting through only their requests (after
        ``first`` requests of another kind)."""
        full_env = dict(os.environ, **env)
        if gate:
            answered = rng.randint(1, cases - 1)
            gate.let_through(first + answered)
        else:
            server.delay = DELAY
        proc = subprocess.Popen([sys.executable] + argv, env=full_env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        if gate:
            wait_for_lines(out, answered)
        else:
            time.sleep(rng.uniform(0.1, 0.15 + cases * DELAY / concurrency))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        recorded = ids_in(out)
        mark = len(server.requests)
        server.delay = 0.0
        if gate:
            gate.open()  # the requests of the killed run held there end; the next goes through
        again = subprocess.run([sys.executable] + argv, env=full_env, capture_output=True, text=True)
        self.assertIn(again.returncode, (0, 1), again.stderr)
        # A request the killed process had half sent arrives unreadable: it is
        # no question asked again, so it is left out.
        asked_again = {key_of(r) for r in server.requests[mark:]} - {None}
        return recorded, asked_again

    def check(self, out, expected, recorded, asked_again, label):
        lines = read_lines(out)                  # every line parses: none is torn
        ids = [l["id"] for l in lines]
        self.assertEqual(sorted(ids), sorted(expected), label)   # every case exactly once
        self.assertEqual(recorded & asked_again, set(), label)   # nothing recorded was asked again
        return 0 < len(recorded) < len(expected)                 # killed in the middle

    def test_run_py(self):
        rng = random.Random(SEED)
        with open(os.path.join(FIXTURES, "questions-mini.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        template = doc["questions"][0]
        doc["questions"] = [dict(template, id=f"mini-en-{n:02d}", question=f"question {n}?")
                            for n in range(1, 31)]
        gate = Gate()
        with tempfile.TemporaryDirectory() as tmp, \
                LoopbackServer(_GatedWidget, counts={}, answers={}, modes={}, sleep=3.0, big=0,
                               delay=0.0, gate=gate) as srv:
            url = f"http://127.0.0.1:{srv.httpd.server_address[1]}/api/query"
            questions = support.write_json(os.path.join(tmp, "questions-crash.json"), doc)
            text_to_id = {q["question"]: q["id"] for q in doc["questions"]}
            for trial in range(TRIALS):
                concurrency = 1 if trial < TRIALS // 2 else 8
                out = os.path.join(tmp, f"raw-{trial}.jsonl")
                argv = [support.script("run.py"), questions, out, "--endpoint", url, "--quiet",
                        "--concurrency", str(concurrency), "--retry-pause", "0"]
                gated = gate if trial % 2 else None
                # run.py's endpoint check greets first: one request more.
                recorded, again = self.trial(rng, argv, {}, out, srv.httpd,
                                             lambda r: text_to_id.get(r["body"].get("question")),
                                             len(doc["questions"]), concurrency, gated, first=1)
                middle = self.check(out, text_to_id.values(), recorded, again, f"trial {trial}")
                if gated:
                    self.assertTrue(middle, f"trial {trial}: not killed in the middle")

    def test_atomize_py(self):
        rng = random.Random(SEED + 1)
        gate = Gate()
        judged = model("anthropic", True)

        def reply(request):
            gate.wait_turn()
            return judged(request)
        with tempfile.TemporaryDirectory() as tmp, \
                ModelServer("openai", reply=model("openai", False)) as gen, \
                ModelServer("anthropic", reply=reply) as judge:
            raw = os.path.join(tmp, "raw.jsonl")
            subprocess.run([sys.executable, support.script("run.py"), SCENARIOS, raw, "--provider",
                            "openai", "--model", "g", "--quiet"], env=dict(os.environ, **gen.environ()),
                           check=True)
            expected = [l["id"] for l in read_lines(raw)]

            def key_of(request):
                if "messages" not in request["json"]:
                    return None
                prompt = request["json"]["messages"][0]["content"]
                question = prompt.split("The resident's question:\n", 1)[1].split("\n\nThe response", 1)[0]
                return by_question[question]
            by_question = {l["question"]: l["id"] for l in read_lines(raw)}
            for trial in range(TRIALS):
                concurrency = 1 if trial < TRIALS // 2 else 8
                out = os.path.join(tmp, f"atoms-{trial}.jsonl")
                argv = [support.script("atomize.py"), raw, out, "--provider", "anthropic", "--model",
                        "j", "--cases", SCENARIOS, "--quiet", "--concurrency", str(concurrency)]
                gated = gate if trial % 2 else None
                recorded, again = self.trial(rng, argv, judge.environ(), out, judge.httpd, key_of,
                                             len(expected), concurrency, gated)
                middle = self.check(out, expected, recorded, again, f"trial {trial}")
                if gated:
                    self.assertTrue(middle, f"trial {trial}: not killed in the middle")


if __name__ == "__main__":
    unittest.main()
