"""Reading the corpus folder (papers/, listings/, taxonomy.yaml), and each record's text in the
one canonical form of core.yamlio, so load -> text gives the same bytes; writes.py writes them.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import CorpusError, Problems, SurveyError
from ..core.text import shown_path
from ..core.yamlio import LINK, MAX_FILE_BYTES, MAX_PAPER_BYTES, dump_yaml, load_yaml, read_text
from .journal import pending
from .lock import CorpusLock
from .model import Listing, Paper
from .rejected import Rejected, read_rejected
from .taxonomy import MODEL_FILE, Taxonomy


@dataclass
class Corpus:
    root: Path
    taxonomy: Taxonomy
    papers: dict[str, Paper] = field(default_factory=dict)
    listings: dict[str, Listing] = field(default_factory=dict)
    # The papers a curator rejected (rejected.yaml): no longer in papers/, kept out of every import.
    rejected: list[Rejected] = field(default_factory=list)
    # Hidden files of papers/ and listings/ (an editor's swap file, .DS_Store): never read;
    # `survey check` names them.
    ignored: list[str] = field(default_factory=list)
    # Papers and listings whose file has a problem, as far as it could be read (only when
    # problems are collected): `survey check` holds them to the corpus-wide rules too, so that a
    # bad date does not hide the unknown topic of the same file until the next run.
    partial: list[Paper | Listing] = field(default_factory=list)

    def sorted_papers(self) -> list[Paper]:
        return [self.papers[s] for s in sorted(self.papers)]

    def sorted_listings(self) -> list[Listing]:
        return [self.listings[s] for s in sorted(self.listings)]

    def listings_of(self) -> dict[str, list[tuple[Listing, int]]]:
        """For each paper slug, the listings holding it with the 1-based position there."""
        out: dict[str, list[tuple[Listing, int]]] = {}
        for listing in self.sorted_listings():
            for pos, entry in enumerate(listing.entries, 1):
                out.setdefault(entry.paper, []).append((listing, pos))
        return out


class CorpusCache:
    """Parsed records kept across the builds of one `mkdocs serve`, each reused while its file
    has the same inode, size and status-change time (ctime). Every change of a file's content
    moves its ctime (a write) or its inode (a file renamed into place), and no program sets a
    ctime back, as `cp -p`, `rsync -t` and `tar x` set an mtime back. A file changed within
    RACY_NS of being read may change again within one tick of the file system's clock, unseen:
    it is read again at the next build (git's "racy" rule). Reading every file instead of its
    status would add 0.34 s to the 2.46 s of a one-paper rebuild at 10,000 papers."""

    RACY_NS = 2 * 10**9

    def __init__(self) -> None:
        self._items: dict[Path, tuple[tuple[int, int, int], Any]] = {}

    def get(self, path: Path, parse: Any) -> Any:
        st = path.stat()
        stamp = (st.st_ino, st.st_size, st.st_ctime_ns)
        hit = self._items.get(path)
        if hit and hit[0] == stamp:
            return hit[1]
        value = parse()
        if time.time_ns() - st.st_ctime_ns > self.RACY_NS:
            self._items[path] = (stamp, value)
        else:
            self._items.pop(path, None)
        return value


def load_corpus(
    root: Path | str, *, collect: Problems | None = None, cache: CorpusCache | None = None,
) -> Corpus:
    """Load and validate every record. With `collect`, problems are gathered instead of raised."""
    root = Path(root)
    with CorpusLock(root, shared=True):  # a writer's changes all or none (lock.py)
        return _load(root, collect, cache)


def _load(root: Path, collect: Problems | None, cache: CorpusCache | None) -> Corpus:
    half_written = pending(root)
    if half_written:
        raise SurveyError(half_written)

    def fail(exc: CorpusError) -> None:
        if collect is None:
            raise exc
        collect.append(exc)

    taxonomy_path = root / "taxonomy.yaml"
    try:
        shown = shown_path(taxonomy_path)
        taxonomy = _cached(cache, taxonomy_path, partial(Taxonomy.load, taxonomy_path, shown))
    except CorpusError as exc:
        fail(exc)
        taxonomy = Taxonomy()
    corpus = Corpus(root=root, taxonomy=taxonomy)
    if os.path.islink(root / MODEL_FILE):  # read only when topics are suggested: refused here too
        fail(CorpusError(shown_path(root / MODEL_FILE), LINK))

    try:
        corpus.rejected = read_rejected(root)
    except CorpusError as exc:
        fail(exc)
        corpus.rejected = getattr(exc, "record", None) or []  # the entries without a problem

    for kind, cls, target in (("papers", Paper, corpus.papers), ("listings", Listing, corpus.listings)):
        # Each file's name as messages show it, from its folder's: one relpath for the folder
        # instead of one for each of 10,000 files (a third of a second).
        folder = shown_path(root / kind)
        paths, odd, hidden = record_files(root / kind)
        for problem in odd:
            fail(problem)
        corpus.ignored += hidden
        for path in paths:
            try:
                name = os.path.normpath(os.path.join(folder, path.name))
                record = _cached(cache, path, partial(read_record, path, cls, name))
            except CorpusError as exc:
                fail(exc)
                record = getattr(exc, "record", None)
                if record is not None and record.slug == path.stem:
                    corpus.partial.append(record)
                continue
            if record.slug != path.stem:
                fail(slug_mismatch(shown_path(path), record.slug))
                continue
            target[record.slug] = record
    return corpus


def listing_places(root: Path) -> dict[str, list[tuple[str, int]]]:
    """For each paper slug, the name of each listing holding it and its place there (1-based),
    listings by file name: what `Corpus.listings_of` gives, without reading the papers (the
    review screen's first paper). A listing file `survey check` refuses is left out (it names it)."""
    out: dict[str, list[tuple[str, int]]] = {}
    with CorpusLock(root, shared=True):
        paths, _, _ = record_files(root / "listings")
        folder = shown_path(root / "listings")
        for path in paths:
            try:
                listing = read_record(path, Listing, f"{folder}/{path.name}")
            except CorpusError:
                continue
            for pos, entry in enumerate(listing.entries, 1):
                out.setdefault(entry.paper, []).append((listing.name, pos))
    return out


def _cached(cache: CorpusCache | None, path: Path, parse: Any) -> Any:
    return parse() if cache is None else cache.get(path, parse)


def read_record(path: Path, cls: Any, name: str) -> Any:
    """The record (Paper or Listing) of one file, which messages call name."""
    return read_text_record(read_text(path, name, largest(cls)), cls, name)


def read_text_record(text: str, cls: Any, name: str) -> Any:
    """The record of a file's text, read as read_record reads it: the one reading of a record
    file (the review queue's glances are made from it too, corpus/derived.py)."""
    return cls.from_dict(load_yaml(text, name), name)


def slug_mismatch(shown: str, slug: str) -> CorpusError:
    return CorpusError(shown, f"slug {slug!r} does not match the file name (rename the file to {slug}.yaml "
                              f"or fix the slug)", entry=slug, field="slug")


def largest(cls: Any) -> int:
    """The most bytes a file of this record may hold."""
    return MAX_PAPER_BYTES if cls is Paper else MAX_FILE_BYTES


def record_files(folder: Path) -> tuple[list[Path], list[CorpusError], list[str]]:
    """The record files of papers/ or listings/, by name; a problem for each entry that is not
    one (it is not read); the hidden entries, which are never read.

    One rule for every command that reads the corpus (check, build, serve, import, add, enrich):
    a record is a plain NAME.yaml file. A link is refused without being followed (it may point
    out of the corpus: /etc/shadow), and so is anything else that is not hidden (a folder, a
    .yml file, a note), so that no paper is silently left out. Hidden entries (an editor's swap
    file, .DS_Store) are ignored, and named by `survey check`. scandir tells a file, a folder
    and a link apart without a stat of each of 10,000 files.
    """
    shown = shown_path(folder)
    if os.path.islink(folder):
        return [], [CorpusError(shown, "is a symbolic link; not followed (the corpus holds its "
                                       "folders and files itself)")], []
    if not folder.is_dir():
        return [], [], []
    paths, odd, hidden = [], [], []
    with os.scandir(folder) as entries:
        for e in sorted(entries, key=lambda e: e.name):
            name, where = e.name, f"{shown}{os.sep}{e.name}"
            if name.startswith("."):
                hidden.append(where)
            elif e.is_symlink():
                odd.append(CorpusError(where, LINK))
            elif e.is_dir():
                odd.append(CorpusError(where, f"is a folder; {folder.name}/ holds only NAME.yaml "
                                              f"files (nested folders are not read): move it out"))
            elif not name.endswith(".yaml") or not e.is_file():
                stem, ext = os.path.splitext(name)
                hint = f"rename it to {stem}.yaml" if ext == ".yml" else "move it out of the corpus"
                odd.append(CorpusError(where, f"not a record file: {folder.name}/ holds only "
                                              f"NAME.yaml files, so it is not read; {hint}"))
            else:
                paths.append(folder / name)
    return paths, odd, hidden


def paper_text(paper: Paper) -> str:
    return dump_yaml(paper.to_dict())


def listing_text(listing: Listing) -> str:
    return dump_yaml(listing.to_dict())
