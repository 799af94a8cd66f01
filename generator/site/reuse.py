"""What `mkdocs serve` reuses from one build of the site to the next; a build uses none of it.

A `Site` made with a `RenderCache` (serve keeps one across rebuilds) hands each page and file
to its `Reuse`, which gives back the last build's text while what it shows, its key, is the
same, and renders it otherwise. The keys hold each paper's facts and the templates' stamp; a
template that shows more of the corpus must add it to its page's key here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import jinja2

from ..corpus.export import Memo, exports
from ..corpus.model import Listing, Paper
from ..corpus.store import Corpus
from ..corpus.taxonomy import Tag, Topic
from .feeds import atom_feed, recent
from .parts import Part

if TYPE_CHECKING:
    from .related import RelatedIndex


class Site(Protocol):
    """What reuse reads of a render.Site (a protocol, so that render may import this module and
    not the other way round)."""

    templates: Path
    name: str
    site_url: str
    topics: list[Topic]
    tags: dict[str, Tag]
    papers: list[Paper]
    bib_keys: dict[str, str]


class RenderCache:
    """What a Site computed in an earlier build, for `mkdocs serve` to reuse in the next one.

    The related papers, computed again only for the papers an edit can change. Each
    paper page, while what it shows is the same: its paper, the listings holding it (name and
    size), its related papers, the taxonomy's names and the templates. A paper template that
    shows more of the corpus must add it to `Reuse.paper_page`'s key. Each part of a topic, tag
    or listing page likewise, while its papers (or entries), its place among the parts and the
    counts it shows are the same (`Reuse.list_part_key`, `Reuse.listing_part_key`).
    """

    def __init__(self) -> None:
        from .related import RelatedIndex  # numpy and scipy: imported when first needed

        self.related: RelatedIndex = RelatedIndex()
        self.paper_pages: dict[str, tuple[Any, str]] = {}
        self.list_pages: dict[str, tuple[Any, str]] = {}  # path -> (what it shows, Markdown)
        self.envs: dict[str, jinja2.Environment] = {}  # templates folder -> its environment
        self.feeds: dict[str, tuple[Any, str]] = {}  # feed path -> (what it shows, Atom)
        self.bibtex: dict[str, tuple[Any, str]] = {}  # slug -> ((its facts, its key), entry)
        self.exports: Memo = {}  # slug -> (record, its JSON, its CSV line)
        # The last build's stamp and facts, kept while the same: the keys above hold them, and
        # compare in one step when they are the same objects (10,000 pages' keys, each build).
        self.stamp: Any = None
        self.facts: dict[str, tuple[Paper, tuple[Any, ...]]] = {}  # slug -> (paper, _facts)

    def same_stamp(self, stamp: Any) -> Any:
        if stamp != self.stamp:
            self.stamp = stamp
        return self.stamp

    def facts_of(self, papers: list[Paper]) -> dict[str, tuple[Any, ...]]:
        """Each paper's `_facts`, the last build's tuple while its record is the same object
        (the corpus cache gives an unchanged file's record again; records are not changed)."""
        kept, fresh = self.facts, {}
        for p in papers:
            hit = kept.get(p.slug)
            fresh[p.slug] = hit if hit is not None and hit[0] is p else (p, _facts(p))
        self.facts = fresh
        return {slug: facts for slug, (_, facts) in fresh.items()}


class Reuse:
    """A Site's pages and files under serve: the last build's, while what they show is the same."""

    def __init__(self, cache: RenderCache, site: Site) -> None:
        self.cache, self.site = cache, site
        self.stamp = cache.same_stamp(_stamp(site))
        self.facts = cache.facts_of(site.papers)
        for slug, (made_from, _) in list(cache.bibtex.items()):
            if made_from != (self.facts.get(slug), site.bib_keys.get(slug)):
                del cache.bibtex[slug]
        self.lists_before: dict[str, tuple[Any, str]] = {}

    def start_pages(self) -> None:
        self.lists_before, self.cache.list_pages = self.cache.list_pages, {}

    def end_pages(self, papers: Iterable[str]) -> None:
        for gone in set(self.cache.paper_pages) - set(papers):
            del self.cache.paper_pages[gone]
        self.lists_before = {}

    def paper_page(self, paper: Paper, listed: list[tuple[Listing, int]], related: list[Paper],
                   render: Callable[[], str]) -> str:
        facts = self.facts
        key = (self.stamp, self.site.bib_keys.get(paper.slug), (
            facts[paper.slug], tuple((li.slug, li.name, len(li.entries), pos) for li, pos in listed),
            tuple(facts[p.slug] for p in related)))
        hit = self.cache.paper_pages.get(paper.slug)
        if hit is not None and hit[0] == key:
            return hit[1]
        text = render()
        self.cache.paper_pages[paper.slug] = (key, text)
        return text

    def list_part(self, path: str, key: Callable[[], Any], render: Callable[[], str]) -> str:
        """A list part's Markdown: the last build's, if what it shows (`key`, with the templates
        and the taxonomy's names) is the same."""
        shown = (self.stamp, key())
        hit = self.lists_before.get(path)
        text = hit[1] if hit is not None and hit[0] == shown else render()
        self.cache.list_pages[path] = (shown, text)
        return text

    @staticmethod
    def listing_key(listing: Listing, rows: list[dict[str, Any]], shared: int, citable: tuple[int, int],
                    waiting: int) -> Any:
        """What every part of a listing's page shows of the listing as a whole."""
        return (listing.slug, listing.name, listing.description, listing.origin, listing.source,
                listing.date, listing.imported, listing.url, len(rows), shared, citable, waiting)

    def listing_part_key(self, whole: Any, part: Part[dict[str, Any]]) -> Any:
        return (whole, _part_key(part), tuple(
            (r["position"], r["entry"].title, r["paper"] and self.facts[r["paper"].slug],
             tuple((li.slug, li.name, pos, href) for li, pos, href in r["elsewhere"]))
            for r in part.items))

    def list_part_key(self, whole: Any, order: Any, switch: Any, part: Part[Paper]) -> Any:
        return (whole, order, switch, _part_key(part), tuple(self.facts[p.slug] for p in part.items))

    def bibtex_key(self, paper: Paper, key: str) -> Any:
        """What a paper's BibTeX entry is made of."""
        return (self.facts[paper.slug], key)

    def feed(self, **values: Any) -> str:
        """atom_feed(**values), kept while its newest papers and names are the same."""
        papers = values.pop("papers")
        entries = recent(papers)
        shown = (self.stamp, tuple(sorted(values.items())), tuple(self.facts[p.slug] for p in entries))
        hit = self.cache.feeds.get(values["feed_path"])
        if hit is None or hit[0] != shown:
            hit = self.cache.feeds[values["feed_path"]] = (shown, atom_feed(papers=entries, **values))
        return hit[1]

    def export_jobs(self, corpus: Corpus) -> list[tuple[str, Callable[[], str]]]:
        """The JSON and CSV exports, written at once from the memo of each paper's record."""
        both: list[str] = []

        def export(i: int) -> str:
            if not both:
                both.extend(exports(corpus, self.cache.exports))
            return both[i]
        return [("exports/papers.json", partial(export, 0)), ("exports/papers.csv", partial(export, 1))]


def _stamp(site: Site) -> tuple[Any, ...]:
    """The templates (paths, mtimes, sizes) and the names every page may show."""
    templates = []
    for base, dirs, names in os.walk(site.templates):
        dirs.sort()
        for name in sorted(names):
            st = os.stat(os.path.join(base, name))
            templates.append((os.path.join(base, name), st.st_mtime_ns, st.st_size))
    return (tuple(templates), tuple((t.id, t.name) for t in site.topics),
            tuple((t.id, t.name) for t in site.tags.values()), site.name, site.site_url)


def _facts(p: Paper) -> tuple[Any, ...]:
    """Everything a page can show of a paper."""
    return (p.slug, p.title, p.abstract, tuple(p.alternate_titles), p.arxiv, tuple(p.authors), p.et_al,
            p.date, tuple(sorted(p.links.items())), tuple(p.topics), tuple(p.tags), p.added,
            tuple(p.curated), tuple(sorted(p.confidence.items())))


def _part_key(part: Part[Any]) -> tuple[Any, ...]:
    """A part's place among the parts of its list (its pager follows from it)."""
    return (part.path, part.number, part.total, part.start)
