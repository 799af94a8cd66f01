"""What a decision does to corpus/topic_model.yaml and to the suggestions (issue 42): the lines of
the model file that one more decision changes, and how many decisions it takes before retraining
changes any paper's suggested topics. On the hand-labelled papers, with `survey train`'s own code.

- Lines a decision: the model trained on the training set less one paper (the file as it was),
  then on the whole set with that file as the previous model (the file after one more decision,
  as `survey train` writes it); the lines of `git diff` between the two (added + removed), for
  papers drawn at random from the training set.
- Decisions before a refresh changes something: the held-out papers of both labels files are the
  queue (papers nobody reviewed, never trained on); a curator decides the first k in review order
  (their labels), or k at random; the model is trained again with them, and of the papers still
  waiting, those whose suggested topics change are counted, and among them those that were wrong
  and are now right (fixed) and those that were right and are now wrong (broken): a refresh is
  worth its step once it fixes more than it breaks.

    python benchmarks/model_churn.py [--texts ../shared/real] [--trials 20] [--keep N] [--step S]
                                     [--min-docs N] [--lines-only]

The settings (KEEP, STEP, MIN_DOCS of generator/classify/model.py) may be changed for a run, to
compare: `--keep 3000 --step 0.0001 --min-docs 2 --afresh` is the model file before issue 42
(3,000 weights a topic, to four decimals, each train from nothing).
"""

from __future__ import annotations

import argparse
import difflib
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from generator.classify import model
from generator.classify.model import features, predict, train
from generator.classify.quality import Doc, load_labelled
from generator.classify.review import Pending, review_order
from generator.classify.training import Example, training_set
from generator.cli.topics import LABELS, texts_reader
from generator.core.yamlio import dump_yaml
from generator.corpus.store import load_corpus
from generator.corpus.taxonomy import Taxonomy, TopicWeights

ROOT = Path(__file__).resolve().parent.parent
Weights = dict[str, TopicWeights]
DECISIONS = (1, 2, 5, 10, 20, 30, 50)


def text(weights: Weights) -> list[str]:
    model = {"topics": {t: {"bias": w.bias, "weights": w.weights} for t, w in weights.items()}}
    return dump_yaml(model).splitlines()


def changed_lines(before: Weights, after: Weights) -> int:
    return sum(line[:1] in "+-" and not line.startswith(("+++", "---"))
               for line in difflib.unified_diff(text(before), text(after), lineterm="", n=0))


class Bench:
    def __init__(self, taxonomy: Taxonomy, examples: list[Example], queue: list[Doc]) -> None:
        self.taxonomy, self.examples, self.queue = taxonomy, examples, queue
        self.feats = {e.key: features(taxonomy, e.title, e.abstract) for e in examples}
        self.feats |= {d.key: features(taxonomy, d.title, d.abstract) for d in queue}

    def fit(self, examples: Sequence[Example], previous: Weights | None = None) -> Weights:
        return train(self.taxonomy, [], [e.topics for e in examples], [self.feats[e.key] for e in examples],
                     [e.known for e in examples], previous=previous)

    def suggested(self, weights: Weights, docs: Sequence[Doc]) -> dict[str, frozenset[str]]:
        return {d.key: frozenset(v.id for v in predict(self.taxonomy, weights, self.feats[d.key]) if v.chosen)
                for d in docs}


def decision(d: Doc) -> Example:
    return Example(d.key, d.title, d.abstract, d.gold, None, "corpus")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", default=str(ROOT.parent / "shared" / "real"))
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--keep", type=int, default=model.KEEP)
    parser.add_argument("--step", type=float, default=model.STEP)
    parser.add_argument("--min-docs", type=int, default=model.MIN_DOCS)
    parser.add_argument("--lines-only", action="store_true", help="the lines a decision only")
    parser.add_argument("--afresh", action="store_true", help="train without the model written before")
    args = parser.parse_args()
    model.KEEP, model.STEP, model.MIN_DOCS = args.keep, args.step, args.min_docs
    corpus = load_corpus(ROOT / "corpus")
    docs = load_labelled(corpus, [ROOT / p for p in LABELS], texts_reader([Path(args.texts)]))
    examples = training_set(corpus, docs).examples
    queue = sorted((d for d in docs if d.split == "heldout"), key=lambda d: d.key)
    started = time.monotonic()
    bench = Bench(corpus.taxonomy, examples, queue)
    rng = random.Random(42)
    whole = bench.fit(examples)
    print(f"KEEP {model.KEEP}, STEP {model.STEP}, MIN_DOCS {model.MIN_DOCS}: {len(text(whole)):,} lines, "
          f"{len(examples):,} papers trained on", flush=True)

    lines = []
    for i in rng.sample(range(len(examples)), args.trials):
        before = bench.fit(examples[:i] + examples[i + 1:])
        lines.append(changed_lines(before, bench.fit(examples, previous=None if args.afresh else before)))
    print(f"lines of the model file one decision changes, {args.trials} trials: {sorted(lines)} (median "
          f"{statistics.median(lines):g}, max {max(lines)})", flush=True)
    if args.lines_only:
        return

    now = bench.suggested(whole, queue)
    scores = {d.key: {v.id: v.confidence for v in predict(bench.taxonomy, whole, bench.feats[d.key])}
              for d in queue}
    ordered = [p.slug for p in review_order(Pending(d.key, scores[d.key]) for d in queue)]
    by_key = {d.key: d for d in queue}
    for k in DECISIONS:
        picks = [ordered[:k]] + [rng.sample(ordered, k) for _ in range(4)]
        moved, net, changed = [], [], []
        for keys in picks:
            after = bench.fit([*examples, *(decision(by_key[key]) for key in keys)], previous=whole)
            rest = [d for d in queue if d.key not in set(keys)]
            new = bench.suggested(after, rest)
            moved.append(sum(new[d.key] != now[d.key] for d in rest))
            fixed = sum(new[d.key] == set(d.gold) != now[d.key] for d in rest)
            broken = sum(now[d.key] == set(d.gold) != new[d.key] for d in rest)
            net.append(f"+{fixed}-{broken}")
            changed.append(changed_lines(whole, after))
        print(f"{k} decisions (the first in review order, then 4 at random): suggestions changed on "
              f"{moved} of {len(queue) - k} waiting papers (fixed, broken: {', '.join(net)}); model lines "
              f"changed {changed}", flush=True)
    print(f"[{time.monotonic() - started:.0f} s]")


if __name__ == "__main__":
    main()
