"""Crashes: run.py and atomize.py killed with SIGKILL at seeded random
points, then the same command run again. The output then holds every case
exactly once, no line is torn, and no case that had a recorded answer was
asked again. 20 trials per tool: 10 at concurrency 1, 10 at concurrency 8."""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.standins import model
from tests.support import FIXTURES, ROOT, WidgetServer, read_lines

SEED = 8
TRIALS = 20
SCENARIOS = os.path.join(ROOT, "evals", "permits", "scenarios.json")


def ids_in(path):
    """Ids of the whole lines in a file a killed process left (a torn tail ignored)."""
    if not os.path.exists(path):
        return set()
    with open(path, "rb") as fh:
        data = fh.read()
    whole = data[:data.rfind(b"\n") + 1]
    return {json.loads(line)["id"] for line in whole.splitlines()}


class Crashes(unittest.TestCase):
    def trial(self, rng, argv, env, out, requests, key_of, duration):
        """Start, kill at a random point, re-run; return what the checks need."""
        full_env = dict(os.environ, **env)
        proc = subprocess.Popen([sys.executable] + argv, env=full_env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, 0.15 + duration))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        recorded = ids_in(out)
        mark = len(requests)
        again = subprocess.run([sys.executable] + argv, env=full_env, capture_output=True, text=True)
        self.assertIn(again.returncode, (0, 1), again.stderr)
        # A request the killed process had half sent arrives unreadable: it is
        # no question asked again, so it is left out.
        asked_again = {key_of(r) for r in requests[mark:]} - {None}
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
        middle = 0
        with tempfile.TemporaryDirectory() as tmp, WidgetServer(delay=0.03) as srv:
            questions = support.write_json(os.path.join(tmp, "questions-crash.json"), doc)
            text_to_id = {q["question"]: q["id"] for q in doc["questions"]}
            for trial in range(TRIALS):
                concurrency = 1 if trial < TRIALS // 2 else 8
                out = os.path.join(tmp, f"raw-{trial}.jsonl")
                argv = [support.script("run.py"), questions, out, "--endpoint", srv.url, "--quiet",
                        "--concurrency", str(concurrency), "--retry-pause", "0"]
                recorded, again = self.trial(rng, argv, {}, out, srv.requests,
                                             lambda r: text_to_id.get(r["body"].get("question")),
                                             30 * 0.03 / concurrency)
                middle += self.check(out, text_to_id.values(), recorded, again, f"trial {trial}")
        self.assertGreaterEqual(middle, TRIALS // 4)  # the kills did land mid-run

    def test_atomize_py(self):
        rng = random.Random(SEED + 1)
        with tempfile.TemporaryDirectory() as tmp, \
                ModelServer("openai", reply=model("openai", False)) as gen, \
                ModelServer("anthropic", reply=model("anthropic", True), delay=0.03) as judge:
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
            middle = 0
            for trial in range(TRIALS):
                concurrency = 1 if trial < TRIALS // 2 else 8
                out = os.path.join(tmp, f"atoms-{trial}.jsonl")
                argv = [support.script("atomize.py"), raw, out, "--provider", "anthropic", "--model",
                        "j", "--cases", SCENARIOS, "--quiet", "--concurrency", str(concurrency)]
                recorded, again = self.trial(rng, argv, judge.environ(), out, judge.requests, key_of,
                                             len(expected) * 0.03 / concurrency)
                middle += self.check(out, expected, recorded, again, f"trial {trial}")
            self.assertGreaterEqual(middle, TRIALS // 4)


if __name__ == "__main__":
    unittest.main()
