"""Suggesting topics and tags from a paper's title and abstract, with the evidence for each.

A rule that fires in the title earns twice its weight; in the abstract, its weight, or twice
its weight when it fires three times or more (a theme the abstract keeps returning to).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..corpus.taxonomy import Rule, Taxonomy

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


@dataclass(frozen=True)
class Suggestion:
    topics: tuple[Verdict, ...]
    tags: tuple[Verdict, ...]

    @property
    def topic_ids(self) -> list[str]:
        return [v.id for v in self.topics if v.chosen]

    @property
    def tag_ids(self) -> list[str]:
        return [v.id for v in self.tags if v.chosen]


def evaluate(rules: list[Rule], title: str, abstract: str) -> tuple[Hit, ...]:
    hits = []
    for rule in rules:
        for where, text in (("title", title), ("abstract", abstract)):
            if rule.where not in (where, "both"):
                continue
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


def suggest(taxonomy: Taxonomy, title: str, abstract: str) -> Suggestion:
    return Suggestion(
        topics=tuple(
            Verdict(t.id, t.name, t.threshold, evaluate(t.rules, title, abstract))
            for t in taxonomy.topics
        ),
        tags=tuple(
            Verdict(t.id, t.name, t.threshold, evaluate(t.rules, title, abstract))
            for t in taxonomy.tags
        ),
    )


def explain_lines(suggestion: Suggestion, topics: list[str], tags: list[str]) -> list[str]:
    """A readable account: for each topic and tag the paper has or narrowly missed, the rules."""
    lines = []
    for kind, verdicts, held in (("topic", suggestion.topics, topics), ("tag", suggestion.tags, tags)):
        for v in verdicts:
            if v.id not in held and not v.chosen and not v.near_miss:
                continue
            if v.id in held and v.chosen:
                state = "has it; the rules agree"
            elif v.id in held:
                state = "has it (curated); the rules would not suggest it"
            elif v.chosen:
                state = "the rules suggest it, but the paper's file leaves it out (curated)"
            else:
                state = "narrowly missed"
            lines.append(f"{kind} {v.id}: score {v.score} of {v.threshold} needed: {state}")
            for h in v.hits:
                words = ", ".join(repr(w) for w in h.found)
                lines.append(f"    {h.points:+d}  {h.rule.name} [{h.where}: {words}]")
            if not v.hits:
                lines.append("    no rule fired")
    return lines
