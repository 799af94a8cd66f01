"""Topic suggestions from a linear model over words, phrases and the taxonomy's topic rules.

Each topic has a bias and a table of weights (corpus/topic_model.yaml, written by `survey
train` and editable by hand). A paper's features are the words and two-word phrases of its
title and abstract (each worth WORD_VALUE, so they refine rather than replace the rules) and,
for each topic rule of corpus/taxonomy.yaml that fires, its points over its weight, plus each
topic's rule score over its threshold. The confidence of a topic is the logistic of bias +
sum(weight x value); a topic is suggested at CHOOSE or more and a suggestion between
REVIEW_LOW and REVIEW_HIGH is flagged for a person to review.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..corpus.taxonomy import Taxonomy, TopicWeights
from .rules import Scan, evaluate

WORD_VALUE = 0.3
CHOOSE = 0.5
# Flagged for review: a topic whose confidence lies between these. Chosen by 5-fold
# cross-validation on the tune split of tests/data/topic_labels.yaml (2,555 papers, 1,748 tune):
# (0.25, 0.95) flags 14.3% of the papers and they hold 63.5% of the papers with a wrong topic;
# (0.2, 0.8) flagged 12.9% holding 52%. Few wrong suggestions sit above 0.95 or below 0.25.
REVIEW_LOW, REVIEW_HIGH = 0.25, 0.95
# The gate of `survey import --on-topic` keeps a feed's paper whose best topic has at least this
# confidence, with a topic or not: missing an on-topic paper costs the survey the paper, keeping
# an off-topic one costs a curator one decision in `survey review`. Chosen on the 5-fold
# cross-validation of the tune split of both labels files (issue 29): at 0.08 the gate keeps
# 97.5% of the on-topic HF daily papers and 97.6% of the arXiv ML-systems ones (at 0.1: 96.9%
# of both; at 0.5, a topic suggested: 84%).
GATE = 0.08
WORD = re.compile(r"[a-z0-9]+(?:[-+.][a-z0-9]+)*")
STOP = frozenset({
    "a", "an", "the", "of", "and", "or", "in", "on", "for", "to", "with", "by", "we", "is", "are",
    "be", "this", "that", "as", "at", "from", "our", "it", "its", "via", "can", "which", "these",
    "their", "using", "based",
})


def features(taxonomy: Taxonomy, title: str, abstract: str,
             tag_points: dict[str, int] | None = None, scan: Scan | None = None) -> dict[str, float]:
    """Feature name -> value. `title:w` and `abstract:w` are words or two-word phrases;
    `rule:TOPIC:NAME` a topic rule that fired; `score:TOPIC` the topic's rule points over its
    threshold; `tag:ID` a tag's rule points over its threshold (tag_points, when the caller has
    already evaluated the tag rules)."""
    out: dict[str, float] = {}
    for where, text in (("title", title), ("abstract", abstract)):
        words = WORD.findall(text.lower())
        for w in words:
            if w not in STOP:
                out[f"{where}:{w}"] = WORD_VALUE
        for a, b in itertools.pairwise(words):
            if a not in STOP and b not in STOP:
                out[f"{where}:{a} {b}"] = WORD_VALUE
    scan = scan or Scan(title, abstract)
    for topic in taxonomy.topics:
        score = 0
        for hit in evaluate(topic.rules, title, abstract, scan):
            key = f"rule:{topic.id}:{hit.rule.name}"
            out[key] = out.get(key, 0.0) + hit.points / abs(hit.rule.weight)
            score += hit.points
        out[f"score:{topic.id}"] = score / topic.threshold
    if tag_points is None:
        tag_points = {t.id: sum(h.points for h in evaluate(t.rules, title, abstract, scan))
                      for t in taxonomy.tags}
    for tag in taxonomy.tags:
        if tag_points.get(tag.id):
            out[f"tag:{tag.id}"] = tag_points[tag.id] / tag.threshold
    return out


@dataclass(frozen=True)
class TopicVerdict:
    id: str
    name: str
    confidence: float
    contributions: tuple[tuple[str, float], ...]  # (feature, weight x value), largest effect first

    @property
    def chosen(self) -> bool:
        return self.confidence >= CHOOSE

    @property
    def uncertain(self) -> bool:
        return REVIEW_LOW < self.confidence < REVIEW_HIGH


def predict(taxonomy: Taxonomy, weights: dict[str, TopicWeights], feats: dict[str, float]
            ) -> tuple[TopicVerdict, ...]:
    verdicts = []
    for topic in taxonomy.topics:
        tw = weights.get(topic.id)
        if tw is None:
            continue
        parts = [(f, tw.weights[f] * v) for f, v in feats.items() if f in tw.weights]
        total = max(-60.0, min(60.0, tw.bias + sum(c for _, c in parts)))
        parts.sort(key=lambda fc: (-abs(fc[1]), fc[0]))
        verdicts.append(TopicVerdict(topic.id, topic.name, 1 / (1 + math.exp(-total)), tuple(parts)))
    return tuple(verdicts)


def doubt(scores: Mapping[str, float]) -> float:
    """How many of a paper's topic decisions the model is expected to get wrong, if its
    confidences are calibrated: for each topic, the chance that the side it chose is wrong.
    What a paper file keeps (`doubt`) and `survey review` orders by (classify/review.py)."""
    return round(sum(min(p, 1 - p) for p in scores.values()), 3)


def describe(feature: str) -> str:
    kind, _, rest = feature.partition(":")
    if kind == "rule":
        topic, _, name = rest.partition(":")
        return f"{topic} rule {name!r}"
    if kind == "score":
        return f"{rest} rule points"
    if kind == "tag":
        return f"tag rules of {rest!r}"
    return f"{'phrase' if ' ' in rest else 'word'} {rest!r} [{kind}]"


# Training needs scikit-learn (the `train` extra); suggesting needs only the weights above.

C = 1.0
MIN_DOCS = 2  # a word or phrase must occur in this many training papers
# Features kept a topic, by the size of their effect on the training papers: enough for the
# model's accuracy (5-fold on the tune split, micro-F1: 400 kept 0.798, 1,000 0.811, 3,000 0.823,
# all 0.825), few enough that corpus/topic_model.yaml stays readable and loads in well under a second.
KEEP = 3000


def train(taxonomy: Taxonomy, docs: Sequence[tuple[str, str]], gold: Sequence[Sequence[str]],
          feats: Sequence[dict[str, float]] | None = None,
          known: Sequence[frozenset[str] | None] | None = None,
          weight: Sequence[float] | None = None) -> dict[str, TopicWeights]:
    """Fit one L2-regularised logistic regression per topic and keep its KEEP largest effects.
    `feats`: the docs' features, when the caller has them (cross-validation trains k models on
    the same papers: their features, most of a fit's time, are computed once). `known`: for each
    doc, the topics it is evidence for (None: all); a topic learns from those docs only.
    `weight`: each doc's weight in the fit (1 each by default)."""
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    if feats is None:
        feats = [features(taxonomy, t, a) for t, a in docs]
    counts: dict[str, int] = {}
    for f in feats:
        for k in f:
            counts[k] = counts.get(k, 0) + 1
    keep = {k for k, n in counts.items() if n >= MIN_DOCS or not k.startswith(("title:", "abstract:"))}
    vec = DictVectorizer(sort=True)
    x = vec.fit_transform([{k: v for k, v in f.items() if k in keep} for f in feats]).tocsr()
    x.indices = x.indices.astype(np.int32)
    x.indptr = x.indptr.astype(np.int32)
    names = vec.get_feature_names_out()
    mean_abs = np.asarray(abs(x).mean(axis=0)).ravel()
    out = {}
    for topic in taxonomy.topics:
        rows = np.array([k is None or topic.id in k for k in known or [None] * len(gold)], dtype=bool)
        y = np.array([topic.id in g for g in gold])[rows]
        if y.all() or not y.any():
            continue
        model = LogisticRegression(C=C, solver="liblinear", class_weight="balanced", max_iter=1000,
                                   random_state=0)  # liblinear shuffles: the same labels, the same weights
        w = None if weight is None else np.asarray(weight, dtype=float)[rows]
        model.fit(x if rows.all() else x[rows], y, sample_weight=w)
        w = model.coef_.ravel()
        effect = np.abs(w) * mean_abs
        order = sorted(range(len(w)), key=lambda i: (-effect[i], names[i]))[:KEEP]
        table = {str(names[i]): round(float(w[i]), 4) for i in sorted(order, key=lambda i: names[i])
                 if round(float(w[i]), 4) != 0}
        out[topic.id] = TopicWeights(bias=round(float(model.intercept_[0]), 4), weights=table)
    return out
