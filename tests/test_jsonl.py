"""evalkit/jsonl.py: what a JSON document or a JSON Lines file may hold, and
how each refusal names its place."""

import os
import tempfile
import threading
import unittest

from tests import support
from evalkit import BadInput, jsonl
from evalkit.responses import parse_received


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


class NumbersAndDepth(unittest.TestCase):
    """One rule on every Python from 3.10 to 3.13, for files and for what a
    server sends: no number a float cannot hold (3.11+ also limits int() to
    4,300 digits; 3.13 parses 5,000 levels that 3.10 refuses)."""

    def refused(self, text, said):
        with self.assertRaises(BadInput) as caught:
            jsonl.loads(text, "x:1")
        self.assertIn(said, str(caught.exception))
        self.assertEqual(len(str(caught.exception).splitlines()), 1)
        with self.assertRaises(ValueError) as caught:
            parse_received(text)
        self.assertIn(said, str(caught.exception))

    def test_a_number_no_float_holds_is_refused_whatever_its_digits(self):
        for digits in (309, 400, 4301, 5000, 100_000):
            for sign in ("", "-"):
                with self.subTest(digits=digits, sign=sign):
                    self.refused('{"a": %s%s}' % (sign, "9" * digits),
                                 f"({digits} digits) is too large for a number")
        self.refused('{"a": 1e400}', "1e400 is too large for a number")
        self.refused('{"a": NaN}', "NaN is not a JSON number")

    def test_a_large_number_a_float_holds_is_read_exactly(self):
        big = int("9" * 300)
        self.assertEqual(jsonl.loads('{"a": %d}' % big, "x:1"), {"a": big})
        self.assertEqual(parse_received('[%d, 1e300]' % -big), [-big, 1e300])

    def test_nesting_past_the_limit_is_refused_at_every_depth(self):
        most = jsonl.MAX_DEPTH
        deepest = []
        for _ in range(most - 1):
            deepest = [deepest]
        self.assertEqual(jsonl.loads("[" * most + "]" * most, "x:1"), deepest)
        self.assertEqual(parse_received('{"a": ' + "[" * (most - 1) + "]" * (most - 1) + "}"),
                         {"a": deepest[0]})
        for depth in (most + 1, 1000, 5000, 100_000):
            for text in ("[" * depth + "]" * depth,
                         '{"a": [' + '{"b": [' * (depth // 2) + "1" + "]}" * (depth // 2) + "]}"):
                with self.subTest(depth=depth, text=text[:12]):
                    self.refused(text, f"JSON nested too deeply (more than {most} levels)")

    def test_many_brackets_side_by_side_are_not_depth(self):
        wide = "[" + ",".join(["[[1]]"] * 5000) + "]"
        self.assertEqual(len(jsonl.loads(wide, "x:1")), 5000)


class Declared(unittest.TestCase):
    """What score.py reads to pick the suite: a top-level key, read without
    the values after it; None for anything its loader must refuse."""

    def test_the_top_level_key_wherever_it_is(self):
        cases = [('{"suite": "scenario", "scenarios": [1, 2]}', "scenario"),
                 ('{"questions": [{"suite": "x"}, "\\"suite\\": 1"], "suite": "site-qa"}',
                  "site-qa"),
                 ('  {\n "format" : 1 ,\n "suite" : "scenario" }', "scenario"),
                 ('{"format": 1, "suite": "scenario", "x": [', "scenario"),   # stops at the key
                 ('{"format": 1}', None), ("[1]", None), ("", None), ('{"a": 1 "suite": "x"}', None),
                 ('{"suite": NaN}', None), ("{" * 5000, None)]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cases.json")
            for text, suite in cases:
                with self.subTest(text=text[:30]):
                    with open(path, "w", encoding="utf-8") as fh:
                        fh.write(text)
                    self.assertEqual(jsonl.declared(path, "suite"), suite)
            self.assertIsNone(jsonl.declared(os.path.join(tmp, "missing.json"), "suite"))


@unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
class SpecialFiles(unittest.TestCase):
    """A FIFO where a file is read is refused at once, never waited on."""

    def test_every_reader_refuses_a_fifo_in_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            fifo = os.path.join(tmp, "raw-med.jsonl")
            os.mkfifo(fifo)
            readers = {"read_json": jsonl.read_json, "iter_jsonl": lambda p: list(jsonl.iter_jsonl(p)),
                       "sha256_file": jsonl.sha256_file, "read_resumable": jsonl.read_resumable}
            for name, reader in readers.items():
                with self.subTest(name):
                    done = []

                    def read():
                        try:
                            reader(fifo)
                        except BadInput as exc:
                            done.append(str(exc))
                    thread = threading.Thread(target=read, daemon=True)
                    thread.start()
                    thread.join(support.HANG)
                    self.assertFalse(thread.is_alive(), f"{name} waits on the FIFO")
                    self.assertEqual(done, [f"{fifo}: is a FIFO (named pipe), not a regular file: "
                                            "nothing was read from it"])


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
