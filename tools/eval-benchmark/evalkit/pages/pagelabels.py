"""The one table of the results pages' words, in every language a page is
written in (evalkit/pages/htmlpage.py), and the pages' file names.

Every word a reader sees on a page comes from LABELS, in the page's language;
what comes from the data (ids, set and language codes, answers, questions,
file names, dates, numbers) is shown as it is, identical on every page. A
label with ``{name}`` fields is filled by ``label``. The measure names are the
methodology's (English as in evalkit/rubric/measures.TITLES; a test holds them
together). Counted nouns are avoided ("Answers ...: 98", not "98 answers") so
that no language needs plural forms. A term is one word in a language wherever
it appears (a set: סט, набор; faulty: פגום, некорректный), so that a reader
never wonders whether two words name two things.

Here too is the HTML every page shares: ``e``, the one escaping of a text
(None shows as nothing), and ``page``, the frame of an English page (the
scenario dashboard and its detail pages, review.html; the results pages frame
themselves, with their language and direction).
"""

import os
from html import escape

LANGS = ("en", "he", "ru")
RTL = {"he"}

LABELS = {
    # The language's own name, as every page's language links show it.
    "lang_name": {"en": "English", "he": "עברית", "ru": "Русский"},
    "other_languages": {"en": "This page in other languages", "he": "הדף בשפות אחרות",
                        "ru": "Эта страница на других языках"},
    "title": {"en": "Site-QA results: {sets}", "he": "תוצאות Site-QA: {sets}",
              "ru": "Результаты Site-QA: {sets}"},
    "review_missing": {
        "en": "Not fully reviewed: {reviewed} of {required} answers that the rubric requires "
              "a person to read have a review entry. Not reviewed: {missing}.",
        "he": "הבדיקה האנושית לא הושלמה. תשובות שלפי המחוון אדם חייב לקרוא: {required}; "
              "מהן עם רשומת בדיקה: {reviewed}. לא נבדקו: {missing}.",
        "ru": "Проверка человеком не завершена. Ответов, которые по критериям оценки должен "
              "прочитать человек: {required}; из них с записью проверки: {reviewed}. "
              "Не проверены: {missing}."},
    "review_complete": {
        "en": "Human review: all {required} answers that the rubric requires a person to read "
              "have a review entry.",
        "he": "בדיקה אנושית: יש רשומת בדיקה לכל התשובות שלפי המחוון אדם חייב לקרוא "
              "({required}).",
        "ru": "Проверка человеком: запись проверки есть у всех ответов, которые по критериям "
              "оценки должен прочитать человек ({required})."},
    "results": {"en": "Results", "he": "תוצאות", "ru": "Результаты"},
    "results_note": {
        "en": "Passed/applicable after human review, the mechanical figure (every question, no "
              "review) in brackets where it differs, the rate, and its 95% Wilson interval in "
              "square brackets. A figure's counts link to the questions it counts.",
        "he": "מספר התשובות שעברו מתוך אלה שהמדד חל עליהן, אחרי בדיקה אנושית; בסוגריים, היכן "
              "שהוא שונה, הנתון לפי הכללים בלבד (כל השאלות, ללא בדיקה); אחריו השיעור, ובסוגריים "
              "מרובעים רווח הסמך של וילסון ברמת 95%. המספרים מקשרים לשאלות שהנתון סופר.",
        "ru": "Число зачтённых ответов из тех, к которым применим показатель, после проверки "
              "человеком; в скобках, где отличается, — результат только по правилам (все "
              "вопросы, без проверки); затем доля и в квадратных скобках её 95-процентный "
              "доверительный интервал Уилсона. Числа — ссылки на вопросы, учтённые в "
              "показателе."},
    # The sampled review of passes (rules of 2026-12-02 on: evalkit/rubric/sampling.py).
    "sample": {"en": "Sampled review of passes", "he": "בדיקה מדגמית של תשובות שעברו",
               "ru": "Выборочная проверка зачтённых ответов"},
    "sample_note": {
        "en": "The passes no rule sends to a person (every measure that applies passed, no "
              "flag), drawn per set in the order of the sha256 of the run id and the question "
              "id, {per_set} a set (all where fewer), each read on every measure that applies: "
              "overturned/reviewed, the false-pass rate and its 95% Wilson interval. It speaks "
              "for the passes outside the sample: about rate × their number of them are false, "
              "between the interval's ends × their number. – means nothing to count.",
        "he": "תשובות שעברו ושאף כלל אינו שולח לאדם (עברו בכל מדד שחל עליהן, בלי סימון) "
              "נבחרות בכל סט לפי סדר ה־sha256 של מזהה הריצה ומזהה השאלה, {per_set} לכל סט "
              "(כולן, אם יש פחות), ואדם קורא כל אחת מהן בכל מדד שחל עליה: כמה נהפכו מתוך כמה "
              "שנבדקו, שיעור המעברים השגויים ורווח הסמך של וילסון ברמת 95%. השיעור חל על "
              "התשובות שעברו ואינן במדגם: בערך השיעור כפול מספרן מהן שגויות, בין קצות הרווח "
              "כפול מספרן. – פירושו שאין מה לספור.",
        "ru": "Зачтённые ответы, которые ни одно правило не отправляет человеку (зачтены по "
              "всем применимым показателям, без пометок), отбираются в каждом наборе в порядке "
              "sha256 от идентификатора прогона и идентификатора вопроса, по {per_set} на набор "
              "(все, если их меньше), и человек проверяет каждый по всем применимым "
              "показателям: сколько отменено из проверенных, доля ложных зачётов и её "
              "95-процентный доверительный интервал Уилсона. Доля относится к зачтённым ответам "
              "вне выборки: примерно доля × их число из них ложны, в пределах концов интервала "
              "× их число. – означает, что считать нечего."},
    # The rules of 2026-12-03 on: every measure read on its own (evalkit/rubric/passes.py).
    "truth": {"en": "How many of the passes are true", "he": "כמה מהתשובות שעברו נכונות",
              "ru": "Сколько зачтённых ответов верны"},
    "truth_note": {
        "en": "Each figure's passes after review, and how many of them are true: exact where a "
              "person read every pass, else about so many (≈), with the 95% interval, from the "
              "sampled review below. – means the measure does not apply.",
        "he": "מספר התשובות שעברו בכל נתון אחרי הבדיקה, וכמה מהן נכונות: מדויק כשאדם קרא כל "
              "תשובה שעברה, אחרת בקירוב (≈), עם רווח סמך של 95%, מן הבדיקה המדגמית שלהלן. – "
              "פירושו שהמדד אינו חל.",
        "ru": "Число зачтённых ответов каждого показателя после проверки и сколько из них "
              "верны: точно, где человек прочитал каждый зачёт, иначе примерно (≈), с "
              "95-процентным интервалом, по выборочной проверке ниже. – означает, что "
              "показатель не применяется."},
    "exact": {"en": "exact", "he": "מדויק", "ru": "точно"},
    "rates_note": {
        "en": "Every pass no person is asked to read is a candidate of its measure; per set and "
              "measure the candidates are read in the order of the sha256 of the question file, "
              "the question id and the answer's recorded body: every one when a set has at most "
              "60, else enough for a 95% interval at most 20 points wide. Overturned/read, the "
              "false-pass rate found, and its 95% interval among all the candidates (exact where "
              "every one was read).",
        "he": "כל תשובה שעברה במדד ושאיש אינו מתבקש לקרוא היא מועמדת של המדד; בכל סט ומדד "
              "קוראים את המועמדות לפי סדר ה־sha256 של קובץ השאלות, מזהה השאלה וגוף התשובה "
              "כפי שנרשם: את כולן כשיש בסט עד 60, אחרת די כדי שרווח סמך של 95% יהיה ברוחב "
              "של 20 נקודות לכל היותר. נהפכו/נקראו, שיעור המעברים השגויים שנמצא ורווח הסמך "
              "של 95% שלו בכל המועמדות (מדויק כשכולן נקראו).",
        "ru": "Каждый зачёт, который никого не просят прочитать, — кандидат своего показателя; "
              "в каждом наборе и по каждому показателю кандидатов читают в порядке sha256 от "
              "файла вопросов, идентификатора вопроса и записанного тела ответа: всех, если "
              "в наборе их не больше 60, иначе столько, чтобы 95-процентный интервал был не "
              "шире 20 пунктов. Отменено/прочитано, найденная доля ложных зачётов и её "
              "95-процентный интервал среди всех кандидатов (точно, где прочитаны все)."},
    "candidates": {"en": "Candidates", "he": "מועמדות", "ru": "Кандидатов"},
    "read": {"en": "Overturned/read", "he": "נהפכו/נקראו", "ru": "Отменено/прочитано"},
    "overturned": {"en": "Overturned/reviewed", "he": "נהפכו/נבדקו", "ru": "Отменено/проверено"},
    "false_pass_rate": {"en": "False-pass rate", "he": "שיעור מעברים שגויים",
                        "ru": "Доля ложных зачётов"},
    "interval": {"en": "95% interval", "he": "רווח סמך 95%", "ru": "Интервал 95%"},
    "unsampled": {"en": "Passes outside the sample", "he": "תשובות שעברו מחוץ למדגם",
                  "ru": "Зачтённые ответы вне выборки"},
    "expected_false": {"en": "False among them", "he": "שגויות מתוכן", "ru": "Из них ложных"},
    "sample_drawn": {"en": "Sampled/candidates: {sets}.", "he": "במדגם/מועמדות: {sets}.",
                     "ru": "В выборке/кандидатов: {sets}."},
    "sample_complete": {
        "en": "Sampled review: all {sampled} sampled answers have an entry for every measure "
              "that applies.",
        "he": "בדיקה מדגמית: לכל התשובות שבמדגם יש רשומת בדיקה בכל מדד שחל עליהן "
              "({sampled}).",
        "ru": "Выборочная проверка: у всех ответов выборки есть запись проверки по каждому "
              "применимому показателю ({sampled})."},
    "sample_missing": {
        "en": "The sampled review is not complete: {reviewed} of {sampled} sampled answers have "
              "an entry for every measure that applies, and the rates count only the entries "
              "written. Not reviewed: {missing}.",
        "he": "הבדיקה המדגמית לא הושלמה. תשובות במדגם: {sampled}; מהן עם רשומת בדיקה בכל מדד "
              "שחל עליהן: {reviewed}; השיעורים סופרים רק את הרשומות שנכתבו. לא נבדקו: "
              "{missing}.",
        "ru": "Выборочная проверка не завершена. Ответов в выборке: {sampled}; из них с записью "
              "проверки по каждому применимому показателю: {reviewed}; доли учитывают только "
              "сделанные записи. Не проверены: {missing}."},
    "set": {"en": "Set", "he": "סט", "ru": "Набор"},
    "lang": {"en": "Lang", "he": "שפה", "ru": "Язык"},
    # A total row's set or language ("all" in results.json and results.md).
    "all": {"en": "all", "he": "הכול", "ru": "все"},
    "median_latency": {"en": "Median latency (ms)", "he": "זמן תגובה חציוני (אלפיות שנייה)",
                       "ru": "Медианное время ответа, мс"},
    "delivered": {"en": "Delivered", "he": "נמסרה תשובה", "ru": "Ответ получен"},
    "correct_facts": {"en": "Correct facts", "he": "עובדות נכונות", "ru": "Верные факты"},
    "right_page_cited": {"en": "Right page cited", "he": "צוטט העמוד הנכון",
                         "ru": "Указана нужная страница"},
    "in_question_language": {"en": "Answer in the question's language",
                             "he": "תשובה בשפת השאלה", "ru": "Ответ на языке вопроса"},
    "declined_when_not_on_site": {"en": "Declined when not on the site",
                                  "he": "סירוב כשהמידע אינו באתר",
                                  "ru": "Отказ, когда ответа нет на сайте"},
    "chart": {"en": "Rates after review, per set and language",
              "he": "שיעורי ההצלחה אחרי בדיקה, לפי סט ושפה",
              "ru": "Доли зачтённых ответов после проверки, по наборам и языкам"},
    "trend": {"en": "Trend across quarters", "he": "מגמה לאורך הרבעונים",
              "ru": "Динамика по кварталам"},
    "trend_note": {
        "en": "Overall rates after review, per measure: the earlier quarters as published "
              "(frozen in history.json) and this run.",
        "he": "השיעורים הכוללים אחרי בדיקה, לכל מדד: הרבעונים הקודמים כפי שפורסמו (מוקפאים "
              "ב־history.json) והריצה הזו.",
        "ru": "Общие доли после проверки по каждому показателю: предыдущие кварталы в том "
              "виде, в каком они опубликованы (зафиксированы в history.json), и этот прогон."},
    "this_run": {"en": "this run", "he": "ריצה זו", "ru": "этот прогон"},
    "faulty": {"en": "Faulty questions", "he": "שאלות פגומות", "ru": "Некорректные вопросы"},
    "none": {"en": "None.", "he": "אין.", "ru": "Нет."},
    "provenance": {"en": "Provenance", "he": "מקור הנתונים", "ru": "Происхождение результатов"},
    "run_status": {"en": "Run status", "he": "מצב הריצה", "ru": "Статус прогона"},
    "target": {"en": "Target", "he": "המערכת שנבדקה", "ru": "Тестируемая система"},
    "platform_version": {"en": "Platform version", "he": "גרסת הפלטפורמה",
                         "ru": "Версия платформы"},
    "not_reported": {"en": "not reported", "he": "לא דווחה", "ru": "не указана"},
    "run_dates": {"en": "Run date (UTC)", "he": "תאריך הריצה (UTC)", "ru": "Дата прогона (UTC)"},
    "run_commit": {"en": "Tool commit of the run", "he": "הקומיט של הכלי בריצה",
                   "ru": "Коммит инструмента при прогоне"},
    "unknown": {"en": "unknown", "he": "לא ידוע", "ru": "неизвестен"},
    "uncommitted": {"en": "(uncommitted changes)", "he": "(עם שינויים שלא נכנסו לקומיט)",
                    "ru": "(с незакоммиченными изменениями)"},
    "rules_date": {"en": "Scoring rules as of", "he": "תאריך כללי הניקוד",
                    "ru": "Дата правил подсчёта"},
    "reviews": {"en": "Reviews", "he": "קובץ הבדיקות", "ru": "Файл проверки"},
    "no_reviews": {"en": "none", "he": "אין", "ru": "нет"},
    "scored_by": {"en": "Scored by", "he": "נוקד באמצעות", "ru": "Подсчитано программой"},
    "questions_file": {"en": "Questions", "he": "קובץ שאלות", "ru": "Файл вопросов"},
    "index": {"en": "Index of the questions", "he": "רשימת השאלות", "ru": "Список вопросов"},
    "index_note": {
        "en": "Each question links to its entry below; ✗ marks a question that failed a "
              "measure after review, and a struck-through one is faulty.",
        "he": "כל שאלה מקשרת לרשומה שלה למטה; ✗ מסמן שאלה שנכשלה במדד כלשהו אחרי בדיקה, "
              "ושאלה מחוקה היא שאלה פגומה.",
        "ru": "Каждый вопрос — ссылка на его запись ниже; ✗ отмечает вопрос, не зачтённый "
              "хотя бы по одному показателю после проверки, зачёркнутый вопрос — "
              "некорректный."},
    "every_question": {"en": "Every question", "he": "כל השאלות", "ru": "Все вопросы"},
    "to_index": {"en": "↑ Index of the questions", "he": "↑ לרשימת השאלות",
                 "ru": "↑ К списку вопросов"},
    "answerable": {"en": "answerable", "he": "יש תשובה באתר", "ru": "ответ есть на сайте"},
    "not_on_site": {"en": "not on the site", "he": "אין תשובה באתר",
                    "ru": "ответа нет на сайте"},
    "faulty_marker": {"en": " – faulty, left out of every score",
                      "he": " – שאלה פגומה, אינה נכללת באף ציון",
                      "ru": " — некорректный вопрос, исключён из всех подсчётов"},
    "question": {"en": "Question", "he": "שאלה", "ru": "Вопрос"},
    "evidence": {"en": "Evidence", "he": "הטקסט באתר", "ru": "Текст на сайте"},
    "no_answer": {"en": "No answer", "he": "אין תשובה", "ru": "Нет ответа"},
    "sources": {"en": "Sources", "he": "מקורות", "ru": "Источники"},
    "measure": {"en": "Measure", "he": "מדד", "ru": "Показатель"},
    "mechanical": {"en": "Mechanical", "he": "לפי הכללים", "ru": "По правилам"},
    "after_review": {"en": "After review", "he": "אחרי בדיקה", "ru": "После проверки"},
    "review_reason": {"en": "Review", "he": "נימוק הבודק", "ru": "Комментарий проверяющего"},
    # Exploring the questions (evalkit/pages/explore.py).
    "explore": {"en": "Explore the questions", "he": "סינון השאלות", "ru": "Поиск по вопросам"},
    "any": {"en": "any", "he": "הכול", "ru": "все"},
    "filter_set": {"en": "Set", "he": "סט", "ru": "Набор"},
    "filter_lang": {"en": "Language", "he": "שפה", "ru": "Язык"},
    "filter_measure": {"en": "Measure", "he": "מדד", "ru": "Показатель"},
    "filter_verdict": {"en": "Verdict", "he": "הכרעה", "ru": "Вердикт"},
    "state_counted": {"en": "passed or failed", "he": "עבר או נכשל",
                      "ru": "зачтено или не зачтено"},
    "state_passed": {"en": "passed", "he": "עבר", "ru": "зачтено"},
    "state_failed": {"en": "failed", "he": "נכשל", "ru": "не зачтено"},
    "state_overturned": {"en": "overturned by review", "he": "שונה בבדיקה",
                         "ru": "изменено проверкой"},
    "state_faulty": {"en": "faulty", "he": "פגומה", "ru": "некорректный вопрос"},
    "search": {"en": "Search", "he": "חיפוש", "ru": "Поиск"},
    "shown": {"en": "{shown} of {total} questions shown", "he": "מוצגות {shown} מתוך {total} שאלות",
              "ru": "Показано вопросов: {shown} из {total}"},
    "found": {"en": "What the rules found:", "he": "מה מצאו הכללים:", "ru": "Что нашли правила:"},
    "fact_found": {"en": "fact group {n}: found {found}", "he": "קבוצת עובדות {n}: נמצא {found}",
                   "ru": "группа фактов {n}: найдено {found}"},
    "fact_missing": {"en": "fact group {n}: not found", "he": "קבוצת עובדות {n}: לא נמצא",
                     "ru": "группа фактов {n}: не найдено"},
    "found_right_sources": {"en": "sources on the right page", "he": "מקורות בדף הנכון",
                            "ru": "источники на нужной странице"},
    "found_must_not_include_found": {"en": "strings the answer must not hold, found",
                                     "he": "מחרוזות אסורות שנמצאו",
                                     "ru": "найденные запрещённые строки"},
    "found_flags": {"en": "review flags", "he": "סימונים לבדיקה", "ru": "пометки для проверки"},
    "found_other_values": {"en": "numbers neither the evidence nor the question gives",
                           "he": "מספרים שאינם בטקסט באתר ולא בשאלה",
                           "ru": "числа, которых нет ни в тексте на сайте, ни в вопросе"},
    "found_unbound_qualifiers": {"en": "qualifiers neither the evidence nor the question names",
                                 "he": "מגבילים שאינם בטקסט באתר ולא בשאלה",
                                 "ru": "уточнения, которых нет ни в тексте на сайте, ни в вопросе"},
    "found_decline_phrase": {"en": "decline phrase", "he": "ביטוי סירוב", "ru": "фраза отказа"},
    "found_letters": {"en": "{script} of {all} letters in the question's script",
                      "he": "{script} מתוך {all} אותיות בכתב של השאלה",
                      "ru": "букв в письменности вопроса: {script} из {all}"},
    "nothing": {"en": "none", "he": "אין", "ru": "нет"},
    "set_by_review": {"en": "Verdicts set by review", "he": "הכרעות שנקבעו בבדיקה",
                      "ru": "Вердикты, изменённые проверкой"},
    "pass": {"en": "pass", "he": "עבר", "ru": "зачтено"},
    "fail": {"en": "fail", "he": "נכשל", "ru": "не зачтено"},
}


def label(lang, key, **fields):
    """The label ``key`` in ``lang``, its ``{name}`` fields filled (with text
    the caller has already escaped)."""
    text = LABELS[key][lang]
    return text.format(**fields) if fields else text


def page_names(index_name="index.html"):
    """``{lang: file name}`` of a quarter's pages: the English page at
    ``index_name``, the others beside it with the language before the
    extension (index.html, index.he.html, index.ru.html)."""
    stem, ext = os.path.splitext(index_name)
    return {lang: index_name if lang == "en" else f"{stem}.{lang}{ext or '.html'}"
            for lang in LANGS}


def e(text):
    return escape("" if text is None else str(text), quote=True)


def page(title, style, body):
    """A whole English page: ``body``, a list of lines, under ``title`` and ``style``."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{e(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
