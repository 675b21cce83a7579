"""Qualifiers: the words that bind a value to a unit, a period, a day or a mode.

"£85 per month" is not "£85 per quarter", nor "9:00 on Mondays" "9:00 on
Sundays": where a page binds a value to such a word, an answer may state the
value and break the binding. Two users, one table:

- lint_questions.py's "uncovered qualifier": a qualifier beside a fact in a
  question's evidence that no fact group holds (the question then gets a
  fact group for it: the rubric's "every group must appear");
- measures.py's "qualifier" review flag (rules of 2026-12-02): an answer that
  names a qualifier which neither the evidence nor the question names.

The forms are matched as fact spellings are (evalkit/textmatch.py: Hebrew
proclitics and Russian endings included: "חודש" is found in "לחודש",
"недел" in "недели").
"""

# The qualifiers "uncovered qualifier" looks for, per language: (name, where,
# forms). ``where`` is "after" for a unit, a period or a mode, which follow the
# number they qualify in all three languages, and "beside" for a day, which
# stands on either side of a time. The forms are matched as fact spellings
# are (Hebrew proclitics and Russian endings included: "חודש" is found in
# "לחודש", "недел" in "недели"). Russian "год" is left out: after a number it
# is most often the calendar year ("с 2016 года"); "лет" counts years.
QUALIFIERS = {
    "en": (
        ("minute", "after", ("minute", "minutes", "min", "mins")),
        ("hour", "after", ("hour", "hours", "hr", "hrs")),
        ("day", "after", ("day", "days", "daily")),
        ("week", "after", ("week", "weeks", "weekly", "wk", "wks")),
        ("month", "after", ("month", "months", "monthly")),
        ("quarter", "after", ("quarter", "quarters", "quarterly")),
        ("year", "after", ("year", "years", "yearly", "annual", "annually")),
        ("visit", "after", ("visit", "visits", "session", "sessions")),
        ("one-time", "after", ("one-time", "one-off", "once")),
        ("monday", "beside", ("monday", "mondays")),
        ("tuesday", "beside", ("tuesday", "tuesdays")),
        ("wednesday", "beside", ("wednesday", "wednesdays")),
        ("thursday", "beside", ("thursday", "thursdays")),
        ("friday", "beside", ("friday", "fridays")),
        ("saturday", "beside", ("saturday", "saturdays")),
        ("sunday", "beside", ("sunday", "sundays")),
    ),
    "he": (
        ("minute", "after", ("דקה", "דקות")),
        ("hour", "after", ("שעה", "שעות", "שעתיים")),
        ("day", "after", ("יום", "ימים", "יומיים", "יומי")),
        ("week", "after", ("שבוע", "שבועות", "שבועיים", "שבועי")),
        ("month", "after", ("חודש", "חודשים", "חודשיים", "חודשי", "חודשית")),
        ("quarter", "after", ("רבעון", "רבעונים", "רבעוני", "רבעונית")),
        ("year", "after", ("שנה", "שנים", "שנתיים", "שנתי", "שנתית")),
        ("visit", "after", ("ביקור", "ביקורים", "מפגש", "מפגשים")),
        ("one-time", "after", ("חד-פעמי", "חד פעמי", "חד-פעמית", "חד פעמית", "פעם אחת")),
        # A bare ordinal is no day (ראשון is "first"): the day with its noun.
        ("sunday", "beside", ("יום ראשון", "ימי ראשון", "יום א'")),
        ("monday", "beside", ("יום שני", "ימי שני", "יום ב'")),
        ("tuesday", "beside", ("יום שלישי", "ימי שלישי", "יום ג'")),
        ("wednesday", "beside", ("יום רביעי", "ימי רביעי", "יום ד'")),
        ("thursday", "beside", ("יום חמישי", "ימי חמישי", "יום ה'")),
        ("friday", "beside", ("יום שישי", "ימי שישי", "יום ו'")),
        ("saturday", "beside", ("שבת", "שבתות")),
    ),
    "ru": (
        ("minute", "after", ("минут", "мин")),
        ("hour", "after", ("час",)),
        ("day", "after", ("день", "дн", "сутки", "суток", "ежедневн")),
        ("week", "after", ("недел", "еженедельн")),
        ("month", "after", ("месяц", "ежемесячн")),
        ("quarter", "after", ("квартал", "ежеквартальн")),
        ("year", "after", ("лет", "в год", "за год", "ежегодн")),
        ("visit", "after", ("визит", "сеанс", "посещени")),
        ("one-time", "after", ("единоразов", "разов", "однократн")),
        ("monday", "beside", ("понедельник",)),
        ("tuesday", "beside", ("вторник",)),
        ("wednesday", "beside", ("среда", "среду", "среды", "средам", "средах")),
        ("thursday", "beside", ("четверг",)),
        ("friday", "beside", ("пятниц",)),
        ("saturday", "beside", ("суббот",)),
        ("sunday", "beside", ("воскресень",)),
    ),
}
