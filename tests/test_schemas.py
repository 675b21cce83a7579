"""The raw line's three kinds, in one place: evalkit/schemas.py's text names
every field that run.py writes in each kind (a website assistant's, a model
generator's, an answer collected by hand); README's raw-line table says the
same; and --help-formats of the scripts that read or write them prints that text."""

import json
import os
import re
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.support import FIXTURES, ROOT, WidgetServer, call_main, read_lines

import atomize  # noqa: E402
import run  # noqa: E402
import score  # noqa: E402
from evalkit import schemas  # noqa: E402
from evalkit.asking import rawline  # noqa: E402

SCENARIOS = os.path.join(FIXTURES, "scenarios-mini.json")
QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
KINDS = {"website assistant": schemas.RAW_LINE, "model generator": schemas.RAW_LINE_MODEL,
         "collected by hand": schemas.RAW_LINE_MANUAL}
# Written only when a line is asked again (run.py --retry-failed).
ONLY_WHEN_REDONE = {"earlier_responses", "redone"}
ATOMS_ONLY_WHEN_REDONE = {"earlier_errors", "redone"}


def documented_fields(block):
    """The field names of a schema block: what a line indented by exactly two
    spaces names before a gap of two spaces or more."""
    names = set()
    for line in block.splitlines()[1:]:
        found = re.match(r"^  (\S.*?)(?: {2,}|$)", line)
        if found:
            names.update(name.strip() for name in found.group(1).split(","))
    return names


def readme_table():
    """README's raw-line table: {column heading: field names not marked "—"}."""
    with open(os.path.join(ROOT, "tools", "eval-benchmark", "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    section = text.split("### The raw line", 1)[1].split("\n###", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in section.splitlines() if line.startswith("|")]
    heading, body = rows[0], rows[2:]
    table = {kind: set() for kind in heading[1:]}
    for row in body:
        names = re.findall(r"`([a-z_]+)`", row[0])
        for kind, cell in zip(heading[1:], row[1:]):
            if cell != "—":
                table[kind].update(names)
    return table


def named(key, block):
    return re.search(r"(?<![A-Za-z_])" + re.escape(key) + r"(?![A-Za-z_])", block) is not None


class Lines(unittest.TestCase):
    """Lines that run.py writes, each held to its block."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        support.isolate_environ(self)

    def check(self, line, block):
        self.assertEqual(set(line), documented_fields(block) - ONLY_WHEN_REDONE)
        for field in ("target", "request", "response", "derived", "run", "usage"):
            # The scenario blocks describe run "as in a website assistant's raw line".
            where = schemas.RAW_LINE if field == "run" else block
            for key in (line.get(field) or {}):
                self.assertTrue(named(key, where), f"{field}.{key} is not in the schema")
        for attempt in line["attempts"]:
            for key in attempt:
                self.assertTrue(named(key, block), f"attempts[].{key} is not in the schema")

    def test_a_website_assistants_line(self):
        with WidgetServer() as srv:
            out = os.path.join(self.tmp, "raw.jsonl")
            code, _, err = call_main(run, [QUESTIONS, out, "--endpoint", srv.url, "--limit", "1",
                                           "--quiet"])
        self.assertEqual(code, 0, err)
        self.check(read_lines(out)[0], schemas.RAW_LINE)

    def test_a_model_generators_lines(self):
        with ModelServer("openai", reply=lambda r: "An answer.") as srv:
            srv.queue({"status": 400, "headers": {}, "body": b'{"error": {"message": "no"}}'})
            os.environ.update(srv.environ())
            out = os.path.join(self.tmp, "raw.jsonl")
            code, _, err = call_main(run, [SCENARIOS, out, "--provider", "openai", "--model",
                                           "gen-1", "--quiet"])
        self.assertEqual(code, 1, err)  # the first call failed: both shapes are checked
        failed, answered = read_lines(out)
        self.assertIsNone(failed["usage"])
        self.assertNotIn("headers", answered["response"])
        for line in (failed, answered):
            self.check(line, schemas.RAW_LINE_MODEL)

    def test_an_answer_collected_by_hand(self):
        collected = os.path.join(self.tmp, "collected.jsonl")
        with open(collected, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": "fence", "answer": "Up to 3.5 feet.", "collected_by": "A",
                                 "collected_at": "2026-11-20", "product": "Chat",
                                 "product_version": "1"}) + "\n")
        out = os.path.join(self.tmp, "raw.jsonl")
        call_main(run, [SCENARIOS, out, "--provider", "manual", "--from", collected, "--quiet"])
        self.check(read_lines(out)[0], schemas.RAW_LINE_MANUAL)

    def test_an_atoms_line(self):
        from tests.test_atomize import good_atoms
        with ModelServer("openai", reply=lambda r: "An answer.") as gen:
            os.environ.update(gen.environ())
            raw_path = os.path.join(self.tmp, "raw.jsonl")
            call_main(run, [SCENARIOS, raw_path, "--provider", "openai", "--model", "gen-1",
                            "--quiet", "--limit", "1"])
        with ModelServer("anthropic", reply=good_atoms) as judge:
            os.environ.update(judge.environ())
            out = os.path.join(self.tmp, "atoms.jsonl")
            code, _, err = call_main(atomize, [raw_path, out, "--provider", "anthropic",
                                               "--model", "judge-1", "--cases", SCENARIOS,
                                               "--quiet"])
        self.assertEqual((code, err), (0, ""))
        (line,) = read_lines(out)
        self.assertEqual(set(line), documented_fields(schemas.ATOMS_LINE) - ATOMS_ONLY_WHEN_REDONE
                         - {"lookups"})   # only with --lookups: tests/test_atomize_lookups.py
        for field in ("generator", "evaluator", "run"):
            for key in line[field]:
                self.assertTrue(named(key, schemas.ATOMS_LINE), f"{field}.{key}")
        for key in line["calls"][0]:
            self.assertTrue(named(key, schemas.ATOMS_LINE), f"calls[].{key}")

    def test_a_redone_line_adds_the_fields_documented_for_it(self):
        redone = rawline.merge_retry({"attempts": [], "response": None}, {"attempts": []})
        self.assertEqual(set(redone) - {"attempts"}, ONLY_WHEN_REDONE)
        for block in (schemas.RAW_LINE, schemas.RAW_LINE_MODEL):
            self.assertLessEqual(ONLY_WHEN_REDONE, documented_fields(block))
        redone = atomize.merge_retry({"calls": [], "error": "x"}, {"calls": []})
        self.assertEqual(set(redone) - {"calls"}, ATOMS_ONLY_WHEN_REDONE)
        self.assertLessEqual(ATOMS_ONLY_WHEN_REDONE, documented_fields(schemas.ATOMS_LINE))


class Numbers(unittest.TestCase):
    def test_the_atoms_line_says_the_rules_word_count(self):
        # The formats know no rule (tests/test_layers.py): the prose states the
        # number, and this holds it to the rule's constant.
        from evalkit.scenario.atoms import MIN_WORDS_FOR_ATOMS
        self.assertIn(f"fewer than {MIN_WORDS_FOR_ATOMS} words\n", schemas.ATOMS_LINE)


class Readme(unittest.TestCase):
    def test_the_raw_line_table_is_the_schema(self):
        table = readme_table()
        self.assertEqual(sorted(table), sorted(KINDS))
        for kind, block in KINDS.items():
            with self.subTest(kind):
                self.assertEqual(table[kind], documented_fields(block))


class Help(unittest.TestCase):
    def test_each_script_prints_the_lines_it_reads_or_writes(self):
        for module, blocks in [(run, schemas.RAW_LINES), (score, schemas.RAW_LINES),
                               (atomize, (schemas.RAW_LINE_MODEL, schemas.RAW_LINE_MANUAL,
                                          schemas.ATOMS_LINE))]:
            with self.subTest(module.__name__):
                code, out, err = call_main(module, ["--help-formats"])
                self.assertEqual((code, err), (0, ""))
                for block in blocks:
                    self.assertIn(block, out)


if __name__ == "__main__":
    unittest.main()
