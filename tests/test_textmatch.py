"""Known-answer tests for the text rules (DESIGN section 6), each case worked
out by hand from the rule before the code was run."""

import random
import re
import unicodedata
import unittest

from tests import support  # noqa: F401  (puts the tools on sys.path)
from evalkit import textmatch
from evalkit.rubric.measures import in_question_language
from evalkit.rubric.rulebook import rules_as_of
from evalkit.textmatch import normalize, script_share
from evalkit.rubric.urls import normalize_url, page_key


# The first rules: a digit alone had a boundary (evalkit/rubric/earlier.py).
FIRST = rules_as_of("2026-10-28")


def contains(text, spelling):
    """The first matching rule (digits bound a spelling) on texts as
    written: both normalised first."""
    return textmatch.contains(normalize(text), normalize(spelling), FIRST.words("en"))


def in_language(text, lang):
    return in_question_language(text, lang)[0]


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

    def test_an_empty_spelling_is_found_nowhere(self):
        self.assertFalse(textmatch.contains("anything", "", textmatch.Words("en")))
        self.assertFalse(contains("anything", "\u200f "))  # nothing left once normalised


def found(text, spelling, lang):
    """The matching rule of 2026-12-01 (word boundaries) in ``lang``."""
    return textmatch.contains(normalize(text), normalize(spelling),
                              rules_as_of("2026-12-01").words(lang))


def found_now(text, spelling, lang):
    """Today's matching rule (2026-12-02: number_bounds and word_forms) in ``lang``."""
    return textmatch.contains(normalize(text), normalize(spelling), textmatch.Words(lang))


class WordBoundaries(unittest.TestCase):
    """Rules of 2026-12-01: a spelling begins a word (Hebrew: after up to three
    proclitics) and, in English and Hebrew, ends one. Cases from issue 16's
    reader, worked out by hand."""

    def test_hebrew_needs_a_word_start(self):
        self.assertFalse(found("אנחנו בתל אביב", "אבי", "he"))      # a name inside a city
        self.assertFalse(found("מאחורי הבניין", "חורי", "he"))      # מ+א is no proclitic chain
        self.assertTrue(found("תשאלו את אבי", "אבי", "he"))
        self.assertTrue(found("ובמחירון המלא", "מחירון", "he"))     # two proclitics
        self.assertTrue(found("כשבמחירון", "מחירון", "he"))         # three
        self.assertFalse(found("וכשבמחירון", "מחירון", "he"))       # four: the rule stops at three
        self.assertTrue(found("אפשר לשלם ב-9:00", "9:00", "he"))
        self.assertTrue(found("פתוח מ9:00", "9:00", "he"))

    def test_hebrew_and_english_need_a_word_end(self):
        self.assertFalse(found("אין ביטול בחינם", "ביט", "he"))
        self.assertTrue(found("משלמים בביט או במזומן", "ביט", "he"))
        self.assertFalse(found("We accept bitcoin.", "bit", "en"))
        self.assertTrue(found("We accept Bit.", "bit", "en"))
        self.assertFalse(found("forty minutes", "forty min", "en"))
        self.assertTrue(found("at 8am", "8", "en"))                  # digits: only digits bound them

    def test_russian_may_end_inside_a_word(self):
        self.assertTrue(found("к Андрею", "андре", "ru"))
        self.assertTrue(found("Приём бесплатный", "бесплатн", "ru"))
        self.assertFalse(found("Приём небесплатный", "бесплатн", "ru"))
        self.assertFalse(found("предварительно", "дварительн", "ru"))

    def test_before_the_rule_letters_had_no_boundary(self):
        self.assertTrue(contains("אנחנו בתל אביב", "אבי"))
        self.assertTrue(contains("We accept bitcoin.", "bit"))

    def test_a_spelling_that_begins_with_a_sign(self):
        self.assertTrue(found("costs$120", "$120", "en"))
        self.assertFalse(found("costs $1200", "$120", "en"))


class NumberBounds(unittest.TestCase):
    """Rules of 2026-12-02: a number goes on past a colon, point or comma
    followed by a digit; worked out by hand from the rule."""

    def test_a_spelling_that_ends_with_a_digit(self):
        self.assertFalse(found_now("We close at 16:30.", "16", "en"))
        self.assertFalse(found_now("It costs $120.50.", "120", "en"))
        self.assertFalse(found_now("It costs $120.50.", "$120", "en"))
        self.assertFalse(found_now("It costs 1,200 shekels", "1", "en"))
        self.assertFalse(found_now("стоит 7.000 ₽", "7", "ru"))
        self.assertFalse(found_now("до 16:00", "до 16", "ru"))
        self.assertTrue(found_now("до 16 часов", "до 16", "ru"))

    def test_a_spelling_that_begins_with_a_digit(self):
        self.assertFalse(found_now("We close at 16:30.", "30", "en"))
        self.assertFalse(found_now("It costs 1,200 shekels", "200", "en"))
        self.assertFalse(found_now("It costs 2.5 thousand", "5", "en"))

    def test_what_still_matches(self):
        self.assertTrue(found_now("We open at 8:00.", "8:00", "en"))       # a sentence's end
        self.assertTrue(found_now("We open at 8:00, then", "8:00", "en"))   # a comma, a space
        self.assertTrue(found_now("Open 9-17", "9", "en"))                  # a range's hyphen
        self.assertTrue(found_now("It costs $120.00.", "120", "en"))        # zero cents
        self.assertTrue(found_now("עולה 1,950.00 ₪", "1,950", "he"))
        self.assertTrue(found_now("стоит 120,00 ₽", "120", "ru"))
        self.assertFalse(found_now("It costs 120.005", "120", "en"))        # not cents
        self.assertTrue(found_now("by 31.10.2026", "31.10.", "en"))         # a date with its year
        self.assertFalse(found_now("by 31.10.2026", "31.10", "en"))

    def test_before_the_rule(self):
        self.assertTrue(found("We close at 16:30.", "16", "en"))
        self.assertTrue(found("It costs $120.50.", "120", "en"))
        self.assertTrue(contains("We close at 16:30.", "30"))


class WordForms(unittest.TestCase):
    """Rules of 2026-12-02: Hebrew proclitics in the order Hebrew writes
    them, Russian endings from a closed list."""

    def test_hebrew_proclitic_sequences(self):
        for word in ("מחירון", "ומחירון", "שמחירון", "כשמחירון", "במחירון", "ובמחירון",
                     "שבמחירון", "המחירון", "והמחירון", "מהמחירון", "שהמחירון", "כשהמחירון",
                     "ומהמחירון"):
            self.assertTrue(found_now(f"ראו {word} המלא", "מחירון", "he"), word)
        for word in ("בהמחירון",    # ה after ב: Hebrew writes במחירון
                     "להמחירון", "כהמחירון",
                     "הבמחירון",    # the article before the preposition
                     "בשמחירון",    # a preposition before ש
                     "מומחירון",    # ו after מ
                     "וכשבמחירון",  # four letters
                     "לבמחירון"):   # two prepositions
            self.assertFalse(found_now(f"ראו {word} המלא", "מחירון", "he"), word)

    def test_hebrew_before_the_rule(self):
        # The rules of 2026-12-01 took any three of ו ה ב כ ל מ ש.
        self.assertTrue(found("ראו בהמחירון המלא", "מחירון", "he"))
        self.assertTrue(found("ראו הבמחירון המלא", "מחירון", "he"))

    def test_hebrew_keeps_what_it_found(self):
        self.assertFalse(found_now("אנחנו בתל אביב", "אבי", "he"))
        self.assertTrue(found_now("משלמים בביט או במזומן", "ביט", "he"))
        self.assertFalse(found_now("אין ביטול בחינם", "ביט", "he"))
        self.assertTrue(found_now("פתוח מ-9:00", "9:00", "he"))
        self.assertTrue(found_now("פתוח מ9:00", "9:00", "he"))
        self.assertTrue(found_now("עד 31 במרץ", "מרץ", "he"))

    def test_russian_case_endings(self):
        self.assertTrue(found_now("Клиника в Новосибирске.", "Новосибирск", "ru"))
        self.assertTrue(found_now("Приём бесплатный", "бесплатн", "ru"))
        self.assertTrue(found_now("Это бесплатно.", "бесплатн", "ru"))
        self.assertTrue(found_now("по вторникам", "вторник", "ru"))
        self.assertTrue(found_now("две недели", "две недел", "ru"))
        self.assertTrue(found_now("к Дмитрию", "Дмитри", "ru"))
        self.assertTrue(found_now("принимает Дмитрий", "Дмитри", "ru"))
        self.assertTrue(found_now("с Иваном", "Иван", "ru"))
        self.assertTrue(found_now("пятнадцати лет", "пятнадцат", "ru"))
        self.assertTrue(found_now("«Геологической»", "Геологическ", "ru"))

    def test_russian_longer_words(self):
        self.assertFalse(found_now("Иванович", "Иван", "ru"))           # a patronymic
        self.assertFalse(found_now("Ивановна", "Иван", "ru"))
        self.assertFalse(found_now("Андрейченко", "Андрей", "ru"))      # a surname
        self.assertFalse(found_now("Наталья Дмитриевна", "Дмитри", "ru"))
        self.assertFalse(found_now("около 7 минут", "7 мин", "ru"))     # no stem but a word's
        self.assertFalse(found_now("30 апреля", "30 апр", "ru"))
        self.assertTrue(found_now("30 апр.", "30 апр", "ru"))
        self.assertFalse(found_now("ежеквартально", "ежекварт", "ru"))
        self.assertFalse(found_now("Ingosstrakh", "Ingosstrah", "ru"))  # Latin ends a word
        self.assertFalse(found_now("Приём небесплатный", "бесплатн", "ru"))

    def test_a_known_limit(self):
        # A surname that is a first name with a case ending: "Иванов" is
        # Иван + ов (a genitive plural), so the rule finds Иван in it.
        self.assertTrue(found_now("доктор Иванов", "Иван", "ru"))

    def test_russian_before_the_rule(self):
        self.assertTrue(found("Иванович", "Иван", "ru"))
        self.assertTrue(found("около 7 минут", "7 мин", "ru"))

    def test_english_is_as_it_was(self):
        self.assertFalse(found_now("We accept bitcoin.", "bit", "en"))
        self.assertTrue(found_now("We accept Bit.", "bit", "en"))


class WorkedExamples(unittest.TestCase):
    def test_the_docstrings_examples_hold(self):
        # Each line '"spelling" in "text"  yes|no' of textmatch's docstring,
        # in the language its letters are written in.
        examples = re.findall(r'^ +"([^"]+)" +in "([^"]+)" +(yes|no)\b', textmatch.__doc__, re.M)
        self.assertGreaterEqual(len(examples), 20)
        for spelling, text, expected in examples:
            lang = "he" if re.search("[\u0590-\u05ff]", text) else \
                "ru" if re.search("[\u0400-\u04ff]", text) else "en"
            with self.subTest(spelling=spelling, text=text):
                self.assertEqual(found_now(text, spelling, lang), expected == "yes")


class Clauses(unittest.TestCase):
    def test_where_a_clause_ends(self):
        self.assertEqual(textmatch.clauses("We open at 8:00. Closed on Sundays!\nCall 1,200 times; "
                                           "or not: Dr. Okafor, 9 a.m. Then?"),
                         ["we open at 8:00.", "closed on sundays!", "call 1,200 times;",
                          "or not: dr.", "okafor, 9 a.m.", "then?"])
        self.assertEqual(textmatch.clauses(""), [])
        self.assertEqual(textmatch.clauses("\n \n"), [])


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
        bare = text.replace(url, url.replace("https://", ""))
        # Before 2026-12-01 a link without a scheme counted as Latin letters;
        # since then it is removed like any other link.
        self.assertFalse(rules_as_of("2026-11-05").in_question_language(bare, "he")[0])
        self.assertTrue(in_language(bare, "he"))
        self.assertEqual(script_share("ראו med.demo.localhost/demo/clinic/he/hours/ שם", "he"),
                         (5, 5))

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


# Characters the fast paths must get right: every kind of space and invisible
# mark, letters of the three scripts and of others, marks, digits of several
# scripts, letters outside the BMP, and the characters of links.
POOL = (" \t\n\r\x0b\x0c\x1c\x85\xa0\u1680\u2000\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
        "\u200e\u200f\u061c\u202a\u202e\u2066\u2069\u200b\ufeff\u00ad"
        "abcXYZ\u00e9\u00df\u0130\u0149\u01c5\u024f\u1e9e\u2c65\ua7ff\ufb00"
        "\u05d0\u05e9\u05ea\u05b7\u05be\u05f3\ufb1d\ufb2a\ufb4f"
        "\u0430\u044f\u0451\u0410\u0500\u052f\u1c80\u2de0\ua640\u0483"
        "\u0627\u4e00\u3042\u0905\u0301\u00b2\u00bd\u2167\u0660\u0967\uff11"
        "0123456789.,:;!?-_/@%+'\"()\u2013\u2019\u00ab\u20aa\u2116"
        "\U0001d400\U00010400\U0001f600\U00020000")
LINKS = ("https://a.example/x?y=1", "www.Example.org", "info@clinic.example", "WWW.x.y")


def random_texts(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        parts = [rng.choice(POOL) for _ in range(rng.randint(0, 40))]
        if rng.random() < 0.2:
            parts.insert(rng.randint(0, len(parts)), rng.choice(LINKS))
        yield "".join(parts)


def letters_as_written(text, lang):
    """The language-share rule as written, one character at a time: every
    character of category L* (str.isalpha) after NFKC and with links removed
    (with a scheme, then without), and those of them in the script's ranges."""
    text = textmatch.LINKS.sub(" ", unicodedata.normalize("NFKC", text))
    text = textmatch.BARE_DOMAINS.sub(" ", text)
    in_script = re.compile(f"[{textmatch.SCRIPT_RANGES[textmatch.SCRIPTS[lang]]}]")
    letters = [char for char in text if unicodedata.category(char).startswith("L")]
    return sum(1 for char in letters if in_script.match(char)), len(letters)


class LetterCount(unittest.TestCase):
    """script_share counts letters from the UTF-8 bytes and skips the two
    link scans where no link can be (its three speed measures): the same
    counts as the rule as written, on texts made to find where they could
    differ."""

    def test_random_texts(self):
        for lang in ("en", "he", "ru"):
            for text in random_texts(20261129, 2000):
                self.assertEqual(script_share(text, lang), letters_as_written(text, lang),
                                 repr(text))

    def test_letters_and_ascii_punctuation(self):
        # Texts whose ASCII-free rest is letters only, and a few where it is not.
        letters = "abcXYZ\u00e9\u00df\u0149\u05d0\u05ea\ufb1d\u0430\u044f\u0451\u0500\u4e00\U0001d400"
        ascii_others = " 0123456789.,:;!?-_/@%+'\"()$"
        rng = random.Random(5)
        texts = ["".join(rng.choice(letters if rng.random() < 0.7 else ascii_others)
                         for _ in range(rng.randint(0, 60))) for _ in range(2000)]
        texts += ["\ud800abc", "abc\u0301", "\u00b2\u00bd abc", "\u05d0\u05b7\u05d1", "\u2167 \u0430",
                  "Hello world, we open at 8:00.", "Клиника открыта с 8:00 до 18:00 — «Мир».",
                  "WwW.Example.org и всё", "mail: INFO@x.example"]
        for text in texts:
            for lang in ("en", "he", "ru"):
                self.assertEqual(script_share(text, lang), letters_as_written(text, lang),
                                 repr(text))


class SamePage(unittest.TestCase):
    """``page_key``, the rule of 2026-12-01 for Right page cited."""
    PAGE = "http://med.demo.localhost/demo/clinic/en/"

    def test_one_page_written_many_ways(self):
        base = page_key("http://med.demo.localhost/demo/clinic/en/services/", self.PAGE)
        for other in ("https://med.demo.localhost/demo/clinic/en/services/",
                      "http://med.demo.localhost/demo/clinic/en/services/?utm_source=chat&utm_medium=x",
                      "/demo/clinic/en/services/", "services/", "services",
                      "http://med.demo.localhost/demo/clinic/en/%73ervices/",
                      "HTTPS://MED.demo.localhost:443/demo/clinic/en/services#prices"):
            self.assertEqual(page_key(other, self.PAGE), base, other)

    def test_other_pages_stay_other(self):
        base = page_key("http://med.demo.localhost/demo/clinic/en/services/", self.PAGE)
        for other in ("http://med.demo.localhost/demo/clinic/en/hours/",
                      "http://med.demo.localhost/demo/clinic/he/services/",
                      "http://other.localhost/demo/clinic/en/services/",
                      "http://med.demo.localhost/demo/clinic/en/services/?page=2",
                      "../services/"):
            self.assertNotEqual(page_key(other, self.PAGE), base, other)

    def test_escaped_and_unescaped_letters(self):
        self.assertEqual(page_key("http://x/%d7%a9%d7%99%d7%A8%d7%95%d7%aa%d7%99%d7%9d/", "http://x/"),
                         page_key("http://x/שירותים/", "http://x/"))
        self.assertEqual(page_key("http://[bad", "http://x/"), "http://[bad")


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
