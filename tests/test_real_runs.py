"""Every published scenario run re-scores byte for byte from its committed
files (reproduce.py FOLDER, the command its README gives), and says what it
is: a recorded run of models served on the machine that ran it."""

import glob
import json
import os
import unittest

from tests import support
from tests.support import call_main

import reproduce  # noqa: E402

RUNS = sorted(glob.glob(os.path.join(support.ROOT, "evals", "permits", "results", "*",
                                     "MANIFEST.json")))


class PublishedScenarioRuns(unittest.TestCase):
    def test_there_is_a_published_run(self):
        self.assertTrue(RUNS, "no scenario run under evals/permits/results/")

    def test_each_reproduces_byte_for_byte(self):
        for manifest in RUNS:
            folder = os.path.dirname(manifest)
            with self.subTest(os.path.basename(folder)):
                code, out, err = call_main(reproduce, [folder])
                self.assertEqual(code, 0, out + err)
                self.assertIn("every file verified and identical", err)
                self.assertNotIn("differs", out)

    def test_each_says_it_is_a_local_run_of_the_models_its_servers_named(self):
        for manifest in RUNS:
            folder = os.path.dirname(manifest)
            with self.subTest(os.path.basename(folder)):
                with open(os.path.join(folder, "results.json"), encoding="utf-8") as fh:
                    provenance = json.load(fh)["provenance"]
                self.assertEqual(provenance["run"]["status"], "recorded_local_run")
                models = [m for m in provenance["served_models"]]
                self.assertTrue(models)
                self.assertTrue(all(m["served"] for m in models), models)


if __name__ == "__main__":
    unittest.main()
