"""The rules of corpus/taxonomy.yaml: which fire on a paper, and the points they earn.

A rule that fires in the title earns twice its weight; in the abstract, its weight, or twice
its weight when it fires three times or more (a theme the abstract keeps returning to).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..corpus.taxonomy import Rule
from .prefilter import required_literals

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


def evaluate(rules: list[Rule], title: str, abstract: str) -> tuple[Hit, ...]:
    hits = []
    lowered = {"title": title.lower(), "abstract": abstract.lower()}
    for rule in rules:
        need = required_literals(rule.pattern)
        for where, text in (("title", title), ("abstract", abstract)):
            if rule.where not in (where, "both"):
                continue
            if need is not None and not any(lit in lowered[where] for lit in need):
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
