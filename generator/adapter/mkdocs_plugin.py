"""The MkDocs adapter: generates the survey's pages from corpus/ and templates/ at build time.

The only module that imports MkDocs. Pages exist in memory only (`File.generated`); paper and
tag pages stay out of the navigation, which would otherwise grow with every paper on every page.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as opt
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel

from ..core.errors import SurveyError
from ..core.progress import Progress
from ..corpus.check import check_corpus
from ..corpus.store import CorpusCache
from ..corpus.taxonomy import Taxonomy
from ..site.markup import compact_html, dedent_html
from ..site.render import NavItem, Site, template_error

log = logging.getLogger("mkdocs.plugins.survey")


class SurveyConfig(Config):
    corpus = opt.Type(str, default="corpus")
    templates = opt.Type(str, default="templates")
    nav = opt.Type(bool, default=True)


# `mkdocs serve` loads the configuration, and so a new plugin, for every rebuild: the parsed
# corpus files are kept here, per corpus folder, and reused while their mtime and size hold.
_CACHES: dict[str, CorpusCache] = {}


class SurveyPlugin(BasePlugin[SurveyConfig]):
    def __init__(self) -> None:
        self.site: Site | None = None
        self.progress = Progress("")
        self.pages_total = self.pages_done = 0

    def _path(self, config: MkDocsConfig, value: str) -> str:
        base = os.path.dirname(config.config_file_path or os.path.abspath("mkdocs.yml"))
        return os.path.normpath(os.path.join(base, value))

    @event_priority(100)  # Run first: the tags plugin reads the allowed tags in its own on_config.
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.corpus_dir = self._path(config, self.config.corpus)
        self.templates_dir = self._path(config, self.config.templates)
        for name, path in (("corpus", self.corpus_dir), ("templates", self.templates_dir)):
            if not os.path.isdir(path):
                raise PluginError(f"survey: the {name} folder {path!r} does not exist")
        self.cache = _CACHES.setdefault(self.corpus_dir, CorpusCache())
        try:
            taxonomy = Taxonomy.load(Path(self.corpus_dir) / "taxonomy.yaml",
                                     os.path.relpath(Path(self.corpus_dir) / "taxonomy.yaml"))
        except SurveyError as exc:
            raise PluginError(f"survey: {exc}") from None
        self._allow_tags(config, [t.name for t in taxonomy.tags])
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        try:
            corpus, problems = check_corpus(Path(self.corpus_dir), cache=self.cache)
        except SurveyError as exc:
            raise PluginError(f"survey: {exc}") from None
        if problems:
            shown = "\n".join(str(p) for p in problems[:20])
            more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
            raise PluginError(f"survey: the corpus has {len(problems)} problem(s); run "
                              f"'survey check':\n{shown}{more}")
        try:
            site = Site(corpus, Path(self.templates_dir), site_url=config.site_url or "",
                        site_name=config.site_name)
            pages = site.pages()
            others = site.files()
        except SurveyError as exc:
            raise PluginError(f"survey: {exc}") from None
        except Exception as exc:  # a template error: name the template and the line
            import jinja2

            if isinstance(exc, jinja2.TemplateError):
                raise PluginError(f"survey: {template_error(exc)}") from None
            raise
        self.site = site
        edit = site.edit_targets()
        hidden = ("papers/", "tags/")
        for path in sorted(pages):
            if files.get_file_from_path(path) is not None:
                raise PluginError(f"survey: docs/{path} would hide the generated page {path}; "
                                  f"rename or remove it")
            inclusion = (InclusionLevel.NOT_IN_NAV
                         if path.startswith(hidden) and path != "tags/index.md"
                         else InclusionLevel.UNDEFINED)
            file = File.generated(config, path, content=pages[path], inclusion=inclusion)
            target = edit.get(path)
            # edit_uri points into docs/; the page's source lives beside docs/ in the repository.
            file.edit_uri = f"../{target}" if target else None
            files.append(file)
        for path in sorted(others):
            files.append(File.generated(config, path, content=others[path]))
        self.progress = Progress("mkdocs: pages rendered")
        self.pages_total = sum(1 for f in files if f.is_documentation_page())
        self.pages_done = 0
        if self.config.nav:
            config.nav = _nav(site.nav(), config.nav)
        return files

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

    @staticmethod
    def _allow_tags(config: MkDocsConfig, names: list[str]) -> None:
        """Restrict Material's tags plugin to the corpus vocabulary."""
        for key, plugin in config.plugins.items():
            if key.split(" #")[0] in ("material/tags", "tags") and hasattr(plugin, "config"):
                from material.plugins.tags.structure.tag import Tag

                plugin.config.tags_allowed = {Tag(n) for n in names}


def _nav(generated: list[NavItem], configured: Any) -> list[Any]:
    """The generated navigation, followed by the pages mkdocs.yml lists under `nav`."""
    def convert(item: NavItem) -> Any:
        if item.path is None:
            return {item.title: [convert(c) for c in item.children]}
        return {item.title: item.path}

    extra = list(configured or [])
    return [convert(i) for i in generated if i.path is not None or i.children] + extra
