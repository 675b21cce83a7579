"""evalkit/responses.py: reading an answer back out of a recorded body."""

import json
import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from evalkit.responses import answer_text, derive, follow

SPEC = {"answer": "answer", "sources": "sources", "source_url": "url", "grounded": "grounded"}


class Follow(unittest.TestCase):
    def test_found_and_absent(self):
        doc = {"data": {"items": [{"text": "t"}]}, "0": "zero", "a.b": "dotted key"}
        self.assertEqual(follow(doc, "data.items.0.text"), "t")
        self.assertEqual(follow(doc, "0"), "zero")
        self.assertEqual(follow(["a", "b"], "1"), "b")
        self.assertIsNone(follow(doc, "data.items.1.text"))  # past the end of a list
        self.assertIsNone(follow(doc, "a.b"))  # a dot always separates parts
        self.assertIsNone(follow(["a"], "-1"))  # an index is digits only
        self.assertIsNone(follow("text", "0"))  # a string is not a list
        self.assertIsNone(follow({"answer": None}, "answer.x"))


class Derive(unittest.TestCase):
    def response(self, body, status=200, **extra):
        return {"status": status, "body": body, "truncated": False, **extra}

    def test_answer_sources_grounded(self):
        body = json.dumps({"answer": "Open at 8.", "grounded": True,
                           "sources": [{"url": "http://a/x"}, "http://a/y", {"url": ""}, 3]})
        got = derive(self.response(body), SPEC)
        self.assertEqual(got, {"answer": "Open at 8.", "sources": ["http://a/x", "http://a/y"],
                               "grounded": True, "problem": None})

    def test_why_no_answer(self):
        cases = [(None, "no response"),
                 (self.response("{}", truncated=True), "body over the size cap"),
                 (self.response("{}", status=503), "HTTP 503"),
                 (self.response(None), "response body is not UTF-8"),
                 (self.response("<html>"), "response body is not JSON"),
                 (self.response("{}"), "response has no answer"),
                 (self.response('{"answer": 3}'), "response answer is not a string")]
        for response, problem in cases:
            with self.subTest(problem=problem):
                got = derive(response, SPEC)
                self.assertEqual(got["problem"], problem)
                self.assertIsNone(got["answer"])

    def test_grounded_must_be_a_boolean(self):
        got = derive(self.response('{"answer": "a", "grounded": "false"}'), SPEC)
        self.assertIsNone(got["grounded"])


class AnswerText(unittest.TestCase):
    def test_each_wire_format(self):
        bodies = {
            "openai": {"choices": [{"message": {"content": "hi"}}]},
            "anthropic": {"content": [{"type": "text", "text": "h"}, {"type": "tool_use"},
                                      {"type": "text", "text": "i"}]},
            "bedrock": {"output": {"message": {"content": [{"text": "h"}, {"text": "i"}]}}},
        }
        for provider, body in bodies.items():
            with self.subTest(provider=provider):
                response = {"status": 200, "body": json.dumps(body)}
                self.assertEqual(answer_text({"provider": provider}, response), "hi")

    def test_none_without_an_answer(self):
        ok = json.dumps({"choices": [{"message": {"content": "hi"}}]})
        self.assertIsNone(answer_text({"provider": "openai"}, {"status": 500, "body": ok}))
        self.assertIsNone(answer_text({"provider": "openai"}, {"status": 200, "body": "x"}))
        self.assertIsNone(answer_text({"provider": "other"}, {"status": 200, "body": ok}))
        self.assertIsNone(answer_text({"provider": "openai"}, None))

    def test_manual_answer_is_the_body(self):
        self.assertEqual(answer_text({"kind": "manual"}, {"status": None, "body": "as typed"}),
                         "as typed")


if __name__ == "__main__":
    unittest.main()
