"""Rendering the corpus into the site's Markdown pages, from the Jinja2 templates in templates/.

Knows nothing of MkDocs: it returns {path: Markdown} and the navigation as plain data, so the
same pages can be written to a folder (`survey build --out`) for another engine.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, urlencode

import jinja2
from markupsafe import Markup

from ..core.settings import DEFAULT_NAME
from ..core.tex import tex_text
from ..core.text import counted, first_sentence
from ..corpus.export import bibtex, bibtex_keys
from ..corpus.model import Listing, Paper
from ..corpus.publish import published
from ..corpus.store import Corpus
from ..corpus.taxonomy import OTHER, Tag, Topic
from . import entries
from .facets import search_facets
from .files import file_jobs
from .frontmatter import front_matter
from .ids import id_files
from .markup import external_url, finalize, href, html_attr, linked_text, trusted
from .mathml import tex_markup
from .nav import NavItem, edit_targets, nav_paths, navigation
from .parts import (
    entry_link,
    listing_rows,
    orders_for,
    page_url,
    part_path,
    relative,
    root_of,
    sort_papers,
    split,
    title_order,
)
from .reuse import RenderCache, Reuse
from .stats import statistics
from .timeline import by_year, timeline
from .timeline import chart as timeline_chart

LATEST = 10  # the papers the home page shows as new

OTHER_TOPIC = Topic(
    id=OTHER, name="Other",
    description="Papers that fit none of the topics above: they are still part of the survey, "
                "and their tags say what they are about.",
    threshold=0, rules=[],
    summary="Papers on none of the topics above, still part of the survey: their tags say what "
            "they are about.",
)


class Site:
    def __init__(self, corpus: Corpus, templates: Path, site_url: str = "",
                 site_name: str = DEFAULT_NAME, cache: RenderCache | None = None,
                 edit_url: Callable[[str], str] | None = None, directory_urls: bool = True,
                 publish_waiting: bool = False) -> None:
        # The papers that wait for a curator are left out of everything the site shows
        # (corpus/publish.py), unless mkdocs.yml publishes them; `waiting` counts them.
        self.corpus, self.waiting = (corpus, 0) if publish_waiting else published(corpus)
        corpus = self.corpus
        # What MkDocs's use_directory_urls makes of a page's URL: the lists' entries are HTML
        # (templates/_entry.html.j2), whose links are URLs, not Markdown paths MkDocs rewrites.
        self.directory_urls = directory_urls
        # The address that edits a file of the repository ('corpus/papers/x.yaml'), when
        # mkdocs.yml names the repository: a paper page's "Edit this file".
        self.edit_url = edit_url
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
        # tex: a title or an abstract shown in a page, its TeX read and its math as MathML;
        # tex_text: the same as plain text, for a page's title and description (core/tex.py);
        # linked: an abstract as `tex` shows it, with each whole http(s) URL of its text a link.
        self.env.filters.update(first_sentence=first_sentence, url=external_url, trusted=trusted,
                                tex=tex_markup, tex_text=tex_text, shown_date=entries.shown_date,
                                linked=partial(tex_markup, render=linked_text), href=href)
        self.env.filters["count"] = counted  # '1 paper', '2 papers': `{{ n | count("paper") }}`
        self.env.globals.update(front_matter=self._front_matter, search_url=_search_url,
                                shown_authors=entries.shown_authors, venue=entries.venue,
                                confidence=entries.confidence, search_entry=self._search_entry,
                                host=entries.host)
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
        # A topic page says how many of its papers a person has reviewed, on every part.
        self.reviewed: dict[str, int] = {t: sum(p.topics_reviewed for p in papers)
                                         for t, papers in self.by_topic.items()}
        self._entries: dict[str, str] = {}
        self._entry_macros: Any = None  # _entry.md.j2, for its entry macro
        self._paper_template: jinja2.Template | None = None
        # Each citable paper's BibTeX entry, made once (a paper is cited on its page and in
        # several .bib files); under serve kept across builds while the paper and its key are.
        self._bibtex: dict[str, tuple[Any, str]] = cache.bibtex if cache is not None else {}
        # Under serve: what the last build's pages and files were made of, to reuse them.
        self.reuse = Reuse(cache, self) if cache is not None else None

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
        if self.reuse is not None:
            self.reuse.start_pages()
        out = {path: job() for path, job in self._page_jobs()}
        if self.reuse is not None:
            self.reuse.end_pages(self.corpus.papers)
        return out

    def _page_jobs(self) -> list[tuple[str, Callable[[], str]]]:
        """Every page's path and what renders it, in `page_order`."""
        jobs: list[tuple[str, Callable[[], str]]] = []
        render = self._render
        jobs.append(("index.md", lambda: render("home.md.j2", latest=entries.latest(self.papers, LATEST))))
        jobs.append(("topics/index.md", partial(render, "topics.md.j2")))
        for topic in self.topics:
            papers = self.by_topic[topic.id]
            jobs += self._paper_list("topic.md.j2", f"topics/{topic.id}", papers, topic=topic,
                                     chart=self._timeline([(topic.name, papers)], self._year_link),
                                     years=by_year(papers))
        jobs.append(("listings/index.md", partial(render, "listings.md.j2")))
        for listing in self.listings:
            rows = listing_rows(listing, self.corpus.papers, self.listings_of, self.directory_urls)
            # What every part says of the whole listing, counted once rather than on each part.
            shared = sum(1 for r in rows if r["elsewhere"])
            listed = self._listed_papers(rows)
            citable, waiting = (len(listed), self.citable(listed)), sum(r["paper"] is None for r in rows)
            reuse = self.reuse
            whole = reuse.listing_key(listing, rows, shared, citable, waiting) if reuse is not None else None
            for part in split(rows, f"listings/{listing.slug}"):
                job = partial(render, "listing.md.j2", listing=listing, part=part, rows=rows,
                              shared=shared, citable=citable, waiting=waiting)
                if reuse is not None:
                    key = partial(reuse.listing_part_key, whole, part)
                    job = partial(reuse.list_part, part.path, key, job)
                jobs.append((part.path, job))
        jobs.append(("statistics.md", lambda: render("statistics.md.j2", stats=statistics(self))))
        jobs.append(("search.md", lambda: render("search.md.j2", facets=search_facets(
            self.papers, self.topic_names, self.tag_names, self.listings_of))))
        jobs.append(("tags/index.md", partial(render, "tags.md.j2")))
        for tag in self.corpus.taxonomy.tags:
            jobs += self._paper_list("tag.md.j2", f"tags/{tag.id}", self.by_tag[tag.id], tag=tag)
        jobs += [(f"papers/{paper.slug}.md", partial(self._paper_page, paper)) for paper in self.papers]
        jobs.sort(key=lambda job: page_order(job[0]))
        return jobs

    @staticmethod
    def _timeline(series: list[tuple[str, list[Paper]]],
                  link: Callable[[str, str], str] | None = None) -> Markup | None:
        data = timeline(series)
        return None if data is None else trusted(timeline_chart(data, link))

    def _year_link(self, topic: str, year: str) -> str:
        """The search page on a topic's papers of a year, from the site's root: `rooted` puts
        the page's way up in front (a topic's chart shows on parts at two depths)."""
        return _PREFIX + html.escape(self.url("search.md") + "?" + urlencode({"topic": topic, "year": year}))

    @staticmethod
    def rooted(text: Markup, root: str) -> Markup:
        """Text made with links from the site's root (`_PREFIX`), as seen from a page at `root`."""
        return Markup(str(text).replace(_PREFIX, root))

    def _search_entry(self, paper: Paper) -> str:
        return entries.search_entry(paper, self.topic_name, lambda t: self.tags[t].name, OTHER)

    def url(self, path: str) -> str:
        """The URL of the page of a Markdown path, from the site's root."""
        return page_url(path, self.directory_urls)

    def root(self, path: str) -> str:
        """From the page of a Markdown path to the site's root, as a relative URL."""
        return root_of(path, self.directory_urls)

    def _paper_page(self, paper: Paper) -> str:
        listed = self.listings_of.get(paper.slug, [])
        related = [self.corpus.papers[s] for s in self.related.get(paper.slug, [])]
        render = partial(self._render_paper, paper, listed, related)
        return render() if self.reuse is None else self.reuse.paper_page(paper, listed, related, render)

    def _render_paper(self, paper: Paper, listed: list[tuple[Listing, int]], related: list[Paper]) -> str:
        template = self._paper_template
        if template is None:
            template = self._paper_template = self.env.get_template("paper.md.j2")
        return template.render(
            self._context(), paper=paper, related=related, bibtex=self.bibtex(paper),
            listed=[(li, pos, entry_link(f"papers/{paper.slug}.md", li, pos)) for li, pos in listed])

    @staticmethod
    def _listed_papers(rows: list[dict[str, Any]]) -> list[Paper]:
        """The papers of a listing's rows on the site, each once."""
        return list({r["paper"].slug: r["paper"] for r in rows if r["paper"] is not None}.values())

    def bibtex(self, paper: Paper) -> str | None:
        """The paper's BibTeX entry with its key in this site, or None when it cannot be cited."""
        key = self.bib_keys.get(paper.slug)
        if key is None:
            return bibtex(paper, None)
        hit = self._bibtex.get(paper.slug)
        if hit is None:
            made_from = self.reuse.bibtex_key(paper, key) if self.reuse is not None else None
            hit = self._bibtex[paper.slug] = (made_from, bibtex(paper, key) or "")
        return hit[1]

    def entry(self, paper: Paper, root: str) -> Markup:
        """One paper's entry in a list: `_entry.html.j2`'s `entry` macro.

        A paper is listed some eight times (each topic and tag, in two orders, on parts at
        different depths), always the same but for the links' root: the macro is rendered once
        per paper, with a placeholder where the root goes.
        """
        text = self._entries.get(paper.slug)
        if text is None:
            if self._entry_macros is None:
                self._entry_macros = self.env.get_template("_entry.html.j2").make_module(self._context())
            text = self._entries[paper.slug] = str(self._entry_macros.entry(paper, _PREFIX))
        return Markup(text.replace(_PREFIX, root))

    def _paper_list(self, template: str, base: str, papers: list[Paper],
                    **context: Any) -> list[tuple[str, Callable[[], str]]]:
        """A list of papers in parts of 100, once per order the reader can choose."""
        out: list[tuple[str, Callable[[], str]]] = []
        orders = orders_for(papers)
        reuse = self.reuse
        whole = ((template, repr(sorted(context.items())), len(papers), self.citable(papers),
                  sum(p.topics_reviewed for p in papers)) if reuse is not None else None)
        for order in orders:
            order_base = f"{base}/{order.key}" if order.key else base
            for part in split(sort_papers(papers, order), order_base):
                switch = [(o.label, None if o is order else relative(part.path, part_path(
                    f"{base}/{o.key}" if o.key else base, 1))) for o in orders]
                job = partial(self._render, template, papers=papers, part=part, order=order,
                              switch=switch, **context)
                if reuse is not None:
                    job = partial(reuse.list_part, part.path,
                                  partial(reuse.list_part_key, whole, order, switch, part), job)
                out.append((part.path, job))
        return out

    def files(self) -> dict[str, str]:
        """Atom feeds, the corpus exports, and the papers by their ids for the search box (ids.py)."""
        ids = id_files(self.papers, lambda p: self.url(f"papers/{p.slug}.md"), self._search_entry)
        return {**{path: job() for path, job in file_jobs(self)}, **ids}

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
        return navigation(self.topics)

    def nav_paths(self) -> set[str]:
        return nav_paths(self.nav())

    def edit_targets(self, pages: Iterable[str] = ()) -> dict[str, str]:
        """For each generated page, the corpus or template file a person edits to change it."""
        return edit_targets(self.corpus, self.topics, pages)

    def compile_templates(self) -> None:
        """Compile every page template now: a syntax error is reported before any page is
        rendered (and a render in a second process finds them compiled)."""
        for name in self.env.list_templates(filter_func=lambda n: n.endswith(".j2")):
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


def page_order(path: str) -> tuple[bool, str]:
    """The order of the pages as rendered and handed to MkDocs (and so of sitemap.xml): by path,
    paper pages last."""
    return (path.startswith("papers/"), path)


# Stands for the links' prefix in a cached list item. Corpus text never holds it raw: md_text
# writes every control character as a reference.
_PREFIX = "\x00"


def _search_url(title: str) -> Markup:
    return external_url("https://arxiv.org/search/?searchtype=title&query=" + quote_plus(tex_text(title)))


def template_error(exc: BaseException) -> str | None:
    """An error a template raised (a Jinja error, or an expression's: `{{ (1/0) }}`) as one line
    naming the template file and line; None for an error raised elsewhere."""
    import traceback

    import jinja2

    where, line = (exc.filename, exc.lineno) if isinstance(exc, jinja2.TemplateSyntaxError) else (None, None)
    if not where:
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            if frame.filename.endswith(".j2"):
                where, line = frame.filename, frame.lineno
                break
    if not where and not isinstance(exc, jinja2.TemplateError):
        return None
    shown = os.path.relpath(where) if where else "a template"
    return f"{shown}:{line or '?'}: {type(exc).__name__}: {' '.join(str(exc).split())}"
