"""The rules of corpus/taxonomy.yaml: which fire on a paper, and the points they earn.

A rule that fires in the title earns twice its weight; in the abstract, its weight, or twice
its weight when it fires three times or more (a theme the abstract keeps returning to).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..corpus.taxonomy import Rule
from .prefilter import Presence, required_groups

TITLE_FACTOR = 2
REPEATED = 3


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
    """A paper's title and abstract, with the literal look-ups the rule prefilter has made."""

    __slots__ = ("abstract", "presence", "title")

    def __init__(self, title: str, abstract: str) -> None:
        self.title, self.abstract = title, abstract
        self.presence = {"title": Presence(title), "abstract": Presence(abstract)}


def evaluate(rules: list[Rule], title: str, abstract: str, scan: Scan | None = None) -> tuple[Hit, ...]:
    hits = []
    scan = scan or Scan(title, abstract)
    for rule in rules:
        groups = required_groups(rule.pattern)
        for where, text in (("title", title), ("abstract", abstract)):
            if rule.where not in (where, "both"):
                continue
            if not scan.presence[where].holds(groups):
                continue  # cannot match: see prefilter
            found = [m.group(0) for m in rule.pattern.finditer(text)]
            if not found:
                continue
            if where == "title":
                points = rule.weight * TITLE_FACTOR
            else:
                points = rule.weight * (2 if len(found) >= REPEATED else 1)
            distinct = tuple(dict.fromkeys(found))
            hits.append(Hit(rule=rule, where=where, found=distinct, points=points))
    return tuple(hits)
