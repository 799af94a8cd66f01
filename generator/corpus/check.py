"""Validating the whole corpus: every problem becomes one line naming file, entry and field."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Set
from pathlib import Path

from ..core.errors import PER_RUN, CorpusError, Problems
from ..core.text import match_key
from .lock import CorpusLock
from .model import Listing, Paper
from .rejected import REJECTED_FILE
from .store import Corpus, CorpusCache, load_corpus, record_files, shown_path
from .taxonomy import MODEL_FILE


def check_corpus(root: Path, cache: CorpusCache | None = None) -> tuple[Corpus, Problems]:
    """The corpus and every problem of every file (the first PER_FILE of a file and PER_RUN in
    all kept, the others counted: core.errors.Problems)."""
    with CorpusLock(root, shared=True):  # the files that the rules below look at again, too
        return _check(root, cache)


def _check(root: Path, cache: CorpusCache | None) -> tuple[Corpus, Problems]:
    problems = Problems(PER_RUN)
    corpus = load_corpus(root, collect=problems, cache=cache)
    taxonomy = shown_path(Path(root) / "taxonomy.yaml")
    if taxonomy not in problems.of:  # else every topic and tag would be unknown
        problems.extend(vocabulary_problems(corpus))
        if shown_path(Path(root) / MODEL_FILE) not in problems.of:  # a link, refused unread
            problems.extend(model_problems(corpus))
    problems.extend(duplicate_problems(corpus))
    problems.extend(listing_problems(corpus))
    problems.extend(rejected_problems(corpus))
    return corpus, problems


def _file(corpus: Corpus, rel: str) -> str:
    return shown_path(corpus.root / rel)


def _papers(corpus: Corpus) -> list[Paper]:
    """Every paper, those whose file has a problem too (as far as it was read), by slug."""
    partial = [r for r in corpus.partial if isinstance(r, Paper)]
    if not partial:
        return corpus.sorted_papers()
    return sorted([*corpus.papers.values(), *partial], key=lambda p: p.slug)


def vocabulary_problems(corpus: Corpus) -> Iterator[CorpusError]:
    tax = corpus.taxonomy
    topic_ids, tag_ids = set(tax.topic_ids), set(tax.tag_ids)
    by_name = {t.name.casefold(): t.id for t in tax.tags}
    for paper in _papers(corpus):
        # The file's name is worked out only for a problem (relpath of 10,000 files costs).
        for i, topic in enumerate(paper.topics):
            if topic not in topic_ids:
                yield CorpusError(_file(corpus, paper.file), f"unknown topic {topic!r}; known topics: "
                                  f"{', '.join(tax.topic_ids)}", entry=paper.slug, field=f"topics[{i}]")
        for i, tag in enumerate(paper.tags):
            if tag in tag_ids:
                continue
            if tag.casefold() in by_name:
                hint = f"write the tag id {by_name[tag.casefold()]!r}, not its display name"
            else:
                close = difflib.get_close_matches(tag, sorted(tag_ids), n=3, cutoff=0.5)
                hint = (f"closest known tags: {', '.join(close)}" if close
                        else "add it to taxonomy.yaml or pick a known tag")
            yield CorpusError(_file(corpus, paper.file), f"unknown tag {tag!r}; {hint}", entry=paper.slug,
                              field=f"tags[{i}]")


def model_problems(corpus: Corpus) -> Iterator[CorpusError]:
    """The topic model read as the build, the queue and `survey classify` read it (a model edited
    by hand that check passed stopped the build when a paper waited for review): its first
    problem, naming the file."""
    try:
        corpus.taxonomy.weights()
    except CorpusError as problem:
        yield problem


def duplicate_problems(corpus: Corpus) -> Iterator[CorpusError]:
    titles: dict[str, str] = {}
    arxiv: dict[str, str] = {}
    # The later added of two papers is the one a line names first (the one a pull request adds).
    for paper in sorted(_papers(corpus), key=lambda p: (p.added or "", p.slug)):
        for i, title in enumerate(paper.titles):
            if not title:  # a file whose title has a problem
                continue
            key = match_key(title)
            name = "title" if i == 0 else f"alternate_titles[{i - 1}]"
            other = titles.get(key)
            if other and other != paper.slug:
                yield CorpusError(_file(corpus, paper.file),
                                  f"the same paper as {_file(corpus, f'papers/{other}.yaml')} "
                                  f"(same title); merge the two files", entry=paper.slug, field=name)
            titles.setdefault(key, paper.slug)
        if paper.arxiv:
            other = arxiv.get(paper.arxiv)
            if other:
                yield CorpusError(_file(corpus, paper.file),
                                  f"the same paper as {_file(corpus, f'papers/{other}.yaml')} "
                                  f"(arXiv {paper.arxiv}); merge the two files", entry=paper.slug,
                                  field="arxiv")
            arxiv.setdefault(paper.arxiv, paper.slug)


def listing_problems(corpus: Corpus, removed: Set[str] = frozenset()) -> Iterator[CorpusError]:
    """Listing entries that point at no paper (`removed`: papers a write is about to delete)."""
    # A paper whose file exists but failed to load is reported once, for its own file.
    present = {p.stem for p in record_files(corpus.root / "papers")[0]} - removed
    partial = [r for r in corpus.partial if isinstance(r, Listing)]
    for listing in sorted([*corpus.listings.values(), *partial], key=lambda r: r.slug):
        path = _file(corpus, listing.file)
        for i, entry in enumerate(listing.entries):
            if entry.paper not in corpus.papers and entry.paper not in present:
                yield CorpusError(path, f"points at {entry.paper!r}, which is not in papers/",
                                  entry=f"{listing.slug} #{i + 1}", field="paper")


def rejected_problems(corpus: Corpus) -> Iterator[CorpusError]:
    """A paper that is also in rejected.yaml (the same slug, arXiv id or title): one of the two
    is wrong, and readers would see a paper the curator left out."""
    if not corpus.rejected:
        return
    found: dict[tuple[str, str], str] = {}
    for r in corpus.rejected:
        for key in _keys(r.slug, r.arxiv, r.titles):
            found.setdefault(key, r.slug)
    for paper in _papers(corpus):
        hit = next((key for key in _keys(paper.slug, paper.arxiv, paper.titles) if key in found), None)
        if hit:
            yield CorpusError(_file(corpus, paper.file), f"rejected earlier (entry {found[hit]} of "
                              f"{_file(corpus, REJECTED_FILE)}, same {hit[0]}): delete this file, "
                              f"or that entry to bring the paper back", entry=paper.slug, field=hit[0])


def _keys(slug: str, arxiv: str | None, titles: list[str]) -> list[tuple[str, str]]:
    keys = [("slug", slug), *(("title", match_key(t)) for t in titles if t)]
    return [*keys, ("arxiv", arxiv)] if arxiv else keys
