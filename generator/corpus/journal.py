"""All-or-nothing writes to the corpus folder, and what is left of one that was interrupted.

A write never changes corpus files one by one while it is still working out what to write. It
goes in four steps, inside the corpus folder (so every rename stays on one file system and is
atomic):

1. Lock: `.survey-lock` (`lock.py`), held by the writing command from before it reads the
   corpus until it has written.
2. Stage: each new or changed file's bytes go to `.survey-write/files/PATH`; nothing outside
   `.survey-write/` changes.
3. Commit: `.survey-write/manifest.json` (every staged path with the SHA-256 of its bytes, and
   a seal, below) is written as `manifest.part` and renamed to `manifest.json`. That rename is
   the one step that decides: before it the write never happened, after it it must finish.
4. Apply: each staged file is renamed over its target (each rename atomic); then the emptied
   `files/`, the manifest and the folder are removed, in that order, so that a folder without a
   manifest that still holds a staged file was never committed.

Stopped anywhere (SIGKILL, a crash, a full disk), the next writer or `survey check` finds
`.survey-write/`: without a manifest it is removed (the corpus is as before), with one the
remaining renames are made (the corpus is as after). Readers never read `.survey-*`, and refuse
in one line a corpus whose committed write is not fully applied. Kill-safe, not power-loss-safe:
staged files are not fsynced one by one (4.8 s a thousand files against 0.23 s unsynced,
measured on this project's 2-core machine); a recovery checks every staged file's SHA-256
before it applies any, and refuses to apply a journal that does not match.

Only what this machine's survey staged is ever applied. A pull request can commit a
`.survey-write/` (git stores links; `git add -f` passes .gitignore), and replaying it would move
files from anywhere into the corpus, or over anything. So a `.survey-write/` or `.survey-lock`
that git tracks is refused (survey never commits one; `survey check` fails, and CI with it).
The manifest is sealed with an HMAC under a key this machine made at its first write, kept
outside every repository (`$XDG_STATE_HOME/survey/journal-key`, by default under
`~/.local/state/`): a manifest from a checkout, a copied folder or an archive carries no valid
seal, and a seal tells nothing of the key. (A secret beside the corpus would travel with it; an
inode number or a time can be guessed.) Even a sealed manifest names only the corpus's own
files, and no link on a path is followed; files are read only when plain and bounded in size (a
link to /dev/zero or a FIFO is never read). The lock file is trusted with nothing: its text is
only shown (escaped), and one that is not a plain file is refused. A staging folder without a
manifest is never applied, only removed, and removing follows no link.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import stat
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.text import shown_path
from ..core.yamlio import MAX_FILE_BYTES, NOFOLLOW
from .faults import step
from .lock import LOCK, CorpusLock, cannot_write, command_line, describe_holder, held

STAGING, MANIFEST, FILES = ".survey-write", "manifest.json", "files"
# What a write may change: the corpus's own files, one folder deep at most.
_CORPUS_FILE = re.compile(r"(?:papers|listings)/[^/.][^/]*\.yaml|taxonomy\.yaml|topic_model\.yaml")


class _Untrusted(SurveyError):
    """Why a `.survey-write/` is not one this machine's survey left."""


@contextmanager
def writing(root: Path, wait: float | None = None) -> Iterator[list[str]]:
    """Hold the corpus's writer lock; first finish or discard what an interrupted writer left,
    and yield what was done, to be said."""
    refuse_committed(root)
    with CorpusLock(root, wait) as lock:
        note = _recover(root) if lock.fresh else None
        yield [note] if note else []


def tidy(root: Path) -> list[str]:
    """For `survey check`: refuse a writer's file that a commit brought, and finish or discard
    an interrupted write (after a live writer, whose staging is its own, has finished)."""
    if not os.path.lexists(root / STAGING):
        refuse_committed(root)
        return []
    with writing(root) as notes:
        return notes


def pending(root: Path) -> str | None:
    """For a reader, who holds the shared lock (no writer is at work): what is wrong if a
    committed write is not fully applied. The manifest is not read."""
    if os.path.lexists(root / STAGING / MANIFEST):
        return (f"{shown_path(root / STAGING)}: a write was interrupted half applied; "
                f"`survey check` finishes it")
    return None


def refuse_committed(root: Path) -> None:
    """Refuse a `.survey-write/` or `.survey-lock` that git tracks: survey never commits one."""
    names = [name for name in (STAGING, LOCK) if os.path.lexists(root / name)]
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
            raise SurveyError(f"{shown}: tracked by git, so not left by a survey command on this "
                              f"machine; nothing in it is applied: remove it (git rm -r {shown})")


# --- staging, commit, apply -------------------------------------------------------------------
def commit(root: Path, files: Sequence[tuple[str, str]]) -> None:
    """Write every (path relative to root, text) pair, all or none, under the lock."""
    if not held(root):
        with writing(root):
            commit(root, files)
        return
    for rel, _ in files:
        if not _CORPUS_FILE.fullmatch(rel):
            raise SurveyError(f"{rel!r}: not a file of the corpus")
    key = _key(make=True)
    staging = root / STAGING
    entries = []
    try:
        step()
        os.mkdir(staging)
        for rel, text in files:
            data = text.encode("utf-8")
            target = staging / FILES / rel
            step()
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_new(target, data)
            entries.append({"path": rel, "sha256": hashlib.sha256(data).hexdigest()})
        manifest: dict[str, Any] = {"command": command_line(), "pid": os.getpid(), "files": entries,
                                    "since": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        manifest["seal"] = _seal(key, manifest)
        step()
        _write_new(staging / "manifest.part", json.dumps(manifest, indent=0).encode("utf-8"))
        step()
        os.replace(staging / "manifest.part", staging / MANIFEST)  # the commit point
    except OSError as exc:
        _discard(staging)
        raise SurveyError(cannot_write(root, exc)) from None
    try:
        _apply(root, staging, [(e["path"], e["sha256"]) for e in entries])
    except OSError as exc:
        raise SurveyError(f"{shown_path(root)}: a write stopped half applied ({exc.strerror or exc}); "
                          f"`survey check` finishes it once the cause is fixed") from None


def _write_new(path: Path, data: bytes, mode: int = 0o666) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _apply(root: Path, staging: Path, entries: list[tuple[str, str]]) -> None:
    made: set[Path] = set()
    for rel, _ in entries:
        source, target = staging / FILES / rel, root / rel
        if not os.path.lexists(source):
            continue  # renamed by the run that was interrupted
        if target.parent not in made:
            if not _folder(target.parent):
                target.parent.mkdir()
            made.add(target.parent)
        step()
        os.replace(source, target)
    step()
    shutil.rmtree(staging / FILES, ignore_errors=True)  # folders only, by now
    step()
    os.unlink(staging / MANIFEST)
    step()
    os.rmdir(staging)


def _discard(staging: Path) -> None:
    step()
    shutil.rmtree(staging, ignore_errors=True)


# --- recovery ---------------------------------------------------------------------------------
def _recover(root: Path) -> str | None:
    """Finish or discard what an interrupted writer left in root; say what was done. The
    writer's lock must be held."""
    staging = root / STAGING
    if not os.path.lexists(staging):
        return None
    try:
        _folder(staging), _folder(staging / FILES)  # neither a link: _Untrusted
        data = _read(staging / MANIFEST)
        if data is None:
            staged = any(names for _, _, names in os.walk(staging / FILES))
            _discard(staging)
            return (f"removed {shown_path(staging)}, the leftover of an interrupted write: "
                    + ("none of it had been applied" if staged else "it held no file"))
        info = _unsealed(data)
        entries = [(e["path"], e["sha256"]) for e in info["files"]]
        for rel, digest in entries:
            if not any(_holds(base, rel, digest) for base in (staging / FILES, root)):
                raise SurveyError(f"{shown_path(staging)}: the interrupted write's copy of {rel} is "
                                  f"not what it wrote (a power cut?); nothing applied: compare the "
                                  f"corpus with git, then remove {shown_path(staging)}")
        _apply(root, staging, entries)
    except _Untrusted as exc:
        raise SurveyError(f"{shown_path(staging)}: not left by a survey command on this machine "
                          f"({exc}); nothing in it is applied: remove it") from None
    except OSError as exc:
        raise SurveyError(f"{shown_path(staging)}: cannot finish the interrupted write it holds "
                          f"({exc.strerror or exc})") from None
    return (f"finished the interrupted write of {describe_holder(info)}: {len(entries)} file(s) "
            f"from {shown_path(staging)}")


def _unsealed(data: bytes) -> dict[str, Any]:
    """The manifest's content, if this machine's survey sealed it."""
    key = _key()
    try:
        info = json.loads(data)
    except (ValueError, RecursionError):
        info = None
    seal = info.pop("seal", None) if isinstance(info, dict) else None
    if not key or not isinstance(seal, str) or not hmac.compare_digest(
            seal.encode(), _seal(key, info).encode()):
        raise _Untrusted("its manifest does not carry this machine's seal")
    files = info.get("files") if isinstance(info, dict) else None  # sealed: its shape is survey's
    if not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("sha256"), str)
            and _CORPUS_FILE.fullmatch(e["path"]) for e in files):
        raise _Untrusted("its manifest is not one survey writes")
    return info  # type: ignore[no-any-return]


def _holds(base: Path, rel: str, digest: str) -> bool:
    """Whether base/rel holds the bytes of that digest, with no link on the way."""
    folder = os.path.dirname(rel)
    if folder and not _folder(base / folder):
        return False
    data = _read(base / rel)
    return data is not None and hashlib.sha256(data).hexdigest() == digest


def _folder(path: Path) -> bool:
    """Whether there is a folder at path (False: nothing); _Untrusted if a link or a file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(mode):
        raise _Untrusted(f"{shown_path(path)} is a link or a file, not a folder")
    return True


def _read(path: Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """A plain file's bytes, None if there is nothing at path. A link is not followed, and
    nothing but a plain file is read (a FIFO never answers, /dev/zero never ends)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _Untrusted(f"{shown_path(path)} is a link" if os.path.islink(path) else
                         f"{shown_path(path)}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    if data is None or len(data) > limit:
        raise _Untrusted(f"{shown_path(path)} is not a plain file of at most {limit} bytes")
    return data


def _seal(key: bytes, manifest: dict[str, Any]) -> str:
    return hmac.new(key, json.dumps(manifest, sort_keys=True).encode("utf-8"), "sha256").hexdigest()


def _key(make: bool = False) -> bytes:
    """This machine's key for sealing manifests (see the module docstring), made on first use;
    empty where there is none."""
    folder = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "survey"
    path = folder / "journal-key"
    try:
        key = _read(path, 64)
        if key is None and make:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            part = folder / f"journal-key.{os.getpid()}"
            part.unlink(missing_ok=True)
            _write_new(part, secrets.token_hex(32).encode(), 0o600)
            with suppress(FileExistsError):  # another command made it first: its key it is
                os.link(part, path)
            part.unlink()
            key = _read(path, 64)
    except (OSError, _Untrusted) as exc:
        raise SurveyError(f"cannot keep survey's key in {shown_path(path)}: "
                          f"{getattr(exc, 'strerror', None) or exc}; nothing written") from None
    return key or b""
