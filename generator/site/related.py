"""Related papers: TF-IDF over title and abstract, cosine similarity, the top few per paper.

One sparse matrix product per block of papers (scipy), so 10,000 papers cost seconds, not the
hours of a pure-Python all-pairs loop. Ties are broken by slug: the same corpus gives the
same lists.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

import numpy as np
from scipy import sparse

from ..corpus.model import Paper

_TOKEN = re.compile(r"[a-z][a-z0-9+#-]*[a-z0-9+#]|[a-z]")
_STOP = frozenset((
    "a", "about", "above", "across", "after", "all", "also", "an", "and", "any", "are", "as", "at",
    "be", "been", "between", "both", "but", "by", "can", "could", "do", "does", "each", "even",
    "for", "from", "further", "has", "have", "how", "however", "in", "into", "is", "it", "its",
    "many", "may", "more", "most", "much", "new", "not", "of", "on", "one", "or", "other", "our",
    "over", "paper", "propose", "proposed", "show", "such", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "through", "to", "two", "up", "use", "used",
    "using", "via", "was", "we", "well", "were", "what", "when", "where", "which", "while", "with",
    "within", "without", "work", "would", "results", "approach", "method", "methods",
))
BLOCK = 512
MAX_DF = 0.2


def _terms(paper: Paper) -> Counter[str]:
    title = " ".join(paper.titles).lower()
    counts = Counter(t for t in _TOKEN.findall(paper.abstract.lower()) if t not in _STOP)
    for token in _TOKEN.findall(title):
        if token not in _STOP:
            counts[token] += 3  # a title word says more about the paper than an abstract word
    return counts


def related_papers(papers: list[Paper], k: int = 5, min_score: float = 0.05,
                   terms: dict[Any, Counter[str]] | None = None) -> dict[str, list[str]]:
    """For each paper slug, up to `k` most similar other papers, most similar first.

    `terms` keeps each paper's words between calls (`mkdocs serve` rebuilding after an edit).
    """
    papers = sorted(papers, key=lambda p: p.slug)
    n = len(papers)
    if n < 2:
        return {p.slug: [] for p in papers}
    if terms is None:
        docs = [_terms(p) for p in papers]
    else:
        keys = [(tuple(p.titles), p.abstract) for p in papers]
        fresh = {key: terms.get(key) or _terms(p) for key, p in zip(keys, papers, strict=True)}
        terms.clear()
        terms.update(fresh)
        docs = [fresh[key] for key in keys]
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(doc.keys())
    # Words in more than a fifth of the papers say little about any of them, and they are what
    # makes the product dense: dropping them makes 10,000 papers four times faster.
    common = max(2, int(MAX_DF * n))
    vocab = {term: i for i, term in enumerate(sorted(t for t, c in df.items() if c <= common))}
    idf = np.array([math.log((1 + n) / (1 + df[t])) + 1.0 for t in vocab])  # in index order
    rows, cols, weights = [], [], []
    weight = {tf: 1.0 + math.log(tf) for tf in range(1, 64)}
    for i, doc in enumerate(docs):
        for term, tf in doc.items():
            j = vocab.get(term)
            if j is not None:
                rows.append(i)
                cols.append(j)
                weights.append(weight.get(tf) or 1.0 + math.log(tf))
    vals = np.array(weights) * idf[np.array(cols, dtype=np.int64)]
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(n, len(vocab)), dtype=np.float64)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    matrix = sparse.diags(1.0 / norms) @ matrix
    transposed = matrix.T.tocsr()
    slugs = [p.slug for p in papers]
    out: dict[str, list[str]] = {}
    take = min(k, n - 1)
    for start in range(0, n, BLOCK):
        scores = (matrix[start:start + BLOCK] @ transposed).toarray()
        diagonal = np.arange(scores.shape[0])
        scores[diagonal, diagonal + start] = -1.0
        if n - 1 > take + 8:
            best = np.argpartition(-scores, take, axis=1)[:, : take + 8]
        else:
            best = np.broadcast_to(np.arange(n), scores.shape)
        for offset, row in enumerate(scores):
            i = start + offset
            candidates = best[offset]
            ranked = sorted((c for c in candidates if c != i and row[c] >= min_score),
                            key=lambda c: (-round(float(row[c]), 9), slugs[c]))
            out[slugs[i]] = [slugs[c] for c in ranked[:k]]
    return out
