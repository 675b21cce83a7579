"""evalkit/jsonl.py: the fast whole-document parsers give what the slow ones
give, the same value or the same error, on every kind of document."""

import json
import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from evalkit import jsonl

DOCUMENTS = [
    '{"a": 1}', '{"a": 1}\n', '{"a": 1}\r\n', '{"a": 1}\n\n', '{"a": 1} \n', ' {"a": 1}\n',
    '\t{"a": 1}', '{"a": 1}x', '{"a": 1}\nx', '{"a": 1} {"b": 2}\n', '', '\n', ' ',
    '\ufeff{"a": 1}\n', '[1, 2.5, "x"]\n', '"text"', '3', '-0.0\n', 'true', 'null\n',
    '{"a": NaN}\n', '{"a": Infinity}', '{"a": 1e999}\n', '{"a": "\\u00e9\\ud83d\\ude00"}\n',
    '{"a": [1, 2}\n', '{"a": "unterminated}\n', '{"a": 1,}\n', '{"a" 1}\n', 'nul\n',
    '{"a": {"b": {"c": []}}}\n', '{"a": 1}\u2028', '{"a": 1}\x1c\n', '{"\u05e9": "\u044f"}\n',
    '[' * 100 + ']' * 100 + '\n', '[' * 100000 + ']' * 100000 + '\n',
]


def outcome(parse, text):
    try:
        return ("value", repr(parse(text)))
    except RecursionError:
        return ("recursion",)
    except ValueError as exc:  # JSONDecodeError and the hooks' refusals
        return (type(exc).__name__, str(exc))


class WholeDocuments(unittest.TestCase):
    def test_our_files_parse_as_the_decoder_does(self):
        for text in DOCUMENTS:
            with self.subTest(text=text[:30]):
                self.assertEqual(outcome(jsonl._parse, text),
                                 outcome(jsonl._decode_ours, text))

    def test_bodies_parse_as_json_loads_does(self):
        for text in DOCUMENTS:
            with self.subTest(text=text[:30]):
                self.assertEqual(outcome(jsonl.loads_plain, text), outcome(json.loads, text))

    def test_the_cases_differ_where_they_should(self):
        # The list reaches both outcomes, and NaN is ours to refuse only.
        kinds = {outcome(jsonl._parse, text)[0] for text in DOCUMENTS}
        self.assertLessEqual({"value", "JSONDecodeError", "ValueError"}, kinds)
        self.assertEqual(outcome(jsonl.loads_plain, '{"a": NaN}\n'), ("value", "{'a': nan}"))
        self.assertEqual(outcome(jsonl._parse, '{"a": NaN}\n')[0], "ValueError")


if __name__ == "__main__":
    unittest.main()
