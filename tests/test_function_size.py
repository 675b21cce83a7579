"""No function of the product is longer than 60 lines or takes more than 15
decisions (issue 29), so that each can be read at once. The product is
tools/ without tools/bench. A decision is an ``if``, a conditional
expression, a loop (each ``for`` of a comprehension too), an ``except``, each
operand of ``and`` / ``or`` past the first, and a ``case``; a function nested
in another counts in both."""

import ast
import os
import unittest

from tests.support import ROOT

MAX_LINES = 60
MAX_DECISIONS = 15
PRODUCT = os.path.join(ROOT, "tools")
NOT_PRODUCT = os.path.join(PRODUCT, "bench")


def decisions(function):
    count = 0
    for node in ast.walk(function):
        if isinstance(node, (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While,
                             ast.ExceptHandler, ast.match_case)):
            count += 1
        elif isinstance(node, ast.comprehension):
            count += 1
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
    return count


def too_big(source, name):
    """``name:line function (what)`` of each function of ``source`` past a limit."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            count = decisions(node)
            if lines > MAX_LINES or count > MAX_DECISIONS:
                found.append(f"{name}:{node.lineno} {node.name} ({lines} lines, "
                             f"{count} decisions)")
    return found


def product_files():
    for folder, dirs, files in os.walk(PRODUCT):
        dirs[:] = sorted(d for d in dirs if os.path.join(folder, d) != NOT_PRODUCT
                         and d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


class FunctionSize(unittest.TestCase):
    def test_no_function_is_too_big(self):
        found = []
        for path in product_files():
            with open(path, encoding="utf-8") as fh:
                found += too_big(fh.read(), os.path.relpath(path, ROOT))
        self.assertEqual(found, [])

    def test_the_count_sees_a_big_function(self):
        conditions = " and ".join(f"x{n}" for n in range(15))  # 14 decisions
        source = (f"def short(x):\n    if {conditions}:\n        return 1\n\n"
                  f"def branchy(x):\n    if {conditions} or y:\n        return 1\n\n"
                  "def long(x):\n" + "    x += 1\n" * 60)
        self.assertEqual(too_big(source, "f.py"),
                         ["f.py:5 branchy (3 lines, 16 decisions)",
                          "f.py:9 long (61 lines, 0 decisions)"])


if __name__ == "__main__":
    unittest.main()
