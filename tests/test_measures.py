"""evalkit/rubric/measures.py: each rule of the rubric on its own, and judge's one
rule over them all: an answer that was not delivered fails every measure that
applies, whatever its body says. Cases worked out by hand from the rubric."""

import json
import os
import tempfile
import unittest

from tests import support
from tests.support import FIXTURES, call_main

import score  # noqa: E402
from evalkit.rubric import measures, report  # noqa: E402
from evalkit.rubric.measures import judge  # noqa: E402
from evalkit.rubric.rulebook import rules_as_of  # noqa: E402

RULES = rules_as_of()
ANSWERABLE = {"id": "t-en-01", "lang": "en", "kind": "answerable",
              "question": "How much is it, and when?", "page_url": "http://site/en/",
              "source_url": "http://site/en/prices/", "also_source_urls": ["http://site/en/fees/"],
              "evidence": "It costs $120, on Monday.", "facts": [["120", "$120"], ["Monday"]]}
NOT_ON_SITE = {"id": "t-en-16", "lang": "en", "kind": "not_on_site",
               "question": "Do you offer acupuncture?", "page_url": "http://site/en/",
               "must_not_include": ["acupuncture costs"]}


def answer(text, status=200, sources=(), grounded=None):
    return {"status": status, "answer": text, "sources": list(sources), "grounded": grounded}


class Rules(unittest.TestCase):
    def test_delivered(self):
        self.assertTrue(measures.delivered(200, "Yes."))
        self.assertFalse(measures.delivered(200, " \n\t"))
        self.assertFalse(measures.delivered(200, None))
        self.assertFalse(measures.delivered(503, "Yes."))
        # Invisible characters alone: delivered before 2026-12-01, blank since.
        for blank in ("\u200b", "\u200f \u200e", "\ufeff\n"):
            self.assertTrue(rules_as_of("2026-11-05").delivered(200, blank), repr(blank))
            self.assertFalse(RULES.delivered(200, blank), repr(blank))

    def test_correct_facts_needs_every_group(self):
        verdicts, details = judge(ANSWERABLE, answer("It costs $120 on Monday."), RULES)
        self.assertTrue(verdicts["correct_facts"])
        self.assertEqual(details["facts_found"], ["120", "Monday"])
        verdicts, details = judge(ANSWERABLE, answer("It costs $1200 on Monday."), RULES)
        self.assertFalse(verdicts["correct_facts"])
        self.assertEqual(details["facts_found"], [None, "Monday"])

    def test_right_page_cited_by_either_page(self):
        for source in ("http://SITE/en/prices", "http://site/en/fees/#x"):
            verdicts, _ = judge(ANSWERABLE, answer("x", sources=[source]), RULES)
            self.assertTrue(verdicts["right_page_cited"], source)
        verdicts, _ = judge(ANSWERABLE, answer("x", sources=["http://site/en/"]), RULES)
        self.assertFalse(verdicts["right_page_cited"])

    def test_declined_when_not_on_site(self):
        cases = [(answer("Sorry, I don't know.", grounded=True), True),   # a phrase
                 (answer("Please call us.", grounded=False), True),      # no grounding
                 (answer("Please call us.", grounded=None), False),      # neither
                 (answer("I don't know; acupuncture costs $80.", grounded=False), False)]
        for got, expected in cases:
            verdicts, _ = judge(NOT_ON_SITE, got, RULES)
            self.assertEqual(verdicts["declined_when_not_on_site"], expected, got["answer"])

    def test_measures_that_do_not_apply_are_none(self):
        verdicts, _ = judge(ANSWERABLE, answer("x"), RULES)
        self.assertIsNone(verdicts["declined_when_not_on_site"])
        verdicts, _ = judge(NOT_ON_SITE, answer("x"), RULES)
        self.assertEqual((verdicts["correct_facts"], verdicts["right_page_cited"]), (None, None))
        self.assertEqual(list(verdicts), list(measures.MEASURES))


class NotDelivered(unittest.TestCase):
    """Bodies whose content would pass, in answers that were not delivered."""

    def test_a_blank_answer_citing_the_right_page_fails(self):
        verdicts, details = judge(ANSWERABLE, answer("   ", sources=["http://site/en/prices/"]),
                                  RULES)
        self.assertEqual(details["right_sources"], ["http://site/en/prices"])  # the page is there
        self.assertFalse(verdicts["right_page_cited"])
        self.assertFalse(verdicts["delivered"])

    def test_a_blank_decline_fails(self):
        verdicts, _ = judge(NOT_ON_SITE, answer("", grounded=False), RULES)
        self.assertFalse(verdicts["declined_when_not_on_site"])

    def test_an_error_status_with_a_decline_fails(self):
        verdicts, details = judge(NOT_ON_SITE, answer("I don't know.", status=500, grounded=False),
                                  RULES)
        self.assertEqual(details["decline_phrase"], "i don't know")
        self.assertEqual(verdicts, {"delivered": False, "correct_facts": None,
                                    "right_page_cited": None, "in_question_language": False,
                                    "declined_when_not_on_site": False})

    def test_through_score_py(self):
        # A raw line with HTTP 200, a blank answer, the right page among its
        # sources and grounded false, for one answerable and one not-on-site
        # question of the mini set.
        with open(os.path.join(FIXTURES, "raw-mini.jsonl"), encoding="utf-8") as fh:
            lines = [json.loads(line) for line in fh]
        blank = json.dumps({"answer": " ", "grounded": False,
                            "sources": [{"url": "http://mini.example/en/prices/"}]})
        for line in lines:
            if line["id"] in ("mini-en-01", "mini-en-16"):
                line["response"]["status"] = 200
                line["response"]["body"] = blank
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, "raw.jsonl")
            with open(raw, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(line) + "\n" for line in lines)
            out = os.path.join(tmp, "results.json")
            code, _, err = call_main(score, [os.path.join(FIXTURES, "questions-mini.json"), raw,
                                             "--json", out])
            self.assertEqual(code, 0, err)
            with open(out, encoding="utf-8") as fh:
                rows = {row["id"]: row for row in json.load(fh)["questions"]}
        self.assertEqual(rows["mini-en-01"]["details"]["right_sources"],
                         ["http://mini.example/en/prices"])
        self.assertFalse(rows["mini-en-01"]["mechanical"]["right_page_cited"])
        self.assertFalse(rows["mini-en-16"]["mechanical"]["declined_when_not_on_site"])



class ReviewFlags(unittest.TestCase):
    """Rules of 2026-12-01: a passing answer with a flag goes to a person;
    the verdicts stay the rules'."""

    def flags(self, text, question=ANSWERABLE, rules=RULES):
        verdicts, details = judge(question, answer(text, sources=["http://site/en/prices/"]), rules)
        return verdicts, details.get("flags")

    def test_a_plain_answer_has_none(self):
        verdicts, flags = self.flags("It is $120, on Monday.")
        self.assertTrue(verdicts["correct_facts"])
        self.assertEqual(flags, [])

    def test_a_fact_found_only_in_a_repeat_of_the_question(self):
        question = dict(ANSWERABLE, question="Is it $120 on Monday?")
        verdicts, flags = self.flags("You asked: is it $120 on Monday? Please call us.", question)
        self.assertTrue(verdicts["correct_facts"])
        self.assertEqual(flags, ["echo"])

    def test_long_and_many_numbers(self):
        spray = " ".join(str(n) for n in range(1, 300)) + " Monday"
        verdicts, flags = self.flags(spray)
        self.assertTrue(verdicts["correct_facts"])
        self.assertEqual(flags, ["long", "numbers", "value"])  # 1 to 299 are not the page's

    def test_a_number_the_evidence_does_not_give(self):
        # 2026-12-02: the right $120, and beside it a price the page never states.
        verdicts, details = judge(ANSWERABLE, answer("It is $120 on Monday; a follow-up is $75.",
                                                     sources=["http://site/en/prices/"]), RULES)
        self.assertTrue(verdicts["correct_facts"])
        self.assertEqual((details["flags"], details["other_values"]), (["value"], ["75"]))
        # Written another way, the page's own numbers are no other value.
        self.assertEqual(self.flags("It is $120.00, on Monday at 9:00.",
                                    dict(ANSWERABLE, evidence="It costs $120 on Monday at 9."))[1],
                         [])
        self.assertEqual(self.flags("It is $120 on Monday; a follow-up is $75.",
                                    rules=rules_as_of("2026-12-01"))[1], [])

    def test_a_qualifier_the_evidence_does_not_name(self):
        # "$120 a month" binds the page's $120 (no period there) to a month.
        verdicts, details = judge(ANSWERABLE, answer("It is $120 a month, on Monday.",
                                                     sources=["http://site/en/prices/"]), RULES)
        self.assertTrue(verdicts["correct_facts"])
        self.assertEqual((details["flags"], details["unbound_qualifiers"]),
                         (["qualifier"], ["month"]))
        # A day the question names is no stranger to the answer.
        self.assertEqual(self.flags("It is $120, on Monday, not Tuesday.",
                                    dict(ANSWERABLE, question="How much is it, on Tuesday?"))[1],
                         ["negation"])

    def test_a_decline_phrase_in_an_answer_that_passes(self):
        _, flags = self.flags("I don't know for sure, but it is $120 on Monday.",
                              rules=rules_as_of("2026-12-01"))
        self.assertEqual(flags, ["decline"])
        # Since 2026-12-02 the n't of "don't know" also shares the facts' clause.
        _, flags = self.flags("I don't know for sure, but it is $120 on Monday.")
        self.assertEqual(flags, ["decline", "negation"])

    def test_a_decline_phrase_of_another_language(self):
        # 2026-12-02.3: a Hebrew answer passes with half its letters Hebrew, so
        # an English decline beside the facts is read like the Declined
        # measure reads it; before, only the question's language's phrases.
        question = dict(PAYMENTS, source_url="http://site/en/prices/")
        text = "אפשר לפרוס עד שישה תשלומים ללא ריבית. (no information on the fee)"
        verdicts, flags = self.flags(text, question)
        self.assertNotIn(False, verdicts.values())
        self.assertEqual(flags, ["decline"])
        self.assertEqual(self.flags(text, question, rules_as_of("2026-12-02.2"))[1], [])

    def test_numbers_in_another_script_s_digits(self):
        # 2026-12-02.3: eleven numbers in Arabic-Indic digits are eleven numbers;
        # before, the flag looked only when more than 10 ASCII digits stood.
        arabic_indic = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
        spray = "It is $120, on Monday. " + " ".join(str(n).translate(arabic_indic)
                                                     for n in range(11, 22))
        verdicts, flags = self.flags(spray)
        self.assertNotIn(False, verdicts.values())
        self.assertIn("numbers", flags)
        self.assertNotIn("numbers", self.flags(spray, rules=rules_as_of("2026-12-02.2"))[1])

    def test_a_failed_answer_needs_no_flag(self):
        verdicts, flags = self.flags("I don't know.")
        self.assertFalse(verdicts["correct_facts"])
        self.assertEqual(flags, [])

    def test_older_rules_have_no_flags(self):
        _, flags = self.flags("I don't know for sure, but it is $120 on Monday.",
                              rules=rules_as_of("2026-11-05"))
        self.assertIsNone(flags)


FRIDAY = {"id": "t-en-15", "lang": "en", "kind": "answerable",
          "question": "what time do you close on friday", "page_url": "http://site/en/",
          "source_url": "http://site/en/contact/", "also_source_urls": [],
          "evidence": "On Fridays we close early, at 4 pm.", "facts": [["4 pm", "4pm", "16:00"]]}
FLU = dict(FRIDAY, id="t-en-02", question="flu shot price?",
           evidence="A flu shot costs $35, and you don't need an appointment for it during "
                    "walk-in hours.", facts=[["35", "$35"]])
PAYMENTS = {"id": "t-he-11", "lang": "he", "kind": "answerable",
            "question": "אפשר לשלם על הדוח השנתי בתשלומים?", "page_url": "http://site/he/",
            "source_url": "http://site/he/faq/", "also_source_urls": [],
            "evidence": "ועל הדוח השנתי אפשר לפרוס עד שישה תשלומים ללא ריבית.",
            "facts": [["שישה", "6 תשלומים"]]}
PRIVATE = dict(PAYMENTS, id="t-he-12", question="המרפאה שייכת לקופת חולים?",
               evidence="אנחנו מרפאה פרטית ולא חלק מקופת חולים.",
               facts=[["פרטית", "לא חלק", "אינה חלק"]])
INSURERS = {"id": "t-ru-12", "lang": "ru", "kind": "answerable",
            "question": "по дмс принимаете?", "page_url": "http://site/ru/",
            "source_url": "http://site/ru/faq/", "also_source_urls": [],
            "evidence": "Мы принимаем пациентов по ДМС от «СОГАЗ» и «Ингосстрах».",
            "facts": [["СОГАЗ"], ["Ингосстрах"]]}


class NegationFlag(unittest.TestCase):
    """Rules of 2026-12-02: a fact spelling in a clause with a negation word
    sends a passing answer to a person; the verdict stays the rules'. Cases
    worked out by hand from the rule."""

    def negations(self, question, text, rules=RULES):
        verdicts, details = judge(question, answer(text, sources=[question["source_url"]]), rules)
        self.assertTrue(all(verdicts[m] for m in measures.APPLIES["answerable"]), text)
        flagged = "negation" in details["flags"]
        self.assertEqual(flagged, "negation_words" in details)
        return details.get("negation_words", [])

    def test_a_negated_fact(self):
        self.assertEqual(self.negations(
            FRIDAY, "On Fridays we don't close at 4 pm like some offices; we're open until 5:30."),
            ["don't"])
        self.assertEqual(self.negations(FRIDAY, "We do not close at 4 pm on Fridays."), ["not"])
        self.assertEqual(self.negations(FRIDAY, "We never close at 4pm."), ["never"])
        self.assertEqual(self.negations(FRIDAY, "Closing at 4 pm on Fridays isn’t possible."),
                         ["isn’t"])
        self.assertEqual(self.negations(FRIDAY, "We can't say 4 pm, we cannot promise it."),
                         ["can't", "cannot"])

    def test_a_plain_fact(self):
        self.assertEqual(self.negations(FRIDAY, "On Fridays we close early, at 4 pm."), [])
        self.assertEqual(self.negations(FRIDAY, "We're closed from 4 pm on Fridays."), [])  # not listed
        self.assertEqual(self.negations(FRIDAY, "Note: know that 4 pm is the time."), [])  # whole words

    def test_what_ends_a_clause(self):
        # . ! ? ; and a line break end a clause; a comma and a colon do not.
        self.assertEqual(self.negations(FRIDAY, "We don't open Sundays. Fridays: 4 pm."), [])
        self.assertEqual(self.negations(FRIDAY, "We don't open Sundays!\nFridays until 4 pm"), [])
        self.assertEqual(self.negations(FRIDAY, "We don't open Sundays; Fridays until 4 pm"), [])
        self.assertEqual(self.negations(FRIDAY, "No, we close at 4 pm on Fridays"), ["no"])
        self.assertEqual(self.negations(FRIDAY, "Not on Fridays: 4 pm is Thursday's time"), ["not"])

    def test_what_the_page_says_too(self):
        # The page's "don't need" is about the appointment: an answer saying
        # it too is not flagged; a "doesn't cost" is.
        self.assertEqual(self.negations(FLU, "It's $35 and you don't need an appointment."), [])
        self.assertEqual(self.negations(FLU, "It's $35 and you do not need an appointment."), [])
        self.assertEqual(self.negations(FLU, "A flu shot doesn't cost $35 any more."), ["doesn't"])
        self.assertEqual(self.negations(PAYMENTS, "אפשר לפרוס עד שישה תשלומים ללא ריבית."), [])
        self.assertEqual(self.negations(PAYMENTS, "כבר לא אפשר לפרוס לשישה תשלומים."), ["לא"])

    def test_a_negation_inside_the_spelling(self):
        self.assertEqual(self.negations(PRIVATE, "המרפאה אינה חלק מקופת חולים."), [])
        self.assertEqual(self.negations(PRIVATE, "המרפאה היא פרטית, ולא חלק מקופה."), [])
        self.assertEqual(self.negations(PRIVATE, "המרפאה לא פרטית."), ["לא"])

    def test_hebrew_proclitics(self):
        self.assertEqual(self.negations(PAYMENTS, "אומרים שישה תשלומים, ושלא תטעו: זה בוטל."),
                         ["ושלא"])
        self.assertEqual(self.negations(PAYMENTS, "שישה תשלומים, שירות מלא."), [])  # מלא is full

    def test_russian(self):
        self.assertEqual(self.negations(
            INSURERS, "Нет, по ДМС мы не принимаем — ни «СОГАЗ», ни «Ингосстрах»."),
            ["нет", "не", "ни"])
        self.assertEqual(self.negations(INSURERS, "Принимаем по ДМС: «СОГАЗ» и «Ингосстрах»."), [])
        self.assertEqual(self.negations(INSURERS, "«СОГАЗ» и «Ингосстрах» без проблем."), ["без"])

    def test_earlier_rules_and_other_questions(self):
        text = "We do not close at 4 pm on Fridays."
        self.assertEqual(self.negations(FRIDAY, text, rules_as_of("2026-12-01")), [])
        _, details = judge(NOT_ON_SITE, answer("We don't offer it.", grounded=False), RULES)
        self.assertEqual(details["flags"], [])
        verdicts, details = judge(FRIDAY, answer("We don't close early.", sources=[]), RULES)
        self.assertFalse(verdicts["correct_facts"])
        self.assertEqual(details["flags"], [])

    def test_the_review_sheet_shows_the_words(self):
        question = dict(FRIDAY, id="mini-en-01")
        row = {"id": "mini-en-01", "kind": "answerable", "reviewed": False,
               "question": question["question"], "evidence": question["evidence"],
               "source_url": question["source_url"], "answer": "We don't close at 4 pm.",
               "sources": [], "grounded": None, "problem": None,
               "mechanical": {"delivered": True, "correct_facts": True, "right_page_cited": True,
                              "in_question_language": True, "declined_when_not_on_site": None},
               "flags": ["negation"], "details": {"negation_words": ["don't"]}}
        lines = report._review_entry(row)
        self.assertIn("- Flags (it passed, but): a fact stated in a clause with a negation "
                      "word (don't)", lines)


if __name__ == "__main__":
    unittest.main()
