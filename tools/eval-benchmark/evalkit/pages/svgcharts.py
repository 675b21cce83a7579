"""The results pages' two inline SVG charts, sized from their own labels.

``bar_chart``: the rates after review per set and language, one bar per
measure. ``trend_chart``: the overall rate of each measure across the earlier
quarters and this run. Both put a legend under the plot, one series a line, so
that a legend entry of any length fits; both scale down with the page (the
viewBox keeps the proportions, ``max-width:100%`` in the page's style).

Nothing is measured by a browser, so every size comes from ``text_width``, a
generous estimate (0.62 em a character; the widest letters of the system
sans-serif fonts, Cyrillic and Hebrew included, average well under that). Each
chart is made wide enough for its widest label, and every text lies inside the
viewBox (tests/test_htmlpage.py checks it from the SVG's own numbers).

Right to left: the plot keeps numbers and time running left to right, as
charts do in Hebrew too; the legend is mirrored (swatch on the right, text
ending at it). The SVG sets ``direction="ltr"`` so that a text's anchor means
the same on every page.

What it leaves out: values are in the bars' tooltips and in the table, not on
the bars.
"""

from .pagelabels import e

COLOURS = {"delivered": "#4c72b0", "correct_facts": "#55a868", "right_page_cited": "#c44e52",
           "in_question_language": "#8172b2", "declined_when_not_on_site": "#ccb974"}
FONT = 11          # every text of a chart, in SVG units
LINE = 16          # a legend line
MIN_WIDTH = 360    # fits a 390 px phone at its natural size
PLOT_HEIGHT = 160
TOP = 10           # above the plot
LEGEND_TOP = TOP + PLOT_HEIGHT + 28   # under the labels of the x axis
TICKS = (0, 50, 100)
# The trend's lines, told apart without colour too: each measure its dash.
DASHES = ("", "9 4", "3 3", "12 3 3 3", "6 2 2 2")
OFFSET = 4         # between trend lines that run on the same rates


def text_width(text, size=FONT):
    """A generous estimate of the width of ``text`` at font size ``size``."""
    return len(text) * size * 0.62


def _svg(width, caption, titles, rtl, axis, plot, dashed=False):
    """The chart: the y axis from ``axis`` (left, right), the ``plot``'s
    parts and the legend under them. The svg element has its natural size on
    a phone (shrunk to fit a narrower one), up to a third larger on a wide
    screen."""
    height = LEGEND_TOP + len(titles) * LINE + 4
    return "\n".join(
        [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
         f'width="{width:.0f}" height="{height:.0f}" '
         f'style="width:100%;max-width:{width * 4 / 3:.0f}px" direction="ltr" role="img" '
         f'aria-label="{e(caption)}">']
        + _y_axis(*axis) + plot + _legend(titles, width, rtl, dashed) + ["</svg>"])


def _y_axis(left, right):
    """Grid lines and their percentages, the labels ending at ``left``."""
    parts = []
    for tick in TICKS:
        y = TOP + PLOT_HEIGHT - PLOT_HEIGHT * tick / 100
        parts.append(f'<line x1="{left}" x2="{right:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="#ddd"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="{FONT}" '
                     f'text-anchor="end">{tick}%</text>')
    return parts


def _axis_width():
    return text_width("100%") + 8


def _legend_width(titles):
    return 14 + max(text_width(t) for t in titles.values())


def _x_label(x, text):
    """A label under the plot, centred on ``x``."""
    return (f'<text x="{x:.1f}" y="{TOP + PLOT_HEIGHT + 16}" font-size="{FONT}" '
            f'text-anchor="middle">{e(text)}</text>')


def _legend(titles, width, rtl, dashed=False):
    """One line per series: a swatch (with ``dashed``, a stretch of the
    series' line, dashed as it is) and its name; mirrored right to left."""
    swatch = 20 if dashed else 10
    start = width - 10 - swatch if rtl else 10
    parts = []
    for j, (measure, title) in enumerate(titles.items()):
        y = LEGEND_TOP + j * LINE
        if dashed:
            parts.append(f'<line x1="{start:.1f}" x2="{start + swatch:.1f}" y1="{y + 5}" '
                         f'y2="{y + 5}" stroke="{COLOURS[measure]}" stroke-width="2.5"'
                         f'{_dash(j)}/>')
        else:
            parts.append(f'<rect x="{start:.1f}" y="{y}" width="10" height="10" '
                         f'fill="{COLOURS[measure]}"/>')
        if rtl:
            parts.append(f'<text x="{start - 4:.1f}" y="{y + 9}" font-size="{FONT}" '
                         f'text-anchor="end">{e(title)}</text>')
        else:
            parts.append(f'<text x="{start + swatch + 4}" y="{y + 9}" font-size="{FONT}">'
                         f"{e(title)}</text>")
    return parts


def _dash(j):
    dash = DASHES[j % len(DASHES)]
    return f' stroke-dasharray="{dash}"' if dash else ""


def bar_chart(groups, titles, caption, rtl=False):
    """Grouped bars. ``groups``: ``[(label, {measure: (passed, applicable)})]``;
    ``titles``: ``{measure: its name}`` in the order of the bars."""
    bar, gap, left = 9, 14, _axis_width()
    group = max([len(titles) * bar + gap] + [text_width(label) + 6 for label, _ in groups])
    width = max(MIN_WIDTH, left + len(groups) * group + 10, _legend_width(titles) + 20)
    parts = []
    for i, (label, figures) in enumerate(groups):
        x0 = left + i * group + (group - len(titles) * bar) / 2
        for j, measure in enumerate(titles):
            passed, applicable = figures[measure]
            if not applicable:
                continue
            h = PLOT_HEIGHT * passed / applicable
            parts.append(f'<rect x="{x0 + j * bar:.1f}" y="{TOP + PLOT_HEIGHT - h:.1f}" '
                         f'width="{bar - 1}" height="{h:.1f}" fill="{COLOURS[measure]}">'
                         f'<title>{e(label)} {e(titles[measure])}: {passed}/{applicable}'
                         f'</title></rect>')
        parts.append(_x_label(left + i * group + group / 2, label))
    return _svg(width, caption, titles, rtl, (left, width - 10), parts)


def _apart(lines, measure):
    """``measure``'s line, moved OFFSET up or down when other measures run on
    the very same rates (three measures at 100% every quarter): the lines that
    coincide are spread around their place, in the titles' order."""
    same = [m for m, coords in lines.items() if coords == lines[measure]]
    shift = OFFSET * (same.index(measure) - (len(same) - 1) / 2)
    return [(x, y + shift) for x, y in lines[measure]]


def trend_chart(points, titles, caption, rtl=False):
    """One line per measure. ``points``: ``[(label, {measure: (passed,
    applicable)})]``, oldest first, at least two."""
    labels = [text_width(label) for label, _ in points]
    step = max(60, max(labels) + 12)
    left = max(_axis_width(), labels[0] / 2 + 4)
    right = labels[-1] / 2 + 10
    plot = max(step * (len(points) - 1), MIN_WIDTH - left - right)
    step = plot / (len(points) - 1)
    width = max(left + plot + right, _legend_width(titles) + 20)
    parts = [_x_label(left + i * step, label) for i, (label, _sums) in enumerate(points)]
    lines = {measure: [(left + i * step, TOP + PLOT_HEIGHT - PLOT_HEIGHT * sums[measure][0]
                        / sums[measure][1]) for i, (_label, sums) in enumerate(points)
                       if sums[measure][1]] for measure in titles}
    for j, (measure, title) in enumerate(titles.items()):
        coords = _apart(lines, measure)
        if not coords:
            continue
        parts.append(f'<polyline fill="none" stroke="{COLOURS[measure]}" stroke-width="2.5"'
                     f'{_dash(j)} points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in coords)}">'
                     f'<title>{e(title)}</title></polyline>')
        # Every point marked: a line of one point draws nothing.
        for x, y in coords:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{COLOURS[measure]}"/>')
    return _svg(width, caption, titles, rtl, (left, left + plot), parts, dashed=True)
