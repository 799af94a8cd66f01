"""The rules of corpus/taxonomy.yaml: which fire on a paper, and the points they earn.

A rule that fires in the title earns twice its weight; in the abstract, its weight, or twice
its weight when it fires three times or more (a theme the abstract keeps returning to).
"""

from __future__ import annotations

import itertools
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..corpus.taxonomy import Rule, Taxonomy
from .prefilter import Lexicon, Presence, match_starts, matches, required_groups

TITLE_FACTOR = 2
REPEATED = 3
# The time all the rules may take on one paper. A pattern such as `^(\w+\s?)+$` backtracks
# without end on some texts, and `survey add` would hang. On the 9,109 real papers all the
# rules and the model take 8 ms a paper (median), 65 ms at most, on a loaded 2-core machine.
BUDGET = 2.0


class _OverTime(BaseException):
    """Raised by the alarm inside a rule's match (a BaseException: no `except Exception` eats it)."""


class SlowRule(Exception):
    """A rule ran past the budget; `rule` is None when the alarm came between two rules."""

    def __init__(self, rule: Rule | None) -> None:
        super().__init__(rule.source if rule else "")
        self.rule = rule


@contextmanager
def time_guard(seconds: float = BUDGET) -> Iterator[None]:
    """Raise SlowRule when the block runs longer than `seconds`, through SIGALRM: Python checks
    for signals inside a regular expression's match, so even a runaway match stops. The guard
    takes the process's one real-time timer, so it refuses to run inside another (an enclosing
    guard's, a caller's), which it would cancel. Where there is no SIGALRM (Windows) or outside
    the main thread, the block runs unguarded."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getitimer(signal.ITIMER_REAL)[0]:
        raise RuntimeError("time_guard inside another real-time timer, which it would cancel")
    if seconds <= 0:
        raise SlowRule(None)

    def alarm(signum: int, frame: Any) -> None:
        raise _OverTime

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _OverTime:
        raise SlowRule(None) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass(frozen=True)
class Hit:
    rule: Rule
    where: str  # "title" or "abstract"
    found: tuple[str, ...]  # the words the rule matched, first occurrence of each
    points: int


@dataclass(frozen=True)
class Verdict:
    id: str
    name: str
    threshold: int
    hits: tuple[Hit, ...]

    @property
    def score(self) -> int:
        return sum(h.points for h in self.hits)

    @property
    def chosen(self) -> bool:
        return self.score >= self.threshold

    @property
    def near_miss(self) -> bool:
        """At least half the points needed, but not all: `survey explain` shows it as narrowly missed."""
        return not self.chosen and self.score > 0 and self.score * 2 >= self.threshold


class Scan:
    """A paper's title and abstract, with the literals of the taxonomy's rules they hold (any
    other rule's looked up when asked)."""

    __slots__ = ("places",)

    def __init__(self, title: str, abstract: str, taxonomy: Taxonomy | None = None) -> None:
        words = lexicon(taxonomy) if taxonomy else None
        # What evaluate() walks for each rule: the two texts, each with its literals.
        self.places = tuple((where, text, Presence(text, words))
                            for where, text in (("title", title), ("abstract", abstract)))


def lexicon(taxonomy: Taxonomy) -> Lexicon:
    """Every literal the taxonomy's rules look for, made once for it (and kept on it)."""
    if taxonomy.lexicon is None:
        patterns = [r.pattern for t in taxonomy.topics for r in t.rules] + [
            r.pattern for t in taxonomy.tags for r in t.rules]
        literals = [*itertools.chain(*(g for p in patterns for g in required_groups(p))),
                    *itertools.chain(*(match_starts(p) or () for p in patterns))]
        taxonomy.lexicon = Lexicon(lit for lit in literals if isinstance(lit, str))
    return taxonomy.lexicon


def evaluate(rules: list[Rule], title: str, abstract: str, scan: Scan | None = None) -> tuple[Hit, ...]:
    hits = []
    scan = scan or Scan(title, abstract)
    for rule in rules:
        groups = required_groups(rule.pattern)
        for where, text, presence in scan.places:
            if rule.where != "both" and rule.where != where:
                continue
            if not presence.holds(groups):
                continue  # cannot match: see prefilter
            try:
                found = matches(rule.pattern, text, presence)
            except _OverTime:
                raise SlowRule(rule) from None
            if not found:
                continue
            if where == "title":
                points = rule.weight * TITLE_FACTOR
            else:
                points = rule.weight * (2 if len(found) >= REPEATED else 1)
            distinct = tuple(dict.fromkeys(found))
            hits.append(Hit(rule=rule, where=where, found=distinct, points=points))
    return tuple(hits)
