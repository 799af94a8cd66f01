"""Long lists split into numbered pages, and the orders a reader can choose between.

A list of N items is shown in parts of PART_SIZE: the first part keeps the list's old address
(`topics/other.md`), part k lives beside it (`topics/other/k.md`). Every page of a list carries a
pager to the others, so no page grows with the corpus.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from ..corpus.model import Listing, Paper

PART_SIZE = 100
T = TypeVar("T")


def title_order(paper: Paper) -> tuple[str, str]:
    return (paper.title.casefold(), paper.slug)


def newest_first(papers: Sequence[Paper]) -> list[Paper]:
    """Dated papers newest first (ties by title), then undated ones by title."""
    dated = sorted((p for p in papers if p.date), key=title_order)
    dated.sort(key=lambda p: p.date or "", reverse=True)  # stable: ties stay in title order
    return dated + sorted((p for p in papers if not p.date), key=title_order)


def by_title(papers: Sequence[Paper]) -> list[Paper]:
    return sorted(papers, key=title_order)


@dataclass(frozen=True)
class Order:
    key: str  # "" for a list's default order, else the folder its pages live in
    label: str


NEWEST = Order("", "Newest first")
TITLE = Order("by-title", "By title")
TITLE_ONLY = Order("", "By title")


def orders_for(papers: Sequence[Paper]) -> list[Order]:
    """Newest first (the default) and by title when some paper has a date; else by title only."""
    return [NEWEST, TITLE] if any(p.date for p in papers) else [TITLE_ONLY]


def sort_papers(papers: Sequence[Paper], order: Order) -> list[Paper]:
    return newest_first(papers) if order is NEWEST else by_title(papers)


def part_path(base: str, number: int) -> str:
    """The Markdown path of part `number` of the list whose first part is `base`.md."""
    return f"{base}.md" if number == 1 else f"{base}/{number}.md"


_UNCLEAN = frozenset(("", ".", ".."))


def relative(from_path: str, to_path: str) -> str:
    """A link from one generated Markdown page to another (MkDocs resolves it to the URL)."""
    start, target = from_path.split("/")[:-1], to_path.split("/")
    if _UNCLEAN.isdisjoint(start) and _UNCLEAN.isdisjoint(target):
        # posixpath.relpath of two clean relative paths, without its abspath of each (a fifth
        # of the list pages' time at 10,000 papers): drop the common folders, go up the rest.
        common = 0
        for a, b in zip(start, target, strict=False):
            if a != b:
                break
            common += 1
        return "/".join([".."] * (len(start) - common) + target[common:]) or "."
    return posixpath.relpath(to_path, posixpath.dirname(from_path) or ".")


def page_url(path: str, directory_urls: bool = True) -> str:
    """The URL, from the site's root, that MkDocs gives the page of a Markdown path:
    'topics/serving.md' is 'topics/serving/', 'topics/index.md' 'topics/' and 'index.md' '';
    without directory URLs, 'topics/serving.html'."""
    base = path.removesuffix(".md")
    if not directory_urls:
        return base + ".html"
    if base == "index":
        return ""
    return base.removesuffix("index") if base.endswith("/index") else base + "/"


def root_of(path: str, directory_urls: bool = True) -> str:
    """From the page of a Markdown path up to the site's root, as a relative URL ('../../')."""
    return "../" * page_url(path, directory_urls).count("/")


@dataclass(frozen=True)
class Link:
    label: str
    href: str | None  # None: the current page, or a gap ("…")


@dataclass(frozen=True)
class Part(Generic[T]):
    path: str
    number: int
    total: int
    start: int  # position of the first item in the whole list, from 1
    items: list[T]
    pager: list[Link]
    previous: str | None
    next: str | None

    @property
    def up(self) -> str:
        """From this page to the folder of the list's first part (`topics/`, `listings/`)."""
        return "../" * (self.path.count("/") - 1)

    @property
    def end(self) -> int:
        return self.start + len(self.items) - 1


def split(items: Sequence[T], base: str, size: int = PART_SIZE) -> list[Part[T]]:
    total = max(1, -(-len(items) // size))
    parts = []
    for number in range(1, total + 1):
        path = part_path(base, number)
        link = partial(_link, path, base)  # only the parts the pager shows: a list has up to 100s
        parts.append(Part(
            path=path, number=number, total=total, start=(number - 1) * size + 1,
            items=list(items[(number - 1) * size:number * size]),
            pager=_pager(number, total, link),
            previous=link(number - 1) if number > 1 else None,
            next=link(number + 1) if number < total else None,
        ))
    return parts


def _link(path: str, base: str, number: int) -> str:
    return relative(path, part_path(base, number))


def _pager(current: int, total: int, link: Callable[[int], str]) -> list[Link]:
    """The first and last parts, and two either side of the current one, with gaps between."""
    shown = sorted({1, total, *range(max(1, current - 2), min(total, current + 2) + 1)})
    out: list[Link] = []
    for number in shown:
        if out and number - int(out[-1].label) > 1:
            out.append(Link("…", None))
        out.append(Link(str(number), None if number == current else link(number)))
    return out


def entry_part(position: int, size: int = PART_SIZE) -> int:
    return (position - 1) // size + 1


def entry_link(from_path: str, listing: Listing, position: int) -> str:
    """A link from a page to one entry of a listing, on the part of the listing that holds it."""
    target = part_path(f"listings/{listing.slug}", entry_part(position))
    return f"{relative(from_path, target)}#entry-{position}"


def listing_rows(listing: Listing, papers: dict[str, Paper],
                 listings_of: dict[str, list[tuple[Listing, int]]],
                 directory_urls: bool = True) -> list[dict[str, Any]]:
    """Each entry of a listing: its position, the entry, its paper and the paper's other entries,
    each with the URL that leads to it from this entry's part (the entries are HTML). The paper
    is None where it is not on the site (it waits for a curator: corpus/publish.py): its row
    keeps its place, so every entry stays on the part its number gives (`entry_link`)."""
    rows: list[dict[str, Any]] = []
    for position, entry in enumerate(listing.entries, 1):
        paper = papers.get(entry.paper)
        if paper is None:
            rows.append({"position": position, "entry": entry, "paper": None, "elsewhere": []})
            continue
        here = part_path(f"listings/{listing.slug}", entry_part(position))
        root = root_of(here, directory_urls)
        elsewhere = []
        for li, pos in listings_of.get(entry.paper, []):
            if li.slug == listing.slug and pos == position:
                continue
            there = part_path(f"listings/{li.slug}", entry_part(pos))
            url = "" if there == here else root + page_url(there, directory_urls)
            elsewhere.append((li, pos, f"{url}#entry-{pos}"))
        rows.append({"position": position, "entry": entry, "paper": paper, "elsewhere": elsewhere})
    return rows
