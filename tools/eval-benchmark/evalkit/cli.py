"""The command-line layer shared by the scripts.

An argparse parser whose errors are one line on stderr (``run.py: --limit
must be at least 1 (see --help)``) with exit code 2, like every other refusal,
and whose help keeps the schema prose as written.
"""

import argparse
import sys

from . import one_line


class ArgumentParser(argparse.ArgumentParser):
    def __init__(self, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(**kwargs)

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {one_line(message)} (see --help)\n")
        sys.exit(2)
