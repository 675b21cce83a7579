"""A rule's date is the day it came into force, never a day after the commit
that brings it (evalkit/rubric/rulebook.py).

Each change of the rulebook is held to the repository's history: the first
commit whose rulebook (or score.py, where the first rules lived) names the
change's key must be of the change's day or later. A change not yet committed
is held to today (UTC). A date that a published quarter names (its MANIFEST's
``scoring.decline_as_of``) stays as published, whatever its commit: the
quarter re-scores under it. Skipped where the checkout has no history to read
(no git, a shallow clone)."""

import ast
import datetime
import json
import os
import subprocess
import unittest

from tests.support import ROOT

from evalkit import BadInput
from evalkit.rubric.rulebook import (CHANGES, DATED, DECLINE, VERSIONS, change_dates, check_date,
                                     rules_as_of)

BENCH = os.path.join(ROOT, "Documents", "c4-benchmark")
# Where the rules have lived: the key of a change first appears in one of these.
# Today's rules, which ask no date (evalkit/rubric/earlier.py holds those replaced).
TODAY = ["tools/eval-benchmark/evalkit/" + name for name in (
    "textmatch.py", "rubric/measures.py", "rubric/passes.py", "rubric/runs.py", "rubric/siteqa.py",
    "rubric/report.py")]
HOMES = ("tools/eval-benchmark/evalkit/rubric/rulebook.py", "tools/eval-benchmark/evalkit/rulebook.py",
         "tools/eval-benchmark/score.py")


def git(*args):
    return subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True,
                          encoding="utf-8", timeout=120)


def full_history():
    try:
        shallow = git("rev-parse", "--is-shallow-repository")
    except OSError:
        return False
    return shallow.returncode == 0 and shallow.stdout.strip() == "false"


def first_commit_day(needle):
    """The UTC day (YYYY-MM-DD) of the first commit whose rulebook names
    ``needle``, or None when none does yet."""
    out = git("log", "--reverse", "--date=format-local:%Y-%m-%d", "--format=%cd",
              "-S" + needle, "--", *HOMES)
    days = out.stdout.split()
    return days[0] if days else None


def published_rules_dates():
    """The rules dates the published quarters present name."""
    dates = set()
    for name in sorted(os.listdir(BENCH)):
        path = os.path.join(BENCH, name, "MANIFEST.json")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as fh:
                scoring = json.load(fh).get("scoring")
            if isinstance(scoring, dict) and isinstance(scoring.get("decline_as_of"), str):
                dates.add(scoring["decline_as_of"])
    return dates


class RuleDates(unittest.TestCase):
    def test_every_date_is_a_rules_date_in_the_order_they_came(self):
        dates = [date for date, _key, _what in CHANGES]
        self.assertEqual(dates, sorted(dates))
        for date in dates + [d for d, _v in VERSIONS] + [d for d, _l, _p in DECLINE]:
            self.assertEqual(check_date(date), date)
        for date, _key, _what in CHANGES:
            self.assertEqual(rules_as_of(date).rules_date, date)

    def test_the_nth_rules_of_a_day_come_after_its_first_and_before_the_next_day(self):
        self.assertLess("2026-12-02", "2026-12-02.2")
        self.assertLess("2026-12-02.3", "2026-12-03")
        first, second = rules_as_of("2026-12-02"), rules_as_of("2026-12-02.2")
        self.assertEqual(first.signature.__name__, "no_signature_2026_10_28")
        self.assertEqual(second.signature.__name__, "signature_2026_12_02_2")
        for bad in ("2026-12-02.1", "2026-12-02.10", "2026-12-02b", "2026-02-30.2"):
            with self.assertRaises(BadInput, msg=bad):
                check_date(bad)

    def test_each_rule_of_a_date_is_a_function_the_rulebook_picks(self):
        # Issue 41: the rule functions ask no date; DATED names what each date
        # applies, every change that moves a verdict among its dates.
        switches = {key for _date, key, _what in CHANGES} - {"rubric", "decline", "pages"}
        dated = {date for versions in DATED.values() for date, _rule in versions}
        self.assertLessEqual(dated, {date for date, _key, _what in CHANGES})
        self.assertEqual({key for date, key, _what in CHANGES if key in switches
                          and date not in dated}, set())
        for date in change_dates():
            rules = rules_as_of(date)
            self.assertEqual([name for name in switches | set(DATED)
                              if isinstance(getattr(rules, name, None), bool)], [], date)
        # A change's key that names no rule of DATED is no attribute to ask.
        switches -= set(DATED)
        for path in TODAY:
            with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            asked = sorted({node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                            and isinstance(node.value, ast.Name) and node.value.id == "rules"
                            and node.attr in switches})
            self.assertEqual(asked, [], f"{path} asks the rules which change is in force")

    @unittest.skipUnless(full_history(), "no full git history in this checkout")
    def test_no_rule_is_dated_after_the_commit_that_brings_it(self):
        today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        published = published_rules_dates()
        late = []
        for date, key, _what in CHANGES:
            if date in published:
                continue  # the quarter that names it re-scores under it
            brought = first_commit_day(f'"{key}"') or today
            if date[:10] > brought:
                late.append(f"{key} dated {date}, brought by a commit of {brought}")
        for date, lang, _phrases in DECLINE:
            if date in published:
                continue
            brought = first_commit_day(f'("{date}", "{lang}", (') or today
            if date[:10] > brought:
                late.append(f"DECLINE {lang} dated {date}, brought by a commit of {brought}")
        self.assertEqual(late, [])


if __name__ == "__main__":
    unittest.main()
