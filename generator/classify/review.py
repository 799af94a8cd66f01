"""The curator's review queue: every paper whose topics no person has confirmed, in the order
that fixes the most wrong topics first, and the decisions that take a paper out of it.

A decision sets the paper's topics and lists `topics` in its `curated` (the site then shows its
topics as reviewed, with no confidence); `survey review` writes it at once.
`review_order` is the one place the order is decided, so that another can be measured against it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..core.errors import SurveyError
from ..corpus.derived import Glance
from ..corpus.model import CURATABLE, Paper
from ..corpus.rejected import REJECTED_FILE, Rejected, rejected_text
from ..corpus.store import Corpus, listing_text, paper_text
from ..corpus.taxonomy import Taxonomy
from .model import REVIEW_LOW, doubt


@dataclass(frozen=True)
class Pending:
    """A paper waiting for a person's decision, and the model's confidence in each topic (from
    the derived cache, classify/derived.py; empty without a topic model)."""

    slug: str
    scores: Mapping[str, float]

    @property
    def expected_wrong(self) -> float:
        return doubt(self.scores)


expected_wrong = doubt  # how `survey review` names it to a curator


def review_order(pending: Iterable[Pending]) -> list[Pending]:
    """The queue's order: most expected wrong topics first, equal ones by slug. Cheap (a sort of
    kept numbers) at any size of queue."""
    return sorted(pending, key=lambda p: (-p.expected_wrong, p.slug))


def queue(glances: Iterable[Glance], scores: Mapping[str, Mapping[str, float]], topic_ids: Sequence[str],
          topic: str | None = None, first: Sequence[str] = ()) -> list[Pending]:
    """Every paper whose topics no person has confirmed, in review order, from each paper's
    scores (`scores`, by slug: no paper is scored here, so the queue opens at once); with
    `topic`, only those that have it or that the model may have missed it on (missed_topic).
    The waiting papers of `first` (brought in by hand: corpus/first.py) come before all, in that
    order."""
    if topic is not None and topic not in topic_ids:
        raise SurveyError(f"--topic: unknown topic {topic!r}; the topics are {', '.join(topic_ids)}")
    glances = list(glances)
    missed = missed_topic(glances, scores, topic) if topic is not None else {}
    ordered = review_order(Pending(g.slug, scores.get(g.slug, {})) for g in glances if not g.reviewed and (
        topic is None or topic in g.topics or g.slug in missed))
    rank = {slug: n for n, slug in enumerate(first)}
    return sorted(ordered, key=lambda p: rank.get(p.slug, len(rank)))  # stable: the rest as ordered


def missed_topic(glances: Iterable[Glance], scores: Mapping[str, Mapping[str, float]], topic: str
                 ) -> dict[str, float]:
    """The waiting papers without `topic` to which the model gives it at least REVIEW_LOW (below
    CHOOSE it did not suggest it; above, a refresh would): `survey review --topic`'s papers the
    model may have missed, with that confidence."""
    out = {}
    for g in glances:
        confidence = scores.get(g.slug, {}).get(topic, 0.0)
        if not g.reviewed and topic not in g.topics and confidence >= REVIEW_LOW:
            out[g.slug] = confidence
    return out


def decided(paper: Paper, topics: Iterable[str], taxonomy: Taxonomy) -> Paper:
    """The paper with a person's decision on its topics (in the taxonomy's order)."""
    chosen = set(topics)
    new = copy.deepcopy(paper)
    new.topics = [t for t in taxonomy.topic_ids if t in chosen]
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
