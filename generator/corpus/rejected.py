"""The papers a curator rejected: not in this survey's scope (`corpus/rejected.yaml`).

Rejecting a paper (`survey review`) removes its file and its place in every listing, and adds an
entry here in the same all-or-nothing write, so that a pull request shows what was dropped and
why. The entry keeps what finds the paper again when a source brings it back, matched as a
duplicate is (arXiv id, a title, a near-duplicate abstract: sources/dedupe.py), so that import,
`survey add` and `survey enrich` leave it out; and what the topic model learns from: a rejection
says "not in this survey's scope". The file is data: no page shows its text.

    - slug: hybrid-classical-quantum-supercomputing
      title: Hybrid Classical-Quantum Supercomputing
      abstract: >-
        ...
      arxiv: '2508.16297'
      date: '2025-08-22'
      rejected: '2026-11-28'
      reason: quantum computing, not ML systems

Entries are kept in slug order (a rejection adds one entry where it belongs: a small diff).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from ..core.errors import CorpusError, Problems, raise_problems
from ..core.text import is_slug, shorten, shown_path
from ..core.yamlio import dump_yaml, load_yaml, read_text
from .fields import Fields, date_problem, is_date, present
from .model import MAX_ABSTRACT, MAX_TITLE, Listing, Paper, arxiv_field, date_field

REJECTED_FILE = "rejected.yaml"
REJECTED_FIELDS = ("slug", "title", "alternate_titles", "abstract", "arxiv", "date", "rejected", "reason")
MAX_REASON = 300  # a short reason, one line
# An entry keeps out of every import each paper that has one of its titles, and nothing ties it
# to a paper that was in the corpus: 50 titles of a feed's papers under one entry kept all 50 out
# (audit J2). A paper has had at most one other title (its arXiv versions).
MAX_OTHER_TITLES = 3
# Every command reads the file and matches each paper of a source against it: 100,000 entries
# took 5 s to read and 9 s to index, for each `survey add` (audit J8). At this bound, 1 s or so.
MAX_REJECTED = 10_000


@dataclass(frozen=True)
class Rejected:
    """A paper a curator rejected: what finds it again, and when and why it was rejected."""

    slug: str  # the slug its file had
    title: str
    abstract: str
    rejected: str  # the day, YYYY-MM-DD
    arxiv: str | None = None
    date: str | None = None  # the paper's date
    reason: str | None = None
    alternate_titles: tuple[str, ...] = ()

    @property
    def titles(self) -> list[str]:
        return [self.title, *self.alternate_titles]

    @classmethod
    def of(cls, paper: Paper, today: str, reason: str | None = None) -> Rejected:
        return cls(slug=paper.slug, title=paper.title, abstract=paper.abstract, rejected=today,
                   arxiv=paper.arxiv, date=paper.date, reason=reason or None,
                   alternate_titles=tuple(paper.alternate_titles[:MAX_OTHER_TITLES]))

    @classmethod
    def from_dict(cls, data: Any, path: str, where: str, problems: Problems) -> Rejected | None:
        """The entry, or None with its problems noted (checking goes on to the next entry)."""
        named = data.get("slug") if isinstance(data, dict) else None
        where = named if isinstance(named, str) and is_slug(named) else where
        try:
            f = Fields(data, path, where, REJECTED_FIELDS, problems=problems)
        except CorpusError as exc:  # not a mapping
            problems.append(exc)
            return None
        before = len(problems)
        slug = f.slug()
        title = f.text("title", required=True, limit=MAX_TITLE)
        abstract = f.text("abstract", required=True, limit=MAX_ABSTRACT)
        alternate = f.text_list("alternate_titles", limit=MAX_TITLE)
        if len(alternate) > MAX_OTHER_TITLES:
            f.problem("alternate_titles", f"has {len(alternate):,} titles; a rejected paper is one paper, "
                                          f"with at most {MAX_OTHER_TITLES} other titles (each keeps the "
                                          f"paper of that title out of every import)")
        arxiv, date = arxiv_field(f), date_field(f)
        day = f.text("rejected", required=True)
        if day is not None and not is_date(day, day=True):
            f.problem("rejected", f"{shorten(day)} is not a date YYYY-MM-DD (the day it was rejected)")
        elif day is not None and (problem := date_problem(day, day=True, what="a rejection")):
            f.problem("rejected", problem)
        reason = f.text("reason", limit=MAX_REASON, plain=True)
        if len(problems) > before or slug is None or title is None or abstract is None or day is None:
            return None
        return cls(slug=slug, title=title, abstract=abstract, rejected=day, arxiv=arxiv, date=date,
                   reason=reason, alternate_titles=tuple(alternate))

    def to_dict(self) -> dict[str, Any]:
        return present({"slug": self.slug, "title": self.title,
                        "alternate_titles": list(self.alternate_titles), "abstract": self.abstract,
                        "arxiv": self.arxiv, "date": self.date, "rejected": self.rejected,
                        "reason": self.reason}, "slug", "title", "abstract", "rejected")


def read_rejected(root: Path) -> list[Rejected]:
    """The corpus's rejected papers, in the file's order; [] without the file. Every problem of
    the file is raised at once (CorpusProblems), each naming the entry and the field."""
    path = root / REJECTED_FILE
    if not os.path.lexists(path):
        return []
    shown = shown_path(path)
    # refuses a link too; a list past MAX_REJECTED as it is read
    return rejected_entries(load_yaml(read_text(path, shown), shown, longest=MAX_REJECTED), shown)


def rejected_entries(data: Any, shown: str) -> list[Rejected]:
    """The entries of the file's YAML data, each checked (every problem raised at once)."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise CorpusError(shown, "must be a list of rejected papers, each {slug, title, abstract, "
                                 "rejected, ...}")
    if len(data) > MAX_REJECTED:
        raise CorpusError(shown, f"has {len(data):,} entries; at most {MAX_REJECTED:,} are allowed")
    problems = Problems()
    out: list[Rejected] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(data, 1):
        entry = Rejected.from_dict(item, shown, f"#{i}", problems)
        if entry is None:
            continue
        if entry.slug in seen:
            problems.append(CorpusError(shown, f"rejected twice (also entry #{seen[entry.slug]}): "
                                               f"keep one", entry=entry.slug, field="slug"))
            continue
        seen[entry.slug] = i
        out.append(entry)
    raise_problems(problems, out)  # with the entries without a problem, which check holds to its rules
    return out


def rejected_text(entries: list[Rejected]) -> str:
    """The file's text: the entries in slug order, written canonically."""
    return dump_yaml([e.to_dict() for e in sorted(entries, key=lambda e: e.slug)])


class Held(Protocol):
    """What a rejection changes of a corpus (corpus/store.Corpus, which reads this module)."""

    papers: dict[str, Paper]
    rejected: list[Rejected]

    def sorted_listings(self) -> list[Listing]: ...


def rejection_files(corpus: Held, rejections: Sequence[tuple[str, str | None]], today: str
                    ) -> list[tuple[str, str | None]]:
    """The files that reject these papers ((slug, reason) pairs), for corpus/writes.write_files:
    each paper's file removed (None), its entries taken out of every listing (a listing left
    with none removed too), and an entry for each in this file."""
    gone = {slug: reason for slug, reason in rejections}
    files: list[tuple[str, str | None]] = [(corpus.papers[slug].file, None) for slug in sorted(gone)]
    for listing in corpus.sorted_listings():
        kept = [e for e in listing.entries if e.paper not in gone]
        if len(kept) < len(listing.entries):
            text = dump_yaml(replace(listing, entries=kept).to_dict()) if kept else None
            files.append((listing.file, text))
    entries = [r for r in corpus.rejected if r.slug not in gone]  # rejected again: the newer entry
    entries += [Rejected.of(corpus.papers[slug], today, reason) for slug, reason in gone.items()]
    files.append((REJECTED_FILE, rejected_text(entries)))
    return files
