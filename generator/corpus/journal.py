"""All-or-nothing writes to the corpus folder, and what is left of one that was interrupted.

A write never changes corpus files one by one while it is still working out what to write. It
goes in four steps, inside the corpus folder (every rename stays on one file system: atomic):

1. Lock: `.survey-lock` (`lock.py`), held by the writing command from before it reads the
   corpus until it has written.
2. Stage: each new or changed file's bytes go to `.survey-write/files/PATH`; nothing outside
   `.survey-write/` changes.
3. Commit: `.survey-write/manifest.json` (every staged path with the SHA-256 of its bytes,
   sealed: `provenance.py`) is written as `manifest.part` and renamed to `manifest.json`. That
   rename decides: before it the write never happened, after it it must finish.
4. Apply: each staged file is renamed over its target (each rename atomic), each file the write
   removes (a rejected paper's: `deleted` in the manifest) is unlinked; then the emptied
   `files/`, the manifest and the folder are removed, in that order, so that a folder without a
   manifest that still holds a staged file was never committed.

Stopped anywhere (SIGKILL, a crash, a full disk), the next writer or `survey check` finds
`.survey-write/`: without a manifest it is removed (the corpus is as before), with one the
remaining renames are made (the corpus is as after), if this machine's survey left it
(`provenance.py`). Readers never read `.survey-*`, and refuse in one line a corpus whose
committed write is not fully applied. Kill-safe, not power-loss-safe: staged files are not
fsynced one by one (4.8 s a thousand files against 0.23 s unsynced, measured on this project's
2-core machine); a recovery checks every staged file's SHA-256 before it applies any.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.text import shown_path
from ..core.yamlio import NOFOLLOW
from .faults import step
from .lock import LOCK, CorpusLock, cannot_write, command_line, describe_holder, held
from .provenance import (
    CORPUS_FILE,
    Untrusted,
    holds,
    is_folder,
    machine_key,
    read_plain,
    refuse_committed,
    seal,
    unsealed,
)

STAGING, MANIFEST, FILES = ".survey-write", "manifest.json", "files"


@contextmanager
def writing(root: Path, wait: float | None = None) -> Iterator[list[str]]:
    """Hold the corpus's writer lock; first finish or discard what an interrupted writer left,
    and yield what was done, to be said."""
    refuse_committed(root, (STAGING, LOCK))
    with CorpusLock(root, wait) as lock:
        note = _recover(root) if lock.fresh else None
        yield [note] if note else []


def tidy(root: Path) -> list[str]:
    """For `survey check`: refuse a writer's file that a commit brought, and finish or discard
    an interrupted write (once a live writer, whose staging it is, has finished)."""
    if not os.path.lexists(root / STAGING):
        refuse_committed(root, (STAGING, LOCK))
        return []
    with writing(root) as notes:
        return notes


def pending(root: Path) -> str | None:
    """For a reader, who holds the shared lock (no writer is at work): what is wrong if a
    committed write is not fully applied. The manifest is not read."""
    if not os.path.lexists(root / STAGING / MANIFEST):
        return None
    return f"{shown_path(root / STAGING)}: a write was interrupted half applied; `survey check` finishes it"


def commit(root: Path, files: Sequence[tuple[str, str | None]]) -> None:
    """Write every (path relative to root, text) pair, all or none, under the lock; a text of
    None removes the file."""
    if not held(root):
        with writing(root):
            commit(root, files)
        return
    for rel, _ in files:
        if not CORPUS_FILE.fullmatch(rel):
            raise SurveyError(f"{rel!r}: not a file of the corpus")
    key, staging, entries = machine_key(), root / STAGING, []
    deleted = [rel for rel, text in files if text is None]
    try:
        step()
        os.mkdir(staging)
        for rel, text in files:
            if text is None:
                continue
            data = text.encode("utf-8")
            target = staging / FILES / rel
            step()
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_new(target, data)
            entries.append({"path": rel, "sha256": hashlib.sha256(data).hexdigest()})
        manifest: dict[str, Any] = {"command": command_line(), "pid": os.getpid(), "files": entries,
                                    "deleted": deleted,
                                    "since": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        manifest["seal"] = seal(manifest, key)
        step()
        _write_new(staging / "manifest.part", json.dumps(manifest, indent=0).encode("utf-8"))
        step()
        os.replace(staging / "manifest.part", staging / MANIFEST)  # the commit point
    except OSError as exc:
        step()
        shutil.rmtree(staging, ignore_errors=True)
        raise SurveyError(cannot_write(root, exc)) from None
    try:
        _apply(root, staging, [(e["path"], e["sha256"]) for e in entries], deleted)
    except OSError as exc:
        raise SurveyError(f"{shown_path(root)}: a write stopped half applied ({exc.strerror or exc}); "
                          f"`survey check` finishes it once the cause is fixed") from None


def _write_new(path: Path, data: bytes) -> None:
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o666), "wb") as fh:
        fh.write(data)


def _apply(root: Path, staging: Path, entries: list[tuple[str, str]], deleted: list[str]) -> None:
    made: set[Path] = set()
    for rel, _ in entries:
        source, target = staging / FILES / rel, root / rel
        if not os.path.lexists(source):
            continue  # renamed by the run that was interrupted
        if target.parent not in made:
            if not is_folder(target.parent):
                target.parent.mkdir()
            made.add(target.parent)
        step()
        os.replace(source, target)
    for rel in deleted:
        target = root / rel
        if target.parent != root and not is_folder(target.parent):  # a link to a folder: Untrusted
            continue
        step()
        with contextlib.suppress(FileNotFoundError):  # removed by the run that was interrupted
            os.unlink(target)  # a link itself is removed, never what it points at
    step()
    shutil.rmtree(staging / FILES, ignore_errors=True)  # folders only, by now
    step()
    os.unlink(staging / MANIFEST)
    step()
    os.rmdir(staging)


def _recover(root: Path) -> str | None:
    """Finish or discard what an interrupted writer left in root, if this machine's survey
    left it; say what was done. The writer's lock must be held."""
    staging = root / STAGING
    if not os.path.lexists(staging):
        return None
    try:
        is_folder(staging), is_folder(staging / FILES)  # neither a link: else Untrusted
        data = read_plain(staging / MANIFEST)
        if data is None:
            staged = any(names for _, _, names in os.walk(staging / FILES))
            step()
            shutil.rmtree(staging)
            return (f"removed {shown_path(staging)}, the leftover of an interrupted write: "
                    + ("none of it had been applied" if staged else "it held no file"))
        info = unsealed(data)
        entries = [(e["path"], e["sha256"]) for e in info["files"]]
        deleted = list(info.get("deleted", []))
        for rel, digest in entries:
            if not any(holds(base, rel, digest) for base in (staging / FILES, root)):
                raise SurveyError(f"{shown_path(staging)}: the interrupted write's copy of {rel} is "
                                  f"not what it wrote (a power cut?); nothing applied: compare the "
                                  f"corpus with git, then remove {shown_path(staging)}")
        _apply(root, staging, entries, deleted)
    except Untrusted as exc:
        raise SurveyError(f"{shown_path(staging)}: not left by a survey command on this machine "
                          f"({exc}); nothing in it is applied: remove it, then compare the corpus "
                          f"with git") from None
    except OSError as exc:
        raise SurveyError(f"{shown_path(staging)}: cannot finish the interrupted write it holds "
                          f"({exc.strerror or exc})") from None
    return (f"finished the interrupted write of {describe_holder(info)}: {len(entries)} file(s) "
            f"from {shown_path(staging)}")
