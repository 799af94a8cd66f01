"""Where a command writes a report or an export (`import --left-out`, `export -o`, `enrich
--report`): never into the corpus, whose files are written only through corpus/writes.py (all or
nothing, checked), never over an input of the command (an import's feed, whose left-out papers
the report's commands take in), and over an existing file only if it is a report of the same
kind, known by its first bytes, unless --force.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from ..core.errors import SurveyError
from ..core.text import shown_path
from ..corpus.export import CSV_COLUMNS
from ..sources.scope import report_csv

# How each kind of file begins: its header line; a JSON export's first record, or nothing.
LEFT_OUT = (report_csv([], ""),)
EXPORT_CSV = (",".join(CSV_COLUMNS) + "\n",)
EXPORT_JSON = ('[\n  {\n    "slug": ', "[]\n")
ENRICH_REPORT = ("## Metadata found by `survey enrich`\n",)


def output_path(value: str, what: str, kind: Sequence[str], *, corpus: str, inputs: Sequence[str] = (),
                force: bool = False) -> Path:
    """The path to write `what` at, once it is known to overwrite nothing it should not."""
    path, shown = Path(value), shown_path(value)
    real, inside = os.path.realpath(path), os.path.realpath(corpus)
    if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
        raise SurveyError(f"{shown}: inside the corpus folder {shown_path(corpus)}: write {what} "
                          f"elsewhere")
    for given in inputs:
        if _same(given, path):  # an input was read: it exists, and samefile follows links
            raise SurveyError(f"{shown}: an input of this command: write {what} elsewhere")
    if force:
        return path
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO is not waited on, only refused
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise SurveyError(f"{shown}: cannot write {what} there: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        head = fh.read(256).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) else None
    if head is None or (head and not head.startswith(tuple(kind))):
        raise SurveyError(f"{shown}: exists and is not {what}: give another path, or --force to "
                          f"overwrite it")
    return path


def _same(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def write_output(path: Path, text: str, what: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SurveyError(f"{shown_path(path)}: cannot write {what}: {exc.strerror}") from None
