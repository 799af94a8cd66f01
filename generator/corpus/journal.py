"""All-or-nothing writes to the corpus folder, one writer at a time.

A write never changes a corpus file in place of another one by one while it is still working
out what to write. It goes in four steps, inside the corpus folder (so every rename stays on
one file system and is atomic):

1. Lock: `.survey-lock`, held with `flock` by the writing command from before it reads the
   corpus until it has written, and holding who it is (pid, command, since).
2. Stage: each new or changed file's bytes go to `.survey-write/files/PATH`; nothing outside
   `.survey-write/` changes.
3. Commit: `.survey-write/manifest.json` (every staged path with the SHA-256 of its bytes) is
   written beside them as `manifest.part` and renamed to `manifest.json`. That rename is the
   one step that decides: before it the write never happened, after it the write must finish.
4. Apply: each staged file is renamed over its target (each rename atomic), then the manifest
   and the staging folder are removed and the lock released.

Killed anywhere (SIGKILL, power cut of the process, a full disk), the next writer or
`survey check` finds `.survey-write/`: without a manifest it is discarded (the corpus is as
before), with one the remaining renames are made (the corpus is as after). Readers never read
`.survey-*`; a reader that finds a committed manifest refuses the half-applied corpus in one
line (`pending`). Kill-safe, not power-loss-safe: staged files are not fsynced one by one (a
second per thousand files); a recovery checks every staged file's SHA-256 before it applies
any, and refuses to apply a journal that does not match.

A lock left by a process that died is no obstacle: `flock` locks belong to the open file, and
the kernel drops them when the last process holding it ends, however it ends. Forked children
(the classifying pool) close their copy at once (`os.register_at_fork`), so the lock lives
exactly as long as the command that took it.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.yamlio import NOFOLLOW

LOCK = ".survey-lock"
STAGING = ".survey-write"
MANIFEST = "manifest.json"
# How long a writer waits for another one before it gives up. A `survey add` on the real corpus
# of 9,403 papers holds the lock for 4.5-5.2 s of CPU (`/usr/bin/time survey add ...`, three
# runs), so a second and a third add started beside one get through, while a person who starts a second
# writer beside a long import hears why within seconds. SURVEY_LOCK_WAIT (seconds) sets another.
LOCK_WAIT = 15.0

try:
    import fcntl
except ImportError:  # Windows: no flock. The commands still write all or nothing, unlocked.
    fcntl = None  # type: ignore[assignment]


class LockedError(SurveyError):
    """Another writer holds the corpus."""


# --- fault injection, for tests/test_writes.py ------------------------------------------------
# SURVEY_FAULT=kill-after=N kills this process (SIGKILL) before its N+1th file operation of a
# write; SURVEY_FAULT=enospc-after=N makes that operation fail as a full disk would. Each
# operation below calls _step() first, so a test can stop a write at every point of it.
_ops = 0


def _step() -> None:
    global _ops
    fault = os.environ.get("SURVEY_FAULT")
    if not fault:
        return
    _ops += 1
    kind, _, after = fault.partition("-after=")
    if not after.isdigit() or _ops <= int(after):
        return
    if kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "enospc" and _ops == int(after) + 1:  # once: the disk is full for that one write
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# --- the lock ---------------------------------------------------------------------------------
_HELD: dict[str, CorpusLock] = {}


def _close_in_child() -> None:
    for lock in _HELD.values():
        if lock.fd is not None:
            os.close(lock.fd)  # the parent's copy keeps the lock
            lock.fd = None
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)


def command_line() -> str:
    """This command as a person typed it, short enough for one line of a message."""
    words = ["survey", *sys.argv[1:]] if sys.argv else ["survey"]
    text = shlex.join(words)
    return text if len(text) <= 80 else text[:79] + "…"


def _key(root: Path) -> str:
    return os.path.realpath(root)


def held(root: Path) -> bool:
    return _key(root) in _HELD


class CorpusLock:
    """The corpus's writer lock, reentrant within a process. On entry, it finishes or discards
    what an interrupted writer left (`notes` says what was done)."""

    def __init__(self, root: Path | str, wait: float | None = None) -> None:
        self.root = Path(root)
        self.path = self.root / LOCK
        self.wait = wait if wait is not None else _wait_from_environment()
        self.fd: int | None = None
        self.notes: list[str] = []
        self.previous: dict[str, Any] = {}  # what the last holder wrote, if it never released
        self._outer = False

    def __enter__(self) -> CorpusLock:
        if held(self.root):
            return self
        self._acquire()
        self._outer = True
        _HELD[_key(self.root)] = self
        try:
            note = recover(self.root, self.previous)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        if note:
            self.notes.append(note)
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._outer:
            return
        _HELD.pop(_key(self.root), None)
        self._outer = False
        if self.fd is None:
            return
        try:
            _step()
            os.unlink(self.path)  # before the unlock: a waiter that then locks the old file retries
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None

    def _acquire(self) -> None:
        if not self.root.is_dir():
            raise SurveyError(f"{self.root}: no corpus folder here (use --corpus DIR)")
        if fcntl is None:
            return
        deadline = time.monotonic() + self.wait
        while True:
            try:
                _step()
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW,
                             0o644)
            except OSError as exc:
                raise SurveyError(_cannot_write(self.root, exc)) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if time.monotonic() >= deadline:
                    raise LockedError(self._busy()) from None
                time.sleep(0.1)
                continue
            # The holder before us may have removed the file as it released it: lock the file
            # that is there now, or another writer could lock a new one beside ours.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path, follow_symlinks=False))
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            self.fd = fd
            break
        self.previous = _holder_of(os.read(fd, 4096))
        info = {"pid": os.getpid(), "command": command_line(),
                "since": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(info).encode(), 0)
        except OSError as exc:
            self.__exit__()
            raise SurveyError(_cannot_write(self.root, exc)) from None

    def _busy(self) -> str:
        try:
            holder = _holder_of(self.path.read_bytes())
        except OSError:
            holder = {}
        return (f"{_shown(self.root)} is being changed by another survey command: "
                f"{describe_holder(holder)}; waited {self.wait:g} s: run this again when it has "
                f"finished")


def _wait_from_environment() -> float:
    value = os.environ.get("SURVEY_LOCK_WAIT", "")
    if not value:
        return LOCK_WAIT
    try:
        return max(0.0, float(value))
    except ValueError:
        raise SurveyError(f"SURVEY_LOCK_WAIT: {value!r} is not a number of seconds") from None


def _holder_of(data: bytes) -> dict[str, Any]:
    try:
        holder = json.loads(data.decode("utf-8"))
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}


def describe_holder(holder: dict[str, Any]) -> str:
    """`pid 12 (`survey import x.json`, since 2025-01-02T10:00:00Z)`, or what is known of it;
    "no longer running" when a child it forked holds the lock, or it left the file behind."""
    pid = holder.get("pid")
    if not isinstance(pid, int):
        return "a process that has not said who it is yet"
    said = [f"`{holder['command']}`"] if isinstance(holder.get("command"), str) else []
    if isinstance(holder.get("since"), str):
        said.append(f"since {holder['since']}")
    return f"pid {pid} ({', '.join(said)}{'' if _alive(pid) else '; no longer running'})"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _cannot_write(root: Path, exc: OSError, where: Path | None = None) -> str:
    return (f"cannot write to {_shown(where or root)}: {exc.strerror or exc}; nothing in "
            f"{_shown(root)} changed")


# --- staging, commit, apply -------------------------------------------------------------------
def commit(root: Path, files: Sequence[tuple[str, str]]) -> None:
    """Write every (path relative to root, text) pair, all or none, under the lock."""
    if not held(root):
        with CorpusLock(root):
            commit(root, files)
        return
    staging = root / STAGING
    entries = []
    try:
        _step()
        os.mkdir(staging)
        for rel, text in files:
            data = text.encode("utf-8")
            target = staging / "files" / _safe(rel)
            _step()
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_new(target, data)
            entries.append({"path": rel, "sha256": hashlib.sha256(data).hexdigest()})
        manifest = {"command": command_line(), "pid": os.getpid(),
                    "since": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "files": entries}
        _step()
        _write_new(staging / "manifest.part", json.dumps(manifest, indent=0).encode("utf-8"))
        _step()
        os.replace(staging / "manifest.part", staging / MANIFEST)  # the commit point
    except OSError as exc:
        _discard(staging)
        raise SurveyError(_cannot_write(root, exc)) from None
    try:
        _apply(root, staging, entries)
    except OSError as exc:
        raise SurveyError(f"{_shown(root)}: a write stopped half applied ({exc.strerror or exc}); "
                          f"`survey check` finishes it once the cause is fixed") from None


def _safe(rel: str) -> str:
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or any(p in ("..", ".") or p.startswith(".") for p in parts):
        raise SurveyError(f"{rel!r}: not a path inside the corpus")
    return rel


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _apply(root: Path, staging: Path, entries: list[dict[str, str]]) -> None:
    made: set[Path] = set()
    for entry in entries:
        source, target = staging / "files" / entry["path"], root / entry["path"]
        if not os.path.lexists(source):
            continue  # renamed by the run that was interrupted
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        _step()
        os.replace(source, target)
    _step()
    os.unlink(staging / MANIFEST)
    _discard(staging)


def _discard(staging: Path) -> None:
    _step()
    shutil.rmtree(staging, ignore_errors=True)


def _who(info: dict[str, Any], word: str = "of") -> str:
    return f" {word} {describe_holder(info)}" if info else ""


def recover(root: Path, previous: dict[str, Any] | None = None) -> str | None:
    """Finish or discard what an interrupted writer left in root; say what was done. The lock
    must be held (CorpusLock calls this on entry)."""
    staging = root / STAGING
    if not os.path.lexists(staging):
        return None
    if staging.is_symlink() or not staging.is_dir():
        raise SurveyError(f"{_shown(staging)}: not a folder survey made (a link or a file); "
                          f"remove it")
    manifest = staging / MANIFEST
    try:
        if not manifest.exists():
            _discard(staging)
            return (f"removed {_shown(staging)}, the leftover of an interrupted write"
                    f"{_who(previous or {})}: none of it had been applied")
        info = _holder_of(manifest.read_bytes())
        entries = _verified(root, staging, info)
        _apply(root, staging, entries)
    except OSError as exc:
        raise SurveyError(f"{_shown(staging)}: cannot finish the interrupted write it holds "
                          f"({exc.strerror or exc})") from None
    return (f"finished the interrupted write{_who(info)}: {len(entries)} file(s) from "
            f"{_shown(staging)}")


def _verified(root: Path, staging: Path, info: dict[str, Any]) -> list[dict[str, str]]:
    """The manifest's entries, once every one is staged or applied with the bytes it names."""
    entries = info.get("files")
    if not isinstance(entries, list):
        raise SurveyError(f"{_shown(staging / MANIFEST)}: not a manifest survey wrote; remove "
                          f"{_shown(staging)} and check the corpus with git")
    for entry in entries:
        rel = _safe(str(entry.get("path")))
        for path in (staging / "files" / rel, root / rel):
            if os.path.lexists(path) and hashlib.sha256(path.read_bytes()).hexdigest() == entry.get("sha256"):
                break
        else:
            raise SurveyError(f"{_shown(staging)}: the interrupted write's copy of {rel} is not "
                              f"what it wrote (a power cut?); nothing applied: compare the corpus "
                              f"with git, then remove {_shown(staging)}")
    return entries


def pending(root: Path) -> str | None:
    """For a reader: what is wrong if a committed write is not fully applied, else None."""
    manifest = root / STAGING / MANIFEST
    if not manifest.exists():
        return None
    try:
        info = _holder_of(manifest.read_bytes())
    except OSError:
        info = {}
    if _locked_by_other(root):
        return (f"{_shown(root)} is being written right now{_who(info, 'by')}: run this again when "
                f"it has finished")
    return (f"{_shown(root / STAGING)}: a write{_who(info)} was interrupted half applied; "
            f"`survey check` finishes it")


def _locked_by_other(root: Path) -> bool:
    if fcntl is None:
        return False
    try:
        fd = os.open(root / LOCK, os.O_RDONLY | NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def tidy(root: Path) -> list[str]:
    """For `survey check`: finish or discard an interrupted write and remove a dead writer's
    lock file, unless a live writer holds the corpus (then its staging is its own)."""
    if not (os.path.lexists(root / STAGING) or os.path.lexists(root / LOCK)):
        return []
    committed = (root / STAGING / MANIFEST).exists()
    try:
        lock = CorpusLock(root, wait=None if committed else 0)
        with lock:
            notes = list(lock.notes)
            if not notes and lock.previous:
                notes.append(f"removed {_shown(root / LOCK)}, left by {describe_holder(lock.previous)}")
    except LockedError:
        return []  # a live writer: what it stages is not (yet) part of the corpus
    except SurveyError as exc:  # a read-only corpus: nothing to tidy there; readers refuse a half write
        return [f"left {_shown(root / STAGING)} and {LOCK} as they are: {exc}"]
    return notes
