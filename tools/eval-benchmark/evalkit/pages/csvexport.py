"""results.csv: every verdict of a quarter, one row per question and measure
that applies, for a spreadsheet or a script.

Columns: id, set, lang, kind, measure, mechanical, after_review (``true`` or
``false``), reason (the review's reason where an entry set the verdict, else
empty), faulty (``true`` for a question left out of every score). Rows in
results.json's order of questions, then of measures. UTF-8, a line feed after
each row, fields quoted only where they must be.

Like the pages, the file is a presentation of results.json: reproduce.py
checks a published one by what it says (``problems``), cell by cell against
the re-scored results, never by its bytes, and a quarter published before it
existed simply has none.
"""

import csv
import io

from ..rubric.measures import APPLIES, MEASURES

COLUMNS = ("id", "set", "lang", "kind", "measure", "mechanical", "after_review", "reason",
           "faulty")


def text(value):
    return "true" if value is True else "false" if value is False else ""


def rows(result):
    """The file's rows, as lists of strings, header first."""
    out = [list(COLUMNS)]
    for row in result["questions"]:
        reasons = {r["measure"]: r["reason"] for r in row["reviews"]}
        for m in MEASURES:
            if m in APPLIES[row["kind"]]:
                out.append([row["id"], row["set"], row["lang"], row["kind"], m,
                            text(row["mechanical"][m]), text(row["after_review"][m]),
                            reasons.get(m, ""), text(bool(row["faulty"]))])
    return out


def render_csv(result):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows(result))
    return buffer.getvalue()


def problems(data, result):
    """What a published results.csv says that the results do not, one line
    each, and how many cells were compared."""
    try:
        found = list(csv.reader(io.StringIO(data)))
    except csv.Error as exc:
        return [f"not CSV: {exc}"], 0
    want = rows(result)
    if not found or found[0] != want[0]:
        return [f"the header is not {','.join(COLUMNS)}"], 0
    lines, compared = [], 0
    by_key = {(r[0], r[4]): r for r in found[1:] if len(r) == len(COLUMNS)}  # id, measure
    for expected in want[1:]:
        got = by_key.get((expected[0], expected[4]))
        compared += len(COLUMNS)
        if got != expected:
            lines.append(f"{expected[0]} {expected[4]}: " + (
                "missing" if got is None else f"says {','.join(got)}; the results give "
                                              f"{','.join(expected)}"))
    if len(found) - 1 != len(want) - 1:
        lines.append(f"{len(found) - 1} rows; the results give {len(want) - 1}")
    return lines, compared
