"""Rendering the corpus into the site's Markdown pages, from the Jinja2 templates in templates/.

Knows nothing of MkDocs: it returns {path: Markdown} and the navigation as plain data, so the
same pages can be written to a folder (`survey build --out`) for another engine.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus

import jinja2
from markupsafe import Markup

from ..core.settings import DEFAULT_NAME
from ..core.text import first_sentence
from ..corpus.export import Memo, bib_file, bibtex, bibtex_keys, exports, to_csv, to_json
from ..corpus.model import Listing, Paper
from ..corpus.store import Corpus
from ..corpus.taxonomy import OTHER, Tag, Topic
from .feeds import atom_feed, recent
from .markup import external_url, finalize, html_attr, trusted
from .parts import Part, entry_part, orders_for, part_path, relative, sort_papers, split, title_order
from .stats import Bar, bar_chart, heatmap, listing_sizes, topic_overlaps

if TYPE_CHECKING:
    from .related import RelatedIndex

OTHER_TOPIC = Topic(
    id=OTHER, name="Other",
    description="Papers that fit none of the topics above: they are still part of the survey, "
                "and their tags say what they are about.",
    threshold=0, rules=[],
)


@dataclass(frozen=True)
class NavItem:
    title: str
    path: str | None = None  # a page path, or None for a section
    children: tuple[NavItem, ...] = ()


# Characters YAML will not take raw inside a double-quoted scalar (line separators, BOM, C1).
_YAML_UNSAFE = re.compile("[\u0080-\u009f\u2028\u2029\ufeff]")


# What json.dumps(value, ensure_ascii=False) writes for a string, without the JSONEncoder it
# makes for each call with that option (55,000 calls at 3,000 papers).
_json_string = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _yaml_text(value: str) -> str:
    """A double-quoted YAML scalar. JSON's string syntax is YAML's, and far faster to write
    than PyYAML's emitter (a tenth of the render time at 10,000 papers)."""
    quoted = _json_string(value)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def front_matter(**values: Any) -> str:
    """YAML front matter of text values and lists of text."""
    lines = ["---"]
    for key, value in values.items():
        if value in (None, [], ""):
            continue
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"- {_yaml_text(str(item))}" for item in value)
        else:
            lines.append(f"{key}: {_yaml_text(str(value))}")
    lines.append("---")
    return "\n".join(lines) + "\n"


class RenderCache:
    """What a Site computed in an earlier build, for `mkdocs serve` to reuse in the next one.

    The related papers, computed again only for the papers an edit can change. Each
    paper page, while what it shows is the same: its paper, the listings holding it (name and
    size), its related papers, the taxonomy's names and the templates. A paper template that
    shows more of the corpus must add it to `Site._paper_page_key`. Each part of a topic, tag
    or listing page likewise, while its papers (or entries), its place among the parts and the
    counts it shows are the same (`Site._paper_list`, `Site._listing_part_key`).
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


class Site:
    def __init__(self, corpus: Corpus, templates: Path, site_url: str = "",
                 site_name: str = DEFAULT_NAME, cache: RenderCache | None = None) -> None:
        self.corpus = corpus
        self.cache = cache
        self.templates = templates
        self.name = site_name
        self.site_url = site_url if not site_url or site_url.endswith("/") else site_url + "/"
        # Under serve the environment is kept, with the templates it compiled (Jinja compiles a
        # template again when its file changes).
        env = cache.envs.get(str(templates)) if cache is not None else None
        if env is None:
            env = jinja2.Environment(
                loader=jinja2.FileSystemLoader(str(templates)),
                finalize=finalize,
                autoescape=False,
                undefined=jinja2.StrictUndefined,
                trim_blocks=True,
                lstrip_blocks=True,
                keep_trailing_newline=True,
            )
            if cache is not None:
                cache.envs[str(templates)] = env
        self.env = env
        self.env.filters.update(first_sentence=first_sentence, url=external_url, trusted=trusted)
        self.env.globals.update(front_matter=self._front_matter, search_url=_search_url)
        tax = corpus.taxonomy
        self.topics: list[Topic] = [*tax.topics, OTHER_TOPIC]
        self._topic_names: dict[str, str] = {}
        for t in self.topics:  # the first topic of an id names it
            self._topic_names.setdefault(t.id, t.name)
        self.tags: dict[str, Tag] = {t.id: t for t in tax.tags}
        self.papers = corpus.sorted_papers()
        self.listings = corpus.sorted_listings()
        self.listings_of = corpus.listings_of()
        self.by_topic: dict[str, list[Paper]] = {t.id: [] for t in self.topics}
        self.by_tag: dict[str, list[Paper]] = {t.id: [] for t in tax.tags}
        for paper in self.papers:
            for topic in paper.topics or [OTHER]:
                self.by_topic[topic].append(paper)
            for tag in paper.tags:
                self.by_tag[tag].append(paper)
        for papers in (*self.by_topic.values(), *self.by_tag.values()):
            papers.sort(key=title_order)
        self._related: dict[str, list[str]] | None = None  # computed when a paper page is
        self.bib_keys = bibtex_keys(self.papers)
        # Every part of a topic or tag page shows the count of its whole list (not changed
        # after this point): 2,000 parts at 10,000 papers, each counting up to 3,000 papers.
        self._citable: dict[int, tuple[list[Paper], int]] = {}
        for papers in (self.papers, *self.by_topic.values(), *self.by_tag.values()):
            self._citable[id(papers)] = (papers, sum(p.slug in self.bib_keys for p in papers))
        self._items: dict[tuple[str, str | None], str] = {}
        self._parts: Any = None  # _parts.md.j2, for its item macro
        self._paper_template: jinja2.Template | None = None
        # Each citable paper's BibTeX entry, made once (a paper is cited on its page and in
        # several .bib files); under serve kept across builds while the paper and its key are.
        self._bibtex: dict[str, tuple[Any, str]] = cache.bibtex if cache is not None else {}
        if cache is not None:  # what the pages kept under serve are compared by
            self._stamp = cache.same_stamp(self._paper_page_stamp())
            self._facts = cache.facts_of(self.papers)
            for slug, (made_from, _) in list(self._bibtex.items()):
                if made_from != (self._facts.get(slug), self.bib_keys.get(slug)):
                    del self._bibtex[slug]

    @property
    def related(self) -> dict[str, list[str]]:
        """Each paper's related papers, computed when the first paper page is rendered."""
        if self._related is None:
            from .related import related_papers  # numpy and scipy: imported when first needed

            cache = self.cache
            self._related = (related_papers(self.papers) if cache is None
                             else cache.related.update(self.papers))
        return self._related

    def _front_matter(self, **values: Any) -> Markup:
        for key in ("title", "description", "feed_title"):
            if isinstance(values.get(key), str):
                values[key] = html_attr(values[key])
        return trusted(front_matter(**values))

    def pages(self) -> dict[str, str]:
        """Every page's Markdown, by path."""
        cache = self.cache
        if cache is not None:
            self._lists_before, cache.list_pages = cache.list_pages, {}
        out = {path: job() for path, job in self._page_jobs()}
        if cache is not None:
            for gone in set(cache.paper_pages) - set(self.corpus.papers):
                del cache.paper_pages[gone]
            del self._lists_before
        return out

    def _page_jobs(self) -> list[tuple[str, Callable[[], str]]]:
        """Every page's path and what renders it, in `page_order`."""
        jobs: list[tuple[str, Callable[[], str]]] = []
        render = self._render
        jobs.append(("index.md", partial(render, "home.md.j2", home=True)))
        jobs.append(("topics/index.md", partial(render, "topics.md.j2")))
        for topic in self.topics:
            jobs += self._paper_list("topic.md.j2", f"topics/{topic.id}", self.by_topic[topic.id],
                                     topic=topic)
        jobs.append(("listings/index.md", partial(render, "listings.md.j2")))
        for listing in self.listings:
            rows = self._listing_rows(listing)
            # What every part says of the whole listing, counted once rather than on each part.
            shared = sum(1 for r in rows if r["elsewhere"])
            citable = self.citable(self._listed_papers(rows))
            whole = self._listing_key(listing, rows, shared, citable) if self.cache is not None else None
            for part in split(rows, f"listings/{listing.slug}"):
                jobs.append((part.path, partial(
                    self._cached, part.path, partial(self._listing_part_key, whole, part),
                    partial(render, "listing.md.j2", listing=listing, part=part, rows=rows,
                            shared=shared, citable=citable))))
        jobs.append(("statistics.md", lambda: render("statistics.md.j2", stats=self.statistics())))
        jobs.append(("search.md", partial(render, "search.md.j2")))
        jobs.append(("tags/index.md", partial(render, "tags.md.j2")))
        for tag in self.corpus.taxonomy.tags:
            jobs += self._paper_list("tag.md.j2", f"tags/{tag.id}", self.by_tag[tag.id], tag=tag)
        jobs += [(f"papers/{paper.slug}.md", partial(self._paper_page, paper)) for paper in self.papers]
        jobs.sort(key=lambda job: page_order(job[0]))
        return jobs

    def _paper_page(self, paper: Paper) -> str:
        listed = self.listings_of.get(paper.slug, [])
        related = [self.corpus.papers[s] for s in self.related.get(paper.slug, [])]
        paper_pages = self.cache.paper_pages if self.cache is not None else None
        if paper_pages is not None:
            key = (self._stamp, self.bib_keys.get(paper.slug), self._paper_page_key(paper, listed, related))
            hit = paper_pages.get(paper.slug)
            if hit is not None and hit[0] == key:
                return hit[1]
        template = self._paper_template
        if template is None:
            template = self._paper_template = self.env.get_template("paper.md.j2")
        text = template.render(
            self._context(), paper=paper, related=related, bibtex=self.bibtex(paper),
            listed=[(li, pos, self.entry_link(f"papers/{paper.slug}.md", li, pos)) for li, pos in listed])
        if paper_pages is not None:
            paper_pages[paper.slug] = (key, text)
        return text

    def _listing_part_key(self, whole: Any, part: Part[dict[str, Any]]) -> Any:
        return (whole, _part_key(part), tuple(
            (r["position"], r["entry"].title, self._facts[r["paper"].slug],
             tuple((li.slug, li.name, pos, href) for li, pos, href in r["elsewhere"]))
            for r in part.items))

    def _list_part_key(self, whole: Any, order: Any, switch: Any, part: Part[Paper]) -> Any:
        return (whole, order, switch, _part_key(part), tuple(self._facts[p.slug] for p in part.items))

    def _cached(self, path: str, key: Callable[[], Any], render: Callable[[], str]) -> str:
        """A list part's Markdown: rendered, or under serve the last build's, if what it shows
        (`key`, with the templates and the taxonomy's names) is the same."""
        if self.cache is None:
            return render()
        shown = (self._stamp, key())
        hit = self._lists_before.get(path)
        text = hit[1] if hit is not None and hit[0] == shown else render()
        self.cache.list_pages[path] = (shown, text)
        return text

    def _listing_key(self, listing: Listing, rows: list[dict[str, Any]], shared: int,
                     citable: int) -> Any:
        """What every part of a listing's page shows of the listing as a whole."""
        return (listing.slug, listing.name, listing.description, listing.origin, listing.source,
                listing.date, len(rows), shared, citable)

    @staticmethod
    def _listed_papers(rows: list[dict[str, Any]]) -> list[Paper]:
        """The papers of a listing's rows, each once."""
        return list({r["paper"].slug: r["paper"] for r in rows}.values())

    def _paper_page_stamp(self) -> tuple[Any, ...]:
        templates = []
        for base, dirs, names in os.walk(self.templates):
            dirs.sort()
            for name in sorted(names):
                st = os.stat(os.path.join(base, name))
                templates.append((os.path.join(base, name), st.st_mtime_ns, st.st_size))
        return (tuple(templates), tuple((t.id, t.name) for t in self.topics),
                tuple((t.id, t.name) for t in self.tags.values()), self.name, self.site_url)

    def _paper_page_key(self, paper: Paper, listed: list[tuple[Listing, int]], related: list[Paper]) -> Any:
        return (self._facts[paper.slug],
                tuple((li.slug, li.name, len(li.entries), pos) for li, pos in listed),
                tuple(self._facts[p.slug] for p in related))

    def bibtex(self, paper: Paper) -> str | None:
        """The paper's BibTeX entry with its key in this site, or None when it cannot be cited."""
        key = self.bib_keys.get(paper.slug)
        if key is None:
            return bibtex(paper, None)
        hit = self._bibtex.get(paper.slug)
        if hit is None:
            made_from = (self._facts[paper.slug], key) if self.cache is not None else None
            hit = self._bibtex[paper.slug] = (made_from, bibtex(paper, key) or "")
        return hit[1]

    def item(self, paper: Paper, current_topic: str | None, prefix: str) -> Markup:
        """One paper's entry in a topic or tag list: `_parts.md.j2`'s `item` macro.

        A paper is listed some eight times (each topic and tag, in two orders, on parts at
        different depths), always the same but for the links' prefix: the macro is rendered
        once per paper and topic, with a placeholder where the prefix goes.
        """
        key = (paper.slug, current_topic)
        text = self._items.get(key)
        if text is None:
            if self._parts is None:
                self._parts = self.env.get_template("_parts.md.j2").make_module(self._context())
            macro = self._parts.item
            text = self._items[key] = str(macro(paper, current_topic, _PREFIX))
        return Markup(text.replace(_PREFIX, prefix))

    def _paper_list(self, template: str, base: str, papers: list[Paper],
                    **context: Any) -> list[tuple[str, Callable[[], str]]]:
        """A list of papers in parts of 100, once per order the reader can choose."""
        out: list[tuple[str, Callable[[], str]]] = []
        orders = orders_for(papers)
        whole = ((template, repr(sorted(context.items())), len(papers), self.citable(papers))
                 if self.cache is not None else None)
        for order in orders:
            order_base = f"{base}/{order.key}" if order.key else base
            for part in split(sort_papers(papers, order), order_base):
                switch = [(o.label, None if o is order else relative(part.path, part_path(
                    f"{base}/{o.key}" if o.key else base, 1))) for o in orders]
                out.append((part.path, partial(
                    self._cached, part.path, partial(self._list_part_key, whole, order, switch, part),
                    partial(self._render, template, papers=papers, part=part, order=order,
                            switch=switch, **context))))
        return out

    def entry_link(self, from_path: str, listing: Listing, position: int) -> str:
        """A link from a page to one entry of a listing, on the part of the listing that holds it."""
        target = part_path(f"listings/{listing.slug}", entry_part(position))
        return f"{relative(from_path, target)}#entry-{position}"

    def files(self) -> dict[str, str]:
        """The other generated files: Atom feeds and the corpus exports."""
        return {path: job() for path, job in self._file_jobs()}

    def _file_jobs(self) -> list[tuple[str, Callable[[], str]]]:
        """The other generated files' paths and what writes each, sorted by path."""
        names = {t.id: t.name for t in self.topics}
        feed = partial(self._feed, site_url=self.site_url, topic_names=names, author=self.name)
        # Feeds sit at the site root: Material fetches a sitemap.xml beside every
        # <link rel="alternate">, and the root is where MkDocs writes it. Topic and tag ids
        # share one namespace, so feed-ID.xml names one feed.
        jobs: list[tuple[str, Callable[[], str]]] = [
            ("feed.xml", partial(feed, title=f"{self.name}: newest papers", feed_path="feed.xml",
                                 page_path="", papers=self.papers))]
        for topic in self.topics:
            jobs.append((f"feed-{topic.id}.xml", partial(
                feed, title=f"{self.name}: {topic.name}", feed_path=f"feed-{topic.id}.xml",
                page_path=f"topics/{topic.id}/", papers=self.by_topic[topic.id])))
        for tag in self.corpus.taxonomy.tags:
            jobs.append((f"feed-{tag.id}.xml", partial(
                feed, title=f"{self.name}: tag {tag.name}", feed_path=f"feed-{tag.id}.xml",
                page_path=f"tags/{tag.id}/", papers=self.by_tag[tag.id])))
        bib = partial(bib_file, entry=self.bibtex)
        jobs.append(("exports/survey.bib", partial(bib, self.papers, title=self.name)))
        for topic in self.topics:
            jobs.append((f"exports/topics/{topic.id}.bib", partial(
                bib, self.by_topic[topic.id], title=f"{self.name}: {topic.name}")))
        for tag in self.corpus.taxonomy.tags:
            jobs.append((f"exports/tags/{tag.id}.bib", partial(
                bib, self.by_tag[tag.id], title=f"{self.name}: tag {tag.name}")))
        for listing in self.listings:
            papers = [self.corpus.papers[s] for s in dict.fromkeys(e.paper for e in listing.entries)]
            jobs.append((f"exports/listings/{listing.slug}.bib", partial(
                bib, papers, title=f"{self.name}: {listing.name}")))
        if self.cache is not None:
            both: list[str] = []  # exports() writes the two at once, from its memo

            def export(i: int) -> str:
                if not both:
                    assert self.cache is not None
                    both.extend(exports(self.corpus, self.cache.exports))
                return both[i]
            jobs += [("exports/papers.json", partial(export, 0)), ("exports/papers.csv", partial(export, 1))]
        else:
            jobs += [("exports/papers.json", partial(to_json, self.corpus)),
                     ("exports/papers.csv", partial(to_csv, self.corpus))]
        jobs.sort(key=lambda job: job[0])
        return jobs

    def _feed(self, **values: Any) -> str:
        """atom_feed(**values); under serve, kept while its newest papers and names are the same."""
        if self.cache is None:
            return atom_feed(**values)
        papers = values.pop("papers")
        entries = recent(papers)
        shown = (self._stamp, tuple(sorted(values.items())), tuple(self._facts[p.slug] for p in entries))
        hit = self.cache.feeds.get(values["feed_path"])
        if hit is None or hit[0] != shown:
            hit = self.cache.feeds[values["feed_path"]] = (shown, atom_feed(papers=entries, **values))
        return hit[1]

    def statistics(self) -> dict[str, Any]:
        topic_ids = [t.id for t in self.corpus.taxonomy.topics]
        per_topic = [Bar(t.name, len(self.by_topic[t.id])) for t in self.topics]
        tags = [Bar(t.name, len(self.by_tag[t.id])) for t in self.tags_by_count() if self.by_tag[t.id]]
        overlaps = topic_overlaps(self.papers, topic_ids)
        names = [self.topic_name(t) for t in topic_ids]
        return {
            "per_topic": per_topic,
            "per_listing": listing_sizes(self.listings),
            "tags": tags,
            "overlap_names": names,
            "overlaps": overlaps,
            "charts": {
                "topics": trusted(bar_chart(per_topic, title="Papers per topic")),
                "listings": trusted(bar_chart(listing_sizes(self.listings), title="Entries per listing")),
                "tags": trusted(bar_chart(tags[:15], title="The 15 most used tags")),
                "overlaps": trusted(heatmap(names, overlaps, title="Papers sharing two topics")),
            },
        }

    def citable(self, papers: list[Paper]) -> int:
        """How many of these papers have a BibTeX entry."""
        hit = self._citable.get(id(papers))
        if hit is not None and hit[0] is papers:  # a topic's or tag's list, counted once
            return hit[1]
        return sum(p.slug in self.bib_keys for p in papers)

    def topic_name(self, topic_id: str) -> str:
        return self._topic_names[topic_id]

    def topic_names(self, topic_ids: list[str]) -> list[str]:
        return [self.topic_name(t) for t in topic_ids] or ["Other"]

    def tag_names(self, tag_ids: list[str]) -> list[str]:
        return [self.tags[t].name for t in tag_ids]

    def used_tags(self) -> list[Tag]:
        return [t for t in self.corpus.taxonomy.tags if self.by_tag[t.id]]

    def tags_by_count(self) -> list[Tag]:
        return sorted(self.corpus.taxonomy.tags, key=lambda t: (-len(self.by_tag[t.id]), t.name.casefold()))

    @staticmethod
    def format_name(source: str) -> str:
        from ..sources.readers import FORMATS

        return FORMATS.get(source, source)

    def nav(self) -> list[NavItem]:
        return [
            NavItem("Home", "index.md"),
            NavItem("Topics", None, (NavItem("All topics", "topics/index.md"),
                                     *(NavItem(t.name, f"topics/{t.id}.md") for t in self.topics))),
            NavItem("Listings", None, (
                NavItem("All listings", "listings/index.md"),
                *(NavItem(li.name, f"listings/{li.slug}.md") for li in self.listings))),
            NavItem("Tags", "tags/index.md"),
            NavItem("Statistics", "statistics.md"),
        ]

    def nav_paths(self) -> set[str]:
        paths: set[str] = set()
        todo = list(self.nav())
        while todo:
            item = todo.pop()
            if item.path:
                paths.add(item.path)
            todo.extend(item.children)
        return paths

    def edit_targets(self, pages: Iterable[str] = ()) -> dict[str, str]:
        """For each generated page, the corpus or template file a person edits to change it."""
        out = {f"papers/{p.slug}.md": f"corpus/{p.file}" for p in self.papers}
        for path in pages:
            kind, _, rest = path.partition("/")
            name = rest.split("/")[0].removesuffix(".md")
            if kind == "listings" and name in self.corpus.listings:
                out[path] = f"corpus/{self.corpus.listings[name].file}"
            elif kind in ("topics", "tags"):
                out[path] = "corpus/taxonomy.yaml"
        out.update({f"listings/{li.slug}.md": f"corpus/{li.file}" for li in self.listings})
        out.update({f"topics/{t.id}.md": "corpus/taxonomy.yaml" for t in self.topics})
        out.update({f"tags/{t.id}.md": "corpus/taxonomy.yaml" for t in self.corpus.taxonomy.tags})
        out["tags/index.md"] = "corpus/taxonomy.yaml"
        out["index.md"] = "templates/home.md.j2"
        out["statistics.md"] = "templates/statistics.md.j2"
        return out

    def compile_templates(self) -> None:
        """Compile every page template now: a syntax error is reported before any page is
        rendered (and a render in a second process finds them compiled)."""
        for name in self.env.list_templates(filter_func=lambda n: n.endswith(".md.j2")):
            self.env.get_template(name)

    def _render(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(self._context(), **context)

    def _context(self) -> dict[str, Any]:
        return {
            "site": self,
            "corpus": self.corpus,
            "topics": self.topics,
            "tags": self.tags,
            "papers": self.papers,
            "listings": self.listings,
            "by_topic": self.by_topic,
            "by_tag": self.by_tag,
            "listings_of": self.listings_of,
        }

    def _listing_rows(self, listing: Listing) -> list[dict[str, Any]]:
        rows = []
        for position, entry in enumerate(listing.entries, 1):
            paper = self.corpus.papers[entry.paper]
            here = part_path(f"listings/{listing.slug}", entry_part(position))
            elsewhere = [(li, pos, f"#entry-{pos}" if (li.slug, entry_part(pos)) == (
                              listing.slug, entry_part(position)) else self.entry_link(here, li, pos))
                         for li, pos in self.listings_of.get(entry.paper, [])
                         if not (li.slug == listing.slug and pos == position)]
            rows.append({"position": position, "entry": entry, "paper": paper, "elsewhere": elsewhere})
        return rows


def page_order(path: str) -> tuple[bool, str]:
    """The order of the pages as rendered and handed to MkDocs (and so of sitemap.xml): by path,
    paper pages last."""
    return (path.startswith("papers/"), path)


def _facts(p: Paper) -> tuple[Any, ...]:
    """Everything a page can show of a paper."""
    return (p.slug, p.title, p.abstract, tuple(p.alternate_titles), p.arxiv, tuple(p.authors),
            p.date, tuple(sorted(p.links.items())), tuple(p.topics), tuple(p.tags), p.added,
            tuple(p.curated))


def _part_key(part: Part[Any]) -> tuple[Any, ...]:
    """A part's place among the parts of its list (its pager follows from it)."""
    return (part.path, part.number, part.total, part.start)


# Stands for the links' prefix in a cached list item. Corpus text never holds it raw: md_text
# writes every control character as a reference.
_PREFIX = "\x00"


def _search_url(title: str) -> Markup:
    return external_url("https://arxiv.org/search/?searchtype=title&query=" + quote_plus(title))


def template_error(exc: BaseException) -> str:
    """A template error as one line naming the template file and line."""
    import traceback

    where = getattr(exc, "filename", None)
    line = getattr(exc, "lineno", None)
    if not where:
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            if frame.filename.endswith(".j2"):
                where, line = frame.filename, frame.lineno
                break
    shown = os.path.relpath(where) if where else "a template"
    return f"{shown}:{line or '?'}: {type(exc).__name__}: {exc}"
