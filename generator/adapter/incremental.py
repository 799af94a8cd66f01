"""Rebuilding only what changed, under `mkdocs serve --dirty`.

MkDocs skips a page in a dirty build when its file says it is not modified. A generated page is
modified when a hash of what its HTML is made of changed since the last build: its Markdown,
and its edit link. Anything every page shows (the navigation, mkdocs.yml, the theme override, the
hand-written pages) changes the hash of the whole site, and then every page is rebuilt. The
result is the site a clean build writes, file by file (tests/test_serve.py builds both and
compares them).
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.utils import meta as mkdocs_meta

from ..site.reuse import RenderCache


class QuietDirty(logging.Filter):
    """MkDocs warns that a dirty build may leave navigation and links inaccurate: with this
    plugin it does not, so the warning would only mislead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("A 'dirty' build is being performed")


QUIET_DIRTY = QuietDirty()


class GeneratedFile(File):
    """A generated file that knows whether its content changed since the last build."""

    changed = True
    key = ""  # what its HTML is made of, hashed

    @classmethod
    def of(cls, config: MkDocsConfig, path: str, content: str, key: str,
           inclusion: InclusionLevel = InclusionLevel.UNDEFINED) -> GeneratedFile:
        file = cls.generated(config, path, content=content, inclusion=inclusion)
        assert isinstance(file, GeneratedFile)
        file.key = key
        return file

    def is_modified(self) -> bool:
        return self.changed

    def release(self) -> None:
        """Forget the content once MkDocs has read or written it: at 10,000 papers the pages
        and exports are some 150 MB that MkDocs would keep to the end of the build. Reading it
        again fails loudly (File.content_string asserts a source path)."""
        self._content = None


def digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8") if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


def tree_digest(folders: Iterable[str]) -> str:
    """Every file's path, inode, size and status-change time under some folders: what changes
    with its content (corpus/store.CorpusCache says why not the mtime)."""
    parts = []
    for folder in folders:
        for base, dirs, names in os.walk(folder):
            dirs.sort()
            for name in sorted(names):
                st = os.stat(os.path.join(base, name))
                parts.append(f"{os.path.join(base, name)}:{st.st_ino}:{st.st_size}:{st.st_ctime_ns}")
    return digest(*parts)


class ThemeCode(jinja2.BytecodeCache):
    """The theme's compiled templates, kept across the rebuilds of one serve: MkDocs makes a new
    Jinja environment for every build, which would compile the theme's templates again (0.1 to
    0.15 s of a rebuild at 10,000 papers). Jinja reuses a template's code while its source has
    the same checksum; `Incremental.start` forgets them all when what every page shows changed
    (mkdocs.yml, the theme override), which may change the environment they were compiled in."""

    def __init__(self) -> None:
        self.code: dict[str, tuple[str, Any]] = {}  # bucket key -> (source checksum, code)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        hit = self.code.get(bucket.key)
        if hit is not None and hit[0] == bucket.checksum:
            bucket.code = hit[1]

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = (bucket.checksum, bucket.code)

    def clear(self) -> None:
        self.code.clear()


class Incremental:
    """What the last build was made of; kept by the plugin across the rebuilds of one serve."""

    def __init__(self) -> None:
        self.site_digest: str | None = None
        self.built: dict[str, str] = {}  # src_uri -> digest of what its HTML was built from
        self.sources: dict[str, tuple[str, dict[str, Any]]] = {}  # src_uri -> Markdown, meta
        self.outputs: set[str] = set()  # every file the last build wrote
        self.full = True
        self.render = RenderCache()
        self.keys: dict[str, tuple[str, tuple[str, ...], str]] = {}  # path -> (Markdown, parts, key)
        self.theme_code = ThemeCode()

    def page_key(self, path: str, markdown: str, parts: tuple[str, ...]) -> str:
        """digest(markdown, *parts), kept per generated file: most files are the same text as
        last time, and comparing two texts is far cheaper than hashing one (the exports are
        some 40 MB at 10,000 papers)."""
        hit = self.keys.get(path)
        if hit is not None and hit[0] == markdown and hit[1] == parts:
            self.keys[path] = (markdown, parts, hit[2])  # the text the File holds, not a copy
            return hit[2]
        key = digest(markdown, *parts)
        self.keys[path] = (markdown, parts, key)
        return key

    def start(self, files: Files, config: MkDocsConfig, site_digest: str) -> None:
        """Mark what changed; called once the generated files are in `files`."""
        self.full = site_digest != self.site_digest
        self.site_digest = site_digest
        if self.full:
            self.theme_code.clear()
        self.pending: dict[str, str] = {}
        for file in files:
            if isinstance(file, GeneratedFile):
                file.changed = self.full or self.built.get(file.src_uri) != file.key
                self.pending[file.src_uri] = file.key
            elif self.full:
                file.is_modified = lambda: True  # type: ignore[method-assign]

    def skipped(self, files: Files) -> list[File]:
        return [f for f in files.documentation_pages() if not f.is_modified()]

    def restore_pages(self, files: Files, config: MkDocsConfig) -> None:
        """Give the pages this build skips the Markdown and metadata their last build read, so
        their titles and tags are known to the pages that list them."""
        for file in self.skipped(files):
            if file.page is None:
                Page(None, file, config)
            page = file.page
            assert page is not None
            markdown, meta = self.sources.get(file.src_uri) or mkdocs_meta.get_data(file.content_string)
            page.markdown, page.meta = markdown, dict(meta)

    def page_read(self, page: Page) -> None:
        if page.markdown is not None:
            # The title is all a skipped page's Markdown is read for, when its meta has one.
            markdown = "" if "title" in page.meta else page.markdown
            self.sources[page.file.src_uri] = (markdown, dict(page.meta))

    def finish(self, files: Files, site_dir: str) -> None:
        """Remember what was built; remove what the last build wrote and this one no longer has."""
        self.built.update(self.pending)
        current = {f.src_uri for f in files}
        for gone in set(self.built) - current:
            del self.built[gone]
            self.keys.pop(gone, None)
            self.sources.pop(gone, None)
        outputs = {os.path.normpath(f.abs_dest_path) for f in files}
        for path in sorted(self.outputs - outputs):
            if os.path.isfile(path):
                os.remove(path)
                _remove_empty_parents(Path(path).parent, Path(site_dir))
        self.outputs = outputs


def collect_garbage() -> None:
    """Python's cyclic garbage collector, run between the rebuilds of `serve --dirty`.

    A full collection scans every object the process holds: at 10,000 papers the corpus and
    render caches and the last build's pages, about a second each time, and a rebuild started
    one or two of them for the little garbage it makes. Run once the search index is in place
    (in its background thread, when nothing waits for a page), a collection frees the earlier
    builds' garbage, then freezes what is left: the next rebuild's collections scan only the
    objects it makes. Frozen objects are still freed when nothing refers to them; the next
    call collects those in cycles. What it buys, with only the generator's caches held (the
    real corpus's 9,403 papers, `python benchmarks/ab_stages.py freeze CORPUS`, 7 pairs): a full
    collection 0.144 s (0.128 to 0.157) of CPU unfrozen, 0.000 s frozen; MkDocs's pages of the
    last build, held too under serve, add about a second a collection at 10,000 papers.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _remove_empty_parents(folder: Path, root: Path) -> None:
    root = root.resolve()
    while folder.resolve() != root and root in folder.resolve().parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
