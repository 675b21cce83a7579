"""An auditor on another machine reproduces every published folder: a clone
made with ``core.autocrlf=true`` (Git for Windows' default) checks out every
file with the bytes committed (.gitattributes), so every quarter, scenario
run and intake or grounding result file reproduces in it.

The clone is of the commit checked out (HEAD): what a reader would clone.
Skipped where the checkout is not a git repository."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from tests.support import ROOT


def git_checkout():
    try:
        out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--is-inside-work-tree"],
                             capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return out.returncode == 0 and out.stdout.strip() == "true"


def published(root):
    """Every published folder and result file under ``root``, by path from it."""
    found = []
    for base in (os.path.join("Documents", "c4-benchmark"),
                 os.path.join("evals", "permits", "results")):
        for name in sorted(os.listdir(os.path.join(root, base))):
            if os.path.isfile(os.path.join(root, base, name, "MANIFEST.json")):
                found.append(os.path.join(base, name))
    base = os.path.join("evals", "ai", "results")
    found += [os.path.join(base, name) for name in sorted(os.listdir(os.path.join(root, base)))
              if name.endswith(".json")]
    return found


def unreviewed(folder):
    """Whether a published folder says it was published with --allow-unreviewed."""
    path = os.path.join(folder, "MANIFEST.json")
    if not os.path.isfile(path):
        return False
    with open(path, encoding="utf-8") as fh:
        return json.load(fh).get("unreviewed_allowed") is True


@unittest.skipUnless(git_checkout(), "not a git checkout")
class AutocrlfClone(unittest.TestCase):
    def test_every_published_folder_reproduces_in_an_autocrlf_clone(self):
        with tempfile.TemporaryDirectory(prefix="crlf-") as tmp:
            clone = os.path.join(tmp, "clone")
            subprocess.run(["git", "clone", "-q", "-c", "core.autocrlf=true", ROOT, clone],
                           check=True, capture_output=True, timeout=300)
            folders = published(clone)
            self.assertTrue(folders)
            for folder in folders:
                with self.subTest(folder=folder):
                    out = subprocess.run(
                        [sys.executable, os.path.join("tools", "eval-benchmark", "reproduce.py"),
                         folder], cwd=clone, capture_output=True, text=True, encoding="utf-8",
                        timeout=300)
                    self.assertNotIn("differs", out.stdout, out.stdout[-2000:])
                    if out.returncode and unreviewed(os.path.join(clone, folder)):
                        # Published with --allow-unreviewed: never verified, but
                        # every file identical, which is what this test is for.
                        self.assertIn("the sampled review is incomplete", out.stderr)
                    else:
                        self.assertEqual(out.returncode, 0, out.stdout[-2000:] + out.stderr)


if __name__ == "__main__":
    unittest.main()
