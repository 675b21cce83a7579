"""The one record checker (evalkit/fields.py): each rule a loader's spec may
give, with the message it refuses by; the specs beside the prose ``--help``
prints, so that neither names a field the other lacks; and the holes the
loaders had before they used it, each refused now with one line."""

import json
import os
import tempfile
import unittest

from tests.support import FIXTURES, call_main, write_json

import publish  # noqa: E402
import score  # noqa: E402
from evalkit import BadInput, schemas  # noqa: E402
from evalkit.aieval import grounding, intake  # noqa: E402
from evalkit.asking import budget  # noqa: E402
from evalkit.fields import check, check_ids, wrong_field  # noqa: E402
from evalkit.rubric import quarter  # noqa: E402
from evalkit.rubric.measures import MEASURES  # noqa: E402

QUESTIONS = os.path.join(FIXTURES, "questions-mini.json")
RAW = os.path.join(FIXTURES, "raw-mini.jsonl")
AI = os.path.join(FIXTURES, "ai")


def refusal(record, spec):
    """The message ``check`` refuses ``record`` with, or None."""
    try:
        check(record, spec, "f.json")
    except BadInput as exc:
        return str(exc)
    return None


class Rules(unittest.TestCase):
    def test_kinds(self):
        cases = [
            ({"set": " "}, {"set": "text"}, "f.json: set must be a non-empty string"),
            ({"set": 5}, {"set": "text"}, "f.json: set must be a non-empty string, not an integer"),
            # Other scripts' digits are digits to \d, not to a date.
            ({"on": "\u0662\u0660\u0662\u0666-12-01"}, {"on": "date"},
             "f.json: on must be a date YYYY-MM-DD"),
            ({"on": "2026-11-31"}, {"on": "date"}, "f.json: on must be a date YYYY-MM-DD"),
            ({"sha": "A" * 64}, {"sha": "sha256"}, "f.json: sha must be 64 lower-case hex digits"),
            ({"n": -1}, {"n": "count"}, "f.json: n must be a whole number >= 0"),
            ({"n": 1.0}, {"n": "count"}, "f.json: n must be a whole number >= 0, not a number"),
            ({"n": True}, {"n": "count"},
             "f.json: n must be a whole number >= 0, not true or false"),
            ({"f": "../x"}, {"f": "name"}, "f.json: f must be a file name"),
            ({"f": ".env"}, {"f": "name"}, "f.json: f must be a file name"),
            ({"format": 1.0}, {"format": (1,)}, "f.json: unknown format 1.0 (format must be 1)"),
            ({"format": True}, {"format": (1,)}, "f.json: unknown format True (format must be 1)"),
            ({"lang": "fr"}, {"lang": ("en", "he", "ru")},
             "f.json: unknown lang 'fr' (lang must be en, he or ru)"),
            ({}, {"id": "string"}, "f.json: id is missing"),
            ({}, {"id": "text"}, "f.json: id must be a non-empty string"),
            ({"id": "a", "by": "me"}, {"id": "text"}, "f.json: unknown key(s) by"),
            ({"x": None}, {"x?": "string|null"}, None),
            ({}, {"x?": "string"}, None),
        ]
        for record, spec, expected in cases:
            with self.subTest(record=record, spec=spec):
                self.assertEqual(refusal(record, spec), expected)

    def test_nested_objects_lists_and_maps(self):
        spec = {"files": {"+name": {"sha256": "sha256", "bytes": "count"}},
                "facts": [["text", ...], ...]}
        good = {"files": {"a.json": {"sha256": "0" * 64, "bytes": 3}}, "facts": [["120", "$120"]]}
        self.assertIsNone(refusal(good, spec))
        for change, expected in [
                (lambda d: d["files"]["a.json"].update(bytes="3"),
                 "files.a.json.bytes must be a whole number >= 0, not a string"),
                (lambda d: d["files"]["a.json"].update(role="input"),
                 "files.a.json: unknown key(s) role"),
                (lambda d: d["files"].update({"../b": {}}),
                 "files: key '../b' must be a file name"),
                (lambda d: d.update(files={}), "files must not be empty"),
                (lambda d: d.update(facts=[]),
                 "facts must be a non-empty list of non-empty lists of non-empty strings"),
                (lambda d: d["facts"].append([]),
                 "facts[1] must be a non-empty list of non-empty strings"),
                (lambda d: d["facts"][0].append(""), "facts[0][2] must be a non-empty string"),
                (lambda d: d.update(facts={}),
                 "facts must be a non-empty list of non-empty lists of non-empty strings, "
                 "not an object")]:
            with self.subTest(expected):
                record = json.loads(json.dumps(good))
                change(record)
                self.assertEqual(refusal(record, spec), f"f.json: {expected}")
        self.assertEqual(refusal([], spec), "f.json: must be an object, not a list")

    def test_wrong_field_leaves_other_keys_alone(self):
        # A raw line's other fields are its writer's: only the named ones are checked.
        fields = {"id": "string", "response?": "object|null", "attempts": "objects"}
        line = {"id": "a", "attempts": [], "anything": 1}
        self.assertIsNone(wrong_field(line, fields))
        self.assertEqual(wrong_field(dict(line, response=[]), fields, "x."),
                         "x.response must be an object or null, not a list")
        self.assertEqual(wrong_field(dict(line, attempts=["t"]), fields),
                         "attempts must be a list of objects, not a list holding a string")
        self.assertEqual(wrong_field({"attempts": []}, fields), "id is missing")

    def test_ids(self):
        check_ids([{"id": "a"}, {"id": "b"}], "f.json", "cases")
        for records, expected in [([{"id": "a"}, {"id": "a"}], "f.json: a: duplicate id"),
                                  ([{"id": "a"}, {"id": " "}], "f.json: cases[1]: id must be a "
                                                               "non-empty string"),
                                  ([{}], "f.json: cases[0]: id must be a non-empty string")]:
            with self.subTest(expected), self.assertRaises(BadInput) as caught:
                check_ids(records, "f.json", "cases")
            self.assertEqual(str(caught.exception), expected)


def keys_of(spec):
    """Every field name a spec gives, at any depth."""
    if isinstance(spec, list):
        return keys_of(spec[0])
    if not isinstance(spec, dict):
        return set()
    names = {key.rstrip("?") for key in spec if key[:1] not in ("*", "+")}
    return names.union(*(keys_of(rule) for rule in spec.values()))


class SpecsBesideTheirProse(unittest.TestCase):
    def test_every_field_of_a_spec_is_in_its_prose(self):
        for prose, specs in [
                (schemas.QUESTIONS, (schemas.QUESTION_FILE, schemas.ANSWERABLE,
                                     schemas.NOT_ON_SITE)),
                (schemas.REVIEWS, (schemas.REVIEWS_FILE,)),
                (schemas.SCENARIOS, (schemas.SCENARIO_FILE, schemas.SCENARIO, schemas.KEY_FACT)),
                (schemas.TARGET, (schemas.TARGET_FIELDS,)),
                (quarter.__doc__, (quarter.MANIFEST,)),
                (intake.__doc__, (intake.VOCABULARY,)),
                (grounding.Rules.__doc__, (grounding.RULES_FILE,)),
                (budget.__doc__, (budget.PRICE_FILE,))]:
            for spec in specs:
                for key in sorted(keys_of(spec)):
                    with self.subTest(key=key):
                        self.assertIn(key, prose)


class HolesClosed(unittest.TestCase):
    """Each of these was accepted before the loader used evalkit/fields.py."""

    def test_a_quarter_name_is_written_in_ascii_digits_on_one_line(self):
        # \d took Arabic-Indic and full-width digits, and $ a final line
        # break: a folder name no one could type, or two folders for one quarter.
        for name in ("\u0662\u0660\u0662\u0666-Q4", "\uff12\uff10\uff12\uff16-Q4", "2026-Q4\n"):
            with self.subTest(name=name):
                code, out, err = call_main(publish, [name, "--check"])
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err, f"publish.py: quarter {name!r}: give YYYY-QN (2026-Q4) or "
                                      "a plain slug (lower-case letters, digits, hyphens)\n")

    def test_a_history_group_without_set_or_lang_is_refused(self):
        # Before, it was read, and the page's trend chart ended in a KeyError.
        figures = {measure: {"passed": 1, "applicable": 2} for measure in MEASURES}
        with tempfile.TemporaryDirectory() as tmp:
            history = write_json(os.path.join(tmp, "history.json"), {"format": 1, "quarters": [
                {"quarter": "2026-Q1", "results_sha256": "0" * 64,
                 "groups": [{"figures": figures}]}]})
            code, out, err = call_main(score, [QUESTIONS, RAW, "--history", history,
                                               "--html", os.path.join(tmp, "index.html")])
            self.assertEqual((code, out), (2, ""))
            self.assertEqual(err, f"score.py: {history}: quarters[0].groups[0].set is missing\n")

    def test_a_blank_case_id_is_refused(self):
        with open(os.path.join(AI, "intake-cases.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["cases"][0]["id"] = " "
        with tempfile.TemporaryDirectory() as tmp:
            path = write_json(os.path.join(tmp, "cases.json"), doc)
            with self.assertRaises(BadInput) as caught:
                intake.load_cases(path, intake.Vocabulary(os.path.join(AI, "vocabulary.json")),
                                  "intake", "gold")
        self.assertEqual(str(caught.exception), f"{path}: cases[0]: id must be a non-empty string")


if __name__ == "__main__":
    unittest.main()
