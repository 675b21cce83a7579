"""The demo sites on disk: pages, their URLs, and their visible text.

Layout: ``sites/sites.json`` names each site folder (``clinic``, ``office``),
its question set, public origin and widget keys; ``sites/{site}/{lang}/``
holds the pages (``index.html`` is the language's home page, ``NAME.html`` is
served at ``/demo/{site}/{lang}/NAME/``) and ``site.json`` (name, phone,
decline message).

Visible text is what a visitor reads: tags removed, the contents of
``<script>``, ``<style>`` and ``<template>`` dropped, entities decoded, one
line per block element. Nothing here ranks or answers; retrieval.py does.
"""

import json
import os
from html.parser import HTMLParser

HIDDEN = {"script", "style", "template", "noscript", "head"}
BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "div",
          "address", "blockquote", "section", "article", "header", "footer", "main", "nav",
          "ul", "ol", "table", "tr", "br", "title", "figcaption", "summary", "details"}


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.nav = 0
        self.lines = []   # (text, in_nav)
        self.current = []
        self.title = []
        self.in_title = False

    def _flush(self):
        text = " ".join("".join(self.current).split())
        if text:
            self.lines.append((text, self.nav > 0))
        self.current = []

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
        if tag in HIDDEN:
            self.hidden += 1
        if tag in BLOCKS:
            self._flush()
        if tag == "nav":
            self.nav += 1

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        if tag in BLOCKS:
            self._flush()
        if tag == "nav" and self.nav:
            self.nav -= 1
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.hidden:
            self.current.append(data)


def parse_html(html):
    """``(title, [(line, in_nav), ...])`` of one page."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    parser._flush()
    return " ".join("".join(parser.title).split()), parser.lines


def visible_text(html):
    """The page's visible text, one block per line (navigation included)."""
    return "\n".join(line for line, _nav in parse_html(html)[1])


class Page:
    def __init__(self, url, path, title, lines):
        self.url = url          # the public URL, e.g. http://med.demo.localhost/demo/clinic/en/hours/
        self.path = path        # the file on disk
        self.title = title
        self.lines = lines      # [(text, in_nav)]

    @property
    def text(self):
        return "\n".join(line for line, _nav in self.lines)


class Site:
    """One language of one demo site."""

    def __init__(self, slug, set_name, lang, origin, widget_key, info, pages):
        self.slug = slug
        self.set = set_name
        self.lang = lang
        self.origin = origin
        self.widget_key = widget_key
        self.name = info["name"]
        self.phone = info["phone"]
        self.decline_message = info["decline_message"]
        self.pages = pages
        self.prefix = f"/demo/{slug}/{lang}/"


def page_name_to_path(slug, lang, name):
    return f"/demo/{slug}/{lang}/" if name == "index" else f"/demo/{slug}/{lang}/{name}/"


def load_sites(root):
    """Every language of every site under ``root``, in a fixed order."""
    with open(os.path.join(root, "sites.json"), encoding="utf-8") as fh:
        config = json.load(fh)
    sites = []
    for slug in sorted(config["sites"]):
        entry = config["sites"][slug]
        for lang in sorted(entry["widget_keys"]):
            folder = os.path.join(root, slug, lang)
            with open(os.path.join(folder, "site.json"), encoding="utf-8") as fh:
                info = json.load(fh)
            pages = []
            names = sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".html"))
            names.sort(key=lambda n: n != "index")  # the home page first
            for name in names:
                path = os.path.join(folder, name + ".html")
                with open(path, encoding="utf-8") as fh:
                    title, lines = parse_html(fh.read())
                url = entry["origin"] + page_name_to_path(slug, lang, name)
                pages.append(Page(url, path, title, lines))
            sites.append(Site(slug, entry["set"], lang, entry["origin"],
                              entry["widget_keys"][lang], info, pages))
    return sites
