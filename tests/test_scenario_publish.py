"""A scenario run published with score.py --publish and re-scored by
reproduce.py: identical when untouched; a changed output, a changed input,
a file the manifest lacks, a link, or a folder already there is caught."""

import glob
import json
import os
import shutil
import tempfile
import unittest

from tests import support
from tests.scenario_demo import run_demo
from tests.support import call_main

import reproduce  # noqa: E402
import score  # noqa: E402

CASES = os.path.join(support.ROOT, "evals", "permits", "scenarios.json")


class PublishedScenarioRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        run_demo(os.path.join(cls.tmp, "made"), CASES)
        cls.raws = sorted(glob.glob(os.path.join(cls.tmp, "made", "raw-*.jsonl")))
        cls.atoms = sorted(glob.glob(os.path.join(cls.tmp, "made", "atoms-*.jsonl")))
        cls.first = os.path.join(cls.tmp, "first")
        code, _, err = call_main(score, [CASES] + cls.raws + cls.atoms + ["--publish", cls.first])
        assert code == 0, err

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def copy(self):
        folder = os.path.join(tempfile.mkdtemp(dir=self.tmp), "run")
        shutil.copytree(self.first, folder, symlinks=True)
        return folder

    def reproduce(self, folder):
        return call_main(reproduce, [folder])

    def test_an_untouched_run_reproduces_every_file(self):
        code, out, err = self.reproduce(self.first)
        self.assertEqual(code, 0, out + err)
        with open(os.path.join(self.first, "MANIFEST.json"), encoding="utf-8") as fh:
            manifest = json.load(fh)
        self.assertEqual(manifest["scenarios"], "evals/permits/scenarios.json")
        pages = [n for n in manifest["files"] if n.startswith("detail/")]
        self.assertTrue(pages)
        for name in ["results.md", "results.json", "index.html"] + pages:
            self.assertIn(f"identical  {name}", out)
        for name in manifest["scoring"]["raw"] + manifest["scoring"]["atoms"]:
            self.assertIn(f"verified   {name}", out)

    def test_a_changed_detail_page_differs(self):
        folder = self.copy()
        page = sorted(glob.glob(os.path.join(folder, "detail", "*.html")))[0]
        with open(page, "a", encoding="utf-8") as fh:
            fh.write("<!-- edited -->\n")
        code, out, _ = self.reproduce(folder)
        self.assertEqual(code, 1)
        self.assertIn(f"differs    detail/{os.path.basename(page)}", out)

    def test_a_changed_input_differs(self):
        folder = self.copy()
        raw = sorted(glob.glob(os.path.join(folder, "raw-*.jsonl")))[0]
        with open(raw, "a", encoding="utf-8") as fh:
            fh.write("\n")
        code, out, _ = self.reproduce(folder)
        self.assertEqual(code, 1)
        self.assertIn(f"differs    {os.path.basename(raw)} (input does not match MANIFEST.json)",
                      out)

    def test_a_file_the_manifest_lacks_differs(self):
        folder = self.copy()
        with open(os.path.join(folder, "detail", "extra.html"), "w", encoding="utf-8") as fh:
            fh.write("<p>not published</p>\n")
        code, out, _ = self.reproduce(folder)
        self.assertEqual(code, 1)
        self.assertIn("differs    detail/extra.html (not in MANIFEST.json)", out)

    def test_a_link_is_refused_before_anything_is_read(self):
        folder = self.copy()
        os.symlink("/proc/self/environ", os.path.join(folder, "detail", "env.html"))
        code, _, err = self.reproduce(folder)
        self.assertEqual(code, 2)
        self.assertIn("a symbolic link", err)

    def test_publishing_over_a_run_needs_replace(self):
        code, _, err = call_main(score, [CASES] + self.raws + self.atoms + ["--publish", self.first])
        self.assertEqual(code, 2)
        self.assertIn("already published (--replace replaces it)", err)


if __name__ == "__main__":
    unittest.main()
