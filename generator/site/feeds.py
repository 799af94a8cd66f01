"""Atom feeds of the newest papers: one for the whole survey, one per topic and one per tag.

Newest first: by the day a paper was `added` to the corpus (what a subscriber has not seen
yet), and among papers added the same day (a whole import) by the paper's publication `date`,
undated papers last. Built with ElementTree, so every text is escaped as XML requires.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..core.tex import tex_text
from ..corpus.model import Paper

ATOM = "http://www.w3.org/2005/Atom"
LIMIT = 50
_EPOCH = "1970-01-01"


def _day(value: str | None) -> str:
    """A full day from YYYY, YYYY-MM or YYYY-MM-DD (the first day of the year or month)."""
    if not value:
        return _EPOCH
    return value + "-01-01"[len(value) - 4:] if len(value) < 10 else value


def _stamp(day: str | None) -> str:
    return f"{_day(day)}T00:00:00Z"


def recent(papers: list[Paper], limit: int = LIMIT) -> list[Paper]:
    def newest(p: Paper) -> tuple[str, str, str]:
        return (_day(p.added), (p.date and _day(p.date)) or "", p.slug)

    return sorted(papers, key=newest, reverse=True)[:limit]


def atom_feed(*, title: str, feed_path: str, page_path: str, site_url: str, papers: list[Paper],
              topic_names: dict[str, str], author: str) -> str:
    """An Atom 1.0 document; `site_url` ends with a slash, paths are relative to it."""
    ET.register_namespace("", ATOM)
    entries = recent(papers)

    def el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        node = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            node.text = text
        return node

    feed = ET.Element(f"{{{ATOM}}}feed")
    el(feed, "id", site_url + feed_path)
    el(feed, "title", title)
    el(feed, "updated", _stamp(max((p.added or _EPOCH for p in entries), default=None)))
    el(feed, "link", rel="self", type="application/atom+xml", href=site_url + feed_path)
    el(feed, "link", rel="alternate", type="text/html", href=site_url + page_path)
    el(el(feed, "author"), "name", author)
    for paper in entries:
        entry = el(feed, "entry")
        el(entry, "id", site_url + paper.path)
        el(entry, "title", tex_text(paper.title))
        el(entry, "updated", _stamp(paper.added))
        if paper.date:
            el(entry, "published", _stamp(paper.date))
        el(entry, "link", rel="alternate", type="text/html", href=site_url + paper.path)
        for name in paper.authors:
            el(el(entry, "author"), "name", name)
        for topic in paper.topics:
            el(entry, "category", term=topic, label=topic_names.get(topic, topic))
        el(entry, "summary", tex_text(paper.abstract))
    ET.indent(feed)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"
