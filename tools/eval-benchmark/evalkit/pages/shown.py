"""What a published results page shows, held to its quarter's results.

The pages' contract (METHODOLOGY.md, "What reproduce checks"): the numbers,
results.md, results.json and the review sheet, re-score byte for byte under
the rules of their date, forever; a page is a presentation of results.json,
checked by what it shows, so that an old quarter's page can be written again
by today's renderer without keeping the renderer it was published with.

What is checked (``problems``), in any page of any renderer, in any of the
pages' languages: the results table has one row per set and language of
results.json (the set and language cells as the page's language writes them,
"all" as its label), and each measure's cell holds exactly the numbers of
that figure, in order: passed and applicable, the mechanical counts where
review changed them, the rate and the two ends of its 95% Wilson interval, in
whole percent; "–" where nothing applied. The last cell holds the median
latency. Every question of results.json is named on the page by its id.
The rest of a page (headings, charts, the answers shown) is presentation.

What a page shows is its text as a reader sees it: not its script nor its
style, and a bidi control shown as the mark naming it (evalkit/pages/
explore.py: ``<code class="bidi">U+202E</code>``) read as that control, so
an id or a set holding one is found as results.json spells it, on a page
written before the marks (the control itself) or since.
"""

import re
from html.parser import HTMLParser

from ..rubric.measures import MEASURES, TITLES
from ..stats import wilson
from .explore import BIDI, BIDI_CLASS, code_point
from .pagelabels import label

_NUMBER = re.compile(r"[0-9]+")
# "U+202E" of a mark, back to the control it names.
_MARKS = {code_point(chr(c)): chr(c) for c in range(0x0600, 0x2070) if BIDI.match(chr(c))}
_UNSEEN = ("script", "style")
NOT_APPLICABLE = "–"


class _Rows(HTMLParser):
    """The page's language and every table row, as the text of its cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lang = "en"
        self.rows, self.row, self.cell = [], None, None
        self.text = []
        self.unseen = self.mark = False

    def handle_starttag(self, tag, attrs):
        if tag in _UNSEEN:
            self.unseen = True
        elif tag == "code":
            self.mark = BIDI_CLASS in (dict(attrs).get("class") or "").split()
        elif tag == "html":
            self.lang = dict(attrs).get("lang") or "en"
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in _UNSEEN:
            self.unseen = False
        elif tag == "code":
            self.mark = False
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.unseen:
            return
        if self.mark:
            data = _MARKS.get(data, data)
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


def read_page(html):
    """``(language, rows, visible text)`` of a page."""
    parser = _Rows()
    parser.feed(html)
    parser.close()
    return parser.lang, parser.rows, "".join(parser.text)


def shown_code(value, lang):
    return label(lang, "all") if value == "all" else value


def figure_numbers(fig):
    """The numbers a figure's cell holds, in order, as text."""
    if not fig["applicable"]:
        return [NOT_APPLICABLE]
    numbers = [fig["passed"], fig["applicable"]]
    mech = fig["mechanical"]
    if (mech["passed"], mech["applicable"]) != (fig["passed"], fig["applicable"]):
        numbers += [mech["passed"], mech["applicable"]]
    low, high = wilson(fig["passed"], fig["applicable"])
    rate = fig["passed"] / fig["applicable"]
    return [str(n) for n in numbers] + [f"{x * 100:.0f}" for x in (rate, low, high)]


def cell_numbers(text):
    return _NUMBER.findall(text) or ([NOT_APPLICABLE] if NOT_APPLICABLE in text else [])


def problems(html, result):
    """What the page shows that results.json does not say, one line each
    (empty: the page shows the quarter's figures), and how many figures
    were compared."""
    lang, rows, text = read_page(html)
    found, compared = [], 0
    for group in result["groups"]:
        where = f"{group['set']} {group['lang']}"
        key = [shown_code(group["set"], lang), shown_code(group["lang"], lang)]
        matches = [row for row in rows if row[:2] == key]
        if len(matches) != 1:
            found.append(f"the results table has {len(matches)} rows for {where}, not 1")
            continue
        cells = matches[0][2:]
        if len(cells) != len(MEASURES) + 1:
            found.append(f"the row of {where} has {len(cells)} figures, not {len(MEASURES) + 1}")
            continue
        latency = group["median_latency_ms"]
        expected = [figure_numbers(group[m]) for m in MEASURES] + \
            [[NOT_APPLICABLE] if latency is None else [str(latency)]]
        for title, want, cell in zip([TITLES[m] for m in MEASURES] + ["Median latency"],
                                     expected, cells):
            compared += 1
            if cell_numbers(cell) != want:
                found.append(f"{where} {title} shows {cell!r}; results.json gives "
                             f"{' '.join(want)}")
    missing = [row["id"] for row in result["questions"] if row["id"] not in text]
    if missing:
        found.append(f"{len(missing)} question(s) of results.json not on the page "
                     f"(first: {missing[0]})")
    return found, compared
