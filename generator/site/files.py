"""The files a build writes besides its pages: the Atom feeds and the corpus exports (BibTeX,
JSON, CSV), each with what writes it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Protocol

from ..corpus.export import bib_file, to_csv, to_json
from ..corpus.model import Listing, Paper
from ..corpus.store import Corpus
from ..corpus.taxonomy import Topic
from .feeds import atom_feed
from .reuse import Reuse


class Site(Protocol):
    """What the files read of a render.Site (a protocol, so that render may import this module
    and not the other way round)."""

    corpus: Corpus
    name: str
    site_url: str
    topics: list[Topic]
    papers: list[Paper]
    listings: list[Listing]
    by_topic: dict[str, list[Paper]]
    by_tag: dict[str, list[Paper]]
    reuse: Reuse | None

    def bibtex(self, paper: Paper) -> str | None: ...


def file_jobs(site: Site) -> list[tuple[str, Callable[[], str]]]:
    """The other generated files' paths and what writes each, sorted by path."""
    names = {t.id: t.name for t in site.topics}
    feed = partial(atom_feed if site.reuse is None else site.reuse.feed,
                   site_url=site.site_url, topic_names=names, author=site.name)
    # Feeds sit at the site root: Material fetches a sitemap.xml beside every
    # <link rel="alternate">, and the root is where MkDocs writes it. Topic and tag ids
    # share one namespace, so feed-ID.xml names one feed.
    jobs: list[tuple[str, Callable[[], str]]] = [
        ("feed.xml", partial(feed, title=f"{site.name}: newest papers", feed_path="feed.xml",
                             page_path="", papers=site.papers))]
    for topic in site.topics:
        jobs.append((f"feed-{topic.id}.xml", partial(
            feed, title=f"{site.name}: {topic.name}", feed_path=f"feed-{topic.id}.xml",
            page_path=f"topics/{topic.id}/", papers=site.by_topic[topic.id])))
    for tag in site.corpus.taxonomy.tags:
        jobs.append((f"feed-{tag.id}.xml", partial(
            feed, title=f"{site.name}: tag {tag.name}", feed_path=f"feed-{tag.id}.xml",
            page_path=f"tags/{tag.id}/", papers=site.by_tag[tag.id])))
    bib = partial(bib_file, entry=site.bibtex)
    jobs.append(("exports/survey.bib", partial(bib, site.papers, title=site.name)))
    for topic in site.topics:
        jobs.append((f"exports/topics/{topic.id}.bib", partial(
            bib, site.by_topic[topic.id], title=f"{site.name}: {topic.name}")))
    for tag in site.corpus.taxonomy.tags:
        jobs.append((f"exports/tags/{tag.id}.bib", partial(
            bib, site.by_tag[tag.id], title=f"{site.name}: tag {tag.name}")))
    for listing in site.listings:
        papers = [site.corpus.papers[s] for s in dict.fromkeys(e.paper for e in listing.entries)
                  if s in site.corpus.papers]  # not those that wait for a curator
        jobs.append((f"exports/listings/{listing.slug}.bib", partial(
            bib, papers, title=f"{site.name}: {listing.name}")))
    if site.reuse is not None:
        jobs += site.reuse.export_jobs(site.corpus)
    else:
        jobs += [("exports/papers.json", partial(to_json, site.corpus)),
                 ("exports/papers.csv", partial(to_csv, site.corpus))]
    jobs.sort(key=lambda job: job[0])
    return jobs
