"""The topic model's numbers for each paper: its confidence in every topic, computed once for a
model and a paper's title and abstract, and kept in the derived cache (corpus/derived.py), from
which the review queue (its order, `--list`, `--topic`), the build and the exports read them.

Scoring costs 1.4 ms of CPU a paper, read (14 s at 10,000), so it is done once for each model: by
`survey classify --write` and `survey import` (which score every paper they look at anyway) and,
for what they have not scored (a fresh clone, a model trained since), by the first command that
needs it, on every core.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ..core.errors import SurveyError
from ..core.text import digest, shown_path
from ..core.yamlio import read_text
from ..corpus.derived import Derived, Glance, glance_papers, text_digest
from ..corpus.lock import CorpusLock
from ..corpus.model import Paper
from ..corpus.store import Corpus, read_record
from ..corpus.taxonomy import MODEL_FILE, Taxonomy
from .suggest import Brief

# What a score is computed by: a change to any of these files may change every score, and so
# the key of every score kept.
CODE = ("model.py", "rules.py", "prefilter.py", "suggest.py")
Scores = dict[str, float]  # topic -> confidence
Progress = Callable[[int, int], None]


@functools.cache
def _code() -> str:
    folder = Path(__file__).parent
    return digest("".join((folder / name).read_text(encoding="utf-8") for name in CODE))


def model_key(taxonomy_digest: str, model_digest: str) -> str:
    return digest(f"{_code()} {taxonomy_digest} {model_digest}")


def key_of(taxonomy: Taxonomy) -> str:
    """The key of what this taxonomy and its model compute."""
    taxonomy.weights()
    return model_key(taxonomy.digest, taxonomy.model_digest)


def key_on_disk(root: Path) -> tuple[str, bool]:
    """The key of the taxonomy and model in root now, read without parsing either (the queue's
    start), and whether there is a model (without one no paper has a confidence)."""
    texts = []
    with CorpusLock(root, shared=True):
        for name in ("taxonomy.yaml", MODEL_FILE):
            path = root / name
            texts.append(read_text(path, name) if path.exists() else None)
    return model_key(*(digest(t) if t is not None else "" for t in texts)), texts[1] is not None


def kept(brief_scores: Iterable[tuple[str, float]]) -> Scores:
    """A paper's scores as the cache keeps them: four decimals (what any reader shows has two,
    the queue's order three), so that a score computed now and one read back give the same."""
    return {t: round(c, 4) for t, c in brief_scores}


def scored(derived: Derived, taxonomy: Taxonomy, texts: Sequence[tuple[str, str]],
           progress: Progress | None = None, workers: int | None = None) -> list[Scores]:
    """The scores of each (title, abstract), from the cache or computed (on every core, or on
    `workers`) and kept; {} for each without a topic model."""
    from .suggest import scores_all

    if not taxonomy.weights():
        return [{} for _ in texts]
    table = derived.scores_of(key_of(taxonomy), taxonomy)
    keys = [text_digest(t, a) for t, a in texts]
    todo = list({k: text for k, text in zip(keys, texts, strict=True) if k not in table}.items())
    if todo:
        if progress:  # tens of seconds at thousands of papers: a terminal says what it waits for
            progress(0, len(todo))
        found = scores_all(taxonomy, [text for _, text in todo], workers)
        for (key, _), scores in zip(todo, found, strict=True):
            table[key] = kept(scores)
        derived.added = True
        if progress:
            progress(len(todo), len(todo))
    return [table[k] for k in keys]


def keep_briefs(derived: Derived, taxonomy: Taxonomy, briefs: Iterable[tuple[str, str, Brief]]) -> None:
    """Keep the scores of suggestions a command made anyway ((title, abstract, brief) triples)."""
    if not taxonomy.weights():
        return
    table = derived.scores_of(key_of(taxonomy), taxonomy)
    for title, abstract, brief in briefs:
        table[text_digest(title, abstract)] = kept(brief.scores)
        derived.added = True


def for_queue(root: Path, taxonomy: Callable[[], Taxonomy], progress: Progress | None = None
              ) -> tuple[list[Glance], dict[str, Scores], list[tuple[str, str]]]:
    """What `survey review` starts from: every paper's glance, the scores of those waiting (by
    slug), and the topics, (id, name). From the cache, which holds them all once a command has
    seen the corpus with this model: then neither the taxonomy nor the model is parsed and no
    paper is scored (`taxonomy` is called only for what the cache lacks)."""
    derived = Derived.load(root)
    glances = glance_papers(root, derived)
    key, has_model = key_on_disk(root)
    if key != derived.model or not derived.topics:  # another taxonomy or model than the cache's
        derived.scores_of(key_of(taxonomy()), taxonomy())
    waiting = [g for g in glances if not g.reviewed]
    missing = [g for g in waiting if g.text not in derived.scores] if has_model else []
    if missing:
        with CorpusLock(root, shared=True):
            texts = [derived.read.get(g.slug) or _text(root / "papers" / f"{g.slug}.yaml") for g in missing]
        scored(derived, taxonomy(), texts, progress)
    scores = {g.slug: derived.scores.get(g.text, {}) for g in waiting}
    derived.save(live_files=derived.seen, live_texts={g.text for g in waiting})
    return glances, scores, derived.topics


def _text(path: Path) -> tuple[str, str]:
    paper: Paper = read_record(path, Paper, shown_path(path))
    return paper.title, paper.abstract


def keep_written(corpus: Corpus, written: Iterable[tuple[Paper, str]],
                 briefs: Iterable[tuple[str, str, Brief]] = ()) -> None:
    """After a write: the glance of each (paper, its file's text) written, so that the queue need
    not read the file again, and the scores of the suggestions the command made ((title,
    abstract, brief) triples), so that none is computed again."""
    try:
        derived = Derived.load(corpus.root)
    except SurveyError:  # a cache that git tracks: `survey check` and the next reader say so
        return
    derived.remember(written)
    keep_briefs(derived, corpus.taxonomy, briefs)
    derived.save()


def attach(corpus: Corpus, workers: int | None = None) -> None:
    """Give each paper nobody reviewed the model's confidence in its topics, as pages and exports
    show it (two decimals); the papers a person reviewed show none. What the cache lacks is
    scored on every core, or on `workers` (1 under `mkdocs serve`, whose threads a fork would
    copy mid-work)."""
    waiting = [p for p in corpus.sorted_papers() if not p.topics_reviewed]
    for paper in corpus.papers.values():
        paper.confidence = {}
    if not waiting or not corpus.taxonomy.weights():
        return
    derived = Derived.load(corpus.root)
    found = scored(derived, corpus.taxonomy, [(p.title, p.abstract) for p in waiting], workers=workers)
    for paper, scores in zip(waiting, found, strict=True):
        paper.confidence = {t: round(scores[t], 2) for t in paper.topics if t in scores}
    derived.save(live_texts={text_digest(p.title, p.abstract) for p in waiting})
