"""Related papers: TF-IDF over title and abstract, cosine similarity, the top few per paper.

One sparse matrix product per block of papers (scipy), so 10,000 papers cost seconds, not the
hours of a pure-Python all-pairs loop. Ties are broken by slug: the same corpus gives the
same lists.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import chain, filterfalse, repeat
from typing import Any

import numpy as np
import scipy
from scipy import sparse

from ..corpus.model import Paper

# scipy's own product kernel, called without its counting pass (see _product). It is private
# (scipy.sparse._sparsetools), so it is used only with the scipy release it was checked against,
# pinned exactly in pyproject.toml; any other release takes the public `a @ b`, same results.
# What it buys: related papers of the real corpus (9,403 papers) 4.19 s against 5.37 s of CPU
# with `a @ b` (7 alternating pairs, pairwise gain median 1.14 s, 0.65 to 1.63; 21% of the
# stage); on synthetic 10k 3.75 against 3.97 s (5%), whose abstracts share fewer words.
# Measured with `python benchmarks/ab_stages.py related CORPUS`.
SCIPY_VERSION = "1.17.1"
_matmat: Any = None
if scipy.__version__ == SCIPY_VERSION:
    from scipy.sparse import _sparsetools

    _matmat = _sparsetools.csr_matmat

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
    counts = Counter(filterfalse(_STOP.__contains__, _TOKEN.findall(paper.abstract.lower())))
    for token in _TOKEN.findall(title):
        if token not in _STOP:
            counts[token] += 3  # a title word says more about the paper than an abstract word
    return counts


def related_papers(papers: list[Paper], k: int = 5, min_score: float = 0.05) -> dict[str, list[str]]:
    """For each paper slug, up to `k` most similar other papers, most similar first."""
    return RelatedIndex(k, min_score).update(papers)


class RelatedIndex:
    """The related papers of a corpus, kept up to date as it changes (`mkdocs serve`).

    `update(papers)` returns exactly what `related_papers(papers)` returns. When the same papers
    come back with some titles or abstracts changed, only the rows that can change are computed
    again. A paper's vector changes when its own words change, or when the number of papers
    holding one of its words changes (that word's weight); those rows R are computed afresh.
    Every other row keeps its vector, so its scores against papers outside R are the same bytes
    as before: its new top k is its old top k merged with its scores against R, unless its old
    top k held a paper of R (whose score may have fallen), in which case the row is computed
    again in full. A paper added or removed changes every weight: everything is computed again.

    The scores are bitwise those of a full computation: each row's vector is built by the same
    code from the same numbers, and a score is the same sparse product, summed in the same
    order (the row's terms, which keep their relative order as words come and go).
    """

    def __init__(self, k: int = 5, min_score: float = 0.05) -> None:
        if min_score <= 0:  # _compute_rows looks only at the papers sharing a word
            raise ValueError("min_score must be above 0")
        self.k, self.min_score = k, min_score
        self.slugs: list[str] = []
        self.keys: list[tuple[Any, ...]] = []
        self.out: dict[str, list[str]] = {}
        self.rows_recomputed = 0  # in the last update: how many rows were computed in full

    def update(self, papers: list[Paper]) -> dict[str, list[str]]:
        papers = sorted(papers, key=lambda p: p.slug)
        slugs = [p.slug for p in papers]
        keys = [(tuple(p.titles), p.abstract) for p in papers]
        if len(papers) < 2:
            self.slugs, self.keys = [], []
            self.out = {p.slug: [] for p in papers}
            return self.out
        if slugs != self.slugs:
            self._full(papers, slugs, keys)
        else:
            changed = [i for i, key in enumerate(keys) if key != self.keys[i]]
            if changed:
                self._partial(papers, keys, changed)
        return self.out

    # The whole corpus ------------------------------------------------------------------------

    def _full(self, papers: list[Paper], slugs: list[str], keys: list[tuple[Any, ...]]) -> None:
        n = len(papers)
        self.slugs, self.keys = slugs, keys
        self.docs = [_terms(p) for p in papers]
        self.df: Counter[str] = Counter()
        for doc in self.docs:
            self.df.update(doc.keys())
        self.vocab = self._vocabulary()
        self.idf = self._idf()
        self.matrix = _vectors(self.docs, self.vocab, self.idf)
        self.transposed = self.matrix.T.tocsr()
        self.best = np.full((n, self.k), -1, dtype=np.int64)
        self.best_scores = np.full((n, self.k), np.nan)
        self._compute_rows(np.arange(n))
        self.rows_recomputed = n
        self.out = {slugs[i]: self._listed(i) for i in range(n)}

    def _vocabulary(self) -> dict[str, int]:
        # Words in more than a fifth of the papers say little about any of them, and they are
        # what makes the product dense: dropping them makes 10,000 papers four times faster.
        common = max(2, int(MAX_DF * len(self.slugs)))
        return {term: i for i, term in enumerate(sorted(t for t, c in self.df.items() if c <= common))}

    def _idf(self) -> np.ndarray:
        n, df = len(self.slugs), self.df
        return np.array([math.log((1 + n) / (1 + df[t])) + 1.0 for t in self.vocab])  # index order

    def _compute_rows(self, rows: np.ndarray) -> None:
        """Each row's top k against every paper, from its scores."""
        take = min(self.k, len(self.slugs) - 1)
        for start in range(0, len(rows), BLOCK):
            block = rows[start:start + BLOCK]
            # The scores stay sparse: only papers sharing a word score above 0, and none of the
            # others can be related (min_score > 0).
            indptr, indices, data = _product(self.matrix[block], self.transposed)
            # Real abstracts share a word with nearly every paper, but few score min_score:
            # only those are looked at, all rows at once.
            at = np.flatnonzero(data >= self.min_score)
            owner = np.searchsorted(indptr, at, side="right") - 1
            cols, scores = indices[at], data[at]
            other = cols != block[owner]  # not related to itself
            owner, cols, scores = owner[other], cols[other], scores[other]
            bounds = np.searchsorted(owner, np.arange(len(block) + 1))
            floor = np.full(len(block), self.min_score)
            if take > 0:
                # The take-th best score; anything that can rank in the top k (the order is by
                # the score rounded to 9 digits, then by slug) is within 1e-9 of it or above.
                # A row with fewer than take scores of min_score keeps them all.
                counts = np.diff(bounds)
                width = int(counts.max(initial=0))
                if width >= take:  # each row's scores side by side, -inf after its last
                    side = np.full((len(block), width), -np.inf)
                    side[owner, np.arange(len(owner)) - bounds[owner]] = scores
                    every = np.arange(len(block))
                    for _ in range(take):  # the best, taken out take times (k is small)
                        at_best = side.argmax(axis=1)
                        kth = side[every, at_best]
                        side[every, at_best] = -np.inf
                    full = counts >= take
                    floor[full] = np.maximum(kth[full] - 1e-8, self.min_score)
            keep = scores >= floor[owner]
            owner, cols, scores = owner[keep], cols[keep].tolist(), scores[keep].tolist()
            bounds = np.searchsorted(owner, np.arange(len(block) + 1)).tolist()
            for offset, i in enumerate(block.tolist()):
                lo, hi = bounds[offset], bounds[offset + 1]
                self._keep(i, list(zip(cols[lo:hi], scores[lo:hi], strict=True)))

    def _keep(self, i: int, scored: list[tuple[int, float]]) -> None:
        """Row i's top k of these (column, score) pairs."""
        slugs, min_score = self.slugs, self.min_score
        ranked = sorted((cs for cs in scored if cs[0] != i and cs[1] >= min_score),
                        key=lambda cs: (-round(cs[1], 9), slugs[cs[0]]))[:self.k]
        gap = self.k - len(ranked)  # the row in two assignments, not one per place
        self.best[i] = [c for c, _ in ranked] + [-1] * gap
        self.best_scores[i] = [score for _, score in ranked] + [np.nan] * gap

    def _listed(self, i: int) -> list[str]:
        return [self.slugs[c] for c in self.best[i] if c >= 0]

    # Some papers changed ---------------------------------------------------------------------

    def _partial(self, papers: list[Paper], keys: list[tuple[Any, ...]], changed: list[int]) -> None:
        n = len(papers)
        old_vocab, old_transposed = self.vocab, self.transposed
        df_before: dict[str, int] = {}
        for i in changed:
            doc = _terms(papers[i])
            for term in self.docs[i].keys() | doc.keys():
                df_before.setdefault(term, self.df[term])
            self.df.subtract(self.docs[i].keys())
            self.df.update(doc.keys())
            self.docs[i] = doc
            self.keys[i] = keys[i]
        moved = [t for t, before in df_before.items() if self.df[t] != before]
        for term in moved:
            if self.df[term] <= 0:
                del self.df[term]
        vocab = self._vocabulary()
        # The rows whose vector changes: the changed papers, and the papers holding a word whose
        # weight changed (or that joined or left the vocabulary).
        redo = set(changed)
        for term in moved:
            j = old_vocab.get(term)
            if j is not None:  # the papers that held it (the changed ones are in already)
                redo.update(old_transposed.indices[old_transposed.indptr[j]:old_transposed.indptr[j + 1]]
                            .tolist())
            elif term in vocab:  # new to the vocabulary: the papers that hold it now
                redo.update(i for i, doc in enumerate(self.docs) if term in doc)
        if len(redo) * 4 > n:  # most of the corpus: the whole computation is cheaper
            self._full(papers, self.slugs, keys)
            return
        renumbered = vocab.keys() != old_vocab.keys()
        self.vocab = vocab
        self.idf = self._idf()
        changed_rows = np.array(sorted(redo), dtype=np.int64)
        kept = np.setdiff1d(np.arange(n), changed_rows)
        old = self.matrix[kept]
        if renumbered:  # new column numbers, in the same order for the words kept
            remap = np.full(len(old_vocab), -1, dtype=np.int64)
            for term, j in old_vocab.items():
                remap[j] = vocab.get(term, -1)
            old = sparse.csr_matrix((old.data, remap[old.indices], old.indptr), shape=(len(kept), len(vocab)))
        fresh = _vectors([self.docs[i] for i in changed_rows], vocab, self.idf)
        stacked = sparse.vstack([old, fresh], format="csr")
        position = np.empty(n, dtype=np.int64)
        position[kept] = np.arange(len(kept))
        position[changed_rows] = len(kept) + np.arange(len(changed_rows))
        self.matrix = stacked[position]
        self.transposed = self.matrix.T.tocsr()

        # Rows whose old top k holds a changed row: computed in full, with the changed rows.
        in_best = np.asarray(np.isin(self.best, changed_rows).any(axis=1))
        in_best[changed_rows] = True
        full_rows = np.flatnonzero(in_best)
        self._compute_rows(full_rows)
        # Every other row: its old top k, merged with its scores against the changed rows
        # (a score is symmetric: s(r, i) is s(i, r), to the bit).
        hits: dict[int, list[tuple[int, float]]] = {}
        for start in range(0, len(changed_rows), BLOCK):
            block = changed_rows[start:start + BLOCK]
            against = (self.matrix[block] @ self.transposed).toarray()
            against[:, full_rows] = -1.0
            for h, i in zip(*np.nonzero(against >= self.min_score), strict=True):
                hits.setdefault(int(i), []).append((int(block[h]), float(against[h, i])))
        for i, scored in hits.items():
            scored += [(int(c), float(s)) for c, s in zip(self.best[i], self.best_scores[i], strict=True)
                       if c >= 0]
            self._keep(i, scored)
        self.rows_recomputed = len(full_rows)
        out = dict(self.out)
        for i in (*full_rows.tolist(), *hits):
            out[self.slugs[i]] = self._listed(i)
        self.out = out


def _product(a: sparse.csr_matrix, b: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`a @ b` as CSR arrays (indptr, indices, data): what scipy's product gives, without the
    pass that counts the result's entries first (a third of the time at 10,000 papers): the
    result has room for every pair, which is what real abstracts come close to."""
    rows, cols = a.shape[0], b.shape[1]
    arrays = (a.indptr, a.indices, b.indptr, b.indices)
    if (_matmat is None or rows * cols >= 2**31 or any(x.dtype != np.int32 for x in arrays)
            or a.data.dtype != np.float64 or b.data.dtype != np.float64):
        product = (a @ b).tocsr()
        return product.indptr, product.indices, product.data
    indptr = np.empty(rows + 1, dtype=np.int32)
    indices = np.empty(rows * cols, dtype=np.int32)
    data = np.empty(rows * cols, dtype=np.float64)
    _matmat(rows, cols, a.indptr, a.indices, a.data, b.indptr, b.indices, b.data, indptr, indices, data)
    end = int(indptr[-1])
    return indptr, indices[:end], data[:end]


def _vectors(docs: list[Counter[str]], vocab: dict[str, int], idf: np.ndarray) -> sparse.csr_matrix:
    """The papers' TF-IDF vectors, each of length 1, one row a paper."""
    # Every paper's terms in its own order, in one go (C-level maps, no Python call a term).
    cols = np.fromiter(map(vocab.get, chain.from_iterable(docs), repeat(-1)), dtype=np.int64)
    tfs = np.fromiter(chain.from_iterable(doc.values() for doc in docs), dtype=np.int64, count=len(cols))
    rows = np.repeat(np.arange(len(docs)), [len(doc) for doc in docs])
    known = cols >= 0
    rows, cols, tfs = rows[known], cols[known], tfs[known]
    weight = np.array([0.0, *(1.0 + math.log(tf) for tf in range(1, int(tfs.max(initial=0)) + 1))])
    vals = weight[tfs] * idf[cols]
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(len(docs), len(vocab)), dtype=np.float64)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.diags(1.0 / norms) @ matrix
