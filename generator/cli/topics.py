"""The `survey` subcommands about topics: explain, classify, quality and train."""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from ..core.errors import SurveyError


def cmd_explain(args: argparse.Namespace) -> int:
    from ..classify.suggest import explain_lines, suggest
    from ..corpus.store import load_corpus

    corpus = load_corpus(args.corpus)
    paper = corpus.papers.get(args.slug)
    if paper is None:
        import difflib

        close = difflib.get_close_matches(args.slug, sorted(corpus.papers), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise SurveyError(f"no paper with the slug {args.slug!r} in {args.corpus}{hint}")
    suggestion = suggest(corpus.taxonomy, paper.title, paper.abstract)
    print(f"{paper.slug}: {paper.title}")
    print(f"topics: {', '.join(paper.topics) or '(none)'}; tags: {', '.join(paper.tags) or '(none)'}"
          + (f"; curated: {', '.join(paper.curated)}" if paper.curated else ""))
    lines = explain_lines(suggestion, paper.topics, paper.tags)
    print("\n".join(lines) if lines else "no rule fired for any topic or tag")
    return 0


def cmd_classify(args: argparse.Namespace) -> int:
    from ..classify.suggest import suggest
    from ..corpus.store import load_corpus, paper_text
    from ..corpus.writes import write_files

    corpus = load_corpus(args.corpus)
    changes = []
    for paper in corpus.sorted_papers():
        s = suggest(corpus.taxonomy, paper.title, paper.abstract)
        new = {}
        for name, ids in (("topics", s.topic_ids), ("tags", s.tag_ids)):
            if getattr(paper, name) != ids:
                marker = " (curated, kept)" if name in paper.curated else ""
                print(f"{paper.file}: {name}: {getattr(paper, name)} -> suggested {ids}{marker}")
                if not marker:
                    new[name] = ids
        # The confidence of suggested topics follows the model: refreshed with them.
        stale = "topics" not in paper.curated and paper.confidence != s.confidence
        if (new or stale) and args.write:
            paper = copy.deepcopy(paper)  # the corpus stays as read: the write is checked against it
            for name, ids in new.items():
                setattr(paper, name, ids)
            if "topics" not in paper.curated:
                paper.confidence = s.confidence
            changes.append((paper.file, paper_text(paper)))
    if args.write:
        written = write_files(corpus, changes)
        print(f"survey classify: {len(written)} file(s) updated")
    return 0


def cmd_quality(args: argparse.Namespace) -> int:
    import dataclasses

    from ..classify.quality import (
        Floors,
        below_floors,
        cross_validate,
        evaluate_docs,
        format_reports,
        readers_agreement,
    )

    corpus, docs = _labelled(args)
    heldout = [d for d in docs if d.split == "heldout"]
    pool = [d for d in docs if d.split != "heldout"]
    if not corpus.taxonomy.weights():
        raise SurveyError(f"no topic model in {args.corpus}: run survey train first")
    model = evaluate_docs(corpus.taxonomy, heldout, "held-out papers, never trained or tuned on")
    rules = evaluate_docs(dataclasses.replace(corpus.taxonomy, model_path=None, _weights={}), heldout,
                          "the same papers, topic rules alone (for comparison)")
    cv = cross_validate(corpus.taxonomy, pool, args.folds)
    cv.name = f"{args.folds}-fold cross-validation on the {len(pool)} tune papers"
    print(format_reports([model, rules, cv]))
    print(format_reports(readers_agreement(corpus.taxonomy, docs), review=False))
    if args.errors:
        for d, got in model.errors:
            print(f"    {d.key}: labelled {list(d.gold) or '[]'}, model says {got or '[]'}: {d.title}")
    floors = Floors(micro=args.min_f1, topic=args.min_topic_f1, scope=args.min_scope,
                    caught=args.min_caught, flagged=args.max_flagged)
    low = below_floors(floors, model, cv)
    if low:
        raise SurveyError("below the quality floor: " + "; ".join(low))
    return 0


DEFAULT_TEXTS = "../shared/real/hf-daily-papers-2024-05-to-2026-08.json.gz"


def labelled_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--labels", default="tests/data/topic_labels.yaml", metavar="FILE",
                   help="hand-labelled papers")
    p.add_argument("--texts", default=DEFAULT_TEXTS, metavar="FILE",
                   help="the daily-papers JSON the labelled real papers' texts come from")


def _labelled(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ..classify.quality import load_labelled
    from ..corpus.store import load_corpus

    corpus = load_corpus(args.corpus)
    return corpus, load_labelled(corpus, Path(args.labels), Path(args.texts))


def cmd_train(args: argparse.Namespace) -> int:
    from ..classify.model import train
    from ..core.yamlio import dump_yaml
    from ..corpus.taxonomy import MODEL_FILE
    from ..corpus.writes import write_files

    corpus, docs = _labelled(args)
    pool = [d for d in docs if d.split != "heldout"]
    weights = train(corpus.taxonomy, [(d.title, d.abstract) for d in pool], [d.gold for d in pool])
    header = (
        "# The topic model: a bias and weights a topic (generator/classify/model.py says how they are\n"
        f"# used). Written by `survey train` from the {len(pool)} papers of the tune split of\n"
        f"# {args.labels}. A curator may edit a weight or delete a line;\n"
        "# `survey explain SLUG` shows which weights decided a paper, `survey quality` what an edit costs.\n"
    )
    data = {"topics": {t: {"bias": w.bias, "weights": w.weights} for t, w in weights.items()}}
    written = write_files(corpus, [(MODEL_FILE, header + dump_yaml(data))])
    print(f"survey train: {len(pool)} papers, "
          + ", ".join(f"{t} {len(w.weights)} weights" for t, w in weights.items())
          + f"; {'wrote' if written else 'unchanged'} {corpus.root / MODEL_FILE}")
    return 0
