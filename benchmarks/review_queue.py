"""What a curator's first decisions in `survey review` buy: the micro-F1 of the published topics
(a person's decision where one was made, the model's suggestion elsewhere) after correct
decisions on the first 0, 10, 20, 25, 30, 40 and 50% of the queue, in the order of
generator/classify/review.py (review_order), for each source of labels apart, on the held-out
papers (never trained or tuned on) with the shipped model; a random order beside it.

    python benchmarks/review_queue.py [--texts ../shared/real] [--gate]

--gate: the queue holds only the papers `survey import --on-topic` keeps (GATE); a paper it
leaves out is published with no topic and never reviewed. Without it, every held-out paper is
imported and waits for review.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from generator.classify.model import CHOOSE, GATE
from generator.classify.quality import Counts, Doc, load_labelled
from generator.classify.review import Pending, review_order
from generator.classify.suggest import suggest_all
from generator.cli.topics import LABELS, texts_reader
from generator.corpus.store import load_corpus

ROOT = Path(__file__).resolve().parent.parent
FRACTIONS = (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5)


def published_f1(docs: list[Doc], scores: dict[str, dict[str, float]], order: list[str],
                 reviewed: int, kept: set[str]) -> float:
    done = set(order[:reviewed])
    total = Counts()
    for d in docs:
        if d.key in done:
            got = set(d.gold)
        elif d.key in kept:
            got = {t for t, p in scores[d.key].items() if p >= CHOOSE}
        else:
            got = set()
        total.tp += len(got & set(d.gold))
        total.fp += len(got - set(d.gold))
        total.fn += len(set(d.gold) - got)
    return total.f1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", default=str(ROOT.parent / "shared" / "real"))
    parser.add_argument("--gate", action="store_true", help="queue only what --on-topic keeps")
    args = parser.parse_args()
    corpus = load_corpus(ROOT / "corpus")
    docs = [d for d in load_labelled(corpus, [ROOT / p for p in LABELS], texts_reader([Path(args.texts)]))
            if d.split == "heldout"]
    briefs = suggest_all(corpus.taxonomy, [(d.title, d.abstract) for d in docs])
    scores = {d.key: dict(b.scores) for d, b in zip(docs, briefs, strict=True)}
    for source in dict.fromkeys(d.source for d in docs):
        mine = [d for d in docs if d.source == source]
        kept = {d.key for d in mine if not args.gate or max(scores[d.key].values()) >= GATE}
        order = [p.slug for p in review_order(Pending(k, scores[k]) for k in sorted(kept))]
        shuffled = sorted(kept, key=lambda k: hashlib.sha256(f"review:{k}".encode()).hexdigest())
        for name, keys in (("review order", order), ("random order", shuffled)):
            figures = ", ".join(f"{f:.0%}: {published_f1(mine, scores, keys, round(f * len(keys)), kept):.3f}"
                                for f in FRACTIONS)
            print(f"{source} ({len(mine)} held-out papers, {len(kept)} in the queue), {name}: {figures}")


if __name__ == "__main__":
    main()
