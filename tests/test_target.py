"""evalkit/target.py: get_path follows a dotted path exactly as the rule
(``follow``, part by part) says, whatever shape the document has: its
one-key fast path included."""

import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from evalkit.target import follow, get_path


def rule(doc, path):
    return follow(doc, path.split("."))


class GetPath(unittest.TestCase):
    def test_every_shape(self):
        docs = [{"answer": "a"}, {"answer": None}, {}, {"data": {"items": [{"text": "t"}]}},
                ["a", "b"], "text", None, 3, {"0": "zero"}, {"a.b": "dotted key"}, {"": "empty"},
                {"answer": ["x"]}, {"data": []}]
        paths = ["answer", "data.items.0.text", "data.items.1.text", "0", "1", "", "a.b",
                 "data", "answer.0", "data.items"]
        for doc in docs:
            for path in paths:
                with self.subTest(doc=doc, path=path):
                    self.assertEqual(get_path(doc, path), rule(doc, path))

    def test_found_and_absent(self):
        self.assertEqual(get_path({"data": {"items": [{"text": "t"}]}}, "data.items.0.text"), "t")
        self.assertIsNone(get_path({"a.b": 1}, "a.b"))  # a dot always separates parts


if __name__ == "__main__":
    unittest.main()
