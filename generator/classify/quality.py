"""Measuring the topic suggestions against papers labelled by hand (tests/data/topic_labels.yaml).

Each labelled paper has the settled topics, the two readers' readings where they differed, and a
split: `tune` is what `survey train` fits and what tuning may look at, `heldout` is never used for
either. `survey quality` reports the model on the held-out papers, k-fold cross-validation on the
tune papers, the readers against each other and against the settled labels, the "has any topic"
(scope) precision and recall that an import's scope gate relies on, and the review flags.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import CorpusError
from ..core.yamlio import load_yaml, read_text
from ..corpus.store import Corpus
from ..corpus.taxonomy import Taxonomy


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


# Labelled papers (tests/data/topic_labels.yaml): the settled topics, the readers, the split.


@dataclass(frozen=True)
class Doc:
    key: str  # an arXiv id, or a seed paper's slug
    title: str
    abstract: str
    gold: tuple[str, ...]  # the settled topics
    split: str  # "tune" or "heldout"
    readers: tuple[tuple[str, ...], tuple[str, ...]]  # each reader's topics (both = gold where they agreed)
    source: str = ""  # the `name` of the labels file it comes from


# A labels file's `source` -> its papers' texts by arXiv id, or None where it cannot be found.
# The caller reads them as `survey import` reads the file (this layer does not know the readers).
TextsOf = Callable[[str], "dict[str, tuple[str, str]] | None"]


def load_labelled(corpus: Corpus, labels_paths: Sequence[Path], texts_of: TextsOf,
                  skipped: list[str] | None = None) -> list[Doc]:
    """The labelled papers of every labels file with their texts: real papers (`id`) from the
    file the labels name as their `source`, seed papers (`slug`) from the corpus. Each paper's
    `source` is its labels file's `name`, so that quality is reported for each source apart.
    With `skipped`, a labels file whose texts are not found is left out and named there (else
    it is an error)."""
    docs: list[Doc] = []
    for path in labels_paths:
        docs += _load_one(corpus, path, texts_of, skipped)
    return docs


def _load_one(corpus: Corpus, labels_path: Path, texts_of: TextsOf, skipped: list[str] | None) -> list[Doc]:
    shown = str(labels_path)
    data = load_yaml(read_text(labels_path, shown), shown)
    if not isinstance(data, dict) or not isinstance(data.get("papers"), list):
        raise CorpusError(shown, "expected a mapping with 'papers': a list of labelled papers")
    name = str(data.get("name") or labels_path.stem)
    texts: dict[str, tuple[str, str]] = {}
    source = str(data.get("source") or "")
    if any(isinstance(row, dict) and "id" in row for row in data["papers"]):
        found = texts_of(source) if source else None
        if found is None and skipped is not None:
            skipped.append(f"{shown} (the texts of its papers, {source or '(no source named)'}, "
                           "were not found)")
            return []
        if found is None:
            raise CorpusError(shown, f"the texts of its papers, {source or '(no source named)'}, "
                                     "were not found (--texts)", field="source")
        texts = found
    known = set(corpus.taxonomy.topic_ids)
    docs = []
    for i, row in enumerate(data["papers"]):
        entry = f"papers[{i}]"
        if not isinstance(row, dict) or row.get("split") not in ("tune", "heldout"):
            raise CorpusError(shown, "needs an id or slug, topics and a split (tune or heldout)", entry=entry)
        if "slug" in row:
            key = str(row["slug"])
            if key not in corpus.papers:
                raise CorpusError(shown, "not a paper of the corpus", entry=key, field="slug")
            title, abstract = corpus.papers[key].title, corpus.papers[key].abstract
        else:
            key = str(row.get("id"))
            if key not in texts:
                raise CorpusError(shown, f"not in {source}", entry=key, field="id")
            title, abstract = texts[key]
        gold = _topics(row.get("topics"), known, shown, key, "topics")
        readings = row.get("readers")
        if readings is None:
            readers = (gold, gold)
        elif isinstance(readings, list) and len(readings) == 2:
            readers = (_topics(readings[0], known, shown, key, "readers"),
                       _topics(readings[1], known, shown, key, "readers"))
        else:
            raise CorpusError(shown, "expected the two readers' lists of topics", entry=key, field="readers")
        docs.append(Doc(key, title, abstract, gold, row["split"], readers, name))
    return docs


def _topics(value: object, known: set[str], shown: str, key: str, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) and t in known for t in value):
        raise CorpusError(shown, f"expected a list of topic ids ({', '.join(sorted(known))})",
                          entry=key, field=name)
    return tuple(value)


@dataclass
class Report:
    name: str
    papers: int
    per_topic: dict[str, Counts]
    scope: Counts = field(default_factory=Counts)  # "has any topic", as the import's scope gate decides
    flagged: int = 0  # papers with an uncertain topic
    wrong: int = 0  # papers whose suggested topics differ from the labels
    wrong_flagged: int = 0
    # Every scored paper with what was suggested and whether it was flagged: the errors, and a
    # report cut into the papers of one source (subset).
    scored: list[tuple[Doc, tuple[str, ...], bool]] = field(default_factory=list)

    @property
    def errors(self) -> list[tuple[Doc, list[str]]]:
        """The papers whose suggested topics differ from the labels, with what was suggested."""
        return [(doc, list(got)) for doc, got, _ in self.scored if sorted(got) != sorted(doc.gold)]

    def subset(self, keys: set[str], name: str) -> Report:
        out = Report(name, 0, {t: Counts() for t in self.per_topic})
        for doc, got, uncertain in self.scored:
            if doc.key in keys:
                _score(out, doc.gold, got, uncertain, doc)
        return out

    @property
    def micro(self) -> Counts:
        total = Counts()
        for c in self.per_topic.values():
            total.tp, total.fp, total.fn = total.tp + c.tp, total.fp + c.fp, total.fn + c.fn
        return total

    @property
    def flagged_share(self) -> float:
        return self.flagged / self.papers if self.papers else 0.0

    @property
    def caught_share(self) -> float:
        """The share of the papers with a wrong topic that the review flags point at."""
        return self.wrong_flagged / self.wrong if self.wrong else 1.0


def _score(report: Report, gold: Sequence[str], got: Sequence[str], uncertain: bool = False,
           doc: Doc | None = None) -> None:
    for t, c in report.per_topic.items():
        c.tp += t in got and t in gold
        c.fp += t in got and t not in gold
        c.fn += t not in got and t in gold
    report.scope.tp += bool(got) and bool(gold)
    report.scope.fp += bool(got) and not gold
    report.scope.fn += not got and bool(gold)
    wrong = sorted(got) != sorted(gold)
    if doc is not None:
        report.scored.append((doc, tuple(got), uncertain))
    report.papers += 1
    report.flagged += uncertain
    report.wrong += wrong
    report.wrong_flagged += wrong and uncertain


def readers_agreement(taxonomy: Taxonomy, docs: list[Doc]) -> list[Report]:
    """The first reader against the second, and each reader against the settled topics."""
    pairs = (("reader 1 against reader 2", lambda d: d.readers[1], lambda d: d.readers[0]),
             ("reader 1 against the settled topics", lambda d: d.gold, lambda d: d.readers[0]),
             ("reader 2 against the settled topics", lambda d: d.gold, lambda d: d.readers[1]))
    reports = []
    for name, gold, got in pairs:
        report = Report(f"{name}, all {len(docs)} papers", 0, {t: Counts() for t in taxonomy.topic_ids})
        for d in docs:
            _score(report, gold(d), got(d))
        reports.append(report)
    return reports


def cross_validate(taxonomy: Taxonomy, docs: list[Doc], folds: int = 5) -> Report:
    """k-fold cross-validation of `survey train` on docs: each fold is predicted by a model
    trained on the others. Folds are fixed by a hash of the key."""
    import hashlib

    from .model import features, predict, train

    report = Report(f"{folds}-fold cross-validation", 0, {t: Counts() for t in taxonomy.topic_ids})
    fold_of = {d.key: int(hashlib.sha256(d.key.encode()).hexdigest(), 16) % folds for d in docs}
    feats = {d.key: features(taxonomy, d.title, d.abstract) for d in docs}  # once, not once a fold
    for k in range(folds):
        train_docs = [d for d in docs if fold_of[d.key] != k]
        weights = train(taxonomy, [(d.title, d.abstract) for d in train_docs], [d.gold for d in train_docs],
                        [feats[d.key] for d in train_docs])
        for d in docs:
            if fold_of[d.key] == k:
                verdicts = predict(taxonomy, weights, feats[d.key])
                chosen = [v.id for v in verdicts if v.chosen]
                _score(report, d.gold, chosen, any(v.uncertain for v in verdicts), d)
    return report


def evaluate_docs(taxonomy: Taxonomy, docs: list[Doc], name: str) -> Report:
    """The shipped model (or the rules, with no model) on docs."""
    from .suggest import suggest_all

    report = Report(name, 0, {t: Counts() for t in taxonomy.topic_ids})
    briefs = suggest_all(taxonomy, [(d.title, d.abstract) for d in docs])
    for d, b in zip(docs, briefs, strict=True):
        _score(report, d.gold, list(b.topic_ids), bool(b.uncertain), d)
    return report


def format_reports(reports: list[Report], review: bool = True) -> str:
    lines = []
    for r in reports:
        lines.append(f"{r.name}: {r.papers} papers")
        lines.append(f"  {'topic':<14}{'precision':>10}{'recall':>8}{'F1':>7}{'tp':>6}{'fp':>5}{'fn':>5}")
        for topic, c in [*r.per_topic.items(), ("micro", r.micro), ("in scope", r.scope)]:
            lines.append(f"  {topic:<14}{c.precision:>10.3f}{c.recall:>8.3f}{c.f1:>7.3f}"
                         f"{c.tp:>6}{c.fp:>5}{c.fn:>5}")
        if review:
            lines.append(f"  flagged for review: {r.flagged} of {r.papers} papers ({r.flagged_share:.1%}); "
                         f"they hold {r.wrong_flagged} of the {r.wrong} papers with a wrong topic "
                         f"({r.caught_share:.1%})")
    return "\n".join(lines)


@dataclass(frozen=True)
class Floors:
    """What `survey quality` fails below (CI sets them a little under today's figures)."""

    micro: float | None = None  # micro-F1, held out and cross-validated
    topic: float | None = None  # every topic's F1, held out and cross-validated
    scope: float | None = None  # "in scope" precision and recall, held out
    caught: float | None = None  # share of the wrong papers that the flags hold, held out
    flagged: float | None = None  # at most this share of papers flagged, held out


def below_floors(floors: Floors, heldout: Report, cv: Report, scored: set[str] | None = None) -> list[str]:
    """What is under a floor; a topic's own floor only for the topics `scored` (all by default)."""
    low = []
    for r in (heldout, cv):
        if floors.micro is not None and r.micro.f1 < floors.micro:
            low.append(f"{r.name}: micro-F1 {r.micro.f1:.3f} < {floors.micro}")
        if floors.topic is not None:
            low += [f"{r.name}: {t} F1 {c.f1:.3f} < {floors.topic}" for t, c in r.per_topic.items()
                    if c.f1 < floors.topic and (scored is None or t in scored)]
    if floors.scope is not None:
        low += [f"{heldout.name}: in-scope {what} {v:.3f} < {floors.scope}"
                for what, v in (("precision", heldout.scope.precision), ("recall", heldout.scope.recall))
                if v < floors.scope]
    if floors.caught is not None and heldout.caught_share < floors.caught:
        low.append(f"{heldout.name}: the flags hold {heldout.caught_share:.1%} of the wrong papers "
                   f"< {floors.caught:.0%}")
    if floors.flagged is not None and heldout.flagged_share > floors.flagged:
        low.append(f"{heldout.name}: {heldout.flagged_share:.1%} of the papers flagged "
                   f"> {floors.flagged:.0%}")
    return low
