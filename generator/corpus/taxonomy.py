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

from ..core.errors import CorpusError, Problems, raise_problems
from ..core.text import digest, shorten, shown_path
from ..core.yamlio import load_yaml, read_text
from .fields import Fields

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
    # The digests of the texts read (taxonomy.yaml's; the model's, once weights() has read it):
    # what the derived cache keys the model's scores by (classify/derived.py).
    digest: str = field(default="", compare=False)
    model_digest: str = field(default="", compare=False)
    # How many decisions of the corpus (reviewed and rejected papers) the model was trained
    # with, as `survey train` wrote it; None for a model written before it said so.
    decisions: int | None = field(default=None, compare=False)
    # The literals of the rules, as classify/rules.py looks for them in a paper: made once.
    lexicon: Any = field(default=None, repr=False, compare=False)

    def weights(self) -> dict[str, TopicWeights]:
        """The topic model's weights, read on first use (the build never needs them); {} if none."""
        if self._weights is None:
            path = self.model_path
            if path is None or not path.exists():
                self._weights = {}
                return self._weights
            shown = shown_path(path)
            text = read_text(path, shown)
            data = load_yaml(text, shown)
            weights = weights_from_data(data, shown, self)
            count = data.get("decisions")
            self.decisions = count if isinstance(count, int) and not isinstance(count, bool) else None
            self._weights, self.model_digest = weights, digest(text)
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
        text = read_text(path, shown)
        taxonomy = cls.from_dict(load_yaml(text, shown), shown)
        taxonomy.model_path, taxonomy.digest = path.parent / MODEL_FILE, digest(text)
        return taxonomy

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Taxonomy:
        if not isinstance(data, dict) or set(data) - {"topics", "tags"}:
            raise CorpusError(path, "expected a mapping with 'topics' and 'tags'")
        problems = Problems()
        topics = _records(_topic, data, "topics", path, problems)
        tags = _records(_tag, data, "tags", path, problems)
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


FIELDS = {"topics": ("id", "name", "summary", "description", "threshold", "rules"),
          "tags": ("id", "name", "description", "threshold", "rules")}


def _records(parse: Any, data: dict[str, Any], key: str, path: str, problems: Problems) -> list[Any]:
    """The topics or the tags, each checked on its own (so one run reports a problem of each) and
    left out if it has one."""
    raws = data.get(key)
    if not isinstance(raws, list):
        raise CorpusError(path, f"'{key}' must be a list", field=key)
    out = []
    for i, raw in enumerate(raws):
        before = len(problems)
        try:
            item = parse(Fields(raw, path, f"{key}[{i}]", FIELDS[key], problems=problems))
        except CorpusError as exc:  # not a mapping
            problems.append(exc)
            continue
        if len(problems) == before:
            out.append(item)
    return out


def _ident(f: Fields) -> str:
    ident = f.data.get("id")
    if isinstance(ident, str) and TOPIC_ID_RE.match(ident) and len(ident) <= MAX_ID:
        f.entry = ident  # names it in every later problem
        return ident
    f.problem("id", f"{shorten(ident)} is not an id (lower-case, digits, hyphens, at most {MAX_ID} "
                    f"characters)")
    return ""


def _text(f: Fields, key: str, limit: int = MAX_NAME, required: bool = True) -> str:
    """Plain text (names and descriptions are shown as text on every page), its white space folded."""
    value = f.text(key, required=required, single_line=False, limit=limit, plain=True)
    if required and value is not None and not value.strip():
        f.problem(key, "must not be empty")
    return " ".join((value or "").split())


def _threshold(f: Fields, default: int) -> int:
    value = f.data.get("threshold", default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        f.problem("threshold", "must be a whole number of at least 1")
    return value  # type: ignore[no-any-return]


def _rules(f: Fields, required: bool = True) -> list[Rule]:
    """A tag's rules are all that suggest it; a topic may have none (a curator adds a topic with
    a description, and `survey train` learns it from their decisions in `survey review`)."""
    value = f.data.get("rules", None if required else [])
    if not isinstance(value, list) or (required and not value):
        f.problem("rules", f"must be a {'non-empty ' if required else ''}list of rules")
        return []
    rules = []
    for i, item in enumerate(value):
        try:
            r = Fields(item, f.path, f.entry, ("name", "match", "weight", "in", "case"),
                       prefix=f"rules[{i}].", problems=f.problems)
        except CorpusError as exc:  # not a mapping
            f.problems.append(exc)
            continue
        rules.append(_rule(r))
    return rules


def _rule(r: Fields) -> Rule:
    pattern, compiled = r.data.get("match"), None
    if not isinstance(pattern, str) or not pattern:
        r.problem("match", "must be a regular expression")
    elif len(pattern) > MAX_PATTERN:
        r.problem("match", f"is {len(pattern):,} characters long; at most {MAX_PATTERN:,} are allowed")
    else:
        try:
            compiled = re.compile(pattern, 0 if r.data.get("case") is True else re.IGNORECASE)
        except re.error as exc:
            r.problem("match", f"bad regular expression: {exc}")
    weight = r.data.get("weight", 1)
    if not isinstance(weight, int) or isinstance(weight, bool) or weight == 0:
        r.problem("weight", "must be a non-zero whole number")
    scope = r.data.get("in", "both")
    if scope not in WHERE:
        r.problem("in", f"must be one of {', '.join(WHERE)}")
    return Rule(name=str(r.data.get("name") or pattern), pattern=compiled or re.compile(""), weight=weight,
                where=scope)


def _topic(f: Fields) -> Topic:
    ident = _ident(f)
    return Topic(id=ident, name=_text(f, "name"), summary=_text(f, "summary", MAX_SUMMARY),
                 description=_text(f, "description", MAX_DESCRIPTION), threshold=_threshold(f, 3),
                 rules=_rules(f, required=False))


def _tag(f: Fields) -> Tag:
    ident, name = _ident(f), _text(f, "name")
    if name and not TAG_NAME_RE.match(name):
        f.problem("name", "tag names use letters, digits, spaces and - / . + ( ) only")
    return Tag(id=ident, name=name, description=_text(f, "description", MAX_DESCRIPTION, False) or None,
               threshold=_threshold(f, 1), rules=_rules(f))


def weights_from_data(data: Any, shown: str, taxonomy: Taxonomy) -> dict[str, TopicWeights]:
    """The weights of a model file's data (its `decisions`, a count `survey train` writes, is
    read by Taxonomy.weights, any other key passed over)."""
    topics = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(topics, dict):
        raise CorpusError(shown, "expected a mapping with 'topics': {topic: {bias, weights}}")
    out = {}
    for topic_id, raw in topics.items():
        if topic_id not in taxonomy.topic_ids:
            raise CorpusError(shown, "not a topic of the taxonomy", entry=str(topic_id))
        r = Fields(raw, shown, str(topic_id), ("bias", "weights"))
        r.done()
        table = r.data.get("weights")
        if not isinstance(table, dict):
            raise CorpusError(shown, "must be a mapping of feature to number", entry=topic_id,
                              field="weights")
        out[topic_id] = TopicWeights(
            bias=_number(r.data.get("bias"), shown, topic_id, "bias"),
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
