"""Which papers the site publishes: the survey's papers, not every paper an import brought in.

The gate of `survey import --on-topic` keeps about twice the on-topic papers of a feed on
purpose (sources/scope.py: a paper it drops is lost to the survey, one it keeps costs a curator
one decision), and a listing imported whole brings papers of every field. A paper that no person
has reviewed (its `curated` lacks `topics`) and that the topic model places in no topic (its
suggested `topics` is empty) is such a candidate: it waits for a curator in `survey review`, and
the site leaves it out (no page, list, feed, sitemap, search entry, export or related-papers
link), until a person keeps it (none of the four topics, or a topic) or rejects it. A paper a
person reviewed as none of the four is published under Other as before.

A survey that wants every paper on its site sets `publish_waiting: true` in the survey plugin's
options of mkdocs.yml (docs/topic-boundaries.md, "Papers that wait for a curator").
"""

from __future__ import annotations

import dataclasses

from .model import Paper
from .store import Corpus


def waits(paper: Paper) -> bool:
    """No person reviewed the paper's topics and the model suggests none: it waits for a curator."""
    return not paper.topics and "topics" not in paper.curated


def published(corpus: Corpus) -> tuple[Corpus, int]:
    """The corpus as the site shows it (its listings whole: an entry keeps its number, and the
    site leaves out the entries of waiting papers), and how many papers wait."""
    papers = {slug: paper for slug, paper in corpus.papers.items() if not waits(paper)}
    waiting = len(corpus.papers) - len(papers)
    return (dataclasses.replace(corpus, papers=papers) if waiting else corpus), waiting
