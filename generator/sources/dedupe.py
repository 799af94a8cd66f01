"""Finding the paper an entry already is, and the papers it might be.

Exact matches (merged): the normalised title, an alternate title or a title a listing showed,
the arXiv id, or the same abstract: identical once normalised, or sharing at least half of
their word 3-grams (a revised abstract of the same work; in the seed listings the two k-medoids
versions share 56%, no other pair more than 8%).
Possible duplicates (reported, never merged): abstracts sharing at least a fifth of their
3-grams, or titles at least 80% alike.

Every lookup goes through hash maps and inverted indexes; nothing compares all pairs.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass

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
        self._shingles: dict[str, set[str]] = {}
        self._shingle_postings: dict[str, list[str]] = {}
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

    def add(self, paper: Paper) -> None:
        for title in paper.titles:
            self.add_title(title, paper.slug)
        if paper.arxiv:
            self.by_arxiv.setdefault(paper.arxiv, paper.slug)
        self.by_abstract.setdefault(match_key(paper.abstract), paper.slug)
        grams = shingles(paper.abstract)
        self._shingles[paper.slug] = grams
        for gram in grams:
            self._shingle_postings.setdefault(gram, []).append(paper.slug)

    def add_title(self, title: str, slug: str) -> None:
        key = match_key(title)
        if key in self.by_title:
            return
        self.by_title[key] = slug
        self._titles.setdefault(slug, []).append(key)
        for token in set(key.split()) - _STOP:
            self._title_postings.setdefault(token, []).append(slug)

    def match(self, title: str, abstract: str, arxiv: str | None) -> Match | None:
        if arxiv and arxiv in self.by_arxiv:
            return Match(self.by_arxiv[arxiv], "arxiv")
        key = match_key(title)
        if key in self.by_title:
            return Match(self.by_title[key], "title")
        if match_key(abstract) in self.by_abstract:
            return Match(self.by_abstract[match_key(abstract)], "abstract")
        best = self._abstract_overlaps(abstract)
        if best and best[0][1] >= SAME_ABSTRACT:
            return Match(best[0][0], "same abstract")
        return None

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
        grams = shingles(abstract)
        if not grams:
            return []
        shared: Counter[str] = Counter()
        for gram in grams:
            posting = self._shingle_postings.get(gram, ())
            if len(posting) <= _MAX_POSTING:
                shared.update(posting)
        scored = []
        for slug, _ in shared.most_common(10):
            other = self._shingles[slug]
            scored.append((slug, len(grams & other) / len(grams | other)))
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
