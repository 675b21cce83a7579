"""The demo sites' pages as the question linter reads them (lint_questions.py).

Layout (Documents/c4-benchmark/sites): ``sites.json`` names each site folder,
its question set and public origin, and its languages (the keys of
``widget_keys``); ``{site}/{lang}/site.json`` holds the decline message, and
``{site}/{lang}/NAME.html`` is the page served at ``/demo/{site}/{lang}/NAME/``
(``index.html`` at ``/demo/{site}/{lang}/``).

A page's text is its title, then its visible text one block per line: tags
removed, the contents of script, style, template, noscript and head dropped,
entities decoded. The reference assistant reads the same folder with its own
reader (tools/demo-assistant/pages.py); the kit keeps this one because it never
imports the assistant's code (tests/test_layers.py).
"""

import os
from html.parser import HTMLParser

from ..jsonl import read_json

HIDDEN = {"script", "style", "template", "noscript", "head"}
BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "div",
          "address", "blockquote", "section", "article", "header", "footer", "main", "nav",
          "ul", "ol", "table", "tr", "br", "title", "figcaption", "summary", "details"}


class Site:
    """One language of one demo site: ``set``, ``lang``, ``decline_message``
    and ``pages``, ``[(url, text)]`` with the home page first."""

    def __init__(self, set_name, lang, decline_message, pages):
        self.set = set_name
        self.lang = lang
        self.decline_message = decline_message
        self.pages = pages


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.in_title = False
        self.title, self.lines, self.current = [], [], []

    def flush(self):
        line = " ".join("".join(self.current).split())
        if line:
            self.lines.append(line)
        self.current = []

    def handle_starttag(self, tag, attrs):
        self.in_title = self.in_title or tag == "title"
        self.hidden += tag in HIDDEN
        if tag in BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        self.in_title = self.in_title and tag != "title"
        if tag in BLOCKS:
            self.flush()
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.hidden:
            self.current.append(data)


def page_text(html):
    """The page's title, then its visible text, one block per line."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    parser.flush()
    return "\n".join([" ".join("".join(parser.title).split())] + parser.lines)


def load_sites(root):
    """Every language of every site under ``root``, in a fixed order."""
    config = read_json(os.path.join(root, "sites.json"))
    sites = []
    for slug, entry in sorted(config["sites"].items()):
        for lang in sorted(entry["widget_keys"]):
            folder = os.path.join(root, slug, lang)
            decline = read_json(os.path.join(folder, "site.json"))["decline_message"]
            names = sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".html"))
            names.sort(key=lambda name: name != "index")  # the home page first
            pages = []
            for name in names:
                with open(os.path.join(folder, name + ".html"), encoding="utf-8") as fh:
                    text = page_text(fh.read())
                path = f"/demo/{slug}/{lang}/" + ("" if name == "index" else f"{name}/")
                pages.append((entry["origin"] + path, text))
            sites.append(Site(entry["set"], lang, decline, pages))
    return sites
