"""Reading and writing the corpus folder: papers/, listings/ and taxonomy.yaml.

YAML is loaded safely (no Python objects), with libyaml's C parser when it is installed, and
with scalars kept as text (an arXiv id such as 2104.07850 never turns into a number). Files are
written in one canonical form, so load -> write gives the same bytes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from .errors import CorpusError, SurveyError
from .model import Listing, Paper
from .taxonomy import Taxonomy

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class TextLoader(_BaseLoader):  # type: ignore[misc]
    """Safe loader that resolves only null, booleans and integers; everything else stays text."""


TextLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag.rsplit(":", 1)[-1] in ("null", "bool", "int")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _no_duplicate_keys(loader: Any, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} appears twice", mark
            )
        seen[key] = True
    return loader.construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


TextLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicate_keys)


class CanonicalDumper(yaml.SafeDumper):
    """Long one-line texts are folded (`>-`) so they stay readable and diff well."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if len(value) > 72 and "\n" not in value and _folds_safely(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=">")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _folds_safely(value: str) -> bool:
    out = yaml.dump({"v": value}, Dumper=_PlainDumper, default_style=">", width=WIDTH, allow_unicode=True)
    try:
        return bool(yaml.load(out, Loader=TextLoader)["v"] == value)
    except yaml.YAMLError:
        return False


class _PlainDumper(yaml.SafeDumper):
    pass


CanonicalDumper.add_representer(str, _represent_str)
WIDTH = 88


def dump_yaml(data: Any) -> str:
    return yaml.dump(
        data, Dumper=CanonicalDumper, sort_keys=False, allow_unicode=True, width=WIDTH,
        default_flow_style=False, indent=2,
    )


def load_yaml(text: str, path: str) -> Any:
    try:
        return yaml.load(text, Loader=TextLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "malformed YAML").split())
        if exc.context and exc.context_mark and exc.problem:
            start = exc.context_mark
            problem = (f"{' '.join(exc.context.split())} that starts at line {start.line + 1}, "
                       f"column {start.column + 1}: {problem}")
        raise CorpusError(
            path, f"malformed YAML: {problem}",
            line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise CorpusError(path, f"malformed YAML: {' '.join(str(exc).split())}") from None


def read_text(path: Path, shown: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(shown, f"cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(shown, f"not valid UTF-8 (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


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


def load_corpus(
    root: Path | str, *, collect: list[CorpusError] | None = None, cache: CorpusCache | None = None
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
        taxonomy = Taxonomy.load(taxonomy_path, shown_path(taxonomy_path))
    except CorpusError as exc:
        if collect is None:
            raise
        collect.append(exc)
        taxonomy = Taxonomy.empty()
    corpus = Corpus(root=root, taxonomy=taxonomy)

    for kind, cls, target in (("papers", Paper, corpus.papers), ("listings", Listing, corpus.listings)):
        for path in _yaml_files(root / kind):
            name = shown_path(path)
            try:
                record = (cache.get(path, partial(_parse, path, name, cls)) if cache
                          else _parse(path, name, cls))
            except CorpusError as exc:
                fail(exc)
                continue
            if record.slug != path.stem:
                fail(CorpusError(name, f"slug {record.slug!r} does not match the file name "
                                       f"(rename the file to {record.slug}.yaml or fix the slug)",
                                 entry=record.slug, field="slug"))
                continue
            target[record.slug] = record
    return corpus


def _parse(path: Path, name: str, cls: Any) -> Any:
    return cls.from_dict(load_yaml(read_text(path, name), name), name)


def _yaml_files(folder: Path) -> Iterator[Path]:
    if not folder.is_dir():
        return iter(())
    return iter(sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()))


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
