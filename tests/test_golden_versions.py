"""One VERSION always writes the same results: the golden files are those
recorded for the tools' VERSION in tests/golden/versions.json, so a change of
a rule or of an output format that moves a golden file fails here until
VERSION is bumped and the new sums are recorded (``make golden``)."""

import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from tests.golden import record
from evalkit import VERSION


class GoldenVersions(unittest.TestCase):
    def test_the_goldens_are_those_of_this_version(self):
        versions = record.recorded()
        self.assertIn(VERSION, versions, "no sums recorded for this VERSION: run make golden")
        self.assertEqual(record.sums(), versions[VERSION],
                         "a golden file changed while VERSION did not: bump VERSION in "
                         "evalkit/__init__.py and run make golden")

    def test_earlier_versions_stay_recorded(self):
        versions = record.recorded()
        self.assertIn("0.1.0", versions)
        for version, sums in versions.items():
            self.assertEqual(sorted(sums), sorted(record.FILES), version)


if __name__ == "__main__":
    unittest.main()
