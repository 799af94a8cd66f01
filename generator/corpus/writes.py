"""What every command that writes the corpus goes through: validation, then one commit.

`write_files` reads each new text back exactly as `survey check` will (the same parser, the
same schema, and the corpus-wide rules: known topics and tags, no duplicate paper, listings
pointing at papers), refuses the whole write in one line if it would give check a problem the
corpus did not already have, and otherwise commits it all or nothing (`journal.commit`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..core.errors import CorpusError, SurveyError
from ..core.yamlio import load_yaml, too_big
from .check import duplicate_problems, listing_problems, rejected_problems, vocabulary_problems
from .journal import Untrusted, commit, read_plain
from .model import Listing, Paper
from .rejected import REJECTED_FILE, rejected_entries
from .store import Corpus, largest, shown_path
from .taxonomy import MODEL_FILE, Taxonomy, weights_from_data


def write_files(corpus: Corpus, files: Iterable[tuple[str, str | None]]) -> list[str]:
    """Validate, then write the (path relative to the corpus, text) pairs that change anything
    (a text of None removes the file: a rejected paper's); all of them or, killed or failing at
    any point, none. Returns the paths written or removed."""
    root = corpus.root
    changed = [(rel, text) for rel, text in dict(files).items() if not _same(root / rel, text)]
    if not changed:
        return []
    try:
        validate(corpus, changed)
    except CorpusError as exc:
        raise SurveyError(f"nothing written: {exc}") from None
    commit(root, changed)
    return [rel for rel, _ in changed]


def _same(path: Path, text: str | None) -> bool:
    """Whether path holds text (None: nothing), read as a recovery reads (no link followed, no
    FIFO opened): a file that is anything else is replaced."""
    if text is None:
        return not os.path.lexists(path)
    try:
        return read_plain(path) == text.encode("utf-8")
    except Untrusted:
        return False


def validate(corpus: Corpus, files: list[tuple[str, str | None]]) -> None:
    """Raise the first problem `survey check` would find once these files are written that it
    does not find now (a dry run's check, and every write's)."""
    trial = with_files(corpus, files)
    removed = {name[:-5] for rel, text in files if text is None
               for folder, _, name in [rel.rpartition("/")] if folder == "papers"}
    before = {str(p) for p in _problems(corpus)}
    new = [p for p in _problems(trial, removed) if str(p) not in before]
    if new:
        raise new[0]


_RECORDS: dict[str, type[Paper] | type[Listing]] = {"papers": Paper, "listings": Listing}


def with_files(corpus: Corpus, files: Iterable[tuple[str, str | None]]) -> Corpus:
    """The corpus as it is once these files are written (each read as `survey check` reads it;
    a CorpusError for one it would refuse); the corpus given is not changed."""
    papers, listings, taxonomy = dict(corpus.papers), dict(corpus.listings), corpus.taxonomy
    rejected = corpus.rejected
    for rel, text in files:
        shown = shown_path(corpus.root / rel)
        folder, _, name = rel.rpartition("/")
        if text is None:
            if folder not in ("papers", "listings") and rel != REJECTED_FILE:
                raise CorpusError(shown, "not a file a write may remove")
            (papers if folder == "papers" else listings).pop(name[:-5], None)
            rejected = [] if rel == REJECTED_FILE else rejected
            continue
        cls = _RECORDS.get(folder) if name.endswith(".yaml") else None
        if cls and len(text.encode("utf-8")) > largest(cls):
            raise too_big(shown, len(text.encode("utf-8")), largest(cls))
        data = load_yaml(text, shown)
        if cls:
            record = cls.from_dict(data, shown)
            if record.slug != name[:-5]:
                raise CorpusError(shown, f"slug {record.slug!r} does not match the file name",
                                  entry=record.slug, field="slug")
            if isinstance(record, Paper):
                papers[record.slug] = record
            else:
                listings[record.slug] = record
        elif rel == "taxonomy.yaml":
            taxonomy = Taxonomy.from_dict(data, shown)
        elif rel == MODEL_FILE:
            weights_from_data(data, shown, taxonomy)
        elif rel == REJECTED_FILE:
            rejected = rejected_entries(data, shown)
        else:
            raise CorpusError(shown, "not a file of the corpus")
    return Corpus(root=corpus.root, taxonomy=taxonomy, papers=papers, listings=listings, rejected=rejected)


def _problems(corpus: Corpus, removed: frozenset[str] | set[str] = frozenset()) -> list[CorpusError]:
    return [*vocabulary_problems(corpus), *duplicate_problems(corpus), *listing_problems(corpus, removed),
            *rejected_problems(corpus)]
