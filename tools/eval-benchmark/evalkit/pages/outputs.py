"""The outputs of a scored quarter folder, written from one result:
results.md and results.json (the rubric's: evalkit/rubric/), the results
pages (htmlpage.py) and results.csv (csvexport.py). They are written here, in the pages' part, so that the
scoring code never reaches a page: publish.py and reproduce.py call this."""

import os

from ..jsonl import write_atomic
from ..rubric.report import render_markdown
from ..rubric.siteqa import results_json
from .csvexport import render_csv
from .htmlpage import render_pages


def write_outputs(result, folder):
    """The outputs of a quarter folder: results.md, results.json,
    results.csv and the results pages (index.html; from the rules of 2026-12-01 also
    index.he.html and index.ru.html: evalkit/pages/htmlpage.py). Returns their
    names, sorted."""
    write_atomic(os.path.join(folder, "results.md"), render_markdown(result))
    write_atomic(os.path.join(folder, "results.json"), results_json(result))
    write_atomic(os.path.join(folder, "results.csv"), render_csv(result))
    pages = render_pages(result, "index.html")
    for name, text in pages.items():
        write_atomic(os.path.join(folder, name), text)
    return sorted(["results.md", "results.json", "results.csv"] + list(pages))
