"""Suggesting a paper's topics and tags, with the evidence for each.

Topics come from the linear model (classify/model.py) when corpus/topic_model.yaml exists and
from the topic rules otherwise; tags always come from their rules.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..corpus.taxonomy import Taxonomy
from .model import REVIEW_HIGH, REVIEW_LOW, TopicVerdict, confidences, describe, features, predict
from .pool import pooled
from .rules import BUDGET, Scan, SlowRule, Verdict, evaluate, lexicon, time_guard


@dataclass(frozen=True)
class Suggestion:
    topics: tuple[Verdict | TopicVerdict, ...]
    tags: tuple[Verdict, ...]

    @property
    def topic_ids(self) -> list[str]:
        return [v.id for v in self.topics if v.chosen]

    @property
    def tag_ids(self) -> list[str]:
        return [v.id for v in self.tags if v.chosen]

    @property
    def uncertain(self) -> list[TopicVerdict]:
        """Topics whose confidence is between REVIEW_LOW and REVIEW_HIGH: a person should look."""
        return [v for v in self.topics if isinstance(v, TopicVerdict) and v.uncertain]


# What all the rules may take in one command: a minute, and 50 ms a paper (six times the median
# above). Else a rule that stays just under BUDGET on every paper would stretch an import of
# 9,000 papers to five hours.
COMMAND_BUDGET, PAPER_SHARE = 60.0, 0.05


@dataclass
class Budget:
    """What the rules of one command have taken: the command makes one and hands it to each
    suggest() (suggest_all makes its own; each worker of its pool counts on its copy)."""

    clock: Callable[[], float] = time.monotonic
    spent: float = 0.0
    papers: int = 0

    def seconds(self) -> float:
        """What the rules may take on the next paper."""
        return min(BUDGET, COMMAND_BUDGET + PAPER_SHARE * (self.papers + 1) - self.spent)


def suggest(taxonomy: Taxonomy, title: str, abstract: str, budget: Budget | None = None) -> Suggestion:
    """The paper's suggestion; within the command's budget (one paper's alone by default)."""
    weights = taxonomy.weights()
    return _guarded(taxonomy, title, budget, lambda: _suggest(taxonomy, weights, title, abstract))


def scores(taxonomy: Taxonomy, title: str, abstract: str, budget: Budget | None = None
           ) -> tuple[tuple[str, float], ...]:
    """The paper's confidence in each topic of the model, brief(suggest(...)).scores, in a fifth
    less time: no evidence kept for a person to read."""
    weights = taxonomy.weights()
    return _guarded(taxonomy, title, budget,
                    lambda: confidences(taxonomy, weights, features(taxonomy, title, abstract)))


def _guarded(taxonomy: Taxonomy, title: str, budget: Budget | None, work: Callable[[], Any]) -> Any:
    """work() on a paper within the command's budget (one paper's alone by default): a rule that
    runs past it is named."""
    budget = budget or Budget()
    seconds = budget.seconds()
    started = budget.clock()
    try:
        with time_guard(seconds):
            return work()
    except SlowRule as slow:  # a rule of the taxonomy backtracks without end: name it
        over = (f"over {BUDGET:g} s on the paper" if seconds == BUDGET else f"over this command's "
                f"budget ({COMMAND_BUDGET:g} s and {PAPER_SHARE * 1000:g} ms a paper) at the paper")
        raise taxonomy.slow_rule(slow.rule, title, over) from None
    finally:
        budget.spent += budget.clock() - started
        budget.papers += 1


def _suggest(taxonomy: Taxonomy, weights: Any, title: str, abstract: str) -> Suggestion:
    scan = Scan(title, abstract, taxonomy)
    tags = tuple(Verdict(t.id, t.name, t.threshold, evaluate(t.rules, title, abstract, scan))
                 for t in taxonomy.tags)
    topics: tuple[Verdict | TopicVerdict, ...]
    if weights:
        points = {v.id: v.score for v in tags}
        topics = predict(taxonomy, weights, features(taxonomy, title, abstract, points, scan))
    else:
        topics = tuple(Verdict(t.id, t.name, t.threshold, evaluate(t.rules, title, abstract, scan))
                       for t in taxonomy.topics)
    return Suggestion(topics=topics, tags=tags)


SHOWN = 8  # features listed a topic in `survey explain`


def explain_lines(suggestion: Suggestion, topics: list[str], tags: list[str]) -> list[str]:
    """A readable account: for each topic and tag the paper has or narrowly missed, the evidence."""
    lines = []
    for v in suggestion.topics:
        if isinstance(v, TopicVerdict):
            lines.extend(_model_lines(v, v.id in topics))
        else:
            lines.extend(_rule_lines("topic", v, v.id in topics))
    for t in suggestion.tags:
        lines.extend(_rule_lines("tag", t, t.id in tags))
    return lines


def _state(held: bool, chosen: bool, who: str, agree: str, suggest: str) -> str:
    if held and chosen:
        return f"has it; {who} {agree}"
    if held:
        return f"has it (curated); {who} would not suggest it"
    if chosen:
        return f"{who} {suggest} it, but the paper's file leaves it out (curated)"
    return "narrowly missed"


def _model_lines(v: TopicVerdict, held: bool) -> list[str]:
    if not held and not v.chosen and v.confidence <= REVIEW_LOW:
        return []
    state = _state(held, v.chosen, "the model", "agrees", "suggests")
    review = " [review: uncertain]" if REVIEW_LOW < v.confidence < REVIEW_HIGH else ""
    return [f"topic {v.id}: confidence {v.confidence:.2f}: {state}{review}",
            *(f"    {line}" for line in reasons(v, SHOWN))]


def reasons(v: TopicVerdict, shown: int) -> list[str]:
    """The features that moved a topic's confidence most, strongest first, and the rest summed:
    what `survey explain` and `survey review` show."""
    lines = [f"{effect:+.2f}  {describe(feature)}" for feature, effect in v.contributions[:shown]]
    if len(v.contributions) > shown:
        rest = sum(c for _, c in v.contributions[shown:])
        lines.append(f"{rest:+.2f}  {len(v.contributions) - shown} more words and rules")
    return lines


def _rule_lines(kind: str, v: Verdict, held: bool) -> list[str]:
    if not held and not v.chosen and not v.near_miss:
        return []
    state = _state(held, v.chosen, "the rules", "agree", "suggest")
    lines = [f"{kind} {v.id}: score {v.score} of {v.threshold} needed: {state}"]
    for h in v.hits:
        words = ", ".join(repr(w) for w in h.found)
        lines.append(f"    {h.points:+d}  {h.rule.name} [{h.where}: {words}]")
    if not v.hits:
        lines.append("    no rule fired")
    return lines


@dataclass(frozen=True)
class Brief:
    """What an import keeps of a suggestion: small enough to send back from a worker process."""

    topic_ids: tuple[str, ...]
    tag_ids: tuple[str, ...]
    uncertain: tuple[tuple[str, float], ...]  # (topic, confidence)
    best: tuple[str, float] | None  # the most likely topic and its confidence (or rule points)
    scores: tuple[tuple[str, float], ...] = ()  # every topic's confidence (none from the rules alone)
    words: tuple[str, ...] = ()  # the words of the paper that raised its best topic most


def brief(s: Suggestion) -> Brief:
    best = max(((v.id, v.confidence if isinstance(v, TopicVerdict) else float(v.score)) for v in s.topics),
               key=lambda b: b[1], default=None)
    return Brief(tuple(s.topic_ids), tuple(s.tag_ids), tuple((v.id, v.confidence) for v in s.uncertain), best,
                 tuple((v.id, v.confidence) for v in s.topics if isinstance(v, TopicVerdict)),
                 _best_words(s, best[0] if best else None))


BRIEF_WORDS = 6


def _best_words(s: Suggestion, topic: str | None) -> tuple[str, ...]:
    """The words and phrases of the paper that raised `topic` most (the model's word features;
    the rules' matches without a model), for a person to judge a paper without opening it (the
    report of papers --on-topic left out)."""
    v = next((v for v in s.topics if v.id == topic), None)
    if isinstance(v, TopicVerdict):
        words = [f.partition(":")[2] for f, effect in v.contributions
                 if effect > 0 and f.startswith(("title:", "abstract:"))]
    else:
        words = [w.lower() for hit in (v.hits if v else ()) if hit.points > 0 for w in hit.found]
    return tuple(dict.fromkeys(words))[:BRIEF_WORDS]


def suggest_all(taxonomy: Taxonomy, texts: list[tuple[str, str]], workers: int | None = None,
                budget: Budget | None = None) -> list[Brief]:
    """Suggestions for many (title, abstract) pairs, in order, on every core: the same result as
    calling suggest() on each, in a fraction of the time for an import of thousands (each
    worker counts the rules' budget on its copy)."""
    taxonomy.weights()  # read once, before the workers are forked (and the rules' literals)
    lexicon(taxonomy)
    budget = budget or Budget()
    return pooled(lambda chunk: [brief(suggest(taxonomy, t, a, budget)) for t, a in chunk], texts, workers)


def scores_all(taxonomy: Taxonomy, texts: list[tuple[str, str]], workers: int | None = None
               ) -> list[tuple[tuple[str, float], ...]]:
    """scores() of many (title, abstract) pairs, in order, on every core (as suggest_all)."""
    taxonomy.weights()
    lexicon(taxonomy)
    budget = Budget()
    return pooled(lambda chunk: [scores(taxonomy, t, a, budget) for t, a in chunk], texts, workers)
