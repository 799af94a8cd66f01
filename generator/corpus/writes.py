"""What every command that writes the corpus goes through: validation, then one commit.

`write_files` reads each new text back exactly as `survey check` will (the same parser, the
same schema, and the corpus-wide rules: known topics and tags, no duplicate paper, listings
pointing at papers), refuses the whole write in one line if it would give check a problem the
corpus did not already have, and otherwise commits it all or nothing (`journal.commit`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..core.errors import CorpusError, SurveyError
from ..core.yamlio import load_yaml, too_big
from .check import duplicate_problems, listing_problems, vocabulary_problems
from .journal import commit
from .model import Listing, Paper
from .store import Corpus, largest, shown_path
from .taxonomy import MODEL_FILE, Taxonomy, weights_from_data


def write_files(corpus: Corpus, files: Iterable[tuple[str, str]]) -> list[str]:
    """Validate, then write the (path relative to the corpus, text) pairs that change anything;
    all of them or, killed or failing at any point, none. Returns the paths written."""
    root = corpus.root
    changed = [(rel, text) for rel, text in dict(files).items() if not _same(root / rel, text)]
    if not changed:
        return []
    try:
        _validate(corpus, changed)
    except CorpusError as exc:
        raise SurveyError(f"nothing written: {exc}") from None
    commit(root, changed)
    return [rel for rel, _ in changed]


def _same(path: Path, text: str) -> bool:
    try:
        return not path.is_symlink() and path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False


def _validate(corpus: Corpus, files: list[tuple[str, str]]) -> None:
    papers, listings, taxonomy = dict(corpus.papers), dict(corpus.listings), corpus.taxonomy
    for rel, text in files:
        shown = shown_path(corpus.root / rel)
        folder, _, name = rel.rpartition("/")
        data = load_yaml(text, shown)
        if folder in ("papers", "listings") and name.endswith(".yaml"):
            cls = Paper if folder == "papers" else Listing
            if len(text.encode("utf-8")) > largest(cls):
                raise too_big(shown, len(text.encode("utf-8")), largest(cls))
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
        else:
            raise CorpusError(shown, "not a file of the corpus")
    trial = Corpus(root=corpus.root, taxonomy=taxonomy, papers=papers, listings=listings)
    before = {str(p) for p in _problems(corpus)}
    new = [p for p in _problems(trial) if str(p) not in before]
    if new:
        raise new[0]


def _problems(corpus: Corpus) -> list[CorpusError]:
    return vocabulary_problems(corpus) + duplicate_problems(corpus) + listing_problems(corpus)
