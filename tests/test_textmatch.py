"""Known-answer tests for the text rules (DESIGN section 6), each case worked
out by hand from the rule before the code was run."""

import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from evalkit.textmatch import contains, contains_any, in_language, normalize, script_share
from evalkit.urls import normalize_url


class Matching(unittest.TestCase):
    def test_digit_boundaries(self):
        self.assertTrue(contains("It costs $120.", "120"))
        self.assertTrue(contains("It costs $120.", "$120"))
        self.assertFalse(contains("It costs $1200.", "120"))
        self.assertFalse(contains("It costs $1200.", "$120"))
        self.assertFalse(contains("It costs 2120 dollars", "120"))
        self.assertTrue(contains("It costs 1200 or 120", "120"))  # second occurrence counts

    def test_times(self):
        self.assertTrue(contains("We open at 8:00.", "8:00"))
        self.assertFalse(contains("We close at 18:00.", "8:00"))
        self.assertFalse(contains("We open at 8:005", "8:00"))

    def test_no_break_space_inside_a_price(self):
        self.assertTrue(contains("приём стоит 1\u00a0200 ₽", "1 200 ₽"))
        self.assertTrue(contains("приём стоит 1\u202f200 ₽", "1 200 ₽"))
        self.assertFalse(contains("приём стоит 11\u00a0200 ₽", "1 200 ₽"))

    def test_full_width_digits(self):
        self.assertTrue(contains("料金は１２０ドル", "120"))
        self.assertFalse(contains("料金は１２００ドル", "120"))

    def test_hebrew_prefix_letter(self):
        self.assertTrue(contains("את המחירון המלא", "מחירון"))
        self.assertTrue(contains("ובמחירון", "מחירון"))

    def test_russian_case_ending(self):
        self.assertTrue(contains("Клиника в Новосибирске.", "Новосибирск"))
        self.assertTrue(contains("КЛИНИКА В НОВОСИБИРСКЕ", "новосибирск"))

    def test_bidi_marks_removed(self):
        self.assertTrue(contains("טלפון \u200f04-8123456\u200f", "04-8123456"))
        self.assertTrue(contains("04\u200e-8123456", "04-8123456"))

    def test_case_and_whitespace(self):
        self.assertEqual(normalize("  A\tfirst\n\nConsultation "), "a first consultation")
        self.assertTrue(contains("STRASSE", "straße"))

    def test_contains_any(self):
        self.assertEqual(contains_any("open 8 am", ["8:00", "8 am"]), "8 am")
        self.assertIsNone(contains_any("open 18 am", ["8:00", "8 am"]))


class Language(unittest.TestCase):
    def test_hebrew_with_latin_brand_names(self):
        text = "אפשר לשאול אותנו ב-WhatsApp או ב-Zoom"
        mine, total = script_share(text, "he")
        self.assertEqual((mine, total), (18, 30))  # 4+5+5+1+2+1 Hebrew, 8+4 Latin
        self.assertTrue(in_language(text, "he"))

    def test_hebrew_with_a_long_latin_url(self):
        url = "https://booking.example.com/appointments/new?clinic=haifa&lang=he&source=widget"
        text = f"כן, אפשר לקבוע תור באתר: {url}"
        self.assertEqual(script_share(text, "he"), (18, 18))  # 2+4+5+3+4
        self.assertTrue(in_language(text, "he"))
        self.assertFalse(in_language(text.replace(url, url.replace("https://", "")), "he"))

    def test_russian_with_mg(self):
        self.assertTrue(in_language("Детям назначают 250 mg парацетамола.", "ru"))

    def test_english_needs_85_percent(self):
        # 17 Latin letters, 3 Cyrillic: 17/20 = 85% passes; 16/20 does not.
        self.assertTrue(in_language("abcdefghij abcdefg где", "en"))
        self.assertFalse(in_language("abcdefghij abcdef где", "en"))

    def test_half_is_enough_for_hebrew_and_russian(self):
        self.assertTrue(in_language("שלום abcd", "he"))      # 4 of 8
        self.assertFalse(in_language("שלו abcd", "he"))      # 3 of 7
        self.assertTrue(in_language("мир abc", "ru"))        # 3 of 6

    def test_emails_do_not_count(self):
        self.assertEqual(script_share("כתבו ל-info@clinic.example", "he"), (5, 5))

    def test_no_letters_is_not_the_language(self):
        self.assertFalse(in_language("120 ₪", "he"))
        self.assertFalse(in_language("", "en"))


class Urls(unittest.TestCase):
    def test_same_page(self):
        base = normalize_url("http://med.example/demo/clinic/en/prices/")
        for other in ("http://med.example/demo/clinic/en/prices",
                      "HTTP://MED.example/demo/clinic/en/prices/#fees",
                      "http://med.example:80/demo/clinic/en/prices/"):
            self.assertEqual(normalize_url(other), base, other)

    def test_different_pages(self):
        base = normalize_url("https://med.example/en/prices/")
        for other in ("https://med.example/en/prices/?page=2", "http://med.example/en/prices/",
                      "https://med.example:8443/en/prices/", "https://med.example/en/"):
            self.assertNotEqual(normalize_url(other), base, other)

    def test_root(self):
        self.assertEqual(normalize_url("https://med.example"), normalize_url("https://med.example/"))


if __name__ == "__main__":
    unittest.main()
