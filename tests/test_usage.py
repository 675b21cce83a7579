"""Tokens and cost (issue 19): every call records the usage its provider
returns, read from each API's own fields (cached tokens included), or that
none was reported; run.py, atomize.py and ai_eval.py end with one summary
line unless --quiet (calls, retries, 429s, tokens, wall time and, with prices, the cost);
--max-calls stops a run, exit 1, and the same command continues it. All
against the loopback servers speaking the real wire formats."""

import json
import os
import re
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error
from tests.support import FIXTURES, call_main, read_lines
from tests.test_ai_eval import AI, model as ai_model
from tests.test_atomize import good_atoms

import ai_eval  # noqa: E402
import atomize  # noqa: E402
import run  # noqa: E402
from evalkit.asking import providers  # noqa: E402
from evalkit.asking.providers import Policy, Request  # noqa: E402

CASES = os.path.join(FIXTURES, "scenarios-mini.json")
# Each API's usage with a prompt cache read, in its own fields.
CACHED = {
    "openai": ({"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150,
                "prompt_tokens_details": {"cached_tokens": 100, "audio_tokens": 0}},
               {"input_tokens": 120, "output_tokens": 30, "cached_input_tokens": 100,
                "cache_write_input_tokens": None}),
    # Anthropic's input_tokens is only what follows the last cache breakpoint.
    "anthropic": ({"input_tokens": 15, "output_tokens": 30, "cache_read_input_tokens": 100,
                   "cache_creation_input_tokens": 5},
                  {"input_tokens": 120, "output_tokens": 30, "cached_input_tokens": 100,
                   "cache_write_input_tokens": 5}),
    "bedrock": ({"inputTokens": 20, "outputTokens": 30, "totalTokens": 150,
                 "cacheReadInputTokens": 100, "cacheWriteInputTokens": 0},
                {"input_tokens": 120, "output_tokens": 30, "cached_input_tokens": 100,
                 "cache_write_input_tokens": 0}),
}
SUMMARY = re.compile(r"^(?P<prog>[a-z_]+\.py): (?P<calls>\d+) model call\(s\), (?P<retries>\d+) "
                     r"retr(y|ies) \((?P<throttled>\d+) answered 429\), (?P<failed>\d+) failed; "
                     r"tokens in (?P<tin>\d+) \(cached (?P<cached>\d+)\), out (?P<tout>\d+)"
                     r"(, not reported for (?P<unreported>\d+) reply\(ies\))?; waited for the "
                     r"rate limits \d+\.\d s; wall \d+\.\d s"
                     r"(; cost \$(?P<cost>\d+\.\d{4}) \(at .*\))?$")


def summary(err):
    """The summary line's fields: the last line of stderr."""
    match = SUMMARY.match(err.strip().splitlines()[-1])
    if match is None:
        raise AssertionError(f"no summary line at the end of stderr:\n{err}")
    return match.groupdict()


class UsageFields(unittest.TestCase):
    def call(self, flavour, usage):
        with ModelServer(flavour, usage=usage) as srv:
            client = providers.get(flavour, srv.environ(), Policy())
            return client.call(Request(system="s", user="u", model="anthropic.claude-3-haiku",
                                       timeout=5))

    def test_each_apis_own_fields_cached_tokens_included(self):
        for flavour, (api, expected) in sorted(CACHED.items()):
            with self.subTest(flavour):
                usage = self.call(flavour, api).usage
                self.assertEqual(usage, dict(expected, reported=True, api=api))

    def test_the_loopback_servers_usage_without_a_cache(self):
        for flavour in ("openai", "anthropic", "bedrock"):
            with self.subTest(flavour):
                usage = self.call(flavour, True).usage
                self.assertEqual((usage["input_tokens"], usage["output_tokens"], usage["reported"]),
                                 (11, 7, True))
                self.assertIn(usage["cached_input_tokens"], (0, None))

    def test_a_reply_without_usage_records_that_none_was_reported(self):
        for flavour in ("openai", "anthropic", "bedrock"):
            for usage in (None, {"total_tokens": 3}):
                with self.subTest(flavour, usage=usage):
                    recorded = self.call(flavour, usage).usage
                    self.assertEqual(recorded, {
                        "input_tokens": None, "output_tokens": None, "cached_input_tokens": None,
                        "cache_write_input_tokens": None, "reported": False, "api": usage})


class Scripts(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        for name in ("OPENAI", "ANTHROPIC", "BEDROCK"):
            os.environ.pop(f"{name}_RPM", None)
            os.environ.pop(f"{name}_TPM", None)

    def server(self, flavour, **kw):
        srv = ModelServer(flavour, **kw)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        os.environ.update(srv.environ())
        return srv

    def generate(self, *extra):
        out = os.path.join(self.tmp, "raw.jsonl")
        return (out,) + call_main(run, [CASES, out, "--provider", "openai", "--model", "gen-1"]
                                  + list(extra))

    def test_run_py_records_usage_and_ends_with_the_summary(self):
        srv = self.server("openai", reply=lambda r: "Yes, with a permit.")
        srv.queue(error("openai", 429, "rate_limit_exceeded", "slow down",
                        headers={"retry-after-ms": "10"}))
        out, code, _, err = self.generate("--price-in", "1000", "--price-out", "2000")
        self.assertEqual(code, 0, err)
        for line in read_lines(out):
            self.assertEqual(line["usage"]["api"]["prompt_tokens"], 11)
            self.assertEqual((line["usage"]["input_tokens"], line["usage"]["output_tokens"]),
                             (11, 7))
        fields = summary(err)
        self.assertEqual((fields["prog"], fields["calls"], fields["retries"], fields["throttled"],
                          fields["failed"], fields["tin"], fields["tout"], fields["cached"]),
                         ("run.py", "2", "1", "1", "0", "22", "14", "0"))
        self.assertEqual(fields["cost"], "0.0500")  # 22 x $1000/M + 14 x $2000/M

    def test_a_price_file_by_provider_and_model(self):
        self.server("anthropic", reply=lambda r: "Yes, with a permit.")
        prices = os.path.join(self.tmp, "prices.json")
        with open(prices, "w", encoding="utf-8") as fh:
            json.dump({"format": 1, "usd_per_million_tokens": {
                "anthropic:gen-1": {"input": 3000, "output": 15000},
                "gen-1": {"input": 1, "output": 1}}}, fh)
        out = os.path.join(self.tmp, "raw.jsonl")
        code, _, err = call_main(run, [CASES, out, "--provider", "anthropic", "--model", "gen-1",
                                       "--prices", prices])
        self.assertEqual(code, 0, err)
        self.assertEqual(summary(err)["cost"], "0.2760")  # 22 x 3000/M + 14 x 15000/M

    def test_a_price_file_without_the_model_is_refused_before_any_call(self):
        srv = self.server("openai")
        prices = os.path.join(self.tmp, "prices.json")
        with open(prices, "w", encoding="utf-8") as fh:
            json.dump({"format": 1, "usd_per_million_tokens": {"other": {"input": 1, "output": 1}}}, fh)
        out, code, _, err = self.generate("--prices", prices)
        self.assertEqual((code, err), (2, f"run.py: {prices}: no price for openai:gen-1 (nor gen-1)\n"))
        self.assertEqual(srv.requests, [])

    def test_quiet_leaves_the_summary_out_but_not_a_stop_at_max_calls(self):
        self.server("openai", reply=lambda r: "Yes, with a permit.")
        out, code, _, err = self.generate("--quiet", "--limit", "1")
        self.assertEqual((code, err), (0, ""))
        os.unlink(out)
        out, code, _, err = self.generate("--quiet", "--max-calls", "1")
        self.assertEqual(code, 1)
        self.assertEqual(len(err.splitlines()), 2, err)
        self.assertEqual(summary(err)["calls"], "1")

    def test_replies_without_usage_are_counted_as_not_reported(self):
        self.server("openai", reply=lambda r: "Yes.", usage=None)
        out, code, _, err = self.generate()
        self.assertEqual(code, 0, err)
        self.assertEqual([line["usage"]["reported"] for line in read_lines(out)], [False, False])
        fields = summary(err)
        self.assertEqual((fields["tin"], fields["unreported"]), ("0", "2"))

    def test_max_calls_stops_the_run_and_the_same_command_continues(self):
        srv = self.server("openai", reply=lambda r: "Yes, with a permit.")
        out, code, _, err = self.generate("--max-calls", "1")
        self.assertEqual(code, 1, err)
        self.assertIn("run.py: stopped at --max-calls 1: the cases not done were not written; "
                      "run the same command again to continue", err)
        self.assertEqual(summary(err)["calls"], "1")
        self.assertEqual(len(read_lines(out)), 1)
        self.assertEqual(len(srv.requests), 1)
        out, code, _, err = self.generate("--max-calls", "1")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(read_lines(out)), 2)
        self.assertEqual(len(srv.requests), 2)

    def test_atomize_py_records_usage_per_call_and_ends_with_the_summary(self):
        self.server("openai", reply=lambda r: "Yes, with a permit.")
        raw_path, code, _, err = self.generate()
        self.assertEqual(code, 0, err)
        self.server("anthropic", reply=good_atoms)
        atoms = os.path.join(self.tmp, "atoms.jsonl")
        code, _, err = call_main(atomize, [raw_path, atoms, "--provider", "anthropic", "--model",
                                           "judge-1", "--cases", CASES, "--max-calls", "5"])
        self.assertEqual(code, 0, err)
        for line in read_lines(atoms):
            (call,) = line["calls"]
            self.assertEqual(call["usage"]["api"]["cache_read_input_tokens"], 0)
            self.assertTrue(call["usage"]["reported"])
        fields = summary(err)
        self.assertEqual((fields["prog"], fields["calls"], fields["tin"], fields["tout"]),
                         ("atomize.py", "2", "22", "14"))

    def test_atomize_py_max_calls(self):
        self.server("openai", reply=lambda r: "Yes, with a permit.")
        raw_path, code, _, err = self.generate()
        judge = self.server("anthropic", reply=good_atoms)
        atoms = os.path.join(self.tmp, "atoms.jsonl")
        argv = [raw_path, atoms, "--provider", "anthropic", "--model", "judge-1", "--cases", CASES,
                "--quiet", "--max-calls", "1"]
        code, _, err = call_main(atomize, argv)
        self.assertEqual((code, len(read_lines(atoms)), len(judge.requests)), (1, 1, 1), err)
        code, _, err = call_main(atomize, argv)
        self.assertEqual((code, len(read_lines(atoms)), len(judge.requests)), (0, 2, 2), err)

    def test_ai_eval_py_ends_with_the_summary_and_its_result_says_the_tokens_per_case(self):
        self.server("openai", reply=ai_model)
        out = os.path.join(self.tmp, "intake.json")
        raw_path = os.path.join(self.tmp, "intake.raw.jsonl")
        code, _, err = call_main(ai_eval, [
            "intake", "--cases", os.path.join(AI, "intake-cases.json"), "--output", out,
            "--raw", raw_path, "--provider", "openai", "--model", "loopback-model"])
        lines = read_lines(raw_path)
        self.assertTrue(all(line["calls"][0]["usage"]["reported"] for line in lines
                            if not line["error"]))
        fields = summary(err)
        self.assertEqual((fields["prog"], fields["calls"]), ("ai_eval.py", str(len(lines))))
        self.assertIn(code, (0, 1))
        with open(out, encoding="utf-8") as fh:
            tokens = json.load(fh)["run"]["tokens"]
        calls = len(lines)  # one call a case: every reply carried the server's usage, 11 in, 7 out
        self.assertEqual(tokens, {"calls": calls, "replies_without_usage": 0,
                                  "input_tokens": 11 * calls, "cached_input_tokens": 0,
                                  "output_tokens": 7 * calls, "input_tokens_per_case": 11.0,
                                  "output_tokens_per_case": 7.0})


if __name__ == "__main__":
    unittest.main()
