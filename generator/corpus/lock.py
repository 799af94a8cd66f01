"""The corpus's writer lock: one command at a time writes the corpus.

`corpus/.survey-lock` is held with `flock` by a writing command from before it reads the
corpus until it has written, and holds who it is (pid, command, since) for the message of a
writer that waits for it in vain. A lock left by a process that died is no obstacle: `flock`
locks belong to the open file, and the kernel drops them when the last process holding it
ends, however it ends. Forked children (the classifying pool) close their copy at once
(`os.register_at_fork`), so the lock lives exactly as long as the command that took it.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.yamlio import NOFOLLOW

LOCK = ".survey-lock"
# How long a writer waits for another one before it gives up. A `survey add` on the real corpus
# of 9,403 papers holds the lock for 4.5-5.2 s of CPU (`/usr/bin/time survey add ...`, three
# runs), so a second and a third add started beside one get through, while a person who starts a
# second writer beside a long import hears why within seconds. SURVEY_LOCK_WAIT (seconds) sets
# another.
LOCK_WAIT = 15.0

try:
    import fcntl
except ImportError:  # Windows: no flock. The commands still write all or nothing, unlocked.
    fcntl = None  # type: ignore[assignment]


class LockedError(SurveyError):
    """Another writer holds the corpus."""


# --- fault injection, for tests/test_writes.py ------------------------------------------------
# SURVEY_FAULT=kill-after=N kills this process (SIGKILL) before its N+1th file operation of a
# write; SURVEY_FAULT=enospc-after=N makes that operation fail as a full disk would. Each file
# operation of a write (here and in journal.py) calls step() first, so a test can stop a write
# at every point of it.
_ops = 0


def step() -> None:
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
    """The corpus's writer lock, reentrant within a process (`journal.writing` also finishes
    what an interrupted writer left)."""

    def __init__(self, root: Path | str, wait: float | None = None) -> None:
        self.root = Path(root)
        self.path = self.root / LOCK
        self.wait = wait if wait is not None else _wait_from_environment()
        self.fd: int | None = None
        self.previous: dict[str, Any] = {}  # what the last holder wrote, if it never released
        self.fresh = False  # this one took the lock (not a reentry): it releases it

    def __enter__(self) -> CorpusLock:
        if held(self.root):
            return self
        self._acquire()
        self.fresh = True
        _HELD[_key(self.root)] = self
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.fresh:
            return
        _HELD.pop(_key(self.root), None)
        self.fresh = False
        if self.fd is None:
            return
        try:
            step()
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
                step()
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW,
                             0o666)
            except OSError as exc:
                raise SurveyError(cannot_write(self.root, exc)) from None
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
        self.previous = holder_of(os.read(fd, 4096))
        info = {"pid": os.getpid(), "command": command_line(),
                "since": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(info).encode(), 0)
        except OSError as exc:
            self.__exit__()
            raise SurveyError(cannot_write(self.root, exc)) from None

    def _busy(self) -> str:
        try:
            holder = holder_of(self.path.read_bytes())
        except OSError:
            holder = {}
        return (f"{shown(self.root)} is being changed by another survey command: "
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


def holder_of(data: bytes) -> dict[str, Any]:
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


def shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def cannot_write(root: Path, exc: OSError) -> str:
    return f"cannot write to {shown(root)}: {exc.strerror or exc}; nothing in {shown(root)} changed"


def locked_by_other(root: Path) -> bool:
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
