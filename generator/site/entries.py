"""What a paper's entry shows besides its title, wherever papers are listed.

The entry itself is templates/_entry.html.j2 (topic, tag, listing and home pages); the search
page draws the same entry from the `entry` a paper page gives its search data (`search_entry`,
read by docs/assets/search.js). Both take their date, venue and authors from here, so that a
list and the search results say the same thing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import urlsplit

from ..core.tex import tex_text
from ..corpus.model import Paper

AUTHORS_SHOWN = 3  # then "et al.", as al-folio and Google Scholar shorten a list
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def shown_date(date: str | None) -> str:
    """A paper's date as readers write it: '17 Feb 2025', 'Feb 2025' or '2025', its spaces
    no-break spaces: on a phone an entry's line broke "24 / Dec 2025" at its end."""
    if not date:
        return ""
    year, _, rest = date.partition("-")
    if not rest:
        return year
    month, _, day = rest.partition("-")
    name = _MONTHS[int(month) - 1]
    return f"{int(day)}\u00a0{name}\u00a0{year}" if day else f"{name}\u00a0{year}"


def venue(paper: Paper) -> str:
    """Where the paper is published, as far as the corpus knows: arXiv for a paper with an arXiv
    id, else the host of its paper link ('proceedings.mlsys.org'); the corpus has no venue field."""
    if paper.arxiv:
        return "arXiv"
    link = paper.links.get("paper")
    if link:
        host = urlsplit(link).hostname or ""
        return host.removeprefix("www.")
    return ""


def host(url: str) -> str:
    """The host a link leads to, as its page shows it beside the link ("Code (github.com)"): what a
    reader would otherwise see only on hovering ('github.com.evil.example', 'xn--gthub-cta.com')."""
    parts = urlsplit(url)
    return f"{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"


def shown_authors(paper: Paper) -> tuple[list[str], bool]:
    """The authors an entry names, and whether "et al." follows them."""
    return paper.authors[:AUTHORS_SHOWN], len(paper.authors) > AUTHORS_SHOWN or paper.et_al


def confidence(paper: Paper, topic: str) -> str:
    """The model's confidence in a suggested topic as every page and search result writes it,
    a percentage ('85%': "Serving suggested 85%"), or ''."""
    value = paper.confidence.get(topic)
    return "" if value is None else f"{round(value * 100)}%"


def search_entry(paper: Paper, topic_name: Callable[[str], str], tag_name: Callable[[str], str],
                 other: str) -> str:
    """The entry's fields for the search results, as compact JSON (a Pagefind meta value is text).
    `topics` holds [id, name, confidence] triples; `suggested` says whether no person reviewed them."""
    authors, more = shown_authors(paper)
    data: dict[str, object] = {"authors": authors}
    if more:
        data["more"] = True
    for key, value in (("date", shown_date(paper.date)), ("venue", venue(paper)),
                       ("code", paper.links.get("code"))):
        if value:
            data[key] = value
    data["topics"] = [[t, topic_name(t), confidence(paper, t)] for t in paper.topics or [other]]
    # How many words of the page's indexed text come before the abstract (the title, then the
    # authors): search.js shows the abstract's matched words, not the title and the authors again.
    data["lead"] = len(tex_text(paper.title).split()) + sum(len(name.split()) for name in paper.authors) \
        + (2 if paper.et_al else 0)
    if not paper.topics_reviewed:
        data["suggested"] = True
    if paper.tags:
        data["tags"] = [[t, tag_name(t)] for t in paper.tags]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def latest(papers: list[Paper], count: int) -> list[Paper]:
    """What is new: the papers added last (`added`), the newest first among those added on one day,
    then by title; papers with no day of addition after every dated one."""
    ordered = sorted(papers, key=lambda p: (p.title.casefold(), p.slug))
    ordered.sort(key=lambda p: p.date or "", reverse=True)
    ordered.sort(key=lambda p: p.added or "", reverse=True)
    return ordered[:count]

