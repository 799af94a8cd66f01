"""The search page's filters as built: each facet's values and their counts over every paper.

The search page's filter box was empty for 3 to 5 seconds on the real site, until Pagefind had
fetched every filter chunk of its index and counted them. It is now written into the page with
the counts a search with no words and no filter gives (docs/assets/search.js then counts again
for the reader's words and filters, and draws the same markup). The values are those the paper
pages give Pagefind (templates/theme/main.html, templates/paper.md.j2), in search.js's order:
the most papers first, then by name in code point order; years newest first, "no date" last;
the authors with the most papers only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..corpus.model import Listing, Paper
from .timeline import by_year

AUTHORS_SHOWN = 10  # search.js's AUTHORS_SHOWN


@dataclass(frozen=True)
class Facet:
    name: str  # the filter's name in Pagefind and in the search page's URL
    label: str
    values: list[tuple[str, int]]


def author_key(name: str) -> str:
    """An author's name as Pagefind's filter holds it (templates/theme/main.html says why)."""
    return name.replace('"', "\uff02").replace("\\", "\uff3c")


def _by_count(counts: Counter[str], most: int | None = None) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:most]


def search_facets(papers: Iterable[Paper], topic_names: Callable[[list[str]], list[str]],
                  tag_names: Callable[[list[str]], list[str]],
                  listings_of: dict[str, list[tuple[Listing, int]]]) -> list[Facet]:
    """Every facet with the values some paper has, as search.js draws them before a search."""
    papers = list(papers)
    topics, review, listings, tags, authors = (Counter[str]() for _ in range(5))
    for paper in papers:
        topics.update(topic_names(paper.topics))
        review["reviewed" if paper.topics_reviewed else "suggested"] += 1
        listings.update({listing.name for listing, _ in listings_of.get(paper.slug, [])})
        tags.update(tag_names(paper.tags))
        authors.update({author_key(name) for name in paper.authors})
    years = by_year(papers)
    facets = [Facet("topic", "Topic", _by_count(topics)),
              Facet("review", "Topics reviewed", _by_count(review)),
              Facet("year", "Year", years),
              Facet("listing", "Listing", _by_count(listings)),
              Facet("tag", "Tag", _by_count(tags)),
              Facet("author", "Author", _by_count(authors, AUTHORS_SHOWN))]
    return [facet for facet in facets if facet.values]

