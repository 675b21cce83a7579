"""What the review flags of 2026-12-02 (negation, value, qualifier) cost, as
the methodology page quotes it: how many answers of the two published demo
runs they send to a person, and how many answers of the agreement set's first
part they flag, scored through the real scorer with the current question
files, and how many of those a person failed. A flag costs a reading; these
figures say how many readings, and how many of them found something."""

import json
import os
import unittest

from tests.support import ROOT

import agreement  # noqa: E402
from evalkit.rubric import siteqa  # noqa: E402

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
METHODOLOGY = os.path.join(BENCH, "METHODOLOGY.md")
RULES = "2026-12-02"
NEW_FLAGS = ("negation", "value", "qualifier")


def demo_rows(quarter):
    """The rows of a published demo run scored with its own question files
    under the rules of 2026-12-02."""
    folder = os.path.join(BENCH, quarter)
    with open(os.path.join(folder, "MANIFEST.json"), encoding="utf-8") as fh:
        inputs = json.load(fh)["scoring"]
    questions = [os.path.join(folder, name) for name in inputs["questions"]]
    raws = [os.path.join(folder, name) for name in inputs["raw"]]
    return siteqa.score(questions, raws, rules_date=RULES)["questions"]


def only_new(flags):
    """Flags of 2026-12-02 on an answer that no older flag sends to a person."""
    return bool(flags) and all(flag in NEW_FLAGS for flag in flags)


class NewFlagsCost(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(METHODOLOGY, encoding="utf-8") as fh:
            cls.page = " ".join(fh.read().split())

    def test_the_demo_runs(self):
        rows = [row for quarter in ("demo", "demo-2026-12") for row in demo_rows(quarter)]
        flagged = [row["id"] for row in rows if only_new(row["flags"])]
        self.assertIn(f"of the two demo runs' {len(rows)} answers they send "
                      f"{len(flagged)} to a person that no other rule sends", self.page)

    def test_the_agreement_sets_first_part(self):
        answers = [item for item in agreement.load_answers(os.path.join(BENCH, "agreement"))
                   if item["part"] == "first"]
        files = [os.path.join(BENCH, f"questions-{s}.json") for s in ("med", "biz")]
        scored = agreement.score_answers(answers, files, RULES)
        flagged = [item for item, row in scored if only_new(row["flags"])]
        failed = sorted(item["id"] for item in flagged
                        if item["human"].get("correct_facts") is False)
        self.assertIn(f"of the agreement set's first part ({len(answers)} answers, current "
                      f"question files) they send {len(flagged)} that no other rule sends, "
                      f"{len(failed)} of them answers the person failed "
                      f"({', '.join(f'`{i}`' for i in failed)})", self.page)

    def test_the_agreement_sets_second_part(self):
        answers = [item for item in agreement.load_answers(os.path.join(BENCH, "agreement"))
                   if item["part"] == "second"]
        files = [os.path.join(BENCH, f"questions-{s}.json") for s in ("med", "biz")]
        scored = agreement.score_answers(answers, files, RULES)
        flagged = [item for item, row in scored if only_new(row["flags"])]
        failed = [item for item in flagged if False in item["human"].values()]
        self.assertIn(f"Of the second part's {len(answers)} answers, written to find what no "
                      f"rule caught, they send {len(flagged)} to a person that no other rule "
                      f"sends, {len(failed)} of them answers the person failed on some measure",
                      self.page)


if __name__ == "__main__":
    unittest.main()
