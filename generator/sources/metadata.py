"""What one source says about one work, and whether it is the paper: the judging half of
`survey enrich`, shared by the files and the web APIs it reads.

A record is the paper only when
- its normalised title equals one of the paper's titles, and, when both have an abstract, the
  abstracts are not plainly of two different works; without one to compare (a bibliography's
  entry), the years (a year apart at most), the authors (a name in common) and the arXiv ids
  must not disagree where both give them, and one must agree: a record that matches by its
  title and nothing else (the paper has neither authors nor a date) is for a person, since any
  `.bib` entry can carry a paper's title with another's id, authors and link ("title-only": a
  person who has checked it confirms it with `survey enrich --confirm`); or
- its title is close and the abstracts say it is the same work.
Anything less certain is for a person. Only empty fields are filled; a field named in `curated`
is never touched; each fill is recorded under `enriched` with its source and the day it was read.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass, field
from typing import Any

from ..core.text import match_key, shingles
from ..corpus.fields import URL_RE
from ..corpus.model import Enriched, Paper

# A close title: at least this alike (difflib ratio of the normalised titles)...
CLOSE_TITLE = 0.85
# ...and abstracts sharing at least this share of their word 3-grams (dedupe's "same abstract").
SAME_ABSTRACT = 0.5
# An exact title whose abstract shares less than this is another work with the same title.
OTHER_WORK = 0.1
FIELDS = ("arxiv", "authors", "date")


@dataclass
class Record:
    """What one source says about one work."""

    source: str
    fetched: str
    title: str
    abstract: str | None = None
    arxiv: str | None = None
    authors: list[str] = field(default_factory=list)
    et_al: bool = False  # the authors are the first of more (BibTeX's `and others`)
    date: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    ref: str = ""  # how a person finds it again: an id or a URL

    def shown(self) -> str:
        return f"{self.source}: {self.title!r}" + (f" ({self.ref})" if self.ref else "")


def lacking(paper: Paper) -> list[str]:
    """The fields enrich may still fill on this paper."""
    return [name for name in FIELDS if not getattr(paper, name) and name not in paper.curated]


# --- is this record the paper? ------------------------------------------------------------


def _overlap(a: str, b: str) -> float:
    x, y = shingles(a), shingles(b)
    return len(x & y) / len(x | y) if x and y else 0.0


def _year(day: str | None) -> int | None:
    return int(day[:4]) if day and day[:4].isdigit() else None


def _names(authors: list[str]) -> set[str]:
    return {word for name in authors for word in match_key(name).split() if len(word) > 1}


def _compared(paper: Paper, record: Record) -> tuple[str | None, bool]:
    """Where a record without an abstract disagrees with the paper (or None), and whether
    anything besides the title agrees."""
    ours, theirs = _year(paper.date), _year(record.date)
    if paper.arxiv and record.arxiv and paper.arxiv != record.arxiv:
        return f"its arXiv id is {record.arxiv}, the paper's {paper.arxiv}", False
    if ours and theirs and abs(ours - theirs) > 1:
        return f"its year is {theirs}, the paper's {ours}", False
    if paper.authors and record.authors and not _names(paper.authors) & _names(record.authors):
        return "no author in common", False
    same_id = paper.arxiv is not None and paper.arxiv == record.arxiv
    return None, same_id or bool(ours and theirs) or bool(paper.authors and record.authors)


def judge(paper: Paper, record: Record) -> tuple[str, str] | None:
    """("accept", how), ("review", why), ("title-only", why): for review, but nothing disagrees,
    so a person may confirm it; or None when the record is plainly another paper."""
    key = match_key(record.title)
    if not key:
        return None
    titles = [match_key(t) for t in paper.titles]
    same_abstract = _overlap(paper.abstract, record.abstract) if record.abstract else None
    if key in titles:
        if same_abstract is not None and same_abstract < OTHER_WORK:
            return "review", (f"same title, but the abstracts share only {same_abstract:.0%} of "
                              f"their wording")
        if same_abstract is None:
            other, agreed = _compared(paper, record)
            if other:
                return "review", f"same title, but {other}"
            if not agreed:
                return "title-only", ("same title, and nothing else to compare (the paper has no "
                                      "authors or date, the record no abstract)")
        return "accept", "same title"
    alike = max(difflib.SequenceMatcher(None, key, t).ratio() for t in titles)
    if alike >= CLOSE_TITLE:
        if same_abstract is not None and same_abstract >= SAME_ABSTRACT:
            return "accept", f"titles {alike:.0%} alike, abstracts {same_abstract:.0%} alike"
        why = ("no abstract to confirm it" if same_abstract is None
               else f"abstracts only {same_abstract:.0%} alike")
        return "review", f"titles {alike:.0%} alike, {why}"
    if same_abstract is not None and same_abstract >= SAME_ABSTRACT:
        return "review", f"abstracts {same_abstract:.0%} alike under another title"
    return None


# --- what a record adds ---------------------------------------------------------------------


def additions(paper: Paper, record: Record, arxiv_taken: dict[str, str]) -> dict[str, Any]:
    """The fields this record fills on this paper: empty ones only, never curated ones."""
    out: dict[str, Any] = {}
    if (record.arxiv and not paper.arxiv and "arxiv" not in paper.curated
            and arxiv_taken.get(record.arxiv, paper.slug) == paper.slug):
        out["arxiv"] = record.arxiv
    if record.authors and not paper.authors and "authors" not in paper.curated \
            and len(set(record.authors)) == len(record.authors):
        out["authors"] = list(record.authors)
        if record.et_al:
            out["et_al"] = True
    if record.date and not paper.date and "date" not in paper.curated:
        out["date"] = record.date
    if "links" not in paper.curated:
        for kind, url in sorted(record.links.items()):
            if kind in paper.links or not URL_RE.match(url):
                continue
            if kind == "pdf" and (paper.arxiv or "arxiv" in out):
                continue  # the arXiv id gives the PDF link already
            out[f"links.{kind}"] = url
    return out


def apply(paper: Paper, record: Record, found: dict[str, Any]) -> Paper:
    updated = copy.deepcopy(paper)
    for name, value in found.items():
        if name.startswith("links."):
            updated.links[name.split(".", 1)[1]] = value
        else:
            setattr(updated, name, value)
    updated.enriched.append(Enriched(source=record.source, fetched=record.fetched, fields=list(found)))
    return updated
