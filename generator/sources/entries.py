"""What every reader of generator/sources returns: a `Source` and its `RawEntry`s.

In a module of their own so that readers.py and bibtex.py (which readers.py loads only when a
file is BibTeX, to spare every other command pybtex's import) both use them without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.text import shorten


@dataclass
class RawEntry:
    title: str
    abstract: str
    position: int
    arxiv: str | None = None
    authors: list[str] = field(default_factory=list)
    et_al: bool = False  # the authors named are the first of more (BibTeX's `and others`)
    date: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    key: str | None = None  # a BibTeX entry's key, and the line it starts on
    line: int | None = None

    @property
    def label(self) -> str:
        short = self.title if len(self.title) <= 60 else self.title[:57] + "..."
        label = f"{self.key} (line {self.line})" if self.key else f"#{self.position}"
        return f"{label} {shorten(short)}"


@dataclass
class Source:
    path: str
    format: str
    sha256: str
    entries: list[RawEntry]
    is_listing: bool  # a list of papers; False: one paper (its saved page, its JSON)
    date: str | None = None  # the listing's date as it shows it ("Mar 14"), or YYYY-MM-DD
    notes: list[str] = field(default_factory=list)  # what was read differently from how it was written
    url: str | None = None  # the source's own address, where it says it
    title: str | None = None  # the source's own title (an Atom feed's), plain text

    @property
    def origin(self) -> str:
        return Path(self.path).name
