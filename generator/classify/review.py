"""The curator's review queue: every paper whose topics no person has confirmed, in the order
that fixes the most wrong topics first, and the decisions that take a paper out of it.

A decision sets the paper's topics, lists `topics` in its `curated` and drops the model's
`confidence` (the site then shows its topics as reviewed); `survey review` writes it at once.
`review_order` is the one place the order is decided, so that another can be measured against it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..core.errors import SurveyError
from ..corpus.glance import Glance
from ..corpus.model import CURATABLE, Paper
from ..corpus.rejected import REJECTED_FILE, Rejected, rejected_text
from ..corpus.store import Corpus, listing_text, paper_text
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


def queue(glances: Iterable[Glance], topic_ids: Sequence[str], topic: str | None = None,
          first: Sequence[str] = (), missed: Collection[str] = ()) -> list[Pending]:
    """Every paper whose topics no person has confirmed, in review order, from what each paper's
    file stores (corpus/glance.py: no paper is scored again, so the queue opens at once); with
    `topic`, only those that have it or are `missed` (missed_topic's). The waiting papers
    of `first` (brought in by hand: corpus/first.py) come before all, in that order."""
    if topic is not None and topic not in topic_ids:
        raise SurveyError(f"--topic: unknown topic {topic!r}; the topics are {', '.join(topic_ids)}")
    ordered = review_order(Pending(g.slug, g.confidence, g.doubt) for g in glances if not g.reviewed and (
        topic is None or topic in g.topics or g.slug in missed))
    rank = {slug: n for n, slug in enumerate(first)}
    return sorted(ordered, key=lambda p: rank.get(p.slug, len(rank)))  # stable: the rest as ordered


def missed_topic(glances: Iterable[Glance], topic: str, taxonomy: Taxonomy,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, float]:
    """The waiting papers without `topic` to which the model gives it at least REVIEW_LOW (below
    CHOOSE it did not suggest it): `survey review --topic`'s papers the model may have missed.
    A paper file keeps the confidence of its suggested topics only, so these are scored again,
    on every core; but only where the stored `doubt` leaves room for them (each topic adds
    min(p, 1 - p) to it, so a topic at 0.25..0.5 adds at least 0.25). Scoring costs 3.4 ms of
    CPU a paper, 34 s for 10,000; the bound leaves 20% of the waiting papers of an --on-topic
    import to score (about 1 s for 951) and 3% of a whole feed's (about 2 s for 10,293)."""
    from .suggest import suggest_all

    def may_have(g: Glance) -> bool:
        if g.doubt is None:
            return True
        # Stored confidences are rounded to 2 decimals and doubt to 3: the bound allows for both.
        left = g.doubt - sum(min(c, 1 - c) for c in g.confidence.values())
        return left + 0.005 * len(g.confidence) + 0.001 >= REVIEW_LOW

    todo = [g for g in glances if not g.reviewed and topic not in g.topics and may_have(g)]
    if not todo or not taxonomy.weights():  # without a model, nothing says how near a topic was
        return {}
    if progress:  # seconds at thousands of papers: the terminal says what it waits for
        progress(0, len(todo))
    briefs = suggest_all(taxonomy, [(g.title, g.abstract) for g in todo])
    if progress:
        progress(len(todo), len(todo))
    near = {g.slug: dict(b.scores).get(topic, 0.0) for g, b in zip(todo, briefs, strict=True)}
    return {slug: p for slug, p in near.items() if p >= REVIEW_LOW}


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
