"""What `survey train` learns from: the survey's own decisions, and the hand-labelled papers.

A decision is a paper whose topics a person has confirmed (`topics` in its `curated`, an empty
list included: "none of the topics" is a decision) or a paper the curator rejected (not in this
survey's scope: a no-topic example for every topic, which is what the `--on-topic` gate and the
model's "has any topic" learn). The labels files add the tune part of their papers; their
held-out part is never trained on, and neither is a decision on one of those papers (the seed
papers of corpus/papers/ are labelled, half of them held out), so `survey quality` stays honest.

A labels file speaks only of the topics it has papers for: a topic the curator added to the
taxonomy after it was labelled is learnt from the corpus's decisions alone, not from thousands
of labelled papers that only seem not to have it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..corpus.model import Paper
from ..corpus.store import Corpus
from ..corpus.taxonomy import Taxonomy
from .quality import Doc


@dataclass(frozen=True)
class Example:
    """One paper to learn from: its text, its topics, and the topics it is evidence for."""

    key: str  # a slug, or an arXiv id
    title: str
    abstract: str
    topics: tuple[str, ...]
    known: frozenset[str] | None  # the topics it says yes or no to; None: every topic
    origin: str  # "corpus", "rejected", or a labels file's name


@dataclass
class TrainingSet:
    examples: list[Example]
    held_out: int  # decisions left out (reviewed or rejected): labelled papers of a held-out part
    labelled: dict[str, int]  # labels file name -> its tune papers used

    def count(self, origin: str) -> int:
        return sum(e.origin == origin for e in self.examples)


def training_set(corpus: Corpus, labelled: Sequence[Doc]) -> TrainingSet:
    """The examples in a fixed order: the labels files' tune papers as listed (a paper the corpus
    has decided takes the corpus's topics), then the corpus's other decisions by slug, then the
    rejected papers (corpus/rejected.yaml) by slug. The same corpus and labels give the same model."""
    held = {d.key for d in labelled if d.split == "heldout"}
    decisions = {}
    left_out = 0
    for paper in corpus.sorted_papers():
        if "topics" not in paper.curated:
            continue
        if paper.slug in held or (paper.arxiv and paper.arxiv in held):
            left_out += 1
            continue
        decisions[paper.slug] = paper
    by_arxiv = {p.arxiv: slug for slug, p in decisions.items() if p.arxiv}
    known = _known_topics(labelled)
    out: list[Example] = []
    used: set[str] = set()
    counts: dict[str, int] = {}
    for d in labelled:
        if d.split == "heldout":
            continue
        slug = d.key if d.key in decisions else by_arxiv.get(d.key)
        if slug is not None:
            if slug not in used:
                used.add(slug)
                out.append(_decision(decisions[slug]))
            continue
        counts[d.source] = counts.get(d.source, 0) + 1
        out.append(Example(d.key, d.title, d.abstract, d.gold, known.get(d.source), d.source))
    out += [_decision(p) for slug, p in decisions.items() if slug not in used]
    seen = {e.key for e in out} | {p.arxiv for p in decisions.values() if p.arxiv}
    for r in sorted(corpus.rejected, key=lambda r: r.slug):
        keys = {k for k in (r.slug, r.arxiv) if k}
        if keys & held:
            left_out += 1
        elif not keys & seen:
            seen |= keys
            out.append(Example(r.arxiv or r.slug, r.title, r.abstract, (), None, "rejected"))
    return TrainingSet(out, left_out, counts)


def _decision(paper: Paper) -> Example:
    return Example(paper.slug, paper.title, paper.abstract, tuple(paper.topics), None, "corpus")


def _known_topics(labelled: Sequence[Doc]) -> dict[str, frozenset[str]]:
    """For each labels file, the topics one of its papers has (or a reader gave)."""
    out: dict[str, set[str]] = {}
    for d in labelled:
        out.setdefault(d.source, set()).update(d.gold, *d.readers)
    return {source: frozenset(topics) for source, topics in out.items()}


def decision_count(corpus: Corpus) -> int:
    """The decisions of the corpus a model may learn from: papers whose topics a person reviewed,
    and rejected papers. `survey train` writes it in the model file (`decisions`)."""
    return sum(p.topics_reviewed for p in corpus.papers.values()) + len(corpus.rejected)


# How many new decisions make retraining worth its step: the fewest after which a refresh changed
# some waiting paper's suggested topics in each of five trials (benchmarks/model_churn.py: the
# 1,181 held-out labelled papers as the queue, k of them decided in review order or at random,
# then retrained). Papers changed at 1 decision: 1, 1, 0, 0, 0; at 10: 11, 0, 3, 1, 9; at 20: 22,
# 16, 3, 0, 4; at 30: 20, 9, 2, 15, 10; at 50: 12, 18, 12, 17, 7. Below it `survey review` says
# nothing of training: a contributor who decides one paper is never sent to retrain (issue 42).
REFRESH_AFTER = 30


def refresh_advice(corpus: Corpus, taxonomy: Taxonomy) -> str | None:
    """What `survey review` says after a sitting when the model has enough new decisions to learn
    from, else None. A model written before it counted its decisions says nothing."""
    learnt = taxonomy.decisions if taxonomy.weights() else 0
    if learnt is None:
        return None
    new = decision_count(corpus) - learnt
    if new < REFRESH_AFTER:
        return None
    return (f"survey review: {new:,} decisions since the topic model was trained, enough to change its "
            "suggestions: a maintainer refreshes it (`survey train`, then `survey classify --write`; "
            "CONTRIBUTING.md, \"Refreshing the topic model\")")
