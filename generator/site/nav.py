"""The generated navigation, and the file a person edits to change each generated page."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..corpus.store import Corpus
from ..corpus.taxonomy import Topic


@dataclass(frozen=True)
class NavItem:
    title: str
    path: str | None = None  # a page path, or None for a section
    children: tuple[NavItem, ...] = ()


def navigation(topics: list[Topic]) -> list[NavItem]:
    return [
        NavItem("Home", "index.md"),
        NavItem("Topics", None, (NavItem("All topics", "topics/index.md"),
                                 *(NavItem(t.name, f"topics/{t.id}.md") for t in topics))),
        # One entry for the listings: their names ("HF Papers, Mar 14") tell a reader little,
        # and every listing in the sidebar of every page would be bytes on every page.
        NavItem("Listings", "listings/index.md"),
        NavItem("Tags", "tags/index.md"),
        NavItem("Statistics", "statistics.md"),
    ]


def nav_paths(items: list[NavItem]) -> set[str]:
    paths: set[str] = set()
    todo = list(items)
    while todo:
        item = todo.pop()
        if item.path:
            paths.add(item.path)
        todo.extend(item.children)
    return paths


def edit_targets(corpus: Corpus, topics: list[Topic], pages: Iterable[str] = ()) -> dict[str, str]:
    """For each generated page, the corpus or template file a person edits to change it."""
    out = {f"papers/{p.slug}.md": f"corpus/{p.file}" for p in corpus.sorted_papers()}
    for path in pages:
        kind, _, rest = path.partition("/")
        name = rest.split("/")[0].removesuffix(".md")
        if kind == "listings" and name in corpus.listings:
            out[path] = f"corpus/{corpus.listings[name].file}"
        elif kind in ("topics", "tags"):
            out[path] = "corpus/taxonomy.yaml"
    out.update({f"listings/{li.slug}.md": f"corpus/{li.file}" for li in corpus.sorted_listings()})
    out.update({f"topics/{t.id}.md": "corpus/taxonomy.yaml" for t in topics})
    out.update({f"tags/{t.id}.md": "corpus/taxonomy.yaml" for t in corpus.taxonomy.tags})
    out["tags/index.md"] = "corpus/taxonomy.yaml"
    out["index.md"] = "templates/home.md.j2"
    out["statistics.md"] = "templates/statistics.md.j2"
    return out
