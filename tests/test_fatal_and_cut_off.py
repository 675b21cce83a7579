"""A provider failure every call would meet (a key refused, a model that does
not exist) stops run.py, atomize.py and ai_eval.py at once with exit 2 and
one line, instead of recording the same error for every case; an answer cut
off at the token limit is marked on its raw line and counted at the end."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error, raw, success
from tests.support import ROOT, call_main, read_lines

import ai_eval  # noqa: E402
import atomize  # noqa: E402
import run  # noqa: E402

CASES = os.path.join(ROOT, "evals", "permits", "scenarios.json")
AI = os.path.join(ROOT, "evals", "ai")
REFUSED = error("openai", 401, "invalid_request_error", "Incorrect API key provided",
                code="invalid_api_key")


class Scripts(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)

    def server(self, flavour, **kw):
        srv = ModelServer(flavour, **kw)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        return srv

    def assert_stopped(self, code, err, srv):
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("nothing more was asked", err)
        self.assertEqual(len(srv.requests), 1)   # not retried, and no other case asked

    def test_run_py_stops_at_a_refused_key(self):
        srv = self.server("openai", script=[REFUSED] * 5)
        out = os.path.join(self.tmp, "raw.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", "gen-1",
                                       "--quiet"])
        self.assert_stopped(code, err, srv)
        self.assertEqual(read_lines(out), [])

    def test_atomize_py_stops_at_a_refused_key(self):
        self.server("openai", reply=lambda r: "Yes, with a permit from the city.")
        out = os.path.join(self.tmp, "raw.jsonl")
        self.assertEqual(call_main(run, [CASES, out, "--provider", "openai", "--model", "gen-1",
                                         "--quiet", "--limit", "2"])[0], 0)
        judge = self.server("anthropic", script=[error("anthropic", 401, "authentication_error",
                                                       "invalid x-api-key")] * 5)
        code, _, err = call_main(atomize, [out, os.path.join(self.tmp, "atoms.jsonl"),
                                           "--provider", "anthropic", "--model", "judge-1",
                                           "--cases", CASES, "--quiet"])
        self.assert_stopped(code, err, judge)

    def test_ai_eval_py_stops_at_a_refused_key(self):
        srv = self.server("openai", script=[REFUSED] * 5)
        code, _, err = call_main(ai_eval, [
            "intake", "--cases", os.path.join(AI, "intake-cases.json"),
            "--output", os.path.join(self.tmp, "r.json"),
            "--raw", os.path.join(self.tmp, "r.raw.jsonl"),
            "--provider", "openai", "--model", "m", "--quiet"])
        self.assert_stopped(code, err, srv)

    def test_an_answer_cut_off_at_the_token_limit_is_marked_and_counted(self):
        def cut(text):
            body = success("openai", {"model": "gen-1"}, text, stop="length")
            return raw(200, json.dumps(body).encode(), {"Content-Type": "application/json"})
        self.server("openai", script=[cut("Yes, you can build an ADU up to"),
                                      cut("A fence in front may be")])
        out = os.path.join(self.tmp, "raw.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", "openai", "--model", "gen-1",
                                       "--quiet", "--limit", "2", "--max-tokens", "8"])
        self.assertEqual(code, 0, err)
        lines = read_lines(out)
        self.assertEqual([line["response"]["cut_off"] for line in lines], [True, True])
        self.assertIn("2 answer(s) cut off at the token limit (--max-tokens): "
                      + ", ".join(line["id"] for line in lines), err)


if __name__ == "__main__":
    unittest.main()
