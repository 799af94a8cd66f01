"""The curator's review queue: every paper whose topics no person has confirmed, in the order
that fixes the most wrong topics first, and the decisions that take a paper out of it.

A decision sets the paper's topics, lists `topics` in its `curated` and drops the model's
`confidence` (the site then shows its topics as reviewed); `survey review` writes it at once.
`review_order` is the one place the order is decided, so that another can be measured against it.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

from ..core.errors import CorpusError, SurveyError
from ..core.records import csv_rows, yaml_items
from ..core.text import shorten
from ..core.yamlio import open_plain
from ..corpus.glance import Glance
from ..corpus.model import CURATABLE, Paper
from ..corpus.rejected import REJECTED_FILE, Rejected, rejected_text
from ..corpus.store import Corpus, listing_text, paper_text, shown_path
from ..corpus.taxonomy import Taxonomy
from .model import REVIEW_LOW, doubt


@dataclass(frozen=True)
class Pending:
    """A paper waiting for a person's decision: the model's confidence in its topics (every
    topic when freshly scored; the suggested ones when read from its file; empty without a
    topic model) and its doubt (the paper file's `doubt`, as classify/model.py's doubt() gives
    it; None where the file has none)."""

    slug: str
    scores: Mapping[str, float]
    doubt: float | None = None

    @property
    def expected_wrong(self) -> float:
        """The doubt, else what the scores at hand say (a file written before `doubt` was kept
        holds only its suggested topics' confidence: `survey classify --write` stores it)."""
        return self.doubt if self.doubt is not None else doubt(self.scores)


expected_wrong = doubt  # how `survey review` names it to a curator


def review_order(pending: Iterable[Pending]) -> list[Pending]:
    """The queue's order, from what each paper file stores: most expected wrong topics first,
    equal ones by slug. Cheap (a sort of stored numbers) at any size of queue."""
    return sorted(pending, key=lambda p: (-p.expected_wrong, p.slug))


def queue(glances: Iterable[Glance], topic_ids: Sequence[str], topic: str | None = None) -> list[Pending]:
    """Every paper whose topics no person has confirmed, in review order, from what each paper's
    file stores (corpus/glance.py: no paper is scored again, so the queue opens at once); with
    `topic`, only those that have it or whose stored confidence in it is at least REVIEW_LOW."""
    if topic is not None and topic not in topic_ids:
        raise SurveyError(f"--topic: unknown topic {topic!r}; the topics are {', '.join(topic_ids)}")
    return review_order(Pending(g.slug, g.confidence, g.doubt) for g in glances if not g.reviewed and (
        topic is None or topic in g.topics or g.confidence.get(topic, 0.0) >= REVIEW_LOW))


def decided(paper: Paper, topics: Iterable[str], taxonomy: Taxonomy) -> Paper:
    """The paper with a person's decision on its topics (in the taxonomy's order)."""
    chosen = set(topics)
    new = copy.deepcopy(paper)
    new.topics = [t for t in taxonomy.topic_ids if t in chosen]
    new.confidence, new.doubt = {}, None
    new.curated = [c for c in CURATABLE if c in {*paper.curated, "topics"}]
    return new


def decision_files(corpus: Corpus, decisions: Sequence[tuple[str, list[str]]]) -> list[tuple[str, str]]:
    """The files that record these decisions, for corpus/writes.write_files."""
    return [(paper.file, paper_text(paper)) for paper in
            (decided(corpus.papers[slug], topics, corpus.taxonomy) for slug, topics in decisions)]


def rejection_files(corpus: Corpus, rejections: Sequence[tuple[str, str | None]], today: str
                    ) -> list[tuple[str, str | None]]:
    """The files that reject these papers ((slug, reason) pairs), for corpus/writes.write_files:
    each paper's file removed (None), its entries taken out of every listing (a listing left
    with none removed too), and an entry for each in rejected.yaml."""
    gone = {slug: reason for slug, reason in rejections}
    files: list[tuple[str, str | None]] = [(corpus.papers[slug].file, None) for slug in sorted(gone)]
    for listing in corpus.sorted_listings():
        kept = [e for e in listing.entries if e.paper not in gone]
        if len(kept) < len(listing.entries):
            files.append((listing.file, listing_text(replace(listing, entries=kept)) if kept else None))
    entries = [r for r in corpus.rejected if r.slug not in gone]  # rejected again: the newer entry
    entries += [Rejected.of(corpus.papers[slug], today, reason) for slug, reason in gone.items()]
    files.append((REJECTED_FILE, rejected_text(entries)))
    return files


# --- decisions from a file (--apply) ------------------------------------------------------------

_SPLIT = re.compile(r"[\s,;]+")


def read_decisions(path: Path, corpus: Corpus) -> list[tuple[str, list[str]]]:
    """(slug, topics) for each entry of a YAML list of {slug, topics} or a CSV file with `slug`
    and `topics` columns (other columns are ignored: `survey export --format csv`, edited, is
    one). Every entry is checked as it is read (core/records.py: the file is never held whole),
    and before any is applied; the first problem is raised, naming the file, the entry and the
    field."""
    shown = shown_path(path)
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".csv"):
        raise SurveyError(f"{shown}: decisions are read from a .yaml, .yml or .csv file")
    out: list[tuple[str, list[str]]] = []
    seen: dict[str, str] = {}
    with open_plain(path, shown) as fh:
        for where, line, slug, topics in (_csv_rows if suffix == ".csv" else _yaml_rows)(fh, shown):
            fail = _failing(shown, where, line)
            if not isinstance(slug, str) or not slug:
                raise fail("slug", f"must be a paper's slug, found {shorten(slug)}")
            if slug not in corpus.papers:
                close = difflib.get_close_matches(slug, sorted(corpus.papers), n=1)
                raise fail("slug", "no paper with this slug in the corpus"
                                   + (f"; did you mean {close[0]}?" if close else ""), entry=slug)
            if slug in seen:
                raise fail("slug", f"decided twice (also {seen[slug]})", entry=slug)
            seen[slug] = where
            out.append((slug, _topics(topics, corpus.taxonomy, fail, slug)))
    if not out:
        raise CorpusError(shown, "holds no decision")
    return out


def _failing(shown: str, where: str, line: int | None) -> Callable[..., CorpusError]:
    def fail(field: str, message: str, entry: str | None = None) -> CorpusError:
        return CorpusError(shown, message, entry=entry or where, field=field, line=line)
    return fail


def _topics(value: Any, taxonomy: Taxonomy, fail: Callable[..., CorpusError], slug: str) -> list[str]:
    if isinstance(value, str):  # a CSV cell: ids apart by spaces, commas, semicolons or lines
        value = [t for t in _SPLIT.split(value) if t]
    if not isinstance(value, list):
        raise fail("topics", f"must be a list of topic ids (write [] for none), found {shorten(value)}",
                   entry=slug)
    known = taxonomy.topic_ids
    for t in value:
        if t not in known:
            raise fail("topics", f"unknown topic {shorten(t)}; the topics are {', '.join(known)}", entry=slug)
    return list(dict.fromkeys(value))


Row = tuple[str, int | None, Any, Any]


def _yaml_rows(fh: BinaryIO, shown: str) -> Iterator[Row]:
    shape = "must be a list of decisions, each {slug: SLUG, topics: [TOPIC, ...]}"
    for i, (line, item) in enumerate(yaml_items(fh, shown, shape)):
        where = f"#{i + 1}"
        if not isinstance(item, dict):
            raise CorpusError(shown, "must be a mapping {slug: SLUG, topics: [TOPIC, ...]}", entry=where,
                              line=line)
        label = item.get("slug") if isinstance(item.get("slug"), str) else where
        for key in sorted(map(str, item)):
            if key not in ("slug", "topics"):
                raise CorpusError(shown, "unknown field; a decision has slug and topics", entry=label,
                                  field=key, line=line)
        if "topics" not in item:
            raise CorpusError(shown, "is required (write [] for none of the topics)", entry=label,
                              field="topics", line=line)
        yield where, line, item.get("slug"), item["topics"]


def _csv_rows(fh: BinaryIO, shown: str) -> Iterator[Row]:
    header, rows = csv_rows(fh, shown)
    missing = [name for name in ("slug", "topics") if name not in header]
    if missing:
        raise CorpusError(shown, f"the first row names the columns, and needs {' and '.join(missing)}",
                          line=1)
    n = 0
    for line, row in rows:
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue  # a blank line of a spreadsheet
        n += 1
        yield f"row {n}", line, (row.get("slug") or "").strip(), row.get("topics") or ""
