"""The corpus model: one record type per domain noun, validated when built from a file.

Parsing (`from_dict`) and writing (`to_dict`) are symmetric: a record written back gives the
mapping it was read from. Derived values (URLs, year, listings of a paper) are computed, never
stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as _date
from typing import Any

from ..core.errors import CorpusError
from ..core.text import has_control, is_slug, squash

LINK_KINDS = ("paper", "pdf", "code", "project")
CURATABLE = ("title", "abstract", "arxiv", "authors", "date", "topics", "tags", "links")
# What `survey enrich` fills from a metadata source, each recorded under `enriched`.
ENRICHABLE = ("arxiv", "authors", "date", *(f"links.{k}" for k in LINK_KINDS))
ARXIV_RE = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z][a-z.-]*(?:\.[A-Z]{2})?/\d{7})$")
DATE_RE = re.compile(r"^\d{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?)?$")
URL_RE = re.compile(r"^https?://[^\s<>\"'`\\]+$")

PAPER_FIELDS = (
    "slug", "title", "alternate_titles", "abstract", "arxiv", "authors", "date",
    "links", "topics", "tags", "added", "enriched", "curated",
)
LISTING_FIELDS = ("slug", "name", "date", "description", "source", "origin", "sha256", "entries")


def _err(path: str, entry: str | None, name: str, message: str) -> CorpusError:
    return CorpusError(path, message, entry=entry, field=name)


class _Fields:
    """Typed access to one record's raw mapping; every failure names file, entry and field."""

    def __init__(self, data: Any, path: str, entry: str | None, allowed: tuple[str, ...],
                 prefix: str = "") -> None:
        if not isinstance(data, dict):
            raise CorpusError(path, f"expected a mapping of fields, found {_kind(data)}", entry=entry,
                              field=prefix.rstrip(".") or None)
        unknown = sorted(str(k) for k in data if k not in allowed)
        if unknown:
            raise _err(path, entry, prefix + unknown[0], f"unknown field; known fields: {', '.join(allowed)}")
        self.data, self.path, self.entry, self.prefix = data, path, entry, prefix

    def error(self, name: str, message: str) -> CorpusError:
        return _err(self.path, self.entry, self.prefix + name, message)

    def text(self, name: str, *, required: bool = False, single_line: bool = True) -> str | None:
        value = self.data.get(name)
        if value is None:
            if required:
                raise self.error(name, "is required")
            return None
        if isinstance(value, _date):
            value = value.isoformat()
        if not isinstance(value, str):
            raise self.error(name, f"must be text, found {_kind(value)} {value!r} (quote it)")
        if has_control(value):
            raise self.error(name, "contains a control character")
        if single_line and value != squash(value):
            raise self.error(name, "must be one line without leading, trailing or repeated spaces")
        if required and not value:
            raise self.error(name, "must not be empty")
        return value

    def text_list(self, name: str, *, unique: bool = True) -> list[str]:
        value = self.data.get(name)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(name, f"must be a list, found {_kind(value)}")
        out: list[str] = []
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                raise self.error(f"{name}[{i}]", f"must be non-empty text, found {item!r}")
            if has_control(item) or item != squash(item):
                raise self.error(f"{name}[{i}]", "must be one line without extra spaces")
            if unique and item in out:
                raise self.error(f"{name}[{i}]", f"{item!r} is listed twice")
            out.append(item)
        return out


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false", int: "a number",
            float: "a number", type(None): "nothing"}.get(type(value), type(value).__name__)


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
    alternate_titles: list[str] = field(default_factory=list)
    arxiv: str | None = None
    authors: list[str] = field(default_factory=list)
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
        f = _Fields(data, path, None, PAPER_FIELDS)
        slug = f.text("slug", required=True)
        assert slug is not None
        if not is_slug(slug):
            raise f.error("slug", f"{slug!r} is not a slug (lower-case letters, digits, single hyphens)")
        f.entry = slug
        title = f.text("title", required=True)
        abstract = f.text("abstract", required=True)
        assert title is not None and abstract is not None
        arxiv = f.text("arxiv")
        if arxiv is not None and not ARXIV_RE.match(arxiv):
            raise f.error("arxiv", f"{arxiv!r} is not an arXiv id without version, like '2104.07857'")
        date = f.text("date")
        if date is not None and not DATE_RE.match(date):
            raise f.error("date", f"{date!r} is not a date: use YYYY, YYYY-MM or YYYY-MM-DD")
        added = f.text("added")
        if added is not None and not re.match(r"^\d{4}-\d{2}-\d{2}$", added):
            raise f.error("added", f"{added!r} is not a date YYYY-MM-DD")
        links_raw = f.data.get("links") or {}
        if not isinstance(links_raw, dict):
            raise f.error("links", f"must be a mapping of {', '.join(LINK_KINDS)} to URLs")
        links: dict[str, str] = {}
        for kind in LINK_KINDS:
            if kind in links_raw:
                url = links_raw[kind]
                if not isinstance(url, str) or not URL_RE.match(url):
                    raise f.error(f"links.{kind}", f"{url!r} is not an http(s) URL")
                links[kind] = url
        extra = sorted(str(k) for k in links_raw if k not in LINK_KINDS)
        if extra:
            raise f.error(f"links.{extra[0]}", f"unknown link kind; use {', '.join(LINK_KINDS)}")
        enriched = _enriched(f)
        curated = f.text_list("curated")
        for name in curated:
            if name not in CURATABLE:
                raise f.error("curated", f"{name!r} is not a curatable field ({', '.join(CURATABLE)})")
        paper = cls(
            slug=slug,
            title=title,
            abstract=abstract,
            topics=f.text_list("topics"),
            tags=f.text_list("tags"),
            alternate_titles=f.text_list("alternate_titles"),
            arxiv=arxiv,
            # Two co-authors may share a name ('Chen Li' twice in 45 real papers): real data.
            authors=f.text_list("authors", unique=False),
            date=date,
            links=links,
            added=added,
            enriched=enriched,
            curated=[c for c in CURATABLE if c in curated],
        )
        for name in ("topics", "tags"):
            if name not in f.data:
                raise f.error(name, "is required (write [] for none)")
        return paper

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"slug": self.slug, "title": self.title}
        if self.alternate_titles:
            out["alternate_titles"] = list(self.alternate_titles)
        out["abstract"] = self.abstract
        if self.arxiv:
            out["arxiv"] = self.arxiv
        if self.authors:
            out["authors"] = list(self.authors)
        if self.date:
            out["date"] = self.date
        if self.links:
            out["links"] = {k: self.links[k] for k in LINK_KINDS if k in self.links}
        out["topics"] = list(self.topics)
        out["tags"] = list(self.tags)
        if self.added:
            out["added"] = self.added
        if self.enriched:
            out["enriched"] = [e.to_dict() for e in self.enriched]
        if self.curated:
            out["curated"] = list(self.curated)
        return out


def _enriched(f: _Fields) -> list[Enriched]:
    raw = f.data.get("enriched")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise f.error("enriched", "must be a list of {source, fetched, fields}")
    out = []
    for i, item in enumerate(raw):
        e = _Fields(item, f.path, f.entry, ("source", "fetched", "fields"), prefix=f"enriched[{i}].")
        source, fetched = e.text("source", required=True), e.text("fetched", required=True)
        assert source is not None and fetched is not None
        if not re.match(r"^\d{4}-\d{2}-\d{2}$", fetched):
            raise e.error("fetched", f"{fetched!r} is not a date YYYY-MM-DD")
        names = e.text_list("fields")
        if not names:
            raise e.error("fields", "must list the fields this source gave")
        for name in names:
            if name not in ENRICHABLE:
                raise e.error("fields", f"{name!r} is not a field enrich fills ({', '.join(ENRICHABLE)})")
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
    slug: str
    name: str
    entries: list[Entry]
    source: str  # the format it was read from
    origin: str  # file name or URL it came from
    sha256: str
    date: str | None = None  # as the listing shows it, e.g. "Mar 11" (HF omits the year)
    description: str | None = None

    @property
    def path(self) -> str:
        return f"listings/{self.slug}/"

    @property
    def file(self) -> str:
        return f"listings/{self.slug}.yaml"

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Listing:
        f = _Fields(data, path, None, LISTING_FIELDS)
        slug = f.text("slug", required=True)
        assert slug is not None
        if not is_slug(slug):
            raise f.error("slug", f"{slug!r} is not a slug (lower-case letters, digits, single hyphens)")
        f.entry = slug
        raw_entries = f.data.get("entries")
        if not isinstance(raw_entries, list) or not raw_entries:
            raise f.error("entries", "must be a non-empty list")
        entries = []
        for i, raw in enumerate(raw_entries):
            e = _Fields(raw, path, f"{slug} #{i + 1}", ("paper", "title", "abstract"))
            paper = e.text("paper", required=True)
            title = e.text("title", required=True)
            assert paper is not None and title is not None
            entries.append(Entry(paper=paper, title=title, abstract=e.text("abstract")))
        name, source, origin, sha = (f.text(k, required=True) for k in ("name", "source", "origin", "sha256"))
        assert name and source and origin and sha
        return cls(slug=slug, name=name, entries=entries, source=source, origin=origin, sha256=sha,
                   date=f.text("date"), description=f.text("description"))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"slug": self.slug, "name": self.name}
        if self.date:
            out["date"] = self.date
        if self.description:
            out["description"] = self.description
        out.update(source=self.source, origin=self.origin, sha256=self.sha256)
        out["entries"] = [
            {"paper": e.paper, "title": e.title, **({"abstract": e.abstract} if e.abstract else {})}
            for e in self.entries
        ]
        return out
