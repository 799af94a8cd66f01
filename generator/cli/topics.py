"""The `survey` subcommands about topics: explain, classify, quality and train."""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from ..core.errors import CorpusError, SurveyError
from ..core.tex import tex_text
from ..core.text import first_few


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
    print(f"{paper.slug}: {tex_text(paper.title)}")
    print(f"topics: {', '.join(paper.topics) or '(none)'}; tags: {', '.join(paper.tags) or '(none)'}"
          + (f"; curated: {', '.join(paper.curated)}" if paper.curated else ""))
    lines = explain_lines(suggestion, paper.topics, paper.tags)
    print("\n".join(lines) if lines else "no rule fired for any topic or tag")
    return 0


def cmd_classify(args: argparse.Namespace) -> int:
    from ..classify.derived import keep_written
    from ..classify.suggest import suggest_all
    from ..corpus.store import load_corpus, paper_text
    from ..corpus.writes import write_files

    corpus = load_corpus(args.corpus)
    changes, said = [], []  # said: a line a topics or tags suggestion that differs from the file
    changed = {"topics": 0, "tags": 0, "kept": 0}
    papers = corpus.sorted_papers()
    # On every core (one budget for the rules a worker): the refresh after `survey train` scores
    # every paper (10,606 papers: 45 s of CPU).
    briefs = suggest_all(corpus.taxonomy, [(p.title, p.abstract) for p in papers])
    for paper, s in zip(papers, briefs, strict=True):
        new: dict[str, list[str]] = {}
        for name, ids in (("topics", list(s.topic_ids)), ("tags", list(s.tag_ids))):
            if getattr(paper, name) != ids:
                marker = " (curated, kept)" if name in paper.curated else ""
                said.append(f"{paper.file}: {name}: {getattr(paper, name)} -> suggested {ids}{marker}")
                changed["kept" if marker else name] += 1
                if not marker:
                    new[name] = ids
        # A file changes only where a suggestion does: the model's confidence, which moves with
        # every retraining, is kept apart (classify/derived.py), never in the paper's file.
        if new and args.write:
            paper = copy.deepcopy(paper)  # the corpus stays as read: the write is checked against it
            for name, ids in new.items():
                setattr(paper, name, ids)
            changes.append((paper, paper_text(paper)))
    waiting = [(p.title, p.abstract, s) for p, s in zip(papers, briefs, strict=True) if not p.topics_reviewed]
    if not args.write:  # the comparison asked for: every difference
        keep_written(corpus, [], waiting)  # and the queue's scores for this model, computed anyway
        if said:
            print("\n".join(said))
        return 0
    written = write_files(corpus, [(paper.file, text) for paper, text in changes])
    keep_written(corpus, changes, waiting)
    # The changes first (ten of them, as import shows its notes), then the count of each kind.
    shown = [line for line in said if not line.endswith(" (curated, kept)")]
    for line in first_few(shown, lambda n: f"and {n:,} more like these, counted below"):
        print(line)
    kept = (f"; {changed['kept']:,} not taken where a person set the field (curated, kept)"
            if changed["kept"] else "")
    what = (f"suggested topics changed on {changed['topics']:,} papers, tags on {changed['tags']:,}"
            if written else "the suggestions of every paper are the model's already")
    print(f"survey classify: files written: {len(written):,} ({what}){kept}")
    return 0


def quality_args(p: argparse.ArgumentParser) -> None:
    labelled_args(p)
    p.add_argument("--folds", type=int, default=5, metavar="K")
    for flag, what in (
        ("--min-f1", "the held-out or cross-validated micro-F1 is below F"),
        ("--min-topic-f1", "a topic's held-out or cross-validated F1 is below F (a topic with fewer "
                           f"than {MIN_POSITIVES} held-out positives in a source is not scored)"),
        ("--min-scope", "the held-out in-scope precision or recall is below F"),
        ("--min-caught", "the review flags hold less than this share of the held-out errors"),
        ("--max-flagged", "more than this share of the held-out papers is flagged for review"),
    ):
        p.add_argument(flag, action="append", default=[], metavar="[SOURCE=]F",
                       help=f"exit 1 when {what}; for every source, or for the labels named SOURCE "
                            "(repeatable)")
    p.add_argument("--errors", action="store_true", help="list every held-out paper the model gets wrong")


MIN_POSITIVES = 10  # fewer held-out positives than this make a topic's F1 a coin toss


def _floor(values: list[str], source: str, flag: str) -> float | None:
    """The floor of `flag` for a source: its own `SOURCE=F`, else a bare `F`."""
    chosen = None
    for value in values:
        name, _, number = value.rpartition("=")
        try:
            f = float(number)
        except ValueError:
            raise SurveyError(f"{flag} {value!r}: expected F or SOURCE=F, F a number") from None
        if name == source or (not name and chosen is None):
            chosen = f
    return chosen


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
    if not corpus.taxonomy.weights():
        raise SurveyError(f"no topic model in {args.corpus}: run survey train first")
    pool = [d for d in docs if d.split != "heldout"]
    # One cross-validation over every source's tune papers (what `survey train` fits), scored for
    # each source apart below.
    cv_all = cross_validate(corpus.taxonomy, pool, args.folds)
    rules_only = dataclasses.replace(corpus.taxonomy, model_path=None, _weights={})
    sources = list(dict.fromkeys(d.source for d in docs))
    low: list[str] = []
    for source in sources:
        mine = [d for d in docs if d.source == source]
        heldout = [d for d in mine if d.split == "heldout"]
        tune = {d.key for d in mine if d.split != "heldout"}
        model = evaluate_docs(corpus.taxonomy, heldout,
                              f"{source}: held-out papers, never trained or tuned on")
        rules = evaluate_docs(rules_only, heldout,
                              f"{source}: the same papers, topic rules alone (for comparison)")
        cv = cv_all.subset(tune, f"{source}: {args.folds}-fold cross-validation on its {len(tune)} "
                                 f"tune papers (trained on all {len(pool)})")
        print(format_reports([model, rules, cv]))
        agreement = readers_agreement(corpus.taxonomy, mine)
        for report in agreement:
            report.name = f"{source}: {report.name}"
        print(format_reports(agreement, review=False))
        if args.errors:
            for d, got in model.errors:
                print(f"    {d.key}: labelled {list(d.gold) or '[]'}, model says {got or '[]'}: {d.title}")
        floors = Floors(micro=_floor(args.min_f1, source, "--min-f1"),
                        topic=_floor(args.min_topic_f1, source, "--min-topic-f1"),
                        scope=_floor(args.min_scope, source, "--min-scope"),
                        caught=_floor(args.min_caught, source, "--min-caught"),
                        flagged=_floor(args.max_flagged, source, "--max-flagged"))
        scored = {t for t in corpus.taxonomy.topic_ids
                  if sum(t in d.gold for d in heldout) >= MIN_POSITIVES}
        unscored = [t for t in corpus.taxonomy.topic_ids if t not in scored]
        if unscored:
            print(f"  {source}: {', '.join(unscored)}: fewer than {MIN_POSITIVES} held-out positives, "
                  "no topic floor")
        low += below_floors(floors, model, cv, scored)
    if low:
        raise SurveyError("below the quality floor: " + "; ".join(low))
    return 0


LABELS = ["tests/data/topic_labels.yaml", "tests/data/topic_labels_arxiv.yaml"]
DEFAULT_TEXTS = "../shared/real"


def labelled_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--labels", action="append", metavar="FILE",
                   help="a file of hand-labelled papers (repeatable; default: " + " and ".join(LABELS) + ")")
    p.add_argument("--texts", action="append", metavar="PATH",
                   help="where the labelled real papers' texts are: the file each labels file names as its "
                        f"source, or a folder holding it (repeatable; default: {DEFAULT_TEXTS})")


def _labelled(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ..classify.quality import load_labelled
    from ..corpus.store import load_corpus

    corpus = load_corpus(args.corpus)
    labels = [Path(p) for p in (args.labels or LABELS)]
    texts = texts_reader([Path(p) for p in (args.texts or [DEFAULT_TEXTS])])
    return corpus, load_labelled(corpus, labels, texts)


def texts_reader(paths: list[Path]):  # type: ignore[no-untyped-def]
    """The texts of a labels file's `source`: the file of that name among `paths` (files, or
    folders holding it), read as `survey import` reads it, so the model learns from the texts
    as the corpus will hold them."""
    from ..sources.readers import read_source

    def texts_of(source: str) -> dict[str, tuple[str, str]] | None:
        for path in paths:
            found = path / source if path.is_dir() else path if path.name == source else None
            if found is not None and found.is_file():
                return {e.arxiv: (e.title, e.abstract) for e in read_source(found).entries if e.arxiv}
        return None

    return texts_of


def train_args(p: argparse.ArgumentParser) -> None:
    labelled_args(p)
    p.add_argument("--no-labels", action="store_true",
                   help="learn from the corpus's own decisions alone, no labels file")


def cmd_train(args: argparse.Namespace) -> int:
    from ..classify.model import train
    from ..classify.quality import load_labelled
    from ..classify.training import decision_count, training_set
    from ..core.yamlio import dump_yaml
    from ..corpus.store import load_corpus
    from ..corpus.taxonomy import MODEL_FILE
    from ..corpus.writes import write_files

    if args.no_labels and args.labels:
        raise SurveyError("--no-labels and --labels: choose one")
    corpus = load_corpus(args.corpus)
    # The project's own labels files by default, where they and their texts are (a survey of
    # other topics, or a clone without ../shared/real, learns from its own decisions); a file
    # named with --labels must be read.
    given = [Path(p) for p in args.labels or []]
    paths = [] if args.no_labels else given or [Path(p) for p in LABELS if Path(p).is_file()]
    if not (args.no_labels or paths):  # say so: such a model may know far fewer papers than the last
        print(f"survey train: no labels file here ({', '.join(LABELS)}): the model learns from the "
              "corpus's own decisions alone (--labels FILE reads one)")
    skipped: list[str] | None = None if given else []
    texts = texts_reader([Path(p) for p in (args.texts or [DEFAULT_TEXTS])])
    docs = load_labelled(corpus, paths, texts, skipped)
    data = training_set(corpus, docs)
    examples = data.examples
    if not examples:
        raise SurveyError(f"nothing to learn from: no paper of {args.corpus} has reviewed topics "
                          "(`survey review`) and no labels file was read")
    # The model as written before: its weights stay where the new fit is within a step of them,
    # so that the file changes where the model does (classify/model.py, STEP). One that cannot be
    # read (not a model file, not a plain file) is what training replaces.
    try:
        previous = corpus.taxonomy.weights()
    except CorpusError as exc:
        print(f"survey train: {exc}: trained afresh")
        previous = {}
    weights = train(corpus.taxonomy, [(e.title, e.abstract) for e in examples], [e.topics for e in examples],
                    known=[e.known for e in examples], previous=previous)
    untrained = [t for t in corpus.taxonomy.topic_ids if t not in weights]
    learnt = _learnt_from(data, [p for p in paths if str(p) not in "".join(skipped or [])])
    import textwrap

    header = "".join(f"# {line}\n" for line in textwrap.wrap(
        "The topic model: a bias and weights a topic (generator/classify/model.py says how they are "
        f"used). Written by `survey train` from {learnt}; `decisions` counts the corpus's reviewed "
        "and rejected papers then, for `survey review` to tell when enough new ones have gathered "
        "to train again. A curator may edit a weight or delete a line; `survey explain SLUG` shows "
        "which weights decided a paper, `survey quality` what an edit costs.", 98))
    model = {"decisions": decision_count(corpus),
             "topics": {t: {"bias": w.bias, "weights": w.weights} for t, w in weights.items()}}
    written = write_files(corpus, [(MODEL_FILE, header + dump_yaml(model))])
    for line in skipped or []:
        print(f"survey train: left out {line}")
    if data.held_out:
        print(f"survey train: left out {data.held_out} reviewed paper(s) that a labels file holds out "
              "(never trained on, so that survey quality measures the model honestly)")
    if untrained:
        print(f"survey train: no model for {', '.join(untrained)}: no paper to learn from has it, or "
              "none lacks it (decide some in survey review, then train again)")
    print(f"survey train: {len(examples)} papers ({learnt}), "
          + ", ".join(f"{t} {len(w.weights)} weights" for t, w in weights.items())
          + f"; {'wrote' if written else 'unchanged'} {corpus.root / MODEL_FILE}"
          + ("; `survey classify --write` refreshes the suggestions of the papers nobody reviewed"
             if written else ""))
    return 0


def _learnt_from(data, paths: list[Path]) -> str:  # type: ignore[no-untyped-def]
    parts = [f"{data.count('corpus')} reviewed papers of the corpus"]
    if data.count("rejected"):
        parts.append(f"{data.count('rejected')} rejected papers")
    parts += [f"the {n} tune papers of {name}" for name, n in data.labelled.items()]
    if paths and not data.labelled:
        parts.append(f"the tune papers of {' and '.join(map(str, paths))}")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
