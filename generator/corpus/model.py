"""The corpus model: one record type per domain noun, validated when built from a file.

Parsing (`from_dict`) and writing (`to_dict`) are symmetric: a record written back gives the
mapping it was read from. Derived values (URLs, year, listings of a paper) are computed, never
stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.errors import CorpusError
from ..core.text import shorten
from ..core.yamlio import MAX_LIST
from .fields import MAX_ITEMS, URL_RE, Fields, date_problem, is_arxiv, is_date, present, text_problem
from .fields import kind as value_kind

LINK_KINDS = ("paper", "pdf", "code", "project")
CURATABLE = ("title", "abstract", "arxiv", "authors", "date", "topics", "tags", "links")
# What `survey enrich` fills from a metadata source, each recorded under `enriched`.
ENRICHABLE = ("arxiv", "authors", "et_al", "date", *(f"links.{k}" for k in LINK_KINDS))

# What the topic model said when it suggested the topics, which paper files kept until issue 42:
# read and dropped, whatever their value, so a file written before (an open pull request, another
# copy of the survey) is still valid and loses them when a command next writes it for another
# reason. The model's numbers live in the derived cache now (corpus/derived.py).
RETIRED = ("confidence", "doubt")
PAPER_FIELDS = (
    "slug", "title", "alternate_titles", "abstract", "arxiv", "authors", "et_al", "date",
    "links", "topics", "tags", "added", "enriched", "curated",
)
LISTING_FIELDS = ("slug", "name", "date", "imported", "url", "description", "source", "origin", "sha256",
                  "entries")

# Upper bounds, in characters (or items), that every record is held to wherever it comes from:
# a corpus file, an import, `survey add`, `survey enrich`. Each leaves a wide margin over the
# largest in the real data (the 9,109 papers of /work/shared/real imported, and the seeds);
# MAX_TEXT and MAX_ITEMS, the defaults of every other field, are in fields.py:
MAX_TITLE = 1_000  # a title, alternate title or listing entry's title: real max 175
MAX_ABSTRACT = 10_000  # real max 1,923 (arXiv's limit is 1,920, plus LaTeX read as typeset)
MAX_AUTHORS = 5_000  # authors of one paper: real max 664 ("Humanity's Last Exam")
MAX_NAME = 300  # an author's, listing's, topic's or tag's name: real max 55, 61, 12 and 26
MAX_URL = 2_000  # a link or a listing's origin: real max 247
MAX_DESCRIPTION = 2_000  # a listing's, topic's or tag's description: real max 416
MAX_ENTRIES = MAX_LIST  # entries of one listing: real max 9,109 (no list of a corpus file holds more)


@dataclass
class Enriched:
    """Where `survey enrich` found some fields of a paper, and on which day."""

    source: str
    fetched: str
    fields: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "fetched": self.fetched, "fields": list(self.fields)}


@dataclass
class Paper:
    slug: str
    title: str
    abstract: str
    topics: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    # The topic model's confidence in each of the paper's topics, shown beside a topic no person
    # has reviewed: never read from or written to the file, but filled for the build and the
    # exports from the derived cache (classify/derived.attach), where it follows the model.
    confidence: dict[str, float] = field(default_factory=dict)
    alternate_titles: list[str] = field(default_factory=list)
    arxiv: str | None = None
    authors: list[str] = field(default_factory=list)
    et_al: bool = False  # the authors listed are the first of more, whose names the source left out
    date: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    added: str | None = None
    enriched: list[Enriched] = field(default_factory=list)
    curated: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The page's URL path, relative to the site root."""
        return f"papers/{self.slug}/"

    @property
    def file(self) -> str:
        return f"papers/{self.slug}.yaml"

    @property
    def year(self) -> str | None:
        return self.date[:4] if self.date else None

    @property
    def topics_reviewed(self) -> bool:
        """A person decided the topics (`curated` lists them); otherwise they are the model's
        suggestion, and the site says so."""
        return "topics" in self.curated

    @property
    def titles(self) -> list[str]:
        return [self.title, *self.alternate_titles]

    def link(self, kind: str) -> str | None:
        """A link of one kind: the curated one, else one derived from the arXiv id."""
        if kind in self.links:
            return self.links[kind]
        if self.arxiv and kind == "paper":
            return f"https://arxiv.org/abs/{self.arxiv}"
        if self.arxiv and kind == "pdf":
            return f"https://arxiv.org/pdf/{self.arxiv}"
        return None

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Paper:
        f = Fields(data, path, None, PAPER_FIELDS, retired=RETIRED)
        slug = f.slug()
        title = f.text("title", required=True, limit=MAX_TITLE)
        abstract = f.text("abstract", required=True, limit=MAX_ABSTRACT)
        arxiv, date = arxiv_field(f), date_field(f)
        added = date_field(f, "added", day=True)
        links = _links(f)
        enriched = _enriched(f)
        curated = f.text_list("curated")
        for name in curated:
            if name not in CURATABLE:
                f.problem("curated", f"{shorten(name)} is not a curatable field ({', '.join(CURATABLE)})")
        topics, tags = f.text_list("topics"), f.text_list("tags")
        alternate_titles = f.text_list("alternate_titles", limit=MAX_TITLE)
        # Two co-authors may share a name ('Chen Li' twice in 45 real papers): real data.
        authors = f.text_list("authors", unique=False, limit=MAX_NAME, items=MAX_AUTHORS)
        et_al = f.data.get("et_al", False)
        if not isinstance(et_al, bool):
            f.problem("et_al", f"must be true or false, found {value_kind(et_al)} {shorten(et_al)}")
        elif et_al and "authors" not in f.data:
            f.problem("et_al", "says the authors listed are the first of more, but none are listed")
        for name in ("topics", "tags"):
            if name not in f.data:
                f.problem(name, "is required (write [] for none)")
        paper = cls(  # as far as the file could be read: a field with a problem left empty
            slug=slug or "", title=title or "", abstract=abstract or "", topics=topics, tags=tags,
            alternate_titles=alternate_titles, arxiv=arxiv, authors=authors, et_al=et_al is True,
            date=date, links=links,
            added=added, enriched=enriched, curated=[c for c in CURATABLE if c in curated],
        )
        f.done(paper)
        return paper

    def to_dict(self) -> dict[str, Any]:
        return present({
            "slug": self.slug, "title": self.title, "alternate_titles": list(self.alternate_titles),
            "abstract": self.abstract, "arxiv": self.arxiv, "authors": list(self.authors),
            "et_al": self.et_al, "date": self.date,
            "links": {k: self.links[k] for k in LINK_KINDS if k in self.links}, "topics": list(self.topics),
            "tags": list(self.tags), "added": self.added,
            "enriched": [e.to_dict() for e in self.enriched], "curated": list(self.curated),
        }, "slug", "title", "abstract", "topics", "tags")


def arxiv_field(f: Fields) -> str | None:
    """The record's arXiv id, or None (absent, or a problem noted)."""
    arxiv = f.text("arxiv")
    if arxiv is not None and not is_arxiv(arxiv):
        f.problem("arxiv", f"{shorten(arxiv)} is not an arXiv id arXiv could have issued, like '2104.07857' "
                           f"(no version; YYMM a month from 0704 to now, 4 digits after the dot until 1412)")
    return arxiv


def date_field(f: Fields, name: str = "date", day: bool = False) -> str | None:
    """The record's date (the paper's), or None (absent, or a problem noted)."""
    date = f.text(name)
    problem = None if date is None else date_problem(date, day)
    if problem:
        f.problem(name, problem)
    return date


def _links(f: Fields) -> dict[str, str]:
    links_raw = f.data.get("links") or {}
    if not isinstance(links_raw, dict):
        f.problem("links", f"must be a mapping of {', '.join(LINK_KINDS)} to URLs")
        return {}
    links: dict[str, str] = {}
    for kind in LINK_KINDS:
        if kind in links_raw:
            url = links_raw[kind]
            if not isinstance(url, str) or not URL_RE.match(url):
                f.problem(f"links.{kind}", f"{shorten(url)} is not an http(s) URL with a plain host "
                                           f"(ASCII, no user or password before an @)")
                continue
            problem = text_problem(url, MAX_URL, False)
            if problem:
                f.problem(f"links.{kind}", problem)
            else:
                links[kind] = url
    for extra in sorted(str(k) for k in links_raw if k not in LINK_KINDS):
        f.problem(f"links.{extra}", f"unknown link kind; use {', '.join(LINK_KINDS)}")
    return links


def _enriched(f: Fields) -> list[Enriched]:
    raw = f.data.get("enriched")
    if raw is None:
        return []
    if not isinstance(raw, list):
        f.problem("enriched", "must be a list of {source, fetched, fields}")
        return []
    if len(raw) > MAX_ITEMS:
        f.problem("enriched", f"has {len(raw):,} items; at most {MAX_ITEMS:,} are allowed")
        return []
    out = []
    for i, item in enumerate(raw):
        try:
            e = Fields(item, f.path, f.entry, ("source", "fetched", "fields"), prefix=f"enriched[{i}].",
                        problems=f.problems)
        except CorpusError as exc:  # not a mapping
            f.problems.append(exc)
            continue
        source, fetched = e.text("source", required=True), e.text("fetched", required=True)
        if fetched is not None and not is_date(fetched, day=True):
            e.problem("fetched", f"{shorten(fetched)} is not a date YYYY-MM-DD")
        names = e.text_list("fields")
        if not e.data.get("fields"):
            e.problem("fields", "must list the fields this source gave")
        for name in names:
            if name not in ENRICHABLE:
                e.problem("fields", f"{shorten(name)} is not a field enrich fills ({', '.join(ENRICHABLE)})")
        if source is not None and fetched is not None:
            out.append(Enriched(source=source, fetched=fetched, fields=names))
    return out


@dataclass
class Entry:
    """One entry of a listing, as the listing showed it, pointing at the paper it is."""

    paper: str
    title: str
    abstract: str | None = None  # kept only when it differs from the paper's abstract


@dataclass
class Listing:
    """What one import read, and so where its papers came from: a Hugging Face listing, a feed
    (arXiv Atom, daily-papers JSON), a bibliography or a saved paper page."""

    slug: str
    name: str  # what a reader calls it: "arXiv feed arxiv-mlsys-2024-12-to-2025-12"
    entries: list[Entry]
    source: str  # the format it was read from
    origin: str  # the file's name, kept for the record and never shown on a page
    sha256: str
    date: str | None = None  # the listing's own date, YYYY, YYYY-MM or YYYY-MM-DD
    description: str | None = None
    imported: str | None = None  # the day it was imported, YYYY-MM-DD
    url: str | None = None  # its original address, where the source says it

    @property
    def path(self) -> str:
        return f"listings/{self.slug}/"

    @property
    def file(self) -> str:
        return f"listings/{self.slug}.yaml"

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Listing:
        f = Fields(data, path, None, LISTING_FIELDS)
        slug = f.slug()
        raw_entries = f.data.get("entries")
        entries = []
        if not isinstance(raw_entries, list) or not raw_entries:
            f.problem("entries", "must be a non-empty list")
        elif len(raw_entries) > MAX_ENTRIES:
            f.problem("entries", f"has {len(raw_entries):,} entries; at most {MAX_ENTRIES:,} are allowed")
        else:
            for i, raw in enumerate(raw_entries):
                try:
                    e = Fields(raw, path, f"{slug} #{i + 1}", ("paper", "title", "abstract"),
                                problems=f.problems)
                except CorpusError as exc:  # not a mapping
                    f.problems.append(exc)
                    continue
                paper = e.text("paper", required=True)
                title = e.text("title", required=True, limit=MAX_TITLE)
                abstract = e.text("abstract", limit=MAX_ABSTRACT)
                if paper is not None and title is not None:
                    entries.append(Entry(paper=paper, title=title, abstract=abstract))
        name = f.text("name", required=True, limit=MAX_NAME, plain=True)
        source, sha = f.text("source", required=True), f.text("sha256", required=True)
        origin = f.text("origin", required=True, limit=MAX_URL)
        date = f.text("date")
        if date is not None and not is_date(date):
            f.problem("date", f"{shorten(date)} is not a date: use YYYY, YYYY-MM or YYYY-MM-DD, with the "
                              f"year ('2025-03-14' for a listing shown as Mar 14)")
        elif date is not None and (problem := date_problem(date, what="a listing")):
            f.problem("date", problem)  # a day to come, as a paper's (audit V4)
        imported = f.text("imported")
        if imported is not None and not is_date(imported, day=True):
            f.problem("imported", f"{shorten(imported)} is not a date YYYY-MM-DD")
        elif imported is not None and (problem := date_problem(imported, day=True, what="an import")):
            f.problem("imported", problem)
        url = f.text("url", limit=MAX_URL)
        if url is not None and not URL_RE.match(url):
            f.problem("url", f"{shorten(url)} is not an http(s) URL")
        description = f.text("description", limit=MAX_DESCRIPTION, plain=True)
        listing = cls(slug=slug or "", name=name or "", entries=entries, source=source or "",
                      origin=origin or "", sha256=sha or "", date=date, description=description,
                      imported=imported, url=url)
        f.done(listing)
        return listing

    def to_dict(self) -> dict[str, Any]:
        entries = [present({"paper": e.paper, "title": e.title, "abstract": e.abstract})
                   for e in self.entries]
        return present({"slug": self.slug, "name": self.name, "date": self.date, "imported": self.imported,
                        "url": self.url, "description": self.description, "source": self.source,
                        "origin": self.origin, "sha256": self.sha256, "entries": entries},
                       "slug", "name", "source", "origin", "sha256", "entries")
