"""Faults: one question per fault against a loopback widget server that
misbehaves on request, in one run. Every question gets exactly one raw line
recording what happened, the run goes on, the exit code is 1, the
denominators still count every question, and the number of attempts follows
the policy (one retry for the system under test, only when no HTTP 200 came).
Evaluator faults: bounded, backed-off retries, then a recorded error."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error
from tests.standins import model
from tests.support import FIXTURES, WidgetServer, call_main, read_lines

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit.asking import rawline  # noqa: E402

# fault -> attempts the policy allows (2: the one retry after a failed request)
FAULTS = {
    "reset": 2, "reset_after_headers": 2, "http500": 2, "http502": 2, "http503": 2,
    "http429": 2, "timeout": 2, "slow_body": 2, "redirect": 2,
    "invalid_json": 1, "wrong_shape": 1, "empty": 1, "oversized": 1, "not_utf8": 1,
    "big_answer": 1,
}


class WidgetFaults(unittest.TestCase):
    def test_every_fault_in_one_run(self):
        faults = sorted(FAULTS)
        with open(os.path.join(FIXTURES, "questions-mini.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        template = doc["questions"][0]
        doc["questions"] = [dict(template, id=f"mini-en-{n + 1:02d}", question=f"fault {fault}?")
                            for n, fault in enumerate(faults)]
        doc["questions"].append(dict(template, id="mini-en-99", question="a good question?"))
        with tempfile.TemporaryDirectory() as tmp:
            questions = support.write_json(os.path.join(tmp, "questions-chaos.json"), doc)
            out = os.path.join(tmp, "raw.jsonl")
            modes = {f"fault {fault}?": fault for fault in faults}
            # A timeout of 2 s, which a request on a busy machine does not near
            # (the 3 MB among them); the server holds a "timeout" answer 3 s
            # and trickles a slow body at a byte each 0.75 s.
            with WidgetServer(modes=modes, sleep=3.0, big=3 * 1024 * 1024) as srv:
                code, _, err = call_main(run, [questions, out, "--endpoint", srv.url, "--quiet",
                                               "--timeout", "2", "--retry-pause", "0",
                                               "--concurrency", "4", "--skip-endpoint-check"])
                counts = dict(srv.counts)
            self.assertEqual(code, 1)
            lines = read_lines(out)
            by_id = {l["id"]: l for l in lines}
            self.assertEqual(len(lines), len(faults) + 1)   # exactly one line per question
            self.assertEqual(len(by_id), len(lines))
            for n, fault in enumerate(faults):
                line = by_id[f"mini-en-{n + 1:02d}"]
                with self.subTest(fault):
                    self.assertEqual(len(line["attempts"]), FAULTS[fault], line["attempts"])
                    self.assertEqual(counts[f"fault {fault}?"], FAULTS[fault])
            results = os.path.join(tmp, "results.json")
            self.assertEqual(call_main(score, [questions, out, "--json", results])[0], 0)
            with open(results, encoding="utf-8") as fh:
                total = json.load(fh)["groups"][-1]
            # Every question stays in the denominators; only the good one and the
            # 1 MB answer were delivered.
            self.assertEqual((total["delivered"]["passed"], total["delivered"]["applicable"]),
                             (2, len(faults) + 1))
            self.assertEqual(total["correct_facts"]["applicable"], len(faults) + 1)
            listed = next(l for l in err.splitlines() if "got no answer" in l)
            failed = listed.split(": ")[-1].split(", ")
            self.assertEqual(len(failed), len(faults) - 1)

    def test_connection_refused(self):
        """Without the endpoint check, the first five questions are asked,
        recorded, and the run stops (exit 2) rather than record eight more."""
        srv = WidgetServer()
        url = srv.url
        srv.httpd.server_close()
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "raw.jsonl")
            code, _, err = call_main(run, [os.path.join(FIXTURES, "questions-mini.json"), out,
                                           "--endpoint", url, "--quiet", "--retry-pause", "0",
                                           "--skip-endpoint-check"])
            lines = read_lines(out)
            self.assertEqual(code, 2)
            self.assertIn("all failed the same way (connection refused)", err)
            self.assertEqual(len(lines), rawline.FIRST_FAILURES)
            self.assertTrue(all([a["error"] for a in l["attempts"]] == ["connection refused"] * 2
                                for l in lines))


class EvaluatorFaults(unittest.TestCase):
    def test_overloaded_then_fine_and_always_failing(self):
        cases = os.path.join(FIXTURES, "scenarios-mini.json")
        support.isolate_environ(self)
        with tempfile.TemporaryDirectory() as tmp, \
                ModelServer("openai", reply=model("openai", False)) as gen:
            os.environ.update(gen.environ())
            raw = os.path.join(tmp, "raw.jsonl")
            self.assertEqual(call_main(run, [cases, raw, "--provider", "openai", "--model", "g",
                                             "--quiet"])[0], 0)
            with ModelServer("anthropic", reply=model("anthropic", True)) as judge:
                judge.queue(*[error("anthropic", 529, "overloaded_error", "Overloaded",
                                    headers={"retry-after-ms": "20"})] * 2)
                os.environ.update(judge.environ())
                out = os.path.join(tmp, "atoms.jsonl")
                code, _, _ = call_main(atomize, [raw, out, "--provider", "anthropic", "--model", "j",
                                                 "--cases", cases, "--quiet", "--limit", "1"])
                self.assertEqual(code, 0)
                (line,) = read_lines(out)
                self.assertEqual([a["status"] for a in line["calls"][0]["attempts"]], [529, 529, 200])
            with ModelServer("anthropic") as judge:
                judge.queue(*[error("anthropic", 500, "api_error", "Internal",
                                    headers={"retry-after-ms": "10"})] * 20)
                os.environ.update(judge.environ())
                out = os.path.join(tmp, "atoms-failing.jsonl")
                code, _, err = call_main(atomize, [raw, out, "--provider", "anthropic", "--model", "j",
                                                   "--cases", cases, "--quiet"])
                self.assertEqual(code, 1)
                lines = read_lines(out)
                self.assertEqual(len(lines), 2)     # one line per answer, errors recorded
                for line in lines:
                    self.assertIsNone(line["atoms"])
                    self.assertIn("gave up after 5 attempts", line["error"])
                    self.assertEqual(len(line["calls"][0]["attempts"]), 5)


if __name__ == "__main__":
    unittest.main()
