"""--help of every script (issue 40): at most 60 lines on an 80-column
terminal, ending with two or three example command lines that the script
takes as written; the field reference is --help-formats, printed from
evalkit/schemas.py, the one place of the formats."""

import importlib
import os
import shlex
import unittest

from tests import support
from tests.support import call_main

from evalkit import schemas  # noqa: E402

MOST_LINES = 60
SCRIPTS = sorted(name[:-3] for name in os.listdir(support.TOOLS) if name.endswith(".py"))
FORMATS = {"run": schemas.RUN_HELP, "score": schemas.SCORE_HELP, "atomize": schemas.ATOMIZE_HELP}


def examples(text):
    """The command lines under ``examples:`` in a --help text."""
    block = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines()]


class Help(unittest.TestCase):
    def setUp(self):
        support.isolate_environ(self)
        os.environ["COLUMNS"] = "80"   # what argparse wraps to, as on a terminal of 80

    def test_every_script_is_short_and_shows_examples_it_takes(self):
        self.assertIn("run", SCRIPTS)
        for name in SCRIPTS:
            module = importlib.import_module(name)
            with self.subTest(name):
                code, out, err = call_main(module, ["--help"])
                self.assertEqual((code, err), (0, ""))
                self.assertLessEqual(len(out.splitlines()), MOST_LINES, out)
                lines = examples(out)
                self.assertIn(len(lines), (2, 3), out)
                for line in lines:
                    words = shlex.split(line, comments=True)
                    self.assertEqual(words[:2], ["python3", f"tools/eval-benchmark/{name}.py"])
                    # As the shell would give them: parsed as the script parses them.
                    module.parse_args(words[2:])

    def test_the_formats_are_one_option_away_not_in_help(self):
        for name, formats in FORMATS.items():
            module = importlib.import_module(name)
            with self.subTest(name):
                code, out, _ = call_main(module, ["--help"])
                self.assertNotIn(formats.splitlines()[0], out)
                self.assertIn(f"{name}.py --help-formats prints the formats", out)
                code, out, err = call_main(module, ["--help-formats"])
                self.assertEqual((code, out, err), (0, formats.rstrip("\n") + "\n", ""))


if __name__ == "__main__":
    unittest.main()
