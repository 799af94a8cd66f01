"""The MkDocs adapter: generates the survey's pages from corpus/ and templates/ at build time.

The only module that imports MkDocs. Pages exist in memory only (`File.generated`); paper and
tag pages stay out of the navigation, which would otherwise grow with every paper on every page.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import posixpath
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from mkdocs.config import config_options as opt
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files, InclusionLevel
from mkdocs.structure.toc import get_toc

from ..classify.derived import attach
from ..core.errors import SurveyError
from ..core.output import EscapedLog
from ..core.progress import Progress
from ..corpus.check import check_corpus
from ..corpus.store import CorpusCache
from ..site.markup import compact_html, dedent_html, html_attr
from ..site.render import NavItem, Site, page_order, template_error
from ..site.search import LIST_FOLDERS, PART, build_index
from ..site.search_background import BackgroundIndex
from ..site.sitemaps import split_sitemap
from .htmlstash import HtmlStash
from .incremental import (
    QUIET_DIRTY,
    GeneratedFile,
    Incremental,
    collect_garbage,
    digest,
    tree_digest,
)
from .serve_error import show_error

log = logging.getLogger("mkdocs.plugins.survey")
ESCAPED_LOG = EscapedLog()


class SurveyConfig(Config):
    corpus = opt.Type(str, default="corpus")
    templates = opt.Type(str, default="templates")
    nav = opt.Type(bool, default=True)
    search_index = opt.Type(bool, default=True)
    # Papers per part of the search index (search.PART); tests set a small one.
    search_part_size = opt.Type(int, default=PART)
    # true: the site publishes the papers that wait for a curator too (corpus/publish.py).
    publish_waiting = opt.Type(bool, default=False)


# `mkdocs serve` loads the configuration, and so a new plugin, for every rebuild: the parsed
# corpus files are kept here, per corpus folder, and reused while their mtime and size hold.
_CACHES: dict[str, CorpusCache] = {}


class SurveyPlugin(BasePlugin[SurveyConfig]):
    def __init__(self) -> None:
        self.command = ""
        self.progress = Progress("")
        self.pages_total = self.pages_done = 0
        self.incremental: Incremental | None = None
        self.files: Files | None = None
        self.unindexed: list[str] = []  # site folders Pagefind need not read
        self.paper_pages: list[tuple[str, str | None]] = []  # (page below the site, date)
        self.background: BackgroundIndex | None = None
        self.built: Files | None = None  # this build's files, until the site is written
        self.failure: str | None = None  # under serve: why this build has no survey pages
        self.generated: list[str] = []  # the HTML pages the last build generated
        self.stash = HtmlStash()  # a page's own HTML out of Python-Markdown's reading (htmlstash.py)

    # With on_startup, MkDocs keeps this plugin across the rebuilds of one `mkdocs serve`.
    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command
        for handler in logging.getLogger("mkdocs").handlers:  # what the mkdocs command prints
            handler.addFilter(ESCAPED_LOG)
        self.incremental = Incremental() if command == "serve" and dirty else None
        if self.incremental:
            logging.getLogger("mkdocs.commands.build").addFilter(QUIET_DIRTY)
        # Under serve the search index is written after the pages, in the background.
        self.background = BackgroundIndex(
            report=lambda summary: log.info(f"survey: search index written to pagefind/ {summary}"),
            fail=lambda problem: log.error(f"survey: {problem}"),
            then=collect_garbage if self.incremental else None,
        ) if command == "serve" else None

    def on_shutdown(self) -> None:
        if self.background is not None:
            self.background.cancel()
            self.background = None
        if self.incremental:
            gc.unfreeze()  # collect_garbage froze what the serve held
        self.incremental = None
        logging.getLogger("mkdocs.commands.build").removeFilter(QUIET_DIRTY)
        for handler in logging.getLogger("mkdocs").handlers:
            handler.removeFilter(ESCAPED_LOG)

    def _path(self, config: MkDocsConfig, value: str) -> str:
        base = os.path.dirname(config.config_file_path or os.path.abspath("mkdocs.yml"))
        return os.path.normpath(os.path.join(base, value))

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.corpus_dir = self._path(config, self.config.corpus)
        self.templates_dir = self._path(config, self.config.templates)
        for name, path in (("corpus", self.corpus_dir), ("templates", self.templates_dir)):
            if not os.path.isdir(path):
                raise PluginError(f"survey: the {name} folder {path!r} does not exist")
        # Only `mkdocs serve` builds again; a build keeps no parsed file past on_files.
        self.cache = _CACHES.setdefault(self.corpus_dir, CorpusCache()) if self.command == "serve" else None
        if self.stash not in config.markdown_extensions:
            config.markdown_extensions.append(self.stash)
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        self.failure = None
        try:
            return self._generate(files, config)
        except PluginError as exc:
            if self.command != "serve":
                raise
            # Under serve a build that raises leaves every request waiting for the next one that
            # succeeds: report it here and in the browser instead (serve_error).
            self.failure = str(exc)
            log.error(self.failure)
            if self.incremental:
                self.incremental.site_digest = None  # the next build writes every page again
            return files

    def _generate(self, files: Files, config: MkDocsConfig) -> Files:
        try:
            corpus, problems = check_corpus(Path(self.corpus_dir), cache=self.cache)
            if not problems:  # the model's confidence in the topics nobody reviewed
                attach(corpus, workers=1 if self.command == "serve" else None)
        except SurveyError as exc:
            raise PluginError(f"survey: {exc}") from None
        if problems:
            lines = problems.lines()
            shown = "\n".join(lines[:20])
            more = "\n... and more" if len(lines) > 20 else ""
            raise PluginError(f"survey: the corpus has {len(problems)} problem(s); run "
                              f"'survey check':\n{shown}{more}")
        try:
            site = Site(corpus, Path(self.templates_dir), site_url=config.site_url or "",
                        cache=self.incremental.render if self.incremental else None,
                        site_name=config.site_name, edit_url=_edit_url(config),
                        directory_urls=config.use_directory_urls,
                        publish_waiting=self.config.publish_waiting)
            site.compile_templates()
            pages, others = site.pages(), site.files()
            page_paths, other_paths = sorted(pages, key=page_order), sorted(others)
        except SurveyError as exc:
            raise PluginError(f"survey: {exc}") from None
        except Exception as exc:  # raised by a template, Jinja or not: name the template and the line
            where = template_error(exc)
            if where is None:
                raise
            raise PluginError(f"survey: {where}") from None
        edit = site.edit_targets(page_paths)
        in_nav = site.nav_paths() if self.config.nav else set()
        generated: list[GeneratedFile] = []
        for path in page_paths:
            # Paper, tag and list-part pages stay out of the navigation, which would otherwise
            # grow with the corpus on every page.
            inclusion = InclusionLevel.UNDEFINED if path in in_nav else InclusionLevel.NOT_IN_NAV
            target = edit.get(path)
            # What its HTML is made of, hashed: only `serve --dirty` compares them.
            parts = (target or "", inclusion.name)
            key = self.incremental.page_key(path, pages[path], parts) if self.incremental else ""
            file = GeneratedFile.of(config, path, pages[path], key, inclusion)
            # edit_uri points into docs/; the page's source lives beside docs/ in the repository.
            file.edit_uri = f"../{target}" if target else None
            generated.append(file)
        for path in other_paths:
            key = self.incremental.page_key(path, others[path], ()) if self.incremental else ""
            generated.append(GeneratedFile.of(config, path, others[path], key))
        _refuse_hidden(files, generated)
        for file in generated:
            files.append(file)
        if self.config.nav:
            config.nav = _nav(site.nav(), config.nav)
        if self.incremental:
            self.incremental.start(files, config, self._site_digest(config))
        self.files = self.built = files
        self.generated = [f.dest_uri for f in files
                          if isinstance(f, GeneratedFile) and f.is_documentation_page()]
        self.paper_pages = [(files.src_uris[f"papers/{p.slug}.md"].dest_uri, p.date) for p in site.papers]
        # Pagefind need not read the generated lists, unless a hand-written page lives beside.
        own = {f.src_uri.split("/")[0] for f in files if f.is_documentation_page()
               and "/" in f.src_uri and not isinstance(f, GeneratedFile)}
        self.unindexed = sorted(set(LIST_FOLDERS) - own)
        self.progress = Progress("mkdocs: pages rendered")
        self.pages_total = sum(1 for f in files if f.is_documentation_page() and f.is_modified())
        self.pages_done = 0
        return files

    def _site_digest(self, config: MkDocsConfig) -> str:
        """What every page shows: when it changes, every page is rebuilt."""
        with open(config.config_file_path, "rb") as fh:
            config_text = fh.read()
        theme = [d for d in config.theme.dirs if not d.startswith(sys.prefix)]
        return digest(config_text, repr(config.nav), tree_digest(theme), config.site_url or "")

    @event_priority(100)  # Run first: the Markdown as read, before any plugin changes it.
    def on_page_markdown(self, markdown: str, *, page: Any, config: MkDocsConfig, files: Files) -> str:
        self.stash.active = isinstance(page.file, GeneratedFile)
        if self.incremental:
            self.incremental.page_read(page)
        elif isinstance(page.file, GeneratedFile):
            page.file.release()  # MkDocs has the page's Markdown now
        return markdown

    def on_env(self, env: Any, *, config: MkDocsConfig, files: Files) -> Any:
        if self.incremental:
            env.bytecode_cache = self.incremental.theme_code
            self.incremental.restore_pages(files, config)
        return env

    def on_page_context(self, context: Any, *, page: Any, config: MkDocsConfig, nav: Any) -> Any:
        if not self.incremental and self.files is not None:
            # MkDocs has written the feeds and exports before the first page: drop their text.
            for file in self.files:
                if isinstance(file, GeneratedFile) and not file.is_documentation_page():
                    file.release()
            self.files = None
        return context

    @event_priority(-100)  # Run last: Pagefind indexes the site as every other plugin left it.
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.failure is not None:
            show_error(Path(config.site_dir), self.generated, self.failure, config.site_name)
            return
        if self.incremental and self.files is not None:
            self.incremental.finish(self.files, config.site_dir)
        split_sitemap(Path(config.site_dir), config.site_url or "")
        if self.built is not None:
            if self.command in ("build", "gh-deploy") and self.incremental is None:
                _release_pages(self.built)
            self.built = None
        if not self.config.search_index:
            return
        site_dir, size = Path(config.site_dir), self.config.search_part_size
        if self.background is not None:
            self.background.start(site_dir, self.unindexed, self.paper_pages, size)
            return
        try:
            summary = build_index(site_dir, self.unindexed, self.paper_pages, size)
        except SurveyError as exc:
            raise PluginError(f"survey: {exc}") from None
        log.info(f"survey: search index written to pagefind/ {summary}")

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if self.background is not None:
            self.background.cancel()  # a newer build: the index of the last one is out of date

    def wait_for_search_index(self, timeout: float | None = None) -> bool:
        """Under serve: block until the search index of the last build is in place."""
        return self.background is None or self.background.wait(timeout)

    def on_page_content(self, html: str, *, page: Any, config: MkDocsConfig, files: Files) -> str:
        return compact_html(html)

    def on_post_page(self, output: str, *, page: Any, config: MkDocsConfig) -> str:
        self.pages_done += 1
        self.progress(self.pages_done, self.pages_total)
        return dedent_html(output)

    def on_serve(self, server: Any, config: MkDocsConfig, builder: Any) -> Any:
        server.watch(self.corpus_dir)
        server.watch(self.templates_dir)
        return server


def _refuse_hidden(files: Files, generated: list[GeneratedFile]) -> None:
    """A file of docs/ at a generated file's path, or built to the same place (docs/topics.md and
    the generated topics/index.md are both topics/index.html), would silently replace it or be
    replaced by it: the build stops, naming both."""
    built_to = {f.dest_uri: f for f in files}
    for file in generated:
        own = files.src_uris.get(file.src_uri) or built_to.get(file.dest_uri)
        if own is not None:
            kind = "page" if file.is_documentation_page() else "file"
            raise PluginError(f"survey: docs/{own.src_uri} would hide the generated {kind} "
                              f"{file.src_uri} (both are {file.dest_uri}); rename or remove it")


def _edit_url(config: MkDocsConfig) -> Callable[[str], str] | None:
    """The address that edits a file of the repository (a path from its root), as MkDocs makes a
    page's edit_url from repo_url and edit_uri (or edit_uri_template), which point into docs/;
    None when mkdocs.yml names no repository."""
    repo, uri, template = config.repo_url, config.edit_uri, config.edit_uri_template
    if not repo or not (uri or template):
        return None
    base = repo if repo.endswith("/") else repo + "/"

    def url(path: str) -> str:
        src = "../" + path
        edit = template.format(path=src, path_noext=posixpath.splitext(src)[0]) if template else f"{uri}{src}"
        return urljoin(base, edit)
    return url


def _release_pages(files: Files) -> None:
    """Forget each page's Markdown, HTML and table of contents once the site is written: MkDocs
    keeps them to the end of the build, and Pagefind, which runs next as a child process, would
    run beside some 300 MB (at 10,000 papers) that nothing reads any more. Only after the last
    plugin's on_post_build; never under serve, whose next build may keep pages."""
    empty = get_toc([])
    for file in files.documentation_pages():
        page = file.page
        if page is not None:
            page.markdown = page.content = None
            page.toc = empty
    # Hand the freed memory back to the system (glibc; elsewhere there is nothing to call): the
    # forgotten pages stay in the C allocator's heap otherwise. Real corpus, 9,403 papers, one
    # build (survey plugin with search_index: false, RSS read around this call): 353 MB when the
    # site is written, 353 MB once the pages are forgotten, 197 MB after malloc_trim.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


def _nav(generated: list[NavItem], configured: Any) -> list[Any]:
    """The generated navigation, followed by the pages mkdocs.yml lists under `nav`. Its titles
    (listing and topic names) are escaped: the theme puts a title into every page as HTML."""
    def convert(item: NavItem) -> Any:
        title = html_attr(item.title)
        if item.path is None:
            return {title: [convert(c) for c in item.children]}
        return {title: item.path}

    extra = list(configured or [])
    return [convert(i) for i in generated if i.path is not None or i.children] + extra
