"""Where a command writes a report or an export (`import --left-out`, `export -o`, `enrich
--report`): never into the corpus, whose files are written only through corpus/writes.py (all or
nothing, checked), and never over an input of the command (an import's feed, whose left-out
papers the report's commands take in). Any other file there is replaced, as by every writer of
`-o FILE`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from ..core.errors import SurveyError
from ..core.text import shown_path


def output_path(value: str, what: str, *, corpus: str, inputs: Sequence[str] = ()) -> Path:
    """The path to write `what` at, once it is known to overwrite nothing it should not."""
    path, shown = Path(value), shown_path(value)
    real, inside = os.path.realpath(path), os.path.realpath(corpus)
    if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
        raise SurveyError(f"{shown}: inside the corpus folder {shown_path(corpus)}: write {what} "
                          f"elsewhere")
    for given in inputs:
        if _same(given, path):  # an input was read: it exists, and samefile follows links
            raise SurveyError(f"{shown}: an input of this command: write {what} elsewhere")
    try:
        st = os.stat(path)
    except OSError:
        return path
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:  # `ln corpus/taxonomy.yaml out.csv`
        raise SurveyError(f"{shown}: a file with other names (hard links), which may be in the corpus: "
                          f"write {what} elsewhere")
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
