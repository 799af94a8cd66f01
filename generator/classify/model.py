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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..corpus.taxonomy import Taxonomy, TopicWeights
from .rules import Scan, evaluate, lexicon

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
    scan = scan or Scan(title, abstract, taxonomy)
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
        confidence = _confidence(tw, (c for _, c in parts))
        parts.sort(key=lambda fc: (-abs(fc[1]), fc[0]))
        verdicts.append(TopicVerdict(topic.id, topic.name, confidence, tuple(parts)))
    return tuple(verdicts)


def _confidence(tw: TopicWeights, contributions: Iterable[float]) -> float:
    """The model's confidence from a topic's contributions, summed in the order given: predict()
    and confidences() share it, so the derived cache and a fresh score agree to the bit."""
    return 1 / (1 + math.exp(-max(-60.0, min(60.0, tw.bias + sum(contributions)))))


def confidences(taxonomy: Taxonomy, weights: dict[str, TopicWeights], feats: dict[str, float]
                ) -> tuple[tuple[str, float], ...]:
    """(topic, confidence) of each topic the model has, as predict() computes them (the same sum
    in the same order, so the same bits) without the contributions it sorts for a person to
    read: what the derived cache keeps of every waiting paper."""
    out = []
    for topic in taxonomy.topics:
        tw = weights.get(topic.id)
        if tw is not None:
            out.append((topic.id, _confidence(tw, (tw.weights[f] * v for f, v in feats.items()
                                                   if f in tw.weights))))
    return tuple(out)


def doubt(scores: Mapping[str, float]) -> float:
    """How many of a paper's topic decisions the model is expected to get wrong, if its
    confidences are calibrated: for each topic, the chance that the side it chose is wrong.
    What `survey review` orders by (classify/review.py). Summed exactly (fsum): scores fresh from
    the model come in the taxonomy's order, from the derived cache in the alphabet's, and a
    plain sum in either order could round to 1.181 one time and 1.18 the next."""
    return round(math.fsum(min(p, 1 - p) for p in scores.values()), 3)


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
# A word or phrase must occur in this many training papers: rarer ones are noise, and they are
# what one decision moves most (a decision on the queue's first paper changed 87 lines at 2, 18
# at 3, benchmarks/model_churn.py).
MIN_DOCS = 3
# corpus/topic_model.yaml is read in pull requests, as a lock file is: `survey train` writes few
# weights, in steps, and keeps a written weight while the new fit stays within a step of it, so
# that one more decision changes a handful of lines, not most of them (issue 42). Measured with
# benchmarks/model_churn.py (20 trials, each the model trained without one tune paper, then with
# it): lines of `git diff` (added + removed) a decision, median 1, at most 5 in 18 trials, 52 at
# worst, of 3,836; the file before (3,000 weights a topic to four decimals, each train from
# nothing; `--keep 3000 --step 0.0001 --min-docs 2 --afresh`, 8 trials): median 8,144 of 12,025. The
# lines that change are mostly the decided paper's own words. KEEP: the features kept a topic,
# by the size of their effect on the training papers. With KEEP 1,000, STEP 0.1 and MIN_DOCS 3,
# `survey quality` (.ci/run's command) gives the held-out micro-F1 of the 3,000 weights before
# within 0.01 (HF daily 0.767 against 0.762, arXiv ML-systems 0.770 against 0.774); KEEP 500
# flagged papers that held 59.8% of the wrong ones on HF daily, under .ci/run's floor of 60%.
KEEP = 1000
STEP = 0.1  # a weight is written as a multiple of this
# A feature written before stays while it ranks within this many times KEEP, so that one at the
# edge does not leave and come back as decisions gather.
STAY = 1.25


def train(taxonomy: Taxonomy, docs: Sequence[tuple[str, str]], gold: Sequence[Sequence[str]],
          feats: Sequence[dict[str, float]] | None = None,
          known: Sequence[frozenset[str] | None] | None = None,
          weight: Sequence[float] | None = None,
          previous: Mapping[str, TopicWeights] | None = None) -> dict[str, TopicWeights]:
    """Fit one L2-regularised logistic regression per topic and keep its KEEP largest effects,
    each a multiple of STEP. `feats`: the docs' features, when the caller has them
    (cross-validation trains k models on the same papers: their features, most of a fit's time,
    are computed once). `known`: for each doc, the topics it is evidence for (None: all); a
    topic learns from those docs only. `weight`: each doc's weight in the fit (1 each by
    default). `previous`: the model as written before, whose weights stay where the new fit is
    within a step of them (the same data and previous model give the same weights)."""
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    if feats is None:
        feats = features_all(taxonomy, docs)
    counts: dict[str, int] = {}
    for f in feats:
        for k in f:
            counts[k] = counts.get(k, 0) + 1
    keep = {k for k, n in counts.items() if n >= MIN_DOCS or not k.startswith(("title:", "abstract:"))}
    vec = DictVectorizer(sort=True)
    x = vec.fit_transform([{k: v for k, v in f.items() if k in keep} for f in feats]).tocsr()
    x.indices = x.indices.astype(np.int32)
    x.indptr = x.indptr.astype(np.int32)
    names = [str(n) for n in vec.get_feature_names_out()]
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
        before = previous.get(topic.id) if previous else None
        out[topic.id] = _settled(model.coef_.ravel(), float(model.intercept_[0]), names, mean_abs, before)
    return out


def _settled(w: Any, bias: float, names: list[str], mean_abs: Any, before: TopicWeights | None
             ) -> TopicWeights:
    """A topic's fit as written: its KEEP largest effects (and those written before within STAY
    times KEEP), each a multiple of STEP; where the topic was written before in steps, each
    weight as it was (a feature not written: 0) while the new fit is within a step of it. A
    topic written otherwise (by a train before the steps, or edited by hand off them) is written
    afresh."""
    if before is not None and any(on_step(v) != v for v in (before.bias, *before.weights.values())):
        before = None
    old = before.weights if before else {}
    effect = abs(w) * mean_abs
    ranked = sorted(range(len(w)), key=lambda i: (-effect[i], names[i]))
    kept = set(ranked[:KEEP]) | {i for i in ranked[KEEP:int(KEEP * STAY)] if names[i] in old}

    def value(new: float, written: float | None) -> float:
        return written if written is not None and abs(new - written) < STEP else on_step(new)

    absent = None if before is None else 0.0
    table = {names[i]: value(float(w[i]), old.get(names[i], absent))
             for i in sorted(kept, key=lambda i: names[i])}
    return TopicWeights(bias=value(bias, before.bias if before else None),
                        weights={k: v for k, v in table.items() if v != 0})


def on_step(weight: float) -> float:
    return round(round(weight / STEP) * STEP, 6)  # 0.30000000000000004 written as 0.3


def features_all(taxonomy: Taxonomy, docs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
    """features() of each (title, abstract), in order, on every core: most of what training on
    thousands of papers takes (the rules' regular expressions, 3-5 ms a paper)."""
    from .pool import pooled

    lexicon(taxonomy)  # made once, before the workers are forked
    return pooled(lambda chunk: [features(taxonomy, t, a) for t, a in chunk], list(docs))
