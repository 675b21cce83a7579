"""evalkit/jsonl.py: what a JSON document or a JSON Lines file may hold, and
how each refusal names its place."""

import os
import tempfile
import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from evalkit import BadInput, jsonl


class Loads(unittest.TestCase):
    def test_values(self):
        self.assertEqual(jsonl.loads('{"a": [1, 2.5, "\\u00e9"]}\n', "x:1"), {"a": [1, 2.5, "é"]})

    def test_refusals(self):
        cases = [('{"a": NaN}', "x:1: not valid JSON: NaN is not a JSON number"),
                 ('{"a": -Infinity}', "-Infinity is not a JSON number"),
                 ('{"a": 1e999}', "1e999 is too large for a number"),
                 ('\ufeff{"a": 1}', "Unexpected UTF-8 BOM"),
                 ('{"a" 1}', "x:1: not valid JSON: Expecting ':' delimiter (line 1, column 6)"),
                 ('{"a": 1} {"b": 2}', "Extra data"),
                 ("[" * 100000 + "]" * 100000, "x:1: JSON nested too deeply")]
        for text, expected in cases:
            with self.subTest(text=text[:20]):
                with self.assertRaises(BadInput) as caught:
                    jsonl.loads(text, "x:1")
                self.assertIn(expected, str(caught.exception))


class Lines(unittest.TestCase):
    def lines_of(self, data):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f.jsonl")
            with open(path, "wb") as fh:
                fh.write(data)
            return list(jsonl.iter_jsonl(path))

    def test_numbered_objects(self):
        self.assertEqual(self.lines_of(b'{"a": 1}\n{"b": 2}\r\n'), [(1, {"a": 1}), (2, {"b": 2})])

    def test_each_bad_line_is_named(self):
        cases = [(b'{"a": 1}\n\n', "f.jsonl:2: blank line"),
                 (b'{"a": 1}\n[1]\n', "f.jsonl:2: a line must be a JSON object"),
                 (b'{"a": 1}\n{"b": 2}', "f.jsonl:2: last line is cut off"),
                 (b'{"a": "\xff"}\n', "f.jsonl:1: not UTF-8"),
                 (b'{"a": 1}\n{oops\n', "f.jsonl:2: not valid JSON")]
        for data, expected in cases:
            with self.subTest(expected=expected):
                with self.assertRaises(BadInput) as caught:
                    self.lines_of(data)
                self.assertIn(expected, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
