"""Versioned prompt files (``prompts/NAME-vN.md``) and their sha256.

A prompt file is read as bytes and hashed as bytes, so the recorded sha256
names exactly the text a model was given. ``{placeholders}`` are filled with
str.format-style names listed in the file's own header comment; the
response being analysed is always passed between delimiters by the caller.
Each placeholder of the file is filled once, with its value as it is: a
value holding braces (a homeowner who writes ``{text}``) is never filled in
again.
"""

import os
import re

from .. import SCRIPTS_DIR, BadInput
from ..jsonl import sha256_of

PROMPTS_DIR = os.path.join(SCRIPTS_DIR, "prompts")
_NAME = re.compile(r"^[a-z0-9-]+-v\d+$")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


class Prompt:
    def __init__(self, name, text, sha256):
        self.name = name
        self.text = text
        self.sha256 = sha256

    def fill(self, **fields):
        left = sorted({"{" + name + "}" for name in _PLACEHOLDER.findall(self.text)
                       if name not in fields})
        if left:
            raise BadInput(f"prompt {self.name}: no value for {', '.join(left)}")
        return _PLACEHOLDER.sub(lambda match: fields[match.group(1)], self.text)

    def record(self):
        return {"name": self.name, "sha256": self.sha256}


def load(name, folder=PROMPTS_DIR):
    if not _NAME.match(name):
        raise BadInput(f"prompt {name!r}: names look like atomize-v1")
    path = os.path.join(folder, name + ".md")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such prompt") from None
    return Prompt(name, data.decode("utf-8"), sha256_of(data))
