"""Finding the paper an entry already is, and the papers it might be.

Exact matches (merged): the normalised title, an alternate title or a title a listing showed,
the arXiv id, or the same abstract: identical once normalised, or sharing at least half of
their word 3-grams (a revised abstract of the same work; in the seed listings the two k-medoids
versions share 56%, no other pair more than 8%).
Two entries with different arXiv ids are never merged by their abstracts: arXiv says they are
two papers (in the real feed, WebSailor and WebSailor-V2 share their abstract word for word).
Possible duplicates (reported, never merged): abstracts sharing at least a fifth of their
3-grams, or titles at least 80% alike.

Every lookup goes through hash maps and inverted indexes; nothing compares all pairs.
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..core.text import match_key, shingles
from ..corpus.model import Listing, Paper

SAME_ABSTRACT = 0.5
SIMILAR_ABSTRACT = 0.2
SIMILAR_TITLE = 0.8
# Postings longer than this are stop-shingles ("in this paper we"): too common to discriminate.
_MAX_POSTING = 50

_STOP = frozenset((
    "a", "an", "the", "of", "for", "and", "or", "in", "on", "to", "with", "by", "from", "via",
    "at", "as", "is", "are", "we", "our", "its", "into", "using", "towards", "toward", "large",
    "language", "model", "models", "llm", "llms", "efficient", "learning", "deep", "neural",
    "network", "networks", "training", "inference", "gpu", "gpus", "scalable", "fast",
))


_NO_GRAMS = np.zeros(0, dtype=np.int64)


def _gram_hashes(abstract: str) -> np.ndarray:
    """An abstract's word 3-grams as sorted distinct 64-bit hashes: 8 bytes a gram where a set of
    strings takes 90 (the index of 9,000 real abstracts: 360 MB as strings)."""
    grams = shingles(abstract)
    return np.unique(np.fromiter(map(hash, grams), dtype=np.int64, count=len(grams)))


class _Postings:
    """Which papers hold each gram: sorted arrays of (gram, paper number), a few levels of them.

    New pairs wait in a small dict; a full one becomes a sorted level, and levels of similar
    size merge (as a binary counter does), so each pair is re-sorted O(log n) times in all.
    """

    BUFFER = 1 << 15

    def __init__(self) -> None:
        self.levels: list[tuple[np.ndarray, np.ndarray]] = []
        self.fresh: list[tuple[np.ndarray, int]] = []  # added since the last query
        self.pending: dict[int, list[int]] = {}
        self.size = 0

    def add(self, grams: np.ndarray, number: int) -> None:
        self.fresh.append((grams, number))
        self.size += grams.size
        if self.size >= self.BUFFER:
            self._flush()

    def _flush(self) -> None:
        pairs = [(g, np.full(g.size, n, dtype=np.int32)) for g, n in self.fresh]
        pairs += [(np.full(len(ns), g, dtype=np.int64), np.array(ns, dtype=np.int32))
                  for g, ns in self.pending.items()]
        self.fresh, self.pending, self.size = [], {}, 0
        if not pairs:
            return
        keys = np.concatenate([k for k, _ in pairs])
        values = np.concatenate([v for _, v in pairs])
        while self.levels and self.levels[-1][0].size <= keys.size * 2:
            k, v = self.levels.pop()
            keys, values = np.concatenate((k, keys)), np.concatenate((v, values))
        order = np.argsort(keys, kind="stable")
        self.levels.append((keys[order], values[order]))

    def shared(self, grams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The papers sharing a gram with `grams`, and how many they share; grams held by more
        than _MAX_POSTING papers are skipped."""
        for fresh, number in self.fresh:
            for gram in fresh.tolist():
                self.pending.setdefault(gram, []).append(number)
        self.fresh = []
        spans = [(v, np.searchsorted(k, grams, "left"), np.searchsorted(k, grams, "right"))
                 for k, v in self.levels]
        recent = [self.pending.get(g, ()) for g in grams.tolist()]
        held = np.fromiter(map(len, recent), dtype=np.int64, count=grams.size)
        for _, left, right in spans:
            held += right - left
        keep = held <= _MAX_POSTING
        found = [np.fromiter((n for ns, k in zip(recent, keep.tolist(), strict=True) if k for n in ns),
                             dtype=np.int32)]
        for values, left, right in spans:
            lengths = right[keep] - left[keep]
            total = int(lengths.sum())
            if total:
                starts = np.repeat(left[keep] - np.cumsum(lengths) + lengths, lengths)
                found.append(values[starts + np.arange(total)])
        return np.unique(np.concatenate(found), return_counts=True)


class Record(Protocol):
    """What the index reads of a paper (a paper of the corpus, or a rejected one)."""

    @property
    def slug(self) -> str: ...
    @property
    def titles(self) -> list[str]: ...
    @property
    def arxiv(self) -> str | None: ...
    @property
    def abstract(self) -> str: ...


@dataclass(frozen=True)
class Match:
    slug: str
    how: str  # "title", "arxiv", "abstract" or "same abstract"


@dataclass(frozen=True)
class Possible:
    slug: str
    why: str


class Index:
    def __init__(self) -> None:
        self.by_title: dict[str, str] = {}
        self.by_arxiv: dict[str, str] = {}
        self.by_abstract: dict[str, str] = {}
        self._arxiv_of: dict[str, str] = {}
        self._last: tuple[str, int, list[tuple[str, float]]] | None = None
        self._last_grams: tuple[str | None, np.ndarray] = (None, _NO_GRAMS)
        self._shingles: dict[str, np.ndarray] = {}
        self._number: dict[str, int] = {}
        self._slugs: list[str] = []
        self._postings = _Postings()
        self._title_postings: dict[str, list[str]] = {}
        self._titles: dict[str, list[str]] = {}

    @classmethod
    def of(cls, papers: dict[str, Paper], listings: dict[str, Listing]) -> Index:
        index = cls()
        for slug in sorted(papers):
            index.add(papers[slug])
        for slug in sorted(listings):
            for entry in listings[slug].entries:
                if entry.paper in papers:
                    index.add_title(entry.title, entry.paper)
        return index

    def add(self, paper: Record) -> None:
        for title in paper.titles:
            self.add_title(title, paper.slug)
        if paper.arxiv:
            self.by_arxiv.setdefault(paper.arxiv, paper.slug)
            self._arxiv_of[paper.slug] = paper.arxiv
        self.by_abstract.setdefault(match_key(paper.abstract), paper.slug)
        if paper.slug in self._number:  # merged into: its abstract never changes
            return
        grams = self._grams(paper.abstract)
        self._shingles[paper.slug] = grams
        self._number[paper.slug] = len(self._slugs)
        self._slugs.append(paper.slug)
        self._postings.add(grams, self._number[paper.slug])

    def add_title(self, title: str, slug: str) -> None:
        key = match_key(title)
        if key in self.by_title:
            return
        self.by_title[key] = slug
        self._titles.setdefault(slug, []).append(key)
        for token in set(key.split()) - _STOP:
            self._title_postings.setdefault(token, []).append(slug)

    def match(self, title: str, abstract: str, arxiv: str | None, abstracts: bool = True) -> Match | None:
        """The paper this entry is (same arXiv id, same title, or, with abstracts, an abstract
        the same or all but the same under another title), or None."""
        if arxiv and arxiv in self.by_arxiv:
            return Match(self.by_arxiv[arxiv], "arxiv")
        key = match_key(title)
        if key in self.by_title:
            return Match(self.by_title[key], "title")
        if not abstracts:
            return None
        same = self.by_abstract.get(match_key(abstract))
        if same and self._compatible(same, arxiv):
            return Match(same, "abstract")
        for slug, score in self._abstract_overlaps(abstract):
            if score < SAME_ABSTRACT:
                break
            if self._compatible(slug, arxiv):
                return Match(slug, "same abstract")
        return None

    def _compatible(self, slug: str, arxiv: str | None) -> bool:
        other = self._arxiv_of.get(slug)
        return not (arxiv and other and other != arxiv)

    def possible(self, title: str, abstract: str, exclude: str | None = None) -> list[Possible]:
        found: dict[str, str] = {}
        for slug, score in self._abstract_overlaps(abstract):
            if score >= SIMILAR_ABSTRACT and slug != exclude:
                found.setdefault(slug, f"abstracts share {score:.0%} of their wording")
        key = match_key(title)
        for slug in self._title_candidates(key):
            if slug == exclude or slug in found:
                continue
            ratio = max(difflib.SequenceMatcher(None, key, other).ratio() for other in self._titles[slug])
            if ratio >= SIMILAR_TITLE:
                found[slug] = f"titles {ratio:.0%} alike"
        return [Possible(slug, why) for slug, why in sorted(found.items())]

    def _abstract_overlaps(self, abstract: str) -> list[tuple[str, float]]:
        # match() then possible() ask for the same abstract: answer the second from memory.
        if self._last is not None and self._last[0] == abstract and self._last[1] == len(self._shingles):
            return self._last[2]
        found = self._overlaps(abstract)
        self._last = (abstract, len(self._shingles), found)
        return found

    def _grams(self, abstract: str) -> np.ndarray:
        if self._last_grams[0] != abstract:
            self._last_grams = (abstract, _gram_hashes(abstract))
        return self._last_grams[1]

    def _overlaps(self, abstract: str) -> list[tuple[str, float]]:
        grams = self._grams(abstract)
        if not grams.size:
            return []
        numbers, counts = self._postings.shared(grams)
        slugs = self._slugs
        top = heapq.nsmallest(10, zip(counts.tolist(), numbers.tolist(), strict=True),
                              key=lambda item: (-item[0], slugs[item[1]]))
        scored = []
        for _, number in top:
            other = self._shingles[slugs[number]]
            both = np.intersect1d(grams, other, assume_unique=True).size
            scored.append((slugs[number], both / (grams.size + other.size - both)))
        return sorted(scored, key=lambda s: (-s[1], s[0]))

    def _title_candidates(self, key: str) -> list[str]:
        counts: Counter[str] = Counter()
        tokens = set(key.split()) - _STOP
        for token in tokens:
            posting = self._title_postings.get(token, ())
            if len(posting) <= _MAX_POSTING:
                counts.update(posting)
        need = max(1, len(tokens) // 2)
        return sorted(slug for slug, n in counts.items() if n >= need)
