"""Secrets: recognisable fake keys are set, every command runs against
loopback servers (answering and failing, some echoing the key back in their
error bodies), and everything written (files, stdout, stderr) is searched
for the keys. Also: a widget profile's {env:NAME} header is recorded as
[redacted:NAME]."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer, error
from tests.standins import model
from tests.support import FIXTURES, WidgetServer, call_main

import ai_eval  # noqa: E402
import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402

KEYS = {
    "OPENAI_API_KEY": "sk-FAKEOPENAIKEY-0123456789abcdef",
    "ANTHROPIC_API_KEY": "sk-ant-FAKEANTHROPICKEY-0123456789",
    "AWS_ACCESS_KEY_ID": "AKIAFAKEACCESSKEY01",
    "AWS_SECRET_ACCESS_KEY": "FAKEsecretACCESSkey/0123456789abcdefghij",
    "AWS_SESSION_TOKEN": "FAKEsessionTOKEN0123456789",
    "WIDGET_TOKEN": "FAKE-widget-bearer-token-42",
}
CASES = os.path.join(FIXTURES, "scenarios-mini.json")


class Secrets(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        os.environ.update(KEYS)
        self.printed = []

    def call(self, module, argv):
        code, out, err = call_main(module, argv)
        self.printed.append(out + err)
        return code

    def point_at(self, srv):
        env = srv.environ()
        for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"):
            if name in env:
                os.environ[name] = env[name]
        os.environ["AWS_REGION"] = "us-east-1"

    def test_no_key_is_written_anywhere(self):
        t = self.tmp
        # The widget, with a bearer token from the environment.
        with open(os.path.join(support.TOOLS, "targets", "widget.json"), encoding="utf-8") as fh:
            profile = json.load(fh)
        profile["headers"]["Authorization"] = "Bearer {env:WIDGET_TOKEN}"
        profile_path = support.write_json(os.path.join(t, "profile.json"), profile)
        with WidgetServer(modes={"when do u open on monday": "http500"}) as widget:
            self.call(run, [os.path.join(FIXTURES, "questions-mini.json"), os.path.join(t, "raw-widget.jsonl"),
                            "--target", profile_path, "--endpoint", widget.url, "--retry-pause", "0"])
            self.assertEqual(widget.requests[0]["headers"]["Authorization"], f"Bearer {KEYS['WIDGET_TOKEN']}")
        with open(os.path.join(t, "raw-widget.jsonl"), encoding="utf-8") as fh:
            first = json.loads(fh.readline())
        self.assertEqual(first["request"]["headers"]["Authorization"], "Bearer [redacted:WIDGET_TOKEN]")
        # Every provider, answering.
        for flavour in ("openai", "anthropic", "bedrock"):
            with ModelServer(flavour, reply=model(flavour, True)) as srv:
                self.point_at(srv)
                if flavour == "bedrock":
                    os.environ["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
                raw = os.path.join(t, f"raw-{flavour}.jsonl")
                self.call(run, [CASES, raw, "--provider", flavour, "--model", f"gen-{flavour}"])
                self.call(atomize, [raw, os.path.join(t, f"atoms-{flavour}.jsonl"), "--provider", flavour,
                                    "--model", "judge", "--cases", CASES])
                os.environ["AWS_SECRET_ACCESS_KEY"] = KEYS["AWS_SECRET_ACCESS_KEY"]
        # Every provider, failing and echoing the key back.
        echoes = {"openai": (401, "invalid_request_error", f"Incorrect API key provided: {KEYS['OPENAI_API_KEY']}"),
                  "anthropic": (401, "authentication_error", f"invalid x-api-key {KEYS['ANTHROPIC_API_KEY']}"),
                  "bedrock": (403, "UnrecognizedClientException",
                              f"The security token {KEYS['AWS_SESSION_TOKEN']} for {KEYS['AWS_ACCESS_KEY_ID']} is invalid")}
        for flavour, (status, kind, message) in echoes.items():
            with ModelServer(flavour) as srv:
                srv.queue(*[error(flavour, status, kind, message)] * 10)
                self.point_at(srv)
                if flavour == "bedrock":
                    os.environ["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
                self.call(run, [CASES, os.path.join(t, f"raw-fail-{flavour}.jsonl"), "--provider", flavour,
                                "--model", "gen-x"])
                self.call(atomize, [os.path.join(t, "raw-openai.jsonl"), os.path.join(t, f"atoms-fail-{flavour}.jsonl"),
                                    "--provider", flavour, "--model", "judge-x", "--cases", CASES])
                self.call(ai_eval, ["intake", "--cases", os.path.join(FIXTURES, "ai", "intake-cases.json"),
                                    "--provider", flavour, "--model", "m", "--output",
                                    os.path.join(t, f"intake-{flavour}.json"),
                                    "--raw", os.path.join(t, f"intake-{flavour}.raw.jsonl")])
                os.environ["AWS_SECRET_ACCESS_KEY"] = KEYS["AWS_SECRET_ACCESS_KEY"]
        # Scoring what was written.
        self.call(score, [CASES, os.path.join(t, "raw-openai.jsonl"), os.path.join(t, "raw-anthropic.jsonl"),
                          os.path.join(t, "atoms-openai.jsonl"), "--sources", os.path.join(FIXTURES, "sources.json"),
                          "--jargon", os.path.join(FIXTURES, "jargon.json"), "--html-dir", os.path.join(t, "pages"),
                          "--json", os.path.join(t, "results.json")])

        written = []
        for folder, _dirs, files in os.walk(t):
            for name in files:
                with open(os.path.join(folder, name), "rb") as fh:
                    written.append((name, fh.read().decode("utf-8", "replace")))
        self.assertGreater(len(written), 15)
        self.assertTrue(any("[redacted]" in text for _name, text in written + [("out", "\n".join(self.printed))]))
        for label, text in written + [("stdout/stderr", "\n".join(self.printed))]:
            for var, key in KEYS.items():
                self.assertNotIn(key, text, f"{var} leaked into {label}")
                self.assertNotIn(key[:16], text, f"part of {var} leaked into {label}")


if __name__ == "__main__":
    unittest.main()
