"""All-or-nothing writes to the corpus folder, and what is left of one that was interrupted.

A write never changes corpus files one by one while it is still working out what to write. It
goes in four steps, inside the corpus folder (every rename stays on one file system: atomic):

1. Lock: `.survey-lock` (`lock.py`), held by the writing command from before it reads the
   corpus until it has written.
2. Stage: each new or changed file's bytes go to `.survey-write/files/PATH`; nothing outside
   `.survey-write/` changes.
3. Commit: `.survey-write/manifest.json` (every staged path with the SHA-256 of its bytes) is
   written as `manifest.part` and renamed to `manifest.json`. That rename decides: before it
   the write never happened, after it it must finish.
4. Apply: each staged file is renamed over its target (each rename atomic), each file the write
   removes (a rejected paper's: `deleted` in the manifest) is unlinked; then the emptied
   `files/`, the manifest and the folder are removed, in that order, so that a folder without a
   manifest that still holds a staged file was never committed.

Stopped anywhere (SIGKILL, a crash, a full disk), the next writer or `survey check` finds
`.survey-write/`: without a manifest it is removed (the corpus is as before); with one the
remaining renames are made (the corpus is as after), whoever runs it, on whatever machine.

What such a leftover can do is bounded by its shape, not by who left it. A `.survey-write/` or
`.survey-lock` that git tracks is refused: survey never commits one, a pull request can (git
stores links, and `git add -f` passes .gitignore), and `survey check`, so CI, fails on it, which
shows the hidden change in review. Otherwise a manifest names only the corpus's own files
(CORPUS_FILE), no link on any path is followed, only plain files of bounded size are read (a
link to /dev/zero or a FIFO never is), and every staged copy still there must hold its SHA-256,
or nothing is applied. So a manifest survey did not write can only put the bytes it carries in
the corpus's own files, as the same checkout or archive could by carrying those files. The lock
file is trusted with nothing (its text is only shown, escaped). Readers never read `.survey-*`,
and refuse in one line a corpus whose committed write is not fully applied, saying what
`survey check` will do with it.

Kill-safe, not power-loss-safe: staged files are not fsynced one by one (4.8 s a thousand files
against 0.23 s unsynced, measured on this project's 2-core machine); a torn staged copy fails
its hash and stops the recovery before it applies anything more.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.text import shown_path
from ..core.yamlio import MAX_FILE_BYTES, NOFOLLOW, NotPlain, plain_bytes
from .faults import step
from .lock import LOCK, CorpusLock, cannot_write, command_line, describe_holder, held

STAGING, MANIFEST, FILES = ".survey-write", "manifest.json", "files"
CACHE = ".survey-cache.json"  # what is derived from the corpus and the model (corpus/derived.py)
# What a write may change: the corpus's own files, one folder deep at most.
CORPUS_FILE = re.compile(r"(?:papers|listings)/[^/.][^/]*\.yaml|taxonomy\.yaml|topic_model\.yaml|"
                         r"rejected\.yaml")


class Untrusted(SurveyError):
    """Why what is at a path of a `.survey-write/` is not what survey leaves there."""


@contextmanager
def writing(root: Path, wait: float | None = None) -> Iterator[list[str]]:
    """Hold the corpus's writer lock; first finish or discard what an interrupted writer left,
    and yield what was done, to be said."""
    refuse_committed(root, (STAGING, LOCK, CACHE))
    with CorpusLock(root, wait) as lock:
        note = _recover(root) if lock.fresh else None
        yield [note] if note else []


def tidy(root: Path) -> list[str]:
    """For `survey check`: refuse a writer's file that a commit brought, and finish or discard
    an interrupted write (once a live writer, whose staging it is, has finished)."""
    if not os.path.lexists(root / STAGING):
        refuse_committed(root, (STAGING, LOCK, CACHE))
        return []
    with writing(root) as notes:
        return notes


def pending(root: Path) -> str | None:
    """For a reader, who holds the shared lock (no writer is at work): what is wrong if a
    committed write is not fully applied, and what `survey check` will do about it."""
    staging = root / STAGING
    if not os.path.lexists(staging / MANIFEST):
        return None
    try:
        refuse_committed(root, (STAGING,))
        _verified(root)
    except SurveyError as exc:
        return str(exc)
    return f"{shown_path(staging)}: a write was interrupted half applied; `survey check` finishes it"


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
    staging, entries, made = root / STAGING, [], False
    # Whoever may write the corpus may finish this write: its files take the corpus folder's
    # permissions, not this process's umask.
    mode = stat.S_IMODE(os.stat(root).st_mode)
    deleted = [rel for rel, text in files if text is None]
    try:
        step("staging folder")
        os.mkdir(staging)
        made = True  # from here on, a failure removes what this call made, and nothing else
        os.chmod(staging, mode)
        for rel, text in files:
            if text is None:
                continue
            data = text.encode("utf-8")
            target = staging / FILES / rel
            step("stage")
            for folder in (staging / FILES, target.parent):
                if not os.path.isdir(folder):
                    os.mkdir(folder)
                    os.chmod(folder, mode)
            _write_new(target, data, mode)
            entries.append({"path": rel, "sha256": hashlib.sha256(data).hexdigest()})
        manifest = {"command": command_line(), "pid": os.getpid(), "files": entries, "deleted": deleted,
                    "since": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        step("manifest.part")
        _write_new(staging / "manifest.part", json.dumps(manifest, indent=0).encode("utf-8"), mode)
        step("commit")
        os.replace(staging / "manifest.part", staging / MANIFEST)  # the commit point
    except OSError as exc:
        if made:
            step("roll back")
            shutil.rmtree(staging, ignore_errors=True)
        raise SurveyError(cannot_write(root, exc)) from None
    try:
        _apply(root, staging, [(e["path"], e["sha256"]) for e in entries], deleted)
    except OSError as exc:
        raise SurveyError(f"{shown_path(root)}: a write stopped half applied ({exc.strerror or exc}); "
                          f"`survey check` finishes it once the cause is fixed") from None


def _write_new(path: Path, data: bytes, mode: int) -> None:
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o666), "wb") as fh:
        os.fchmod(fh.fileno(), mode & 0o666)
        fh.write(data)


def _apply(root: Path, staging: Path, entries: list[tuple[str, str]], deleted: list[str]) -> None:
    made: set[Path] = set()
    for rel, _ in entries:
        source, target = staging / FILES / rel, root / rel
        if not os.path.lexists(source):
            continue  # renamed by the run that was interrupted
        if target.parent not in made:
            if not is_folder(target.parent):
                step("target folder")
                target.parent.mkdir()
            made.add(target.parent)
        step("apply")
        os.replace(source, target)
    for rel in deleted:
        target = root / rel
        if target.parent != root and not is_folder(target.parent):  # a link to a folder: Untrusted
            continue
        step("delete")
        with contextlib.suppress(FileNotFoundError):  # removed by the run that was interrupted
            os.unlink(target)  # a link itself is removed, never what it points at
    step("remove files/")
    shutil.rmtree(staging / FILES, ignore_errors=True)  # folders only, by now
    step("remove the manifest")
    os.unlink(staging / MANIFEST)
    step("remove the folder")
    os.rmdir(staging)


def _recover(root: Path) -> str | None:
    """Finish or discard what an interrupted writer left in root; say what was done. The
    writer's lock must be held."""
    staging = root / STAGING
    if not os.path.lexists(staging):
        return None
    if os.path.lexists(staging / MANIFEST):
        info, entries = _verified(root)
        try:
            _apply(root, staging, entries, info.get("deleted", []))
        except OSError as exc:
            raise SurveyError(f"{shown_path(staging)}: cannot finish the interrupted write it holds "
                              f"({exc.strerror or exc})") from None
        return (f"finished the interrupted write of {describe_holder(info)}: {len(entries)} file(s) "
                f"from {shown_path(staging)}")
    try:
        is_folder(staging), is_folder(staging / FILES)  # neither a link: rmtree removes no link's target
    except Untrusted as exc:
        raise SurveyError(f"{shown_path(staging)}: {exc}; nothing in it is applied: remove it") from None
    staged = any(names for _, _, names in os.walk(staging / FILES))
    step("discard")
    shutil.rmtree(staging)
    return (f"removed {shown_path(staging)}, the leftover of an interrupted write: "
            + ("none of it had been applied" if staged else "it held no file"))


def _verified(root: Path) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The committed write's manifest and its (path, SHA-256) entries, if every staged copy
    still there holds its hash and every other target does (it was renamed into place); else
    a SurveyError that says what to do, and whether the corpus is half applied."""
    staging = root / STAGING
    applied = None
    try:
        is_folder(staging), is_folder(staging / FILES)
        info = _manifest(read_plain(staging / MANIFEST))
        entries = [(e["path"], e["sha256"]) for e in info["files"]]
        applied = {rel for rel, _ in entries if not os.path.lexists(staging / FILES / rel)}
        for rel, digest in entries:
            if os.path.dirname(rel):
                is_folder(root / os.path.dirname(rel))  # a rename into a link would write out of the corpus
            if not holds(root if rel in applied else staging / FILES, rel, digest):
                where = "the corpus's" if rel in applied else "its staged"
                raise Untrusted(f"{where} copy of {rel} is not what the write wrote (a power cut, or "
                                f"a change by hand)")
    except Untrusted as exc:
        if applied:
            raise SurveyError(f"{shown_path(staging)}: {exc}; nothing more of it is applied, and "
                              f"{len(applied)} of its {len(entries)} files were: the corpus is half "
                              f"applied. Restore them from git or a backup (`git status` lists "
                              f"them), then remove {shown_path(staging)}") from None
        if applied is not None:
            raise SurveyError(f"{shown_path(staging)}: {exc}; none of it was applied: remove it") from None
        raise SurveyError(f"{shown_path(staging)}: {exc}; nothing in it is applied, and what it changed "
                          f"already, if anything, is unknown: compare the corpus with git (`git status`), "
                          f"restore what it changed, then remove it") from None
    return info, entries


def _manifest(data: bytes | None) -> dict[str, Any]:
    try:
        info = json.loads(data or b"")
    except (ValueError, RecursionError):
        info = None
    files = info.get("files") if isinstance(info, dict) else None
    if not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("sha256"), str)
            and CORPUS_FILE.fullmatch(e["path"]) for e in files) or not isinstance(
            deleted := info.get("deleted", []), list) or not all(
            isinstance(rel, str) and CORPUS_FILE.fullmatch(rel) for rel in deleted):
        raise Untrusted("its manifest is not one survey writes")
    return info  # type: ignore[no-any-return]


def refuse_committed(root: Path, names: Sequence[str]) -> None:
    """Refuse any of these files of the writer's that git tracks."""
    names = [name for name in names if os.path.lexists(root / name)]
    if not names:
        return
    try:
        found = subprocess.run(["git", "ls-files", "-z", "--", *names], cwd=root, capture_output=True,
                               timeout=60)
    except (OSError, subprocess.SubprocessError):
        return  # no git here, so no commit brought it
    tracked = {p.split("/")[0] for p in found.stdout.decode("utf-8", "replace").split("\0")}
    for name in names:
        if found.returncode == 0 and name in tracked:
            shown = shown_path(root / name)
            raise SurveyError(f"{shown}: tracked by git, so not left by an interrupted survey command; "
                              f"nothing in it is applied: remove it (git rm -r {shown})")


def holds(base: Path, rel: str, digest: str) -> bool:
    """Whether base/rel holds the bytes of that digest, with no link on the way."""
    folder = os.path.dirname(rel)
    if folder and not is_folder(base / folder):
        return False
    data = read_plain(base / rel)
    return data is not None and hashlib.sha256(data).hexdigest() == digest


def is_folder(path: Path) -> bool:
    """Whether there is a folder at path (False: nothing); Untrusted if a link or a file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(mode):
        raise Untrusted(f"{shown_path(path)} is a link or a file, not a folder")
    return True


def read_plain(path: Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """A plain file's bytes, None if there is nothing at path. A link is not followed, and
    nothing but a plain file is read (a FIFO never answers, /dev/zero never ends)."""
    try:
        data: bytes | None = plain_bytes(path, limit)
    except FileNotFoundError:
        return None
    except NotPlain:
        data = None
    except OSError as exc:
        raise Untrusted(f"{shown_path(path)} is a link" if os.path.islink(path) else
                        f"{shown_path(path)}: {exc.strerror}") from None
    if data is None or len(data) > limit:
        raise Untrusted(f"{shown_path(path)} is not a plain file of at most {limit} bytes")
    return data
