"""The curator's review queue: every paper whose topics no person has confirmed, in the order
that fixes the most wrong topics first (a decision, corpus/decisions.py, takes a paper out of it).
`review_order` is the one place the order is decided, so that another can be measured against it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..core.errors import SurveyError
from ..corpus.derived import Glance
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


def review_order(pending: Iterable[Pending]) -> list[Pending]:
    """The queue's order: most expected wrong topics first, equal ones by slug. Cheap (a sort of
    kept numbers) at any size of queue."""
    return sorted(pending, key=lambda p: (-p.expected_wrong, p.slug))


def queue(glances: Iterable[Glance], scores: Mapping[str, Mapping[str, float]], topic_ids: Sequence[str],
          topic: str | None = None) -> list[Pending]:
    """Every paper whose topics no person has confirmed, in review order, from each paper's
    scores (`scores`, by slug: no paper is scored here, so the queue opens at once); with
    `topic`, only those that have it or that the model may have missed it on (missed_topic)."""
    if topic is not None and topic not in topic_ids:
        raise SurveyError(f"--topic: unknown topic {topic!r}; the topics are {', '.join(topic_ids)}")
    glances = list(glances)
    missed = missed_topic(glances, scores, topic) if topic is not None else {}
    return review_order(Pending(g.slug, scores.get(g.slug, {})) for g in glances if not g.reviewed and (
        topic is None or topic in g.topics or g.slug in missed))


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
