"""evals/permits: the fictional city's code (code/riverton-code.json) and the
scenarios' ground truth. Every scenario names its jurisdiction and a parcel of
the code's parcel table; every must-cover topic has reference-key facts; each
fact quotes, verbatim, a section that exists; the search the evaluator will be
given finds a section of each scenario's key from the question alone; the
code names no real place; every fee of the fee schedule has an amount. Also
the scenario loader's refusals of a malformed reference key."""

import copy
import json
import os
import re
import tempfile
import unittest

from tests import support
from tests.model_servers import ModelServer
from tests.support import ROOT, call_main
from tests.test_scenario import PORTLAND_NAMES

import run  # noqa: E402
from evalkit import BadInput  # noqa: E402
from evalkit.scenario.corpus import Corpus  # noqa: E402
from evalkit.scenario.scenarios import (MIN_QUOTE_WORDS, load_scenarios, parse_scenarios,  # noqa: E402
                               user_text)

PERMITS = os.path.join(ROOT, "evals", "permits")
CODE = os.path.join(PERMITS, "code", "riverton-code.json")
SCENARIOS = os.path.join(PERMITS, "scenarios.json")
# Real places and agencies near the city the spec was written for: the
# fictional city's files name none of them. The state is "the state" in the
# code; the scenario file may say Oregon (a resident's question does).
REAL_NAMES = PORTLAND_NAMES + (
    "Portland", "Multnomah", "Willamette", "Burnside", "Hawthorne", "Belmont",
    "Killingsworth", "Lombard", "Alberta", "Clackamas", "Beaverton", "Gresham", "Tigard",
    "Tualatin", "PBOT", "PCC", "PortlandMaps")
SECTION_REF = re.compile(r"\bRCC (\d+\.\d+\.\d+)")
FEE = re.compile(r"^(?P<name>[^:$]+): .*?\$\d[\d,]*(?:\.\d\d)?")


def words(text):
    return " ".join(text.split())


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


class Scenarios(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.corpus = Corpus(CODE)
        cls.cases = load_scenarios(SCENARIOS)

    def test_every_scenario_names_the_jurisdiction_and_a_parcel(self):
        self.assertEqual(self.corpus.jurisdiction, "Riverton")
        for s in self.cases.scenarios:
            with self.subTest(scenario=s["id"]):
                self.assertEqual(s["jurisdiction"], self.corpus.jurisdiction)
                self.assertIsNotNone(s["address"])
                self.assertIsNotNone(self.corpus.parcel(s["address"]), s["address"])

    def test_every_must_cover_topic_has_reference_facts(self):
        for s in self.cases.scenarios:
            with self.subTest(scenario=s["id"]):
                key = s["reference_key"]
                self.assertIsNotNone(key)
                self.assertEqual(sorted(key), sorted(s["must_cover"]))
                self.assertTrue(all(key[t] for t in s["must_cover"]))

    def test_every_fact_quotes_an_existing_section_verbatim(self):
        for s in self.cases.scenarios:
            for topic, facts in s["reference_key"].items():
                for n, fact in enumerate(facts):
                    with self.subTest(scenario=s["id"], topic=topic, fact=n):
                        section = self.corpus.read(fact["section"])
                        self.assertIsNotNone(section, fact["section"])
                        self.assertEqual(section["id"], fact["section"])
                        self.assertGreaterEqual(len(fact["quote"].split()), MIN_QUOTE_WORDS)
                        self.assertIn(words(fact["quote"]), words(section["text"]))

    def test_parcel_facts_match_the_parcel_table(self):
        count = 0
        for s in self.cases.scenarios:
            parcel = self.corpus.parcel(s["address"])
            for topic, facts in s["reference_key"].items():
                for fact in facts:
                    for field, value in (fact.get("parcel") or {}).items():
                        count += 1
                        with self.subTest(scenario=s["id"], topic=topic, field=field):
                            self.assertEqual(parcel.get(field), value)
        self.assertGreater(count, 0)
        # An address topic is about the parcel: its facts say what of it they rest on.
        for s in self.cases.scenarios:
            if "address" in s["must_cover"]:
                with self.subTest(scenario=s["id"]):
                    self.assertTrue(any(f.get("parcel") for f in s["reference_key"]["address"]))

    def test_the_question_alone_finds_a_section_of_the_key(self):
        for s in self.cases.scenarios:
            with self.subTest(scenario=s["id"]):
                cited = {f["section"] for facts in s["reference_key"].values() for f in facts}
                found = [hit["section"] for hit in self.corpus.search(s["question"], limit=5)]
                self.assertTrue(cited & set(found), f"top 5: {found}")


class WhatAModelIsAsked(unittest.TestCase):
    def test_the_question_the_city_and_the_address_never_the_key(self):
        case = load_scenarios(SCENARIOS).by_id["garden-shed-hoa"]
        self.assertEqual(user_text(case), case["question"] + "\n\nThe city: Riverton\n"
                         "The address: 88 SW Bramblecrest Loop, Riverton")
        for s in load_scenarios(SCENARIOS).scenarios:
            text = user_text(s)
            self.assertFalse(any(f["quote"] in text or f["fact"] in text
                                 for facts in s["reference_key"].values() for f in facts))

    def test_a_scenario_without_a_city_reads_as_before(self):
        self.assertEqual(user_text({"question": "Q?", "address": "1200 Elm Street"}),
                         "Q?\n\nThe address: 1200 Elm Street")
        self.assertEqual(user_text({"question": "Q?", "address": None, "jurisdiction": None}), "Q?")


class Code(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.corpus = Corpus(CODE)
        cls.doc = json.loads(read(CODE))

    def test_labelled_fictional(self):
        self.assertIs(self.doc["fictional"], True)
        self.assertIn("FICTIONAL", self.doc["note"])
        self.assertGreaterEqual(len(self.doc["sections"]), 40)

    def test_no_real_place_names(self):
        # (The README quotes the spec, whose examples name Portland and PCC.)
        for path, names in ((CODE, REAL_NAMES + ("Oregon",)), (SCENARIOS, REAL_NAMES)):
            text = read(path)
            found = [n for n in names if re.search(r"\b" + re.escape(n) + r"\b", text)]
            self.assertEqual(found, [], os.path.relpath(path, ROOT))

    def test_every_fee_has_an_amount(self):
        fees = [(s["id"], p) for s in self.doc["sections"] if s["title"].startswith("Fee schedule")
                for p in s["text"].split("\n\n")]
        self.assertGreaterEqual(len(fees), 30)
        names = []
        for sid, paragraph in fees:
            with self.subTest(section=sid, fee=paragraph[:40]):
                found = FEE.match(paragraph)
                self.assertIsNotNone(found, "a fee is 'name: ... $amount'")
                names.append(found.group("name"))
        self.assertEqual(len(names), len(set(names)), "a fee is named once")

    def test_the_code_cites_only_sections_it_has(self):
        for section in self.doc["sections"]:
            for number in SECTION_REF.findall(section["text"]):
                with self.subTest(section=section["id"], cites=number):
                    self.assertIsNotNone(self.corpus.read("RCC " + number))
            for chapter in re.findall(r"\bChapter (\d+\.\d+)\b", section["text"]):
                with self.subTest(section=section["id"], chapter=chapter):
                    self.assertTrue(any(s["id"].startswith(f"RCC {chapter}.")
                                        for s in self.doc["sections"]))

    def test_each_parcel_has_what_the_code_needs(self):
        zones = {"R10", "R7", "R5", "R2.5", "RM1", "RM2", "CM1", "CM2", "CE"}
        for parcel in self.doc["parcels"]:
            with self.subTest(address=parcel["address"]):
                self.assertIn(parcel["zone"], zones)
                self.assertIsInstance(parcel["lot_sqft"], int)
                self.assertIsInstance(parcel["overlays"], list)
                self.assertTrue(parcel["existing_structures"])
                self.assertTrue(parcel["address"].endswith(", Riverton"))


class ReferenceKeyShape(unittest.TestCase):
    """The loader refuses a malformed key, naming the scenario and the place."""

    def refuse(self, change, expected):
        doc = json.loads(read(SCENARIOS))
        scenario = copy.deepcopy(doc["scenarios"][0])  # tiny-house
        change(scenario)
        doc["scenarios"] = [scenario]
        with self.assertRaises(BadInput) as caught:
            parse_scenarios(doc, "scenarios.json")
        self.assertEqual(str(caught.exception), f"scenarios.json: tiny-house: {expected}")

    def test_each(self):
        self.refuse(lambda s: s["reference_key"].pop("costs"),
                    "reference_key has no facts for must_cover topic(s) costs")
        self.refuse(lambda s: s["reference_key"].update(hoa=[]),
                    "reference_key topic(s) hoa are not in must_cover")
        self.refuse(lambda s: s["reference_key"].update(size=[]),
                    "reference_key.size must be a non-empty list of facts")
        self.refuse(lambda s: s["reference_key"]["size"][0].update(quote="800 square feet"),
                    f"reference_key.size[0]: quote must be at least {MIN_QUOTE_WORDS} words "
                    "of the section")
        self.refuse(lambda s: s["reference_key"]["size"][0].pop("section"),
                    "reference_key.size[0]: section must be a non-empty string")
        self.refuse(lambda s: s["reference_key"]["size"][0].update(page=3),
                    "reference_key.size[0]: unknown key(s) page")
        self.refuse(lambda s: s.pop("address"),
                    "reference_key.zoning[0]: parcel facts need the scenario's address")
        self.refuse(lambda s: s.update(jurisdiction=" "),
                    "jurisdiction must be a non-empty string or absent")

    def test_optional(self):
        doc = json.loads(read(SCENARIOS))
        for scenario in doc["scenarios"]:
            del scenario["reference_key"], scenario["jurisdiction"]
        cases = parse_scenarios(doc, "scenarios.json")
        self.assertIsNone(cases.by_id["tiny-house"]["reference_key"])
        self.assertIsNone(cases.by_id["tiny-house"]["jurisdiction"])


class TheGeneratorIsToldWhere(unittest.TestCase):
    """run.py gives a generator the scenario's city and address, never its key."""

    def test_the_request_names_the_city_and_the_address(self):
        support.isolate_environ(self)
        with tempfile.TemporaryDirectory() as tmp, \
                ModelServer("openai", reply=lambda r: "An answer.") as gen:
            os.environ.update(gen.environ())
            code, _, err = call_main(run, [SCENARIOS, os.path.join(tmp, "raw.jsonl"),
                                           "--provider", "openai", "--model", "gen-1",
                                           "--quiet", "--limit", "1"])
            self.assertEqual(code, 0, err)
            (request,) = gen.requests
        case = load_scenarios(SCENARIOS).scenarios[0]
        user = request["json"]["messages"][-1]["content"]
        self.assertIn(f"The city: {case['jurisdiction']}\nThe address: {case['address']}", user)
        for fact in case["reference_key"][case["must_cover"][0]]:
            self.assertNotIn(fact["quote"], user)


if __name__ == "__main__":
    unittest.main()
