"""What a server, a model or an evaluator sends back reaches a file safely.

A secret echoed back, plain or escaped in any way JSON, URLs and HTML allow,
reaches no file of the run and no line of stdout or stderr: a site that
echoes its ``{env:NAME}`` token, a generator model and an evaluator that echo
their API keys, in headers, bodies, error texts and atoms, through run.py,
atomize.py and score.py of both suites. Every byte written is searched.

A lone surrogate (``"\\ud83d"``: half an emoji, valid JSON) in an answer, its
sources or an evaluator's atoms is recorded as received and derived as U+FFFD,
so that every script writes it and scores it instead of crashing, every time.
"""

import json
import os
import tempfile
import unittest
from http.server import BaseHTTPRequestHandler
from urllib.parse import quote

from tests import support
from tests.model_servers import ModelServer, raw
from tests.support import FIXTURES, LoopbackServer, call_main, read_lines

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
CASES = os.path.join(FIXTURES, "scenarios-mini.json")
PROFILE = os.path.join(support.TOOLS, "targets", "widget.json")

SITE = "site/Token-9fK2pQ7x"     # the target profile's {env:SITE_TOKEN}
GENERATOR = "gen/Key-7f3aQ2wZ"  # OPENAI_API_KEY, not shaped like an OpenAI key
JUDGE = "judge/Key-5Kx8Lm3p"    # ANTHROPIC_API_KEY, likewise


def every_escape(secret):
    """The spellings a server may echo ``secret`` in, JSON-escaped as in a
    body: each character as \\u, slashes as \\/, only the first character
    escaped, percent-encoded (whole or where a URL must), an HTML
    character reference, and \\u inside a JSON string inside JSON."""
    unicode = "".join(f"\\u{ord(ch):04x}" for ch in secret)
    return {
        "plain": secret,
        "unicode": unicode,
        "slash": secret.replace("/", "\\/"),
        "first": f"\\u{ord(secret[0]):04x}" + secret[1:],
        "percent": "".join(f"%{ord(ch):02X}" for ch in secret),
        "quoted": quote(secret, safe=""),
        "html": f"&#{ord(secret[0])};&#x{ord(secret[1]):x};" + secret[2:],
        "twice": unicode.replace("\\", "\\\\"),
    }


def spellings(secret):
    """What must be found nowhere: the secret, and the forms of it a grep
    can find (the JSON text of a form holds the form itself)."""
    escapes = every_escape(secret)
    return {escapes[name] for name in ("plain", "unicode", "slash", "percent", "quoted")}


def echo_text(secret):
    return " | ".join(f"{name}: {form}" for name, form in every_escape(secret).items())


class EchoingSite(BaseHTTPRequestHandler):
    """A widget endpoint that echoes the token in every way it can:
    mini-en-01 in its headers, answer and sources; mini-en-02 in an error
    body; the others answer plainly."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        token = self.headers.get("Authorization", "").split(" ", 1)[-1]
        forms = every_escape(token)
        if request["question"].startswith("How much"):
            status = 200
            body = ('{"answer": "Your token: ' + echo_text(token) + '", "sources": ['
                    '{"url": "https://clinic.example/prices?t=' + forms["percent"] + '"}, '
                    '{"url": "https:\\/\\/clinic.example\\/' + forms["slash"] + '"}, '
                    '"https://clinic.example/' + forms["unicode"] + '"], "grounded": true}')
            headers = [("X-Echo", token), ("X-Echo-Escaped", forms["unicode"]),
                       ("X-Echo-Quoted", forms["quoted"])]
        elif request["question"].startswith("when do"):
            status, headers = 500, [("X-Echo", forms["first"])]
            body = '{"error": "bad token ' + echo_text(token) + '"}'
        else:
            status, headers = 200, []
            body = '{"answer": "We are open on Monday.", "sources": [], "grounded": true}'
        data = body.encode("utf-8")
        self.send_response(status)
        for name, value in headers + [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(data)))]:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def openai_body(content_json_text):
    """An OpenAI chat.completion body whose content is the given JSON string text."""
    return ('{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gen-1", '
            '"choices": [{"index": 0, "message": {"role": "assistant", "content": '
            + content_json_text + '}, "finish_reason": "stop"}], '
            '"usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}').encode()


def judge_body(atom_text):
    """An Anthropic Messages body calling the answer tool with one atom whose
    text is the given JSON string text (escapes as sent)."""
    return ('{"id": "msg_1", "type": "message", "role": "assistant", "model": "judge-1", '
            '"content": [{"type": "tool_use", "id": "toolu_1", "name": "record_atoms", '
            '"input": {"atoms": [{"text": ' + atom_text + ', "correctness": "correct", '
            '"verified_truth": ' + atom_text + ', "citation": null, "topic": "zoning", '
            '"specificity": 0.5, "actionability": 0.5, "importance": 3}]}}], '
            '"stop_reason": "tool_use", "stop_sequence": null, '
            '"usage": {"input_tokens": 11, "output_tokens": 7}}').encode()


class Scripts(unittest.TestCase):
    """Both suites end to end, every command's output kept for the search."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)
        self.printed = []

    def path(self, name):
        return os.path.join(self.tmp, name)

    def call(self, module, argv, codes=(0, 1)):
        code, out, err = call_main(module, argv)
        self.printed.append(out + err)
        self.assertIn(code, codes, err)
        self.assertNotIn("Traceback", err)
        return code, err

    def server(self, flavour, **kw):
        srv = ModelServer(flavour, **kw)
        srv.__enter__()
        self.addCleanup(srv.__exit__)
        return srv

    def written(self):
        """Every file under the run's folder, and everything printed."""
        texts = list(self.printed)
        for folder, _, files in os.walk(self.tmp):
            for name in files:
                with open(os.path.join(folder, name), "rb") as fh:
                    texts.append(fh.read().decode("utf-8", "replace"))
        return texts

    def site_profile(self):
        with open(PROFILE, encoding="utf-8") as fh:
            profile = json.load(fh)
        profile["headers"]["Authorization"] = "Bearer {env:SITE_TOKEN}"
        path = self.path("profile.json")
        support.write_json(path, profile)
        return path



class SecretEchoes(Scripts):
    def test_a_secret_echoed_in_every_way_reaches_no_file_and_no_output(self):
        os.environ["SITE_TOKEN"] = SITE
        with LoopbackServer(EchoingSite) as site:
            url = f"http://127.0.0.1:{site.httpd.server_address[1]}/api/query"
            raw_site = self.path("raw-site.jsonl")
            self.call(run, [QUESTIONS, raw_site, "--target", self.site_profile(),
                            "--endpoint", url, "--retry-pause", "0"])
        (echoed,) = [line for line in read_lines(raw_site) if line["id"] == "mini-en-01"]
        self.assertTrue(echoed["response"]["redacted"])
        self.assertIn("[redacted]", echoed["derived"]["answer"])
        self.call(score, [QUESTIONS, raw_site, "--out", self.path("site.md"),
                          "--json", self.path("site.json"), "--html", self.path("index.html"),
                          "--review-sheet", self.path("review-sheet.md")])

        generator = self.server("openai", script=[
            raw(200, openai_body(json.dumps("My key: " + echo_text(GENERATOR)))),
            raw(400, ('{"error": {"message": "Incorrect API key provided: '
                      + echo_text(GENERATOR) + '", "type": "invalid_request_error", '
                      '"param": null, "code": "bad_key_echo"}}').encode())])
        os.environ.update({"OPENAI_BASE_URL": generator.base + "/v1",
                           "OPENAI_API_KEY": GENERATOR})
        raw_gen = self.path("raw-gen.jsonl")
        self.call(run, [CASES, raw_gen, "--provider", "openai", "--model", "gen-1"])

        judge = self.server("anthropic", script=[
            raw(200, judge_body('"The judge\'s key: ' + echo_text(JUDGE) + '"')),
            raw(400, ('{"type": "error", "error": {"type": "invalid_request_error", '
                      '"message": "key ' + echo_text(JUDGE) + '"}}').encode())])
        os.environ.update({"ANTHROPIC_BASE_URL": judge.base, "ANTHROPIC_API_KEY": JUDGE})
        atoms = self.path("atoms.jsonl")
        self.call(atomize, [raw_gen, atoms, "--provider", "anthropic", "--model", "judge-1",
                            "--cases", CASES, "--repeat", "2"])
        first, second = read_lines(atoms)
        self.assertIsNone(first["error"])
        self.assertIn("[redacted]", first["atoms"][0]["text"])
        self.assertIn("[redacted]", second["error"])
        self.call(score, [CASES, raw_gen, atoms, "--example", "--out", self.path("scenario.md"),
                          "--json", self.path("scenario.json"),
                          "--html-dir", self.path("pages")])

        texts = self.written()
        self.assertGreater(len(texts), 15)
        for secret in (SITE, GENERATOR, JUDGE):
            for form in spellings(secret):
                found = [text[max(0, text.find(form) - 60):text.find(form) + 60]
                         for text in texts if form in text]
                self.assertEqual(found, [], f"{form!r} was written")


def lone_surrogate_site(answer_json, sources_json):
    class Site(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            data = ('{"answer": ' + answer_json + ', "sources": ' + sources_json +
                    ', "grounded": true}').encode("ascii")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
    return Site


class LoneSurrogates(Scripts):
    def test_half_an_emoji_in_an_answer_is_recorded_derived_and_scored(self):
        site = lone_surrogate_site('"A first consultation costs 80 \\ud83d"',
                                   '["https://clinic.example/prices\\udfff"]')
        with LoopbackServer(site) as server:
            url = f"http://127.0.0.1:{server.httpd.server_address[1]}/api/query"
            raw_site = self.path("raw-site.jsonl")
            code, err = self.call(run, [QUESTIONS, raw_site, "--endpoint", url, "--quiet"])
        lines = read_lines(raw_site)
        self.assertEqual(code, 0, err)
        self.assertIn("80 \\ud83d", lines[0]["response"]["body"])  # as received
        self.assertEqual(lines[0]["derived"]["answer"], "A first consultation costs 80 \ufffd")
        self.assertEqual(lines[0]["derived"]["sources"], ["https://clinic.example/prices\ufffd"])
        for _ in range(2):  # a second scoring, as the first: nothing is stuck
            self.call(score, [QUESTIONS, raw_site, "--out", self.path("site.md"),
                              "--json", self.path("site.json"), "--html", self.path("index.html"),
                              "--review-sheet", self.path("review-sheet.md")])
        with open(self.path("site.json"), encoding="utf-8") as fh:
            self.assertIn("\ufffd", fh.read())

    def test_half_an_emoji_from_a_generator_and_an_evaluator(self):
        generator = self.server("openai", script=[
            raw(200, openai_body('"Permits cost 80 \\ud83d and take a week."')),
            raw(200, openai_body('"Fences may be 3.5 feet tall \\udfff."'))])
        os.environ.update(generator.environ())
        raw_gen = self.path("raw-gen.jsonl")
        self.call(run, [CASES, raw_gen, "--provider", "openai", "--model", "gen-1"], codes=(0,))
        self.assertEqual(read_lines(raw_gen)[0]["derived"]["answer"],
                         "Permits cost 80 \ufffd and take a week.")
        judge = self.server("anthropic", script=[raw(200, judge_body('"Permits cost 80 \\ud83d"')),
                                                 raw(200, judge_body('"Fences \\udfff"'))])
        os.environ.update(judge.environ())
        atoms = self.path("atoms.jsonl")
        self.call(atomize, [raw_gen, atoms, "--provider", "anthropic", "--model", "judge-1",
                            "--cases", CASES], codes=(0,))
        self.assertEqual(read_lines(atoms)[0]["atoms"][0]["text"], "Permits cost 80 \ufffd")
        self.call(score, [CASES, raw_gen, atoms, "--example", "--out", self.path("scenario.md"),
                          "--json", self.path("scenario.json"), "--html-dir", self.path("pages")],
                  codes=(0,))


if __name__ == "__main__":
    unittest.main()
