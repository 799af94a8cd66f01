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

from ..core.errors import CorpusError, each_problem, raise_problems
from ..core.text import bad_character, has_markup, shorten
from ..core.yamlio import load_yaml, read_text

TOPIC_ID_RE = re.compile(r"^[a-z][a-z0-9-]*$")
TAG_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ./+()-]*$")
WHERE = ("title", "abstract", "both")
MAX_ID = 64  # a topic's or tag's id, part of page and file names: real max 26
MAX_NAME = 300  # a topic's or tag's name: the real taxonomy's longest is 26 characters
MAX_DESCRIPTION = 2_000  # real max 416
MAX_SUMMARY = 200  # a topic's one sentence for readers, beside its name on the home page: real max 127
MAX_PATTERN = 2_000  # a rule's regular expression: real max 624
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
    description: str  # the boundary curators (and the labels) follow, shown folded
    threshold: int
    rules: list[Rule]
    summary: str = ""  # one plain sentence for readers: the home page and the top of the topic page


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
    path: str = "taxonomy.yaml"  # as messages name it
    _weights: dict[str, TopicWeights] | None = field(default=None, repr=False, compare=False)

    def weights(self) -> dict[str, TopicWeights]:
        """The topic model's weights, read on first use (the build never needs them); {} if none."""
        if self._weights is None:
            path = self.model_path
            self._weights = load_weights(path, self) if path is not None and path.exists() else {}
        return self._weights

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
        problems: list[CorpusError] = []
        # Each topic and tag is checked on its own, so one run reports a problem of each.
        topics = _each(_topic, _items(data, "topics", path), path, problems)
        tags = _each(_tag, _items(data, "tags", path), path, problems)
        seen: set[str] = set()
        for kind, items in (("topic", topics), ("tag", tags)):
            for item in items:
                if item.id in seen or item.id == OTHER:
                    problems.append(CorpusError(path, f"{kind} id {item.id!r} is used twice or reserved",
                                                entry=item.id, field="id"))
                seen.add(item.id)
        names: dict[str, str] = {}
        for tag in tags:
            folded = tag.name.casefold()
            if folded in names:
                problems.append(CorpusError(path, f"tag name {tag.name!r} is also the name of "
                                                  f"{names[folded]!r}", entry=tag.id, field="name"))
            names[folded] = tag.id
        raise_problems(problems)
        return cls(topics=topics, tags=tags, path=path)

    def slow_rule(self, rule: Rule | None, title: str, over: str) -> CorpusError:
        """The error for a rule that ran past the time guard (classify/rules.py), `over` its
        budget (`over 2 s on the paper`)."""
        short = shorten(title if len(title) <= 60 else title[:57] + "...")
        items: list[Topic | Tag] = [*self.topics, *self.tags]
        for item in items:
            for i, candidate in enumerate(item.rules):
                if candidate is rule:
                    return CorpusError(
                        self.path, f"the rule ran {over} {short}: its pattern "
                        f"backtracks without end on some texts (a repeated group of repeats, such as "
                        f"(\\w+\\s?)+); rewrite it", entry=item.id, field=f"rules[{i}].match")
        return CorpusError(self.path, f"the rules ran {over} {short}")


def _each(parse: Any, raws: list[Any], path: str, problems: list[CorpusError]) -> list[Any]:
    out = []
    for i, raw in enumerate(raws):
        try:
            out.append(parse(raw, path, i))
        except CorpusError as exc:
            problems.extend(each_problem(exc))
    return out


def _items(data: dict[str, Any], key: str, path: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise CorpusError(path, f"'{key}' must be a list", field=key)
    return value


def _check_keys(raw: Any, path: str, entry: str, allowed: set[str],
                problems: list[CorpusError] | None = None) -> dict[str, Any]:
    """The mapping; each unknown field is a problem (noted in `problems`, or raised)."""
    if not isinstance(raw, dict):
        raise CorpusError(path, "expected a mapping", entry=entry)
    found = [CorpusError(path, f"unknown field; known: {', '.join(sorted(allowed))}", entry=entry,
                         field=str(extra)) for extra in sorted(map(str, set(raw) - allowed))]
    if problems is None:
        raise_problems(found)
    else:
        problems += found
    return raw


class _Found:
    """The problems of one topic, tag or rule: each field is checked on its own."""

    def __init__(self) -> None:
        self.problems: list[CorpusError] = []

    def get(self, check: Any, *args: Any, default: Any = None) -> Any:
        try:
            return check(*args)
        except CorpusError as exc:
            self.problems.extend(each_problem(exc))
            return default


def _ident(raw: dict[str, Any], path: str, entry: str) -> str:
    ident = raw.get("id")
    if not isinstance(ident, str) or not TOPIC_ID_RE.match(ident) or len(ident) > MAX_ID:
        raise CorpusError(path, f"{shorten(ident)} is not an id (lower-case, digits, hyphens, at most "
                                f"{MAX_ID} characters)", entry=entry, field="id")
    return ident


def _text(raw: dict[str, Any], key: str, path: str, entry: str, required: bool = True,
          limit: int = MAX_NAME) -> str | None:
    value = raw.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise CorpusError(path, "must be non-empty text", entry=entry, field=key)
    if len(value) > limit:
        raise CorpusError(path, f"is {len(value):,} characters long; at most {limit:,} are allowed",
                          entry=entry, field=key)
    bad = bad_character(value)
    if bad:
        raise CorpusError(path, bad, entry=entry, field=key)
    if has_markup(value):  # names and descriptions are shown as text on every page
        raise CorpusError(path, "contains markup (an HTML tag, comment or declaration); write it as "
                                "plain text", entry=entry, field=key)
    return " ".join(value.split())


def _threshold(raw: dict[str, Any], path: str, entry: str, default: int) -> int:
    value = raw.get("threshold", default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise CorpusError(path, "must be a whole number of at least 1", entry=entry, field="threshold")
    return value


def _rules(raw: dict[str, Any], path: str, entry: str, required: bool = True) -> list[Rule]:
    """A tag's rules are all that suggest it; a topic may have none (a curator adds a topic with
    a description, and `survey train` learns it from their decisions in `survey review`)."""
    value = raw.get("rules", None if required else [])
    if not isinstance(value, list) or (required and not value):
        raise CorpusError(path, f"must be a {'non-empty ' if required else ''}list of rules", entry=entry,
                          field="rules")
    found = _Found()
    rules = [found.get(_rule, item, path, entry, f"rules[{i}]") for i, item in enumerate(value)]
    raise_problems(found.problems)
    return rules


def _rule(item: Any, path: str, entry: str, where: str) -> Rule:
    found = _Found()
    r = _check_keys(item, path, entry, {"name", "match", "weight", "in", "case"}, found.problems)
    pattern = r.get("match")
    compiled = None
    if not isinstance(pattern, str) or not pattern:
        found.problems.append(CorpusError(path, "must be a regular expression", entry=entry,
                                          field=f"{where}.match"))
    elif len(pattern) > MAX_PATTERN:
        found.problems.append(CorpusError(path, f"is {len(pattern):,} characters long; at most "
                                                f"{MAX_PATTERN:,} are allowed", entry=entry,
                                          field=f"{where}.match"))
    else:
        try:
            compiled = re.compile(pattern, 0 if r.get("case") is True else re.IGNORECASE)
        except re.error as exc:
            found.problems.append(CorpusError(path, f"bad regular expression: {exc}", entry=entry,
                                              field=f"{where}.match"))
    weight = r.get("weight", 1)
    if not isinstance(weight, int) or isinstance(weight, bool) or weight == 0:
        found.problems.append(CorpusError(path, "must be a non-zero whole number", entry=entry,
                                          field=f"{where}.weight"))
    scope = r.get("in", "both")
    if scope not in WHERE:
        found.problems.append(CorpusError(path, f"must be one of {', '.join(WHERE)}", entry=entry,
                                          field=f"{where}.in"))
    raise_problems(found.problems)
    assert compiled is not None
    return Rule(name=str(r.get("name") or pattern), pattern=compiled, weight=weight, where=scope)


def _topic(raw: Any, path: str, i: int) -> Topic:
    entry = f"topics[{i}]"
    found = _Found()
    r = _check_keys(raw, path, entry, {"id", "name", "summary", "description", "threshold", "rules"},
                    found.problems)
    ident = found.get(_ident, r, path, entry) or entry
    name = found.get(_text, r, "name", path, ident)
    summary = found.get(_text, r, "summary", path, ident, True, MAX_SUMMARY)
    description = found.get(_text, r, "description", path, ident, True, MAX_DESCRIPTION)
    threshold = found.get(_threshold, r, path, ident, 3, default=3)
    rules = found.get(_rules, r, path, ident, False, default=[])
    raise_problems(found.problems)
    return Topic(id=ident, name=name, description=description, threshold=threshold, rules=rules,
                 summary=summary)


def _tag(raw: Any, path: str, i: int) -> Tag:
    entry = f"tags[{i}]"
    found = _Found()
    r = _check_keys(raw, path, entry, {"id", "name", "description", "threshold", "rules"}, found.problems)
    ident = found.get(_ident, r, path, entry) or entry
    name = found.get(_text, r, "name", path, ident)
    if name is not None and not TAG_NAME_RE.match(name):
        found.problems.append(CorpusError(path, "tag names use letters, digits, spaces and - / . + ( ) "
                                                "only", entry=ident, field="name"))
    description = found.get(_text, r, "description", path, ident, False, MAX_DESCRIPTION)
    threshold = found.get(_threshold, r, path, ident, 1, default=1)
    rules = found.get(_rules, r, path, ident, default=[])
    raise_problems(found.problems)
    return Tag(id=ident, name=name, description=description, threshold=threshold, rules=rules)


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
