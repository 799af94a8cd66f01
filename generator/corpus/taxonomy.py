"""The taxonomy: topics and the tag vocabulary, each with the rules that suggest it.

A rule is a regular expression with a weight (negative weights argue against). A rule can be
limited to the title or the abstract. A topic is suggested when the weights of the rules that
fire add up to its threshold; a tag, likewise (its threshold defaults to 1).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import CorpusError
from ..core.yamlio import load_yaml, read_text

TOPIC_ID_RE = re.compile(r"^[a-z][a-z0-9-]*$")
TAG_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ./+()-]*$")
WHERE = ("title", "abstract", "both")
OTHER = "other"  # the page for papers with no topic; never a topic id itself


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    weight: int
    where: str = "both"

    @property
    def source(self) -> str:
        return self.pattern.pattern


@dataclass
class Topic:
    id: str
    name: str
    description: str
    threshold: int
    rules: list[Rule]


@dataclass
class Tag:
    id: str
    name: str
    description: str | None
    threshold: int
    rules: list[Rule]


@dataclass
class TopicWeights:
    """One topic's linear model: see generator/classify/model.py."""

    bias: float
    weights: dict[str, float]


MODEL_FILE = "topic_model.yaml"  # beside taxonomy.yaml


@dataclass
class Taxonomy:
    topics: list[Topic] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)
    model_path: Path | None = None
    _weights: dict[str, TopicWeights] | None = field(default=None, repr=False, compare=False)

    def weights(self) -> dict[str, TopicWeights]:
        """The topic model's weights, read on first use (the build never needs them); {} if none."""
        if self._weights is None:
            path = self.model_path
            self._weights = load_weights(path, self) if path is not None and path.exists() else {}
        return self._weights

    @classmethod
    def empty(cls) -> Taxonomy:
        return cls()

    @property
    def topic_ids(self) -> list[str]:
        return [t.id for t in self.topics]

    @property
    def tag_ids(self) -> list[str]:
        return [t.id for t in self.tags]

    def topic(self, topic_id: str) -> Topic:
        return next(t for t in self.topics if t.id == topic_id)

    def tag(self, tag_id: str) -> Tag:
        return next(t for t in self.tags if t.id == tag_id)

    @classmethod
    def load(cls, path: Path, shown: str) -> Taxonomy:
        if not path.exists():
            raise CorpusError(shown, "the taxonomy file is missing")
        taxonomy = cls.from_dict(load_yaml(read_text(path, shown), shown), shown)
        taxonomy.model_path = path.parent / MODEL_FILE
        return taxonomy

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Taxonomy:
        if not isinstance(data, dict) or set(data) - {"topics", "tags"}:
            raise CorpusError(path, "expected a mapping with 'topics' and 'tags'")
        topics = [_topic(raw, path, i) for i, raw in enumerate(_items(data, "topics", path))]
        tags = [_tag(raw, path, i) for i, raw in enumerate(_items(data, "tags", path))]
        seen: set[str] = set()
        for kind, items in (("topic", topics), ("tag", tags)):
            for item in items:
                if item.id in seen or item.id == OTHER:
                    raise CorpusError(path, f"{kind} id {item.id!r} is used twice or reserved",
                                      entry=item.id, field="id")
                seen.add(item.id)
        names: dict[str, str] = {}
        for tag in tags:
            folded = tag.name.casefold()
            if folded in names:
                raise CorpusError(path, f"tag name {tag.name!r} is also the name of {names[folded]!r}",
                                  entry=tag.id, field="name")
            names[folded] = tag.id
        return cls(topics=topics, tags=tags)


def _items(data: dict[str, Any], key: str, path: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise CorpusError(path, f"'{key}' must be a list", field=key)
    return value


def _check_keys(raw: Any, path: str, entry: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise CorpusError(path, "expected a mapping", entry=entry)
    extra = sorted(set(raw) - allowed)
    if extra:
        raise CorpusError(path, f"unknown field; known: {', '.join(sorted(allowed))}",
                          entry=entry, field=str(extra[0]))
    return raw


def _ident(raw: dict[str, Any], path: str, entry: str) -> str:
    ident = raw.get("id")
    if not isinstance(ident, str) or not TOPIC_ID_RE.match(ident):
        raise CorpusError(path, f"{ident!r} is not an id (lower-case, digits, hyphens)",
                          entry=entry, field="id")
    return ident


def _text(raw: dict[str, Any], key: str, path: str, entry: str, required: bool = True) -> str | None:
    value = raw.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise CorpusError(path, "must be non-empty text", entry=entry, field=key)
    return " ".join(value.split())


def _threshold(raw: dict[str, Any], path: str, entry: str, default: int) -> int:
    value = raw.get("threshold", default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise CorpusError(path, "must be a whole number of at least 1", entry=entry, field="threshold")
    return value


def _rules(raw: dict[str, Any], path: str, entry: str) -> list[Rule]:
    value = raw.get("rules")
    if not isinstance(value, list) or not value:
        raise CorpusError(path, "must be a non-empty list of rules", entry=entry, field="rules")
    rules = []
    for i, item in enumerate(value):
        where = f"rules[{i}]"
        r = _check_keys(item, path, entry, {"name", "match", "weight", "in", "case"})
        pattern = r.get("match")
        if not isinstance(pattern, str) or not pattern:
            raise CorpusError(path, "must be a regular expression", entry=entry, field=f"{where}.match")
        flags = 0 if r.get("case") is True else re.IGNORECASE
        try:
            compiled = re.compile(pattern, flags)
        except re.error as exc:
            raise CorpusError(path, f"bad regular expression: {exc}", entry=entry,
                              field=f"{where}.match") from None
        weight = r.get("weight", 1)
        if not isinstance(weight, int) or isinstance(weight, bool) or weight == 0:
            raise CorpusError(path, "must be a non-zero whole number", entry=entry,
                              field=f"{where}.weight")
        scope = r.get("in", "both")
        if scope not in WHERE:
            raise CorpusError(path, f"must be one of {', '.join(WHERE)}", entry=entry,
                              field=f"{where}.in")
        name = r.get("name") or pattern
        rules.append(Rule(name=str(name), pattern=compiled, weight=weight, where=scope))
    return rules


def _topic(raw: Any, path: str, i: int) -> Topic:
    entry = f"topics[{i}]"
    r = _check_keys(raw, path, entry, {"id", "name", "description", "threshold", "rules"})
    ident = _ident(r, path, entry)
    name = _text(r, "name", path, ident)
    description = _text(r, "description", path, ident)
    assert name and description
    return Topic(id=ident, name=name, description=description,
                 threshold=_threshold(r, path, ident, 3), rules=_rules(r, path, ident))


def _tag(raw: Any, path: str, i: int) -> Tag:
    entry = f"tags[{i}]"
    r = _check_keys(raw, path, entry, {"id", "name", "description", "threshold", "rules"})
    ident = _ident(r, path, entry)
    name = _text(r, "name", path, ident)
    assert name
    if not TAG_NAME_RE.match(name):
        raise CorpusError(path, "tag names use letters, digits, spaces and - / . + ( ) only",
                          entry=ident, field="name")
    return Tag(id=ident, name=name, description=_text(r, "description", path, ident, required=False),
               threshold=_threshold(r, path, ident, 1), rules=_rules(r, path, ident))


def load_weights(path: Path, taxonomy: Taxonomy) -> dict[str, TopicWeights]:
    shown = path.name if not path.is_absolute() else str(path)
    return weights_from_data(load_yaml(read_text(path, shown), shown), shown, taxonomy)


def weights_from_data(data: Any, shown: str, taxonomy: Taxonomy) -> dict[str, TopicWeights]:
    topics = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(topics, dict):
        raise CorpusError(shown, "expected a mapping with 'topics': {topic: {bias, weights}}")
    out = {}
    for topic_id, raw in topics.items():
        if topic_id not in taxonomy.topic_ids:
            raise CorpusError(shown, "not a topic of the taxonomy", entry=str(topic_id))
        r = _check_keys(raw, shown, str(topic_id), {"bias", "weights"})
        table = r.get("weights")
        if not isinstance(table, dict):
            raise CorpusError(shown, "must be a mapping of feature to number", entry=topic_id,
                              field="weights")
        out[topic_id] = TopicWeights(
            bias=_number(r.get("bias"), shown, topic_id, "bias"),
            weights={str(k): _number(v, shown, topic_id, f"weights.{k}") for k, v in table.items()},
        )
    return out


def _number(value: Any, path: str, entry: str, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or isinstance(value, bool):
        raise CorpusError(path, f"must be a number, not {value!r}", entry=entry, field=name)
    return number
