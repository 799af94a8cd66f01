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
from ..corpus.taxonomy import Taxonomy
from .suggest import suggest


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


# Labelled real papers (tests/data/topic_labels.yaml), cross-validation and the held-out split.


@dataclass(frozen=True)
class Doc:
    key: str  # a seed slug or an arXiv id
    title: str
    abstract: str
    gold: tuple[str, ...]
    split: str  # "seed", "tune" or "heldout"


def load_labelled(corpus: Corpus, devset_path: Path, labels_path: Path, texts_path: Path) -> list[Doc]:
    """The seed papers of the devset (all of them: the rules were tuned on them) and the labelled
    real papers, whose texts come from the daily-papers file."""
    import gzip
    import json

    docs = [Doc(slug, corpus.papers[slug].title, corpus.papers[slug].abstract, tuple(topics), "seed")
            for split in sorted(load_devset(devset_path).values(), key=len)
            for slug, topics in sorted(split.items()) if slug in corpus.papers]
    shown = str(labels_path)
    data = load_yaml(read_text(labels_path, shown), shown)
    if not isinstance(data, dict) or not isinstance(data.get("papers"), list):
        raise CorpusError(shown, "expected a mapping with 'papers': a list of labelled papers")
    try:
        opener = gzip.open if texts_path.suffix == ".gz" else open
        with opener(texts_path, "rt", encoding="utf-8") as fh:
            items = json.load(fh)
    except (OSError, ValueError) as exc:
        raise CorpusError(str(texts_path), f"cannot read the daily-papers texts: {exc}") from None
    texts = {}
    for item in items:
        paper = item.get("paper", item) if isinstance(item, dict) else {}
        if isinstance(paper, dict) and "id" in paper:
            texts[str(paper["id"])] = (" ".join(str(paper.get("title", "")).split()),
                                       " ".join(str(paper.get("summary", "")).split()))
    for i, row in enumerate(data["papers"]):
        if not isinstance(row, dict) or row.get("split") not in ("tune", "heldout"):
            raise CorpusError(shown, "needs an id, topics and a split (tune or heldout)",
                              entry=f"papers[{i}]")
        key = str(row.get("id"))
        if key not in texts:
            raise CorpusError(shown, f"not in {texts_path.name}", entry=key, field="id")
        title, abstract = texts[key]
        docs.append(Doc(key, title, abstract, tuple(str(t) for t in row.get("topics") or []), row["split"]))
    return docs


@dataclass
class Report:
    name: str
    papers: int
    per_topic: dict[str, Counts]
    flagged: int = 0  # papers with an uncertain topic
    wrong: int = 0  # papers whose suggested topics differ from the labels
    wrong_flagged: int = 0
    errors: list[tuple[Doc, list[str]]] = field(default_factory=list)  # paper, suggested topics

    @property
    def micro(self) -> Counts:
        total = Counts()
        for c in self.per_topic.values():
            total.tp, total.fp, total.fn = total.tp + c.tp, total.fp + c.fp, total.fn + c.fn
        return total


def _score(report: Report, doc: Doc, got: list[str], uncertain: bool) -> None:
    gold = doc.gold
    for t, c in report.per_topic.items():
        c.tp += t in got and t in gold
        c.fp += t in got and t not in gold
        c.fn += t not in got and t in gold
    wrong = sorted(got) != sorted(gold)
    if wrong:
        report.errors.append((doc, got))
    report.papers += 1
    report.flagged += uncertain
    report.wrong += wrong
    report.wrong_flagged += wrong and uncertain


def cross_validate(taxonomy: Taxonomy, docs: list[Doc], folds: int = 5) -> Report:
    """k-fold cross-validation of `survey train` on docs: each fold is predicted by a model
    trained on the others. Folds are fixed by a hash of the key."""
    import hashlib

    from .model import features, predict, train

    report = Report(f"{folds}-fold cross-validation", 0, {t: Counts() for t in taxonomy.topic_ids})
    fold_of = {d.key: int(hashlib.sha256(d.key.encode()).hexdigest(), 16) % folds for d in docs}
    for k in range(folds):
        train_docs = [d for d in docs if fold_of[d.key] != k]
        weights = train(taxonomy, [(d.title, d.abstract) for d in train_docs], [d.gold for d in train_docs])
        for d in docs:
            if fold_of[d.key] == k:
                verdicts = predict(taxonomy, weights, features(taxonomy, d.title, d.abstract))
                chosen = [v.id for v in verdicts if v.chosen]
                _score(report, d, chosen, any(v.uncertain for v in verdicts))
    return report


def evaluate_docs(taxonomy: Taxonomy, docs: list[Doc], name: str) -> Report:
    """The shipped model (or the rules, with no model) on docs."""
    from .suggest import suggest_all

    report = Report(name, 0, {t: Counts() for t in taxonomy.topic_ids})
    briefs = suggest_all(taxonomy, [(d.title, d.abstract) for d in docs])
    for d, b in zip(docs, briefs, strict=True):
        _score(report, d, list(b.topic_ids), bool(b.uncertain))
    return report


def format_reports(reports: list[Report]) -> str:
    lines = []
    for r in reports:
        lines.append(f"{r.name}: {r.papers} papers")
        lines.append(f"  {'topic':<14}{'precision':>10}{'recall':>8}{'F1':>7}{'tp':>5}{'fp':>4}{'fn':>4}")
        for topic, c in [*r.per_topic.items(), ("micro", r.micro)]:
            lines.append(f"  {topic:<14}{c.precision:>10.3f}{c.recall:>8.3f}{c.f1:>7.3f}"
                         f"{c.tp:>5}{c.fp:>4}{c.fn:>4}")
        if r.flagged or r.wrong:
            share = r.flagged / r.papers if r.papers else 0.0
            caught = r.wrong_flagged / r.wrong if r.wrong else 1.0
            lines.append(f"  flagged for review: {r.flagged} of {r.papers} papers ({share:.1%}); "
                         f"they hold {r.wrong_flagged} of the {r.wrong} papers with a wrong topic "
                         f"({caught:.1%})")
    return "\n".join(lines)
