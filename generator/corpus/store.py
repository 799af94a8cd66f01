"""Reading and writing the corpus folder: papers/, listings/ and taxonomy.yaml.

Files are read and written through core.yamlio, in one canonical form, so load -> write gives
the same bytes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import CorpusError, SurveyError
from ..core.yamlio import dump_yaml, load_yaml, read_text
from .model import Listing, Paper
from .taxonomy import Taxonomy


@dataclass
class Corpus:
    root: Path
    taxonomy: Taxonomy
    papers: dict[str, Paper] = field(default_factory=dict)
    listings: dict[str, Listing] = field(default_factory=dict)

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
    """Parsed records keyed by path, reused while a file's mtime and size stay the same."""

    def __init__(self) -> None:
        self._items: dict[Path, tuple[tuple[int, int], Any]] = {}

    def get(self, path: Path, parse: Any) -> Any:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self._items.get(path)
        if hit and hit[0] == stamp:
            return hit[1]
        value = parse()
        self._items[path] = (stamp, value)
        return value


class NoCache(CorpusCache):
    """Keeps nothing: each record is parsed when asked for (a process that reads the corpus once)."""

    def get(self, path: Path, parse: Any) -> Any:
        return parse()


NO_CACHE = NoCache()


def load_corpus(
    root: Path | str, *, collect: list[CorpusError] | None = None, cache: CorpusCache = NO_CACHE,
) -> Corpus:
    """Load and validate every record. With `collect`, problems are gathered instead of raised."""
    root = Path(root)
    if not root.is_dir():
        raise SurveyError(f"{root}: no corpus folder here (use --corpus DIR)")

    def fail(exc: CorpusError) -> None:
        if collect is None:
            raise exc
        collect.append(exc)

    taxonomy_path = root / "taxonomy.yaml"
    try:
        taxonomy = cache.get(taxonomy_path, partial(Taxonomy.load, taxonomy_path, shown_path(taxonomy_path)))
    except CorpusError as exc:
        if collect is None:
            raise
        collect.append(exc)
        taxonomy = Taxonomy.empty()
    corpus = Corpus(root=root, taxonomy=taxonomy)

    for kind, cls, target in (("papers", Paper, corpus.papers), ("listings", Listing, corpus.listings)):
        # Each file's name as messages show it, from its folder's: one relpath for the folder
        # instead of one for each of 10,000 files (a third of a second).
        folder = shown_path(root / kind)
        paths = list(_yaml_files(root / kind))
        for path, record in zip(paths, _parse_all(paths, cls, folder, cache), strict=True):
            if isinstance(record, CorpusError):
                fail(record)
                continue
            if record.slug != path.stem:
                fail(CorpusError(shown_path(path), f"slug {record.slug!r} does not match the file name "
                                       f"(rename the file to {record.slug}.yaml or fix the slug)",
                                 entry=record.slug, field="slug"))
                continue
            target[record.slug] = record
    return corpus


def _parse_all(paths: list[Path], cls: Any, folder: str, cache: CorpusCache) -> list[Any]:
    """Each file's record, or the CorpusError it gives."""
    def one(path: Path) -> Any:
        try:
            name = os.path.normpath(os.path.join(folder, path.name))
            return cache.get(path, partial(_parse, path, cls, name))
        except CorpusError as exc:
            return exc

    return [one(path) for path in paths]


def _parse(path: Path, cls: Any, name: str) -> Any:
    return cls.from_dict(load_yaml(read_text(path, name), name), name)


def _yaml_files(folder: Path) -> Iterator[Path]:
    """The folder's .yaml and .yml files, by name (scandir: no stat for each file's type)."""
    if not folder.is_dir():
        return iter(())
    with os.scandir(folder) as entries:
        names = sorted(e.name for e in entries
                       if os.path.splitext(e.name)[1] in (".yaml", ".yml") and e.is_file())
    return (folder / name for name in names)


def shown_path(path: Path) -> str:
    """A path as messages show it: relative to the working directory where possible."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def paper_text(paper: Paper) -> str:
    return dump_yaml(paper.to_dict())


def listing_text(listing: Listing) -> str:
    return dump_yaml(listing.to_dict())


def write_files(root: Path, files: Iterable[tuple[str, str]]) -> list[str]:
    """Write (relative path, text) pairs, each atomically; return the paths that changed."""
    changed = []
    for rel, text in files:
        path = root / rel
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        changed.append(rel)
    return changed
