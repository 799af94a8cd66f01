"""Validating the whole corpus: every problem becomes one line naming file, entry and field."""

from __future__ import annotations

import difflib
from pathlib import Path

from ..core.errors import CorpusError
from ..core.text import match_key
from .lock import CorpusLock
from .rejected import REJECTED_FILE
from .store import Corpus, CorpusCache, load_corpus, record_files, shown_path


def check_corpus(root: Path, cache: CorpusCache | None = None) -> tuple[Corpus, list[CorpusError]]:
    with CorpusLock(root, shared=True):  # the files that the rules below look at again, too
        return _check(root, cache)


def _check(root: Path, cache: CorpusCache | None) -> tuple[Corpus, list[CorpusError]]:
    problems: list[CorpusError] = []
    corpus = load_corpus(root, collect=problems, cache=cache)
    taxonomy = shown_path(Path(root) / "taxonomy.yaml")
    if not any(p.path == taxonomy for p in problems):  # else every topic and tag would be unknown
        problems += vocabulary_problems(corpus)
    problems += duplicate_problems(corpus)
    problems += listing_problems(corpus)
    problems += rejected_problems(corpus)
    return corpus, problems


def _file(corpus: Corpus, rel: str) -> str:
    return shown_path(corpus.root / rel)


def vocabulary_problems(corpus: Corpus) -> list[CorpusError]:
    tax = corpus.taxonomy
    topic_ids, tag_ids = set(tax.topic_ids), set(tax.tag_ids)
    by_name = {t.name.casefold(): t.id for t in tax.tags}
    out = []
    for paper in corpus.sorted_papers():
        # The file's name is worked out only for a problem (relpath of 10,000 files costs).
        for i, topic in enumerate(paper.topics):
            if topic not in topic_ids:
                out.append(CorpusError(_file(corpus, paper.file), f"unknown topic {topic!r}; known "
                                       f"topics: {', '.join(tax.topic_ids)}", entry=paper.slug,
                                       field=f"topics[{i}]"))
        for i, tag in enumerate(paper.tags):
            if tag in tag_ids:
                continue
            if tag.casefold() in by_name:
                hint = f"write the tag id {by_name[tag.casefold()]!r}, not its display name"
            else:
                close = difflib.get_close_matches(tag, sorted(tag_ids), n=3, cutoff=0.5)
                hint = (f"closest known tags: {', '.join(close)}" if close
                        else "add it to taxonomy.yaml or pick a known tag")
            out.append(CorpusError(_file(corpus, paper.file), f"unknown tag {tag!r}; {hint}",
                                   entry=paper.slug, field=f"tags[{i}]"))
    return out


def duplicate_problems(corpus: Corpus) -> list[CorpusError]:
    out = []
    titles: dict[str, str] = {}
    arxiv: dict[str, str] = {}
    # The later added of two papers is the one a line names first (the one a pull request adds).
    for paper in sorted(corpus.papers.values(), key=lambda p: (p.added or "", p.slug)):
        for i, title in enumerate(paper.titles):
            key = match_key(title)
            name = "title" if i == 0 else f"alternate_titles[{i - 1}]"
            other = titles.get(key)
            if other and other != paper.slug:
                out.append(CorpusError(_file(corpus, paper.file),
                                       f"the same paper as {_file(corpus, f'papers/{other}.yaml')} "
                                       f"(same title); merge the two files", entry=paper.slug,
                                       field=name))
            titles.setdefault(key, paper.slug)
        if paper.arxiv:
            other = arxiv.get(paper.arxiv)
            if other:
                out.append(CorpusError(_file(corpus, paper.file),
                                       f"the same paper as {_file(corpus, f'papers/{other}.yaml')} "
                                       f"(arXiv {paper.arxiv}); merge the two files",
                                       entry=paper.slug, field="arxiv"))
            arxiv.setdefault(paper.arxiv, paper.slug)
    return out


def listing_problems(corpus: Corpus, removed: frozenset[str] | set[str] = frozenset()) -> list[CorpusError]:
    """Listing entries that point at no paper (`removed`: papers a write is about to delete)."""
    # A paper whose file exists but failed to load is reported once, for its own file.
    present = {p.stem for p in record_files(corpus.root / "papers")[0]} - removed
    out = []
    for listing in corpus.sorted_listings():
        path = _file(corpus, listing.file)
        for i, entry in enumerate(listing.entries):
            if entry.paper not in corpus.papers and entry.paper not in present:
                out.append(CorpusError(path, f"points at {entry.paper!r}, which is not in papers/",
                                       entry=f"{listing.slug} #{i + 1}", field="paper"))
    return out


def rejected_problems(corpus: Corpus) -> list[CorpusError]:
    """A paper that is also in rejected.yaml (the same slug, arXiv id or title): one of the two
    is wrong, and readers would see a paper the curator left out."""
    if not corpus.rejected:
        return []
    found: dict[tuple[str, str], str] = {}
    for r in corpus.rejected:
        for key in _keys(r.slug, r.arxiv, r.titles):
            found.setdefault(key, r.slug)
    out = []
    for paper in corpus.sorted_papers():
        hit = next((key for key in _keys(paper.slug, paper.arxiv, paper.titles) if key in found), None)
        if hit:
            out.append(CorpusError(_file(corpus, paper.file), f"rejected earlier (entry {found[hit]} of "
                                   f"{_file(corpus, REJECTED_FILE)}, same {hit[0]}): delete this file, "
                                   f"or that entry to bring the paper back", entry=paper.slug,
                                   field=hit[0]))
    return out


def _keys(slug: str, arxiv: str | None, titles: list[str]) -> list[tuple[str, str]]:
    keys = [("slug", slug), *(("title", match_key(t)) for t in titles)]
    return [*keys, ("arxiv", arxiv)] if arxiv else keys
