"""What every reader of generator/sources returns: a `Source` and its `RawEntry`s.

In a module of their own so that readers.py and bibtex.py (which readers.py loads only when a
file is BibTeX, to spare every other command pybtex's import) both use them without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import SourceError
from ..core.text import first_sentence, shorten


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
    # What the reader found wrong with the entry alone (an author without a name, an id that is
    # no arXiv URL): the entry is left out as one `survey check` refuses (readers.parse_source).
    problem: SourceError | None = None

    @property
    def label(self) -> str:
        short = self.title if len(self.title) <= 60 else self.title[:57] + "..."
        label = f"{self.key} (line {self.line})" if self.key else f"#{self.position}"
        return f"{label} {shorten(short)}"


@dataclass(frozen=True)
class Refused:
    """An entry left out of a source because the corpus's rules refuse it (an invisible
    character, an implausible date or arXiv id, a malformed name): the line naming the file, the
    entry, the field and the rule, and what the left-out report shows of the entry (cut: the
    entry may be refused for its length)."""

    problem: SourceError
    position: int
    key: str  # its arXiv id as written, else its label
    title: str
    first: str  # the abstract's first sentence

    @classmethod
    def of(cls, entry: RawEntry, problem: SourceError) -> Refused:
        return cls(problem, entry.position, (entry.arxiv or entry.label)[:80], entry.title[:200],
                   first_sentence(entry.abstract[:2000]))


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
    refused: list[Refused] = field(default_factory=list)  # entries left out, in the file's order

    @property
    def origin(self) -> str:
        return Path(self.path).name
