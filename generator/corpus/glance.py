"""What the review queue needs of every paper, read in a fraction of a full load.

`survey review` opens on the paper a person should decide first, and a curator opens it many
times a day. It needs, of each paper, whether a person reviewed its topics and what the model
said when it suggested them (`confidence`, stored by import and `survey classify --write`): the
queue is ordered from what the files store, never by scoring every paper again. Building each
paper's record (load_corpus) costs 0.45 ms a paper file, 4.5 s at 10,000; composing the YAML
(libyaml's parser, no Python objects built from it) and reading a few top-level keys costs a
tenth of that (two thirds of loading it: 0.74 s against 0.94 s at 10,351 papers). A paper file
holds at most 1 MiB, which bounds what composing it costs. A file this reading cannot make sense
of is read in full, so that its problem is the one line `survey check` gives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import CorpusError, SurveyError
from ..core.text import shown_path
from ..core.yamlio import MAX_PAPER_BYTES, SLACK, TextLoader, load_yaml, read_text
from .journal import pending
from .lock import CorpusLock
from .model import Paper
from .scores import DOUBT_RE, FRACTION_RE, MAX_DOUBT
from .store import record_files
from .taxonomy import Taxonomy


@dataclass(frozen=True)
class Glance:
    """A paper as the queue sees it: its topics, the model's stored confidence in them, and
    whether a person reviewed them (the abstract for `survey review --topic`, which scores the
    papers that may have missed a topic: kept from the composed file at no cost)."""

    slug: str
    title: str
    topics: tuple[str, ...] = ()
    confidence: dict[str, float] = field(default_factory=dict)
    reviewed: bool = False
    doubt: float | None = None  # the topics the model expects to be wrong, as import stored it
    abstract: str = ""


def glance_papers(root: Path) -> list[Glance]:
    """Every paper of the corpus, by slug. A file that is not a paper (`survey check` refuses
    it) raises its first problem, naming the file."""
    with CorpusLock(root, shared=True):
        half_written = pending(root)
        if half_written:
            raise SurveyError(half_written)
        paths, odd, _ = record_files(root / "papers")
        if odd:
            raise odd[0]
        folder = shown_path(root / "papers")
        return [_glance(path, f"{folder}/{path.name}") for path in paths]


def _glance(path: Path, shown: str) -> Glance:
    text = read_text(path, shown, MAX_PAPER_BYTES)
    try:  # composing costs up to 220 times the text: a file larger than any real one goes to load_yaml
        node = yaml.compose(text, Loader=TextLoader) if len(text) <= SLACK else None  # type: ignore[arg-type]
    except (yaml.YAMLError, RecursionError):
        node = None
    found = _read(node) if isinstance(node, yaml.MappingNode) else None
    if found is None or found.slug != path.stem:
        paper = Paper.from_dict(load_yaml(text, shown), shown)  # its problem, as check words it
        if paper.slug != path.stem:
            raise SurveyError(f"{shown}: slug {paper.slug!r} does not match the file name")
        return Glance(paper.slug, paper.title, tuple(paper.topics), dict(paper.confidence),
                      paper.topics_reviewed, paper.doubt, paper.abstract)
    return found


def _read(node: yaml.MappingNode) -> Glance | None:
    """The glance from a paper file's top-level keys; None where a value is not of the shape a
    paper file gives it."""
    values: dict[str, Any] = {}
    for key, value in node.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name in ("slug", "title", "abstract"):
            if not isinstance(value, yaml.ScalarNode):
                return None
            values[name] = value.value
        elif name == "doubt":
            if not isinstance(value, yaml.ScalarNode) or not DOUBT_RE.match(value.value) or float(
                    value.value) > MAX_DOUBT:
                return None
            values[name] = float(value.value)
        elif name in ("topics", "curated"):
            if not isinstance(value, yaml.SequenceNode) or not all(
                    isinstance(item, yaml.ScalarNode) for item in value.value):
                return None
            values[name] = tuple(item.value for item in value.value)
        elif name == "confidence":
            if not isinstance(value, yaml.MappingNode):
                return None
            pairs = [(k.value, v.value) for k, v in value.value
                     if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)]
            if len(pairs) != len(value.value) or not all(
                    FRACTION_RE.match(v) and float(v) <= 1 for _, v in pairs):
                return None
            values[name] = {k: float(v) for k, v in pairs}
    if not all(isinstance(values.get(name), str) for name in ("slug", "title", "abstract")):
        return None
    return Glance(values["slug"], values["title"], values.get("topics", ()), values.get("confidence", {}),
                  "topics" in values.get("curated", ()), values.get("doubt"), values["abstract"])


def glance_listings(root: Path) -> dict[str, list[tuple[str, int]]]:
    """For each paper slug, the name of each listing holding it and its place there (1-based),
    listings by file name: what `Corpus.listings_of` gives, without building the listings. A
    listing file this reading cannot make sense of is left out (`survey check` names it)."""
    out: dict[str, list[tuple[str, int]]] = {}
    with CorpusLock(root, shared=True):
        paths, _, _ = record_files(root / "listings")
        folder = shown_path(root / "listings")
        for path in paths:
            try:
                listing = load_yaml(read_text(path, f"{folder}/{path.name}"), path.name)
            except CorpusError:
                continue
            listing = listing if isinstance(listing, dict) else {}
            name, entries = listing.get("name"), listing.get("entries")
            if isinstance(name, str) and isinstance(entries, list):
                for pos, entry in enumerate(entries, 1):
                    paper = entry.get("paper") if isinstance(entry, dict) else None
                    if isinstance(paper, str):
                        out.setdefault(paper, []).append((name, pos))
    return out


def glance_topics(root: Path) -> list[tuple[str, str]]:
    """The taxonomy's topics, (id, name) in its order, without building its rules (compiling
    them is 0.4 s: most of what `survey review --list` would take at 2,000 papers). A taxonomy
    this reading cannot make sense of is loaded in full, so that its problem is check's line."""
    path = root / "taxonomy.yaml"
    shown = shown_path(path)
    with CorpusLock(root, shared=True):
        data = load_yaml(read_text(path, shown), shown) if path.exists() else None
        topics = data.get("topics") if isinstance(data, dict) else None
        if isinstance(topics, list) and topics and all(isinstance(t, dict) and isinstance(t.get("id"), str)
                                                       and isinstance(t.get("name"), str) for t in topics):
            return [(t["id"], t["name"]) for t in topics]
        taxonomy = Taxonomy.load(path, shown)
        return [(t.id, t.name) for t in taxonomy.topics]
