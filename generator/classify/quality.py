"""Measuring the topic rules against papers labelled by hand: precision, recall, micro-F1.

The labelled set is a YAML mapping `split -> {slug: [topics]}`; the `dev` split is what the
rules were tuned on, `heldout` was not looked at while tuning. Texts come from the corpus.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import CorpusError
from ..core.yamlio import load_yaml, read_text
from ..corpus.store import Corpus
from .rules import suggest


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp else 0.0


@dataclass
class SplitResult:
    name: str
    papers: int
    per_topic: dict[str, Counts]
    errors: list[tuple[str, list[str], list[str]]] = field(default_factory=list)  # slug, gold, got

    @property
    def micro(self) -> Counts:
        total = Counts()
        for c in self.per_topic.values():
            total.tp += c.tp
            total.fp += c.fp
            total.fn += c.fn
        return total


Devset = dict[str, dict[str, list[str]]]


def load_devset(path: Path) -> Devset:
    shown = str(path)
    data = load_yaml(read_text(path, shown), shown)
    if not isinstance(data, dict):
        raise CorpusError(shown, "expected a mapping of split name to {slug: [topics]}")
    out: Devset = {}
    for split, items in data.items():
        if not isinstance(items, dict):
            raise CorpusError(shown, "expected a mapping of slug to topics", entry=str(split))
        for slug, topics in items.items():
            if not isinstance(topics, list):
                raise CorpusError(shown, "expected a list of topics", entry=str(slug), field=str(split))
        out[str(split)] = {str(k): [str(t) for t in v] for k, v in items.items()}
    return out


def evaluate_devset(corpus: Corpus, devset: Devset) -> list[SplitResult]:
    results = []
    topic_ids = corpus.taxonomy.topic_ids
    for split in sorted(devset, key=lambda s: (s != "dev", s)):
        per_topic = {t: Counts() for t in topic_ids}
        result = SplitResult(split, len(devset[split]), per_topic)
        for slug, gold in sorted(devset[split].items()):
            paper = corpus.papers.get(slug)
            if paper is None:
                raise CorpusError(f"devset {split}", "not a paper of the corpus", entry=slug)
            got = suggest(corpus.taxonomy, paper.title, paper.abstract).topic_ids
            for t in topic_ids:
                if t in got and t in gold:
                    per_topic[t].tp += 1
                elif t in got:
                    per_topic[t].fp += 1
                elif t in gold:
                    per_topic[t].fn += 1
            if sorted(got) != sorted(gold):
                result.errors.append((slug, gold, got))
        results.append(result)
    return results


def format_report(results: list[SplitResult], show_errors: bool = False) -> str:
    lines = []
    for r in results:
        lines.append(f"{r.name}: {r.papers} papers")
        lines.append(f"  {'topic':<14}{'precision':>10}{'recall':>8}{'F1':>7}{'tp':>5}{'fp':>4}{'fn':>4}")
        for topic, c in r.per_topic.items():
            lines.append(f"  {topic:<14}{c.precision:>10.3f}{c.recall:>8.3f}{c.f1:>7.3f}"
                         f"{c.tp:>5}{c.fp:>4}{c.fn:>4}")
        m = r.micro
        lines.append(f"  {'micro':<14}{m.precision:>10.3f}{m.recall:>8.3f}{m.f1:>7.3f}"
                     f"{m.tp:>5}{m.fp:>4}{m.fn:>4}")
        if show_errors:
            for slug, gold, got in r.errors:
                lines.append(f"    {slug}: labelled {gold or '[]'}, rules say {got or '[]'}")
    return "\n".join(lines)
