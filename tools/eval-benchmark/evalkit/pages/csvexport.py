"""results.csv: a quarter's questions, one row each, with what was asked,
what came back and every verdict, for a spreadsheet or a script.

Columns: id, set, lang, kind; faulty (``true`` for a question left out of
every score) and faulty_reason; question; answer (empty where there is none)
and problem (why there is none: an HTTP error, not asked); sources (the
answer's, as a JSON array); latency_ms; then for each measure, in the
rubric's order, ``MEASURE_mechanical`` and ``MEASURE_after_review`` (``true``
or ``false``, empty where the measure does not apply) and ``MEASURE_reason``
(the reason of the review entry that set the verdict after review, where
there is one: a verdict it changed is one whose two columns differ). Rows in
results.json's order of questions. UTF-8, a line feed after each row, fields
quoted only where they must be.

A cell that begins with =, +, -, @, a tab, a carriage return or ' is written
with a ' before it (``cell``): an answer is the assistant's text, and a
spreadsheet would run "=HYPERLINK(...)" as a formula. A script reading the
file takes the one ' off such a cell.

Like the pages, the file is a presentation of results.json: reproduce.py
checks a published one by what it says (``problems``), cell by cell against
the re-scored results, never by its bytes. A quarter published before it
existed has none; one published with the first layout (``PER_MEASURE``: one
row per question and measure, tools 0.7.0 and before) is checked in that
layout.
"""

import csv
import io
import itertools
import json

from ..rubric.measures import APPLIES, MEASURES

# Made without a comprehension, which would be a function of the pages run
# whenever score.py is (tests/test_number_path.py: no page code on the path).
COLUMNS = ("id", "set", "lang", "kind", "faulty", "faulty_reason", "question", "answer",
           "problem", "sources", "latency_ms") + tuple(
               map("_".join, itertools.product(MEASURES, ("mechanical", "after_review", "reason"))))
# The first layout, as a quarter published with it holds it.
PER_MEASURE = ("id", "set", "lang", "kind", "measure", "mechanical", "after_review", "reason",
               "faulty")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def text(value):
    return "true" if value is True else "false" if value is False else ""


def cell(value):
    """A text as a spreadsheet shows it, never as a formula it runs."""
    return "'" + value if value.startswith(FORMULA_START) else value


def rows(result):
    """The file's rows, as lists of strings, header first."""
    faulty = {f["id"]: f["reason"] for f in result["faulty"]}
    out = [list(COLUMNS)]
    for row in result["questions"]:
        reasons = {r["measure"]: r["reason"] for r in row["reviews"]}
        latency = row["latency_ms"]
        cells = [row["id"], row["set"], row["lang"], row["kind"], text(bool(row["faulty"])),
                 faulty.get(row["id"], ""), row["question"], row["answer"] or "",
                 row["problem"] or "", json.dumps(row["sources"], ensure_ascii=False),
                 "" if latency is None else str(latency)]
        for m in MEASURES:
            cells += [text(row["mechanical"][m]), text(row["after_review"][m]), reasons.get(m, "")]
        out.append([cell(value) for value in cells])
    return out


def rows_per_measure(result):
    """The rows of the first layout (``PER_MEASURE``), header first."""
    out = [list(PER_MEASURE)]
    for row in result["questions"]:
        reasons = {r["measure"]: r["reason"] for r in row["reviews"]}
        out += [[row["id"], row["set"], row["lang"], row["kind"], m, text(row["mechanical"][m]),
                 text(row["after_review"][m]), reasons.get(m, ""), text(bool(row["faulty"]))]
                for m in MEASURES if m in APPLIES[row["kind"]]]
    return out


def render_csv(result):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows(result))
    return buffer.getvalue()


def problems(data, result):
    """What a published results.csv says that the results do not, one line
    per cell (a row found by its id, and its measure in the first layout),
    and how many cells were compared."""
    try:
        found = list(csv.reader(io.StringIO(data)))
    except csv.Error as exc:
        return [f"not CSV: {exc}"], 0
    layouts = {COLUMNS: (rows, 1), PER_MEASURE: (rows_per_measure, 2)}
    if not found or tuple(found[0]) not in layouts:
        return [f"the header is not {','.join(COLUMNS)}"], 0
    make, keys = layouts[tuple(found[0])]
    want = make(result)

    def name(row):
        return " ".join((row[0], row[4])[:keys])

    by_key = {name(r): r for r in found[1:] if len(r) == len(want[0])}
    lines = []
    for expected in want[1:]:
        got = by_key.get(name(expected))
        lines += [f"{name(expected)}: missing"] if got is None else [
            f"{name(expected)} {column}: says {short(g)}; the results give {short(w)}"
            for column, g, w in zip(want[0], got, expected) if g != w]
    if len(found) != len(want):
        lines.append(f"{len(found) - 1} rows; the results give {len(want) - 1}")
    return lines, (len(want) - 1) * len(want[0])


def short(value):
    """A cell in a message: quoted, cut after 60 characters."""
    return json.dumps(value if len(value) <= 60 else value[:60] + "…", ensure_ascii=False)
