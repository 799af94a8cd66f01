"""Related papers kept up to date under `mkdocs serve`: after any sequence of edits, the
incremental computation gives exactly what a full computation of the same corpus gives."""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter

import numpy as np
from conftest import ROOT
from scipy import sparse

from generator.corpus.model import Paper
from generator.corpus.store import load_corpus
from generator.site import related
from generator.site.related import RelatedIndex, related_papers

# Words drawn as in real text, a few very often and most rarely: weights move with every edit,
# some words cross the "in more than a fifth of the papers" line, and copies make scores tie.
WORDS = ["gpu", "kernel", "cache", "quantization", "serving"] + [f"w{i}" for i in range(400)]
WEIGHTS = [1 / (rank + 1) for rank in range(len(WORDS))]


def _abstract(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, WEIGHTS, k=rng.randint(3, 30)))


def _edit(rng: random.Random, papers: list[Paper], serial: int) -> tuple[list[Paper], str]:
    papers = list(papers)
    i = rng.randrange(len(papers))
    kind = rng.choice(["words", "words", "words", "words", "abstract", "title", "copy", "add", "remove"])
    p = papers[i]
    if kind == "abstract":
        papers[i] = dataclasses.replace(p, abstract=_abstract(rng))
    elif kind == "words":  # one word more or less: the smallest edit
        words = p.abstract.split()
        if words and rng.random() < 0.5:
            words.pop(rng.randrange(len(words)))
        else:
            words.insert(rng.randrange(len(words) + 1), rng.choice([*WORDS, f"new{serial}"]))
        papers[i] = dataclasses.replace(p, abstract=" ".join(words))
    elif kind == "title":
        papers[i] = dataclasses.replace(p, title=f"{rng.choice(WORDS)} {rng.choice(WORDS)} {serial}")
    elif kind == "copy":  # the same words as another paper: scores tie exactly
        papers[i] = dataclasses.replace(p, abstract=rng.choice(papers).abstract)
    elif kind == "add":
        papers.append(Paper(slug=f"added-{serial}", title=f"Added {serial}", abstract=_abstract(rng)))
    elif len(papers) > 3:
        papers.pop(i)
    return papers, kind


def test_incremental_related_papers_equal_a_full_computation() -> None:
    rng = random.Random(20261123)
    papers = [Paper(slug=f"paper-{i:03d}", title=f"{rng.choice(WORDS)} paper {i}", abstract=_abstract(rng))
              for i in range(300)]
    index = RelatedIndex()
    assert index.update(papers) == related_papers(papers)
    partial = 0
    for serial in range(60):
        papers, kind = _edit(rng, papers, serial)
        if rng.random() < 0.3:  # sometimes two edits between two builds
            papers, _ = _edit(rng, papers, serial + 1000)
        got = index.update(papers)
        assert got == related_papers(papers), (serial, kind)
        partial += index.rows_recomputed < len(papers)
    assert partial >= 20  # most edits took the incremental path


def test_incremental_related_papers_on_the_seed_corpus() -> None:
    """The real papers: an abstract edit recomputes few rows, and the result is exact."""
    papers = load_corpus(ROOT / "corpus").sorted_papers()
    index = RelatedIndex()
    index.update(papers)
    rng = random.Random(7)
    for _ in range(5):
        i = rng.randrange(len(papers))
        papers = list(papers)
        papers[i] = dataclasses.replace(papers[i], abstract="Edited. " + papers[i].abstract)
        assert index.update(papers) == related_papers(papers)
        assert index.rows_recomputed < len(papers) // 4


def _every_score(papers: list[Paper], k: int = 5, min_score: float = 0.05) -> dict[str, list[str]]:
    """The plain definition: every pair's score from the dense matrix, the top k by score
    rounded to 9 digits, then slug; the fast path looks only at papers that share a word."""
    index = RelatedIndex(k, min_score)
    index.update(papers)
    scores = (index.matrix @ index.transposed).toarray()
    slugs = index.slugs
    out = {}
    for i, row in enumerate(scores):
        ranked = sorted((j for j in range(len(slugs)) if j != i and row[j] >= min_score),
                        key=lambda j: (-round(float(row[j]), 9), slugs[j]))
        out[slugs[i]] = [slugs[j] for j in ranked[:k]]
    return out


def _plain_vectors(docs: list[Counter[str]], vocab: dict[str, int], idf: np.ndarray) -> sparse.csr_matrix:
    """The vectors one term at a time, the plain way (_vectors maps them in C)."""
    rows, cols, weights = [], [], []
    for i, doc in enumerate(docs):
        for term, tf in doc.items():
            j = vocab.get(term)
            if j is not None:
                rows.append(i)
                cols.append(j)
                weights.append(1.0 + math.log(tf))
    vals = np.array(weights) * idf[np.array(cols, dtype=np.int64)]
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(len(docs), len(vocab)), dtype=np.float64)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.diags(1.0 / norms) @ matrix


def _same(a: sparse.csr_matrix, b: sparse.csr_matrix) -> bool:
    return all(x.dtype == y.dtype and x.tobytes() == y.tobytes()
               for x, y in ((a.indptr, b.indptr), (a.indices, b.indices), (a.data, b.data)))


def _edge_papers() -> list[Paper]:
    """Empty abstracts (no words at all), exact copies (ties), a word repeated 100 times (a
    term count past the small table), words in every paper, and papers alike in one word."""
    rng = random.Random(5)
    papers = [Paper(slug=f"paper-{i:03d}", title=f"{rng.choice(WORDS)} paper {i}", abstract=_abstract(rng))
              for i in range(120)]
    papers += [dataclasses.replace(p, slug=f"copy-{p.slug}") for p in papers[:15]]
    papers += [Paper(slug=f"empty-{i}", title="", abstract="") for i in range(3)]
    papers += [Paper(slug="repeated", title="gpu", abstract=" ".join(["kernel"] * 100))]
    papers += [Paper(slug=f"lone-{i}", title=f"z{i}", abstract=f"z{i} zz") for i in range(4)]
    return papers


def test_vectors_are_those_of_the_plain_loop() -> None:
    for papers in (_edge_papers(), load_corpus(ROOT / "corpus").sorted_papers()):
        index = RelatedIndex()
        index.update(papers)
        assert _same(index.matrix, _plain_vectors(index.docs, index.vocab, index.idf))


def test_scipy_is_the_release_whose_private_kernel_is_called() -> None:
    """related._product calls scipy's private csr_matmat with related.SCIPY_VERSION only: a new
    scipy fails here until test_product_is_scipys_to_the_bit passes with it and the pin moves."""
    import scipy

    assert scipy.__version__ == related.SCIPY_VERSION, (
        f"scipy {scipy.__version__} is installed; the kernel is checked with {related.SCIPY_VERSION}")
    assert related._matmat is not None


def test_product_is_scipys_to_the_bit() -> None:
    """The product without scipy's counting pass gives its arrays, in its order (the rows'
    entries are not sorted), and the 64-bit indices take scipy's own path."""
    index = RelatedIndex()
    index.update(_edge_papers())
    for rows in (np.arange(len(index.slugs)), np.array([0, 3, 3, 120, 135]), np.array([], dtype=np.int64)):
        a = index.matrix[rows]
        expected = (a @ index.transposed).tocsr()
        got = sparse.csr_matrix(related._product(a, index.transposed)[::-1], shape=expected.shape)
        assert _same(got, expected)
        wide = sparse.csr_matrix((a.data, a.indices.astype(np.int64), a.indptr.astype(np.int64)),
                                 shape=a.shape)
        got = sparse.csr_matrix(related._product(wide, index.transposed)[::-1], shape=expected.shape)
        assert np.array_equal(got.toarray(), expected.toarray())


def test_top_rows_on_edge_cases() -> None:
    """Every k from 0 to more than the papers, thresholds that leave rows fewer than k
    candidates or none, copies that tie exactly, and the seed papers: the top of every score."""
    papers = _edge_papers()
    for k in (0, 1, 2, 5, 9, len(papers) + 3):
        for min_score in (1e-9, 0.05, 0.3, 0.99):
            assert related_papers(papers, k, min_score) == _every_score(papers, k, min_score), (k, min_score)
    few = papers[:2]
    assert related_papers(few, 5) == _every_score(few, 5)
    seed = load_corpus(ROOT / "corpus").sorted_papers()
    assert related_papers(seed) == _every_score(seed)
