"""What is derived from the paper files and the topic model, kept apart from both: a cache that
is never committed (`corpus/.survey-cache.json`: `.gitignore` holds it, and one that git tracks is
refused, as a writer's leftovers are).

A paper file holds what a person or a source said. The model's confidence in each topic, and the
review queue's order that follows from it, change whenever the model is retrained: kept in the
paper files, a refresh after 14 decisions rewrote 855 of them to move 9 suggestions (issue 42).
Here they are kept by content, so that an entry is never wrong, only unused:

- `papers`: for each paper file's text (its digest), what the review queue needs of it (slug,
  title, topics, whether a person reviewed them, the digest of its title and abstract), as
  `store.read_record`, the one reader of a paper file, read it. The queue then opens without
  reading 10,000 YAML files (0.45 ms each): it reads and hashes their bytes.
- `scores`: under `model` (the digest of the taxonomy, the topic model and the code that scores,
  classify/derived.py), each title and abstract's confidence in every topic, and `topics`, that
  taxonomy's (id, name) pairs.

Any command may write the file, a reader as well as a writer, with or without the corpus lock:
an entry is keyed by what it was computed from, so no write of the corpus can make it wrong. It
is written whole and renamed over the last one; when two write at once the last one wins, and
what the other had added is computed again when next needed. A file this module did not write
(another shape, over MAX_BYTES, a link, a folder) is passed over and replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.text import digest, shown_path
from ..core.yamlio import MAX_PAPER_BYTES, NOFOLLOW, NotPlain, plain_bytes, read_text
from .journal import CACHE, pending, refuse_committed
from .lock import CorpusLock
from .model import Paper
from .store import read_text_record, record_files, slug_mismatch
from .taxonomy import Taxonomy

FORMAT = 1  # raised when an entry's shape changes: a cache of another format is passed over
# Some 400 bytes a paper: 650,000 papers, far past any survey, and a parse of about 1.5 GB.
MAX_BYTES = 256 * 2**20


def text_digest(title: str, abstract: str) -> str:
    """What the model reads of a paper: its confidence changes with nothing else."""
    return digest(f"{len(title)}:{title}{abstract}")


@dataclass(frozen=True)
class Glance:
    """A paper as the review queue sees it."""

    slug: str
    title: str
    topics: tuple[str, ...]
    reviewed: bool  # a person decided its topics
    text: str  # text_digest of its title and abstract: its key in `scores`

    @classmethod
    def of(cls, paper: Paper) -> Glance:
        return cls(paper.slug, paper.title, tuple(paper.topics), paper.topics_reviewed,
                   text_digest(paper.title, paper.abstract))


@dataclass
class Derived:
    """The cache of one corpus folder, as read; `save` writes it back if anything was added."""

    root: Path
    papers: dict[str, Glance] = field(default_factory=dict)  # file digest -> glance
    model: str = ""
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # text digest -> topic -> confidence
    topics: list[tuple[str, str]] = field(default_factory=list)
    added: bool = False
    seen: set[str] = field(default_factory=set)  # the file digests glance_papers met
    read: dict[str, tuple[str, str]] = field(default_factory=dict)  # slug -> (title, abstract), of files read

    @classmethod
    def load(cls, root: Path) -> Derived:
        """The cache of root, or an empty one where there is none this module wrote. One that git
        tracks is refused: a commit brought it, and what it says would be shown as the model's."""
        path = root / CACHE
        if not os.path.lexists(path):
            return cls(root)
        refuse_committed(root, (CACHE,))
        try:
            data = plain_bytes(path, MAX_BYTES)
            found = _parsed(json.loads(data)) if len(data) <= MAX_BYTES else None
        except (OSError, NotPlain, ValueError, RecursionError):
            found = None
        return cls(root, *found) if found else cls(root)

    def scores_of(self, model: str, taxonomy: Taxonomy) -> dict[str, dict[str, float]]:
        """The scores kept for this model (`taxonomy` and its topic model, whose key it is); those
        of another one are dropped."""
        if model != self.model or not self.topics:
            if model != self.model:
                self.model, self.scores = model, {}
            self.topics, self.added = [(t.id, t.name) for t in taxonomy.topics], True
        return self.scores

    def remember(self, papers: Iterable[tuple[Paper, str]]) -> None:
        """The glance of each (paper, text of its file) just written."""
        for paper, text in papers:
            self.papers[digest(text)] = Glance.of(paper)
            self.added = True

    def save(self, live_files: set[str] | None = None, live_texts: set[str] | None = None) -> None:
        """Write the cache if anything was added, keeping only the entries of the files and texts
        named (a caller that has read the whole corpus knows them; None: keep all)."""
        if not self.added:
            return
        papers = {k: g for k, g in self.papers.items() if live_files is None or k in live_files}
        scores = {k: s for k, s in self.scores.items() if live_texts is None or k in live_texts}
        data = {"format": FORMAT, "model": self.model, "topics": [list(t) for t in self.topics],
                "papers": {k: [g.slug, g.title, list(g.topics), g.reviewed, g.text]
                           for k, g in papers.items()},
                "scores": scores}
        text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        part = self.root / f"{CACHE}.{os.getpid()}"
        # A cache is not worth failing a command for (a read-only corpus, a full disk): it is
        # computed again next time.
        with contextlib.suppress(OSError):
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o644)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(text)
                os.replace(part, self.root / CACHE)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(part)
        self.added = False


def _parsed(data: Any) -> tuple[Any, ...] | None:
    """The cache's parts, or None where it is not of the shape `save` writes."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    model, topics, papers, scores = (data.get(k) for k in ("model", "topics", "papers", "scores"))
    if not (isinstance(model, str) and isinstance(topics, list) and isinstance(papers, dict)
            and isinstance(scores, dict)):
        return None
    if not all(isinstance(t, list) and len(t) == 2 and all(isinstance(s, str) for s in t) for t in topics):
        return None
    glances = {}
    for key, value in papers.items():
        if not (isinstance(value, list) and len(value) == 5 and isinstance(value[2], list)
                and all(isinstance(v, str) for v in (value[0], value[1], value[4], *value[2]))
                and isinstance(value[3], bool)):
            return None
        glances[key] = Glance(value[0], value[1], tuple(value[2]), value[3], value[4])
    for value in scores.values():
        if not (isinstance(value, dict) and all(isinstance(c, float | int) and not isinstance(c, bool)
                                                and 0 <= c <= 1 for c in value.values())):
            return None
    return glances, model, scores, [(a, b) for a, b in topics]


def glance_papers(root: Path, derived: Derived) -> list[Glance]:
    """Every paper of the corpus, by slug: from the cache where a file's text is known to it,
    else read as `survey check` reads it (and kept). A file that is not a paper (`survey check`
    refuses it) raises its first problem, naming the file."""
    with CorpusLock(root, shared=True):
        half_written = pending(root)
        if half_written:
            raise SurveyError(half_written)
        paths, odd, _ = record_files(root / "papers")
        if odd:
            raise odd[0]
        folder = shown_path(root / "papers")
        out = []
        for path in paths:
            shown = f"{folder}/{path.name}"
            text = read_text(path, shown, MAX_PAPER_BYTES)
            key = digest(text)
            glance = derived.papers.get(key)
            if glance is None:
                paper = read_text_record(text, Paper, shown)
                glance = derived.papers[key] = Glance.of(paper)
                derived.read[paper.slug] = (paper.title, paper.abstract)
                derived.added = True
            if glance.slug != path.stem:
                raise slug_mismatch(shown, glance.slug)
            derived.seen.add(key)
            out.append(glance)
    return out
