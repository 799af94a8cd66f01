"""The papers a person brought in by hand (`survey import --take`, `survey add`), which `survey
review` shows first: `.survey-first` in the corpus folder, a slug a line, oldest first.

A curator who takes a paper in has judged it worth a look; it should not wait behind hundreds of
papers the model is less sure of (it came 714th of 949). This is no corpus data, only the order
of this working copy's queue: git ignores the file, no reader of the corpus reads it, and one
a pull request commits can do no more than reorder a queue (a line that is not a waiting
paper's slug is passed over). It is read within bounds and written whole (a new file renamed
over it), by commands that hold the writer's lock.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from ..core.text import is_slug
from ..core.yamlio import NOFOLLOW, NotPlain, plain_bytes

FIRST = ".survey-first"
MAX_BYTES = 2**18  # some 3,500 slugs: more than anyone takes in by hand between two sittings


def firsts(root: Path) -> list[str]:
    """The slugs, in the order they were brought in; [] where there is no such file or it is
    not one this module wrote (a link, a folder, too long: passed over, never followed)."""
    try:
        data = plain_bytes(root / FIRST, MAX_BYTES)
    except (OSError, NotPlain):
        return []
    if len(data) > MAX_BYTES:
        return []
    lines = data.decode("utf-8", "replace").split("\n")
    return list(dict.fromkeys(line for line in lines if is_slug(line)))


def put_first(root: Path, slugs: Iterable[str]) -> None:
    """Show these papers first, after those already there."""
    _write(root, [*firsts(root), *slugs])


def done_with(root: Path, slugs: Iterable[str]) -> None:
    """These papers are decided (or rejected): no longer first."""
    gone = set(slugs)
    kept = firsts(root)
    if gone & set(kept):
        _write(root, [s for s in kept if s not in gone])


def _write(root: Path, slugs: list[str]) -> None:
    path, part = root / FIRST, root / f"{FIRST}.{os.getpid()}"
    slugs = list(dict.fromkeys(slugs))
    with contextlib.suppress(OSError):  # the order of a queue is not worth failing a write for
        if not slugs:
            path.unlink(missing_ok=True)
            return
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(f"{s}\n" for s in slugs))
        os.replace(part, path)
