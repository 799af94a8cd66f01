"""Saved Hugging Face Papers pages (a paper page or a listing), read in one streaming pass.

The page's embedded data (`data-target="PaperContent"` / `"DailyPapers"`, a JSON `data-props`)
is the most faithful source and is preferred. Without it, the visible page is read: the `<h1>`
title and the paragraphs under the "Abstract" heading, leaving out the AI-generated summary box;
inline keyword links in the abstract are kept as their text, so the abstract stays whole. A
listing without embedded data is read from its paper cards: each `<article>` whose first heading
links to a paper, with the first paragraph outside that heading as its abstract.

A streaming parser (the standard library's), not a document tree (some 500 bytes a tag: 37 to 66
times a page's size), keeps a source's cost within about ten times its size (issue 31): only the
open elements (a stack of small objects) and the texts of the elements read are kept. Elements
nest as in BeautifulSoup's html.parser tree: an end tag closes the latest open element of its
name and those opened inside it, an end tag that closes nothing is ignored, void elements hold
nothing, and what script, style, template and noscript hold is left out. Where html.parser alone
would take time squared, memory many times the page's or raise, the page is read as a browser
reads it or refused in one line (intake.BoundedHTMLParser, and elements nest at most MAX_DEPTH
deep). Character references are decoded as a browser decodes them (`&notx` is `¬x`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import SourceError
from ..corpus.fields import ARXIV_ID
from .intake import JSON_NODES, LONG_NUMBER, BoundedHTMLParser, check_density

_ARXIV_HREF = re.compile(rf"arxiv\.org/(?:abs|pdf)/({ARXIV_ID})(?:v\d+)?")
_PAPER_HREF = re.compile(rf"^(?:https://huggingface\.co)?/papers/({ARXIV_ID})(?:v\d+)?$")
_ARXIV_TEXT = re.compile(rf"^arxiv:\s*({ARXIV_ID})(?:v\d+)?$", re.IGNORECASE)
_DAY = re.compile(r"/papers/date/(\d{4}-\d{2}-\d{2})")
_SKIP = frozenset({"script", "style", "template", "noscript"})
# Elements that hold nothing (BeautifulSoup's list for html.parser).
_VOID = frozenset({"area", "base", "basefont", "bgsound", "br", "col", "command", "embed", "frame",
                   "hr", "image", "img", "input", "isindex", "keygen", "link", "menuitem", "meta",
                   "nextid", "param", "source", "spacer", "track", "wbr"})
_TARGETS = ("DailyPapers", "PaperContent")
# Paper cards are never nested in a saved page; each open card is looked at for each heading,
# link and paragraph, so cards nested without limit would cost their number squared.
MAX_NESTED_CARDS = 8
# Nor are the paragraphs, headings and links read here (a browser closes an open <p> at the next
# one); nested, each would hold the text of all those inside it.
MAX_NESTED_READ = 16
# Elements open at once: Chromium nests no deeper than 512 either. A saved page's are some 30
# deep; the bound keeps the open elements' memory constant, whatever the page.
MAX_DEPTH = 512


@dataclass
class Page:
    is_listing: bool
    items: list[Any] = field(default_factory=list)  # API-shaped dicts or (title, abstract, arxiv)
    date: str | None = None
    url: str | None = None  # the page's canonical address


def parse_hf_html(text: str, path: str) -> Page:
    reader = _Reader(len(text), path)
    reader.read(text)
    reader.finish()

    listing = _props(reader.props.get("DailyPapers"), "DailyPapers", path)
    if listing is not None:
        items = listing.get("dailyPapers") or listing.get("searchResults") or []
        date = listing.get("dateString")
        if isinstance(items, list) and items:
            return Page(is_listing=True, items=items, date=date if isinstance(date, str) and date else None,
                        url=reader.canonical)
    paper = _props(reader.props.get("PaperContent"), "PaperContent", path)
    if paper is not None and isinstance(paper.get("paper"), dict):
        return Page(is_listing=False, items=[paper["paper"]], url=reader.canonical)

    cards = [c for c in reader.cards if c.title is not None]
    if cards:
        for position, card in enumerate(cards, 1):
            if not card.abstract:
                raise SourceError(path, "is missing: this listing page shows titles only; save the "
                                        "paper pages or use the daily-papers JSON",
                                  entry=f"#{position} {card.title!r}", field="abstract")
        date = _DAY.search(reader.canonical) if reader.canonical else None
        return Page(is_listing=True, items=[(c.title, c.abstract, c.arxiv) for c in cards],
                    date=date.group(1) if date else None, url=reader.canonical)
    if reader.h1 is not None:
        abstract = " ".join(p for p in reader.abstract if p)
        if not abstract:
            raise SourceError(path, "is missing: no paragraph under an 'Abstract' heading",
                              entry=f"#1 {reader.h1!r}", field="abstract")
        return Page(is_listing=False, items=[(reader.h1, abstract, reader.arxiv())], url=reader.canonical)
    raise SourceError(path, "an HTML page, but not a Hugging Face paper or listing page "
                            "(no paper cards, no title)")


def _props(props: str | None, target: str, path: str) -> dict[str, Any] | None:
    if not props:
        return None
    check_density(props, path, *JSON_NODES)
    try:
        data = json.loads(props)
    except json.JSONDecodeError as exc:
        raise SourceError(path, f"the page's embedded {target} data is not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise SourceError(path, f"the page's embedded {target} data is JSON nested too deeply") from None
    except ValueError:  # Python reads no integer of more than 4,300 digits
        raise SourceError(path, f"the page's embedded {target} data is JSON with {LONG_NUMBER}") from None
    return data if isinstance(data, dict) else None


class _Element:
    """An open element, and what the reader needs to know of it."""

    __slots__ = ("ai", "cards", "community", "in_community", "name", "pb8", "read_from", "skip", "text")

    def __init__(self, name: str, skip: bool, in_community: bool, ai: bool) -> None:
        self.name = name
        self.skip = skip  # script, style, template or noscript, or inside one: left out
        self.in_community = in_community  # inside the comments (#community, .comment)
        self.community = False  # is itself the comments
        self.ai = ai  # the AI summary box, or inside it
        self.pb8 = False  # a <div> of class pb-8: the section an abstract heading is in
        self.read_from: tuple[int, int] | None = None  # where its text starts, when it is read
        self.cards: tuple[_Card, ...] = ()  # an <article>'s card; the cards a <p> may be the abstract of
        self.text = ""


@dataclass(eq=False, slots=True)
class _Card:
    heading: _Element | None = None  # the article's first h2/h3
    heading_open: bool = False
    link: _Element | None = None  # the first paper link inside that heading
    title: str | None = None
    arxiv: str | None = None
    abstract: str = ""
    open_paragraphs: int = 0  # paragraphs that may be its abstract, still open


class _Reader(BoundedHTMLParser):
    """One pass over a page, keeping what parse_hf_html decides from: the first embedded data of
    each target, the paper cards, the first <h1>, the paragraphs under the first "Abstract"
    heading, the first arXiv link and text, the canonical link."""

    def __init__(self, size: int, path: str) -> None:
        super().__init__(path)
        self.stack: list[_Element] = []
        self.open_names: dict[str, int] = {}  # how many are open, by name (a name closed is gone)
        # The text of the elements being read: pieces kept while one is open, an element's text
        # being the pieces from where it opened. Each text joined costs its length; a page reads
        # each of its texts once or twice (a card's heading and its link), so more than twice
        # its size means elements nested to repeat one text (<p><p><p>...): refused.
        self.pieces: list[str] = []
        self.chars = 0
        self.reading = 0
        self.budget = 2 * size + 65536
        self.props: dict[str, str | None] = {}
        self.cards: list[_Card] = []  # in the order the articles open
        self.open_cards: list[_Card] = []
        self.h1: str | None = None
        self.h1_element: _Element | None = None
        self.abstract_heading = False  # found; then the paragraphs after it, in its section
        self.section: _Element | None = None  # the abstract's section while open (None: the page)
        self.section_closed = False
        self.abstract_done = False
        self.abstract: list[str] = []  # in the order the paragraphs open
        self.abstract_slots: dict[int, int] = {}  # id of an open paragraph -> its place above
        self.arxiv_link: str | None = None
        self.arxiv_text: str | None = None
        self.canonical: str | None = None
        self.node: list[str] = []  # the text node being read, until a tag ends it

    def arxiv(self) -> str | None:
        if self.arxiv_link or self.arxiv_text:
            return self.arxiv_link or self.arxiv_text
        match = _PAPER_HREF.match(self.canonical or "")
        return match.group(1) if match else None

    # --- the parser's events ----------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._node_ends()
        parent = self.stack[-1] if self.stack else None
        skip = tag in _SKIP or (parent is not None and parent.skip)
        values = {} if skip else {k: v or "" for k, v in attrs}
        if tag in _VOID:
            if not skip:
                self._void(tag, values)
            return
        if len(self.stack) >= MAX_DEPTH:
            line, column = self.getpos()
            raise SourceError(self.path, f"elements nested more than {MAX_DEPTH} deep (at line {line} column "
                                         f"{column + 1}): not a saved page; not read")
        classes = values.get("class", "")
        in_community = parent is not None and (parent.in_community or parent.community)
        ai = (parent is not None and parent.ai) or "bg-blue" in classes or "ai-summary" in classes
        element = _Element(tag, skip, in_community, ai)
        if not skip:
            self._start(element, values, classes)
        self.stack.append(element)
        self.open_names[tag] = self.open_names.get(tag, 0) + 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)  # <x/>: an element that holds nothing
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        self._node_ends()
        if not self.open_names.get(tag):
            return
        while True:
            element = self.stack.pop()
            self.open_names[element.name] -= 1
            if not self.open_names[element.name]:
                del self.open_names[element.name]
            if not element.skip:
                self._end(element)
            if element.name == tag:
                return

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1].skip:
            return
        if self.reading:
            self.pieces.append(data)
            self.chars += len(data)
        if self.arxiv_text is None:
            self.node.append(data)

    def handle_comment(self, data: str) -> None:
        self._node_ends()

    def _node_ends(self) -> None:
        # A text node that is an arXiv id alone ("arXiv:2401.00001"). The parser may give one
        # node in several pieces ("a < b" is three).
        if self.node:
            match = _ARXIV_TEXT.search("".join(self.node))
            self.node = []
            if match and self.arxiv_text is None:
                self.arxiv_text = match.group(1)

    def finish(self) -> None:
        """Close what the page left open, as its end does."""
        self._node_ends()
        while self.stack:
            element = self.stack.pop()
            if not element.skip:
                self._end(element)

    # --- what an element is to the reader ---------------------------------------------------

    def _void(self, tag: str, values: dict[str, str]) -> None:
        self._target(values)
        if tag == "link" and self.canonical is None and "canonical" in values.get("rel", "").split():
            self.canonical = values.get("href", "")

    def _target(self, values: dict[str, str]) -> None:
        target = values.get("data-target")
        if target in _TARGETS and target not in self.props:
            self.props[target] = values.get("data-props")  # the first of a target decides

    def _start(self, element: _Element, values: dict[str, str], classes: str) -> None:
        self._target(values)
        tag = element.name
        element.community = values.get("id") == "community" or "comment" in classes.split()
        href = values.get("href")
        if tag == "a" and href is not None:
            if self.arxiv_link is None and not element.in_community:
                match = _ARXIV_HREF.search(href)
                self.arxiv_link = match.group(1) if match else None
            paper = _PAPER_HREF.search(href)
            for card in self.open_cards:
                if paper and card.heading_open and card.link is None:
                    card.link, card.arxiv = element, paper.group(1)
                    self._read(element)
        if tag == "article":
            if len(self.open_cards) >= MAX_NESTED_CARDS:
                raise SourceError(self.path, f"paper cards (<article>) nested more than {MAX_NESTED_CARDS} "
                                             "deep: not a saved page; not read")
            card = _Card()
            self.cards.append(card)
            self.open_cards.append(card)
            element.cards = (card,)
        elif tag in ("h2", "h3"):
            for card in self.open_cards:
                if card.heading is None:
                    card.heading, card.heading_open = element, True
            if not self.abstract_heading:
                self._read(element)
        elif tag == "h1" and self.h1 is None and self.h1_element is None:
            self.h1_element = element
            self._read(element)
        elif tag == "p":
            self._paragraph(element)
        elif tag == "div" and not self.abstract_heading and "pb-8" in classes:
            element.pb8 = True

    def _paragraph(self, element: _Element) -> None:
        element.cards = tuple(c for c in self.open_cards if not c.abstract and not c.heading_open)
        for card in element.cards:
            card.open_paragraphs += 1
        if self.abstract_heading and not self.abstract_done:
            if self.section_closed or element.in_community:
                self.abstract_done = True  # past the abstract's section, or into the comments
            elif not element.ai:
                self.abstract_slots[id(element)] = len(self.abstract)
                self.abstract.append("")
        if element.cards or id(element) in self.abstract_slots:
            self._read(element)

    def _read(self, element: _Element) -> None:
        if element.read_from is None:
            if self.reading >= MAX_NESTED_READ:
                raise SourceError(self.path, f"paragraphs, headings or links nested more than "
                                             f"{MAX_NESTED_READ} deep inside each other: not a saved page; "
                                             "not read")
            element.read_from = (len(self.pieces), self.chars)
            self.reading += 1

    def _end(self, element: _Element) -> None:
        if element.read_from is not None:
            start, chars = element.read_from
            self.budget -= self.chars - chars
            if self.budget < 0:
                raise SourceError(self.path, "paragraphs or headings nested inside each other so deep "
                                             "that their texts repeat: not a saved page; not read")
            # Its text nodes joined with nothing (inline links and highlights stay inside their
            # words and sentences), runs of whitespace made one space.
            element.text = " ".join("".join(self.pieces[start:]).split())
            self.reading -= 1
            if not self.reading:
                self.pieces.clear()
        tag = element.name
        if tag == "article":
            self.open_cards.remove(element.cards[0])
        elif tag in ("h2", "h3"):
            for card in self.open_cards:
                if card.heading is element:
                    card.heading_open = False
            if not self.abstract_heading and element.text.lower() == "abstract":
                self.abstract_heading = True
                self.section = self._section()
        elif element is self.h1_element:
            self.h1, self.h1_element = element.text, None
        elif tag == "p":
            for card in element.cards:
                card.open_paragraphs -= 1
                # The first paragraph, in the order they open: an outer one holds the inner's text.
                if not card.abstract and element.text and not card.open_paragraphs:
                    card.abstract = element.text
            slot = self.abstract_slots.pop(id(element), None)
            if slot is not None:
                self.abstract[slot] = element.text
        if tag == "a":
            for card in self.open_cards:
                if card.link is element:
                    card.title = element.text
        if element is self.section:
            self.section_closed = True

    def _section(self) -> _Element | None:
        """The abstract's section: the heading's nearest <div> of class pb-8, else its parent
        (None: the page itself, never left)."""
        for ancestor in reversed(self.stack):
            if ancestor.pb8:
                return ancestor
        return self.stack[-1] if self.stack else None
