"""The corpus's lock: one writer at a time, and no reader while a writer changes the corpus.

`corpus/.survey-lock` is locked with `flock`: exclusively by a writing command from before it
reads the corpus until it has written, shared by every reader (`survey check`, `mkdocs build`,
`mkdocs serve`) while it reads. A reader therefore sees the corpus before or after a write,
never halfway, and waits for a writer (then fails in one line, as a second writer does); a
writer waits for the readers inside, and new readers wait behind it (`_lock`'s gate). The
writer keeps who it is (pid, command, since) in the file, for the message of one that waits in
vain. The file stays once made (`.gitignore` holds it): a waiter that had opened a file since
removed would lock it beside the one in place. A dead holder is no obstacle: the kernel drops a
`flock` lock when the last descriptor of the file closes, however its process ended; forked
children (the classifying pool) close their copy at once (`os.register_at_fork`). POSIX only:
Windows has no `flock`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shlex
import stat
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.text import shown_path
from ..core.yamlio import NOFOLLOW
from .faults import step

try:
    import fcntl
except ImportError:  # Windows: no flock, so no command reads or writes the corpus there
    fcntl = None  # type: ignore[assignment]

LOCK = ".survey-lock"
# How long a command waits for another one before it gives up. A `survey add` on the real corpus
# of 9,403 papers holds the lock for 4.5-5.2 s of CPU (`/usr/bin/time survey add ...`, three
# runs), so a second and a third add started beside one get through, while a person who starts a
# second writer beside a long import hears why within seconds. SURVEY_LOCK_WAIT (seconds) sets
# another.
LOCK_WAIT = 15.0


_HELD: dict[str, CorpusLock] = {}


def _close_in_child() -> None:
    for lock in _HELD.values():
        os.close(lock.fd)  # the parent's copy keeps the lock
    _HELD.clear()


if fcntl is not None:
    os.register_at_fork(after_in_child=_close_in_child)


def command_line() -> str:
    """This command as a person typed it, short enough for one line of a message."""
    text = shlex.join(["survey", *sys.argv[1:]])
    return text if len(text) <= 80 else text[:79] + "…"


def held(root: Path) -> bool:
    """Whether this process writes the corpus now."""
    lock = _HELD.get(os.path.realpath(root))
    return lock is not None and not lock.shared


class CorpusLock:
    """The corpus's lock, exclusive (a writer) or shared (a reader); reentrant within a process,
    where a reader inside a writer reads what the writer holds."""

    def __init__(self, root: Path | str, wait: float | None = None, *, shared: bool = False) -> None:
        self.root, self.shared = Path(root), shared
        self.wait = wait if wait is not None else _wait_from_environment()
        self.fd = -1
        self.fresh = False  # this one took the lock (not a reentry): it releases it

    def __enter__(self) -> CorpusLock:
        key = os.path.realpath(self.root)
        if key in _HELD:
            if _HELD[key].shared and not self.shared:
                raise RuntimeError("a write started while this process reads the corpus")
            return self
        if not self.root.is_dir():
            raise SurveyError(f"{self.root}: no corpus folder here (use --corpus DIR)")
        if fcntl is None:
            raise SurveyError("survey needs POSIX file locks (flock), which this system lacks: run "
                              "it on Linux or macOS (on Windows, in WSL)")
        fd = self._open()
        if fd < 0:
            return self
        self._lock(fd)
        if not self.shared:
            info = {"pid": os.getpid(), "command": command_line(),
                    "since": datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps(info).encode(), 0)
            except OSError as exc:
                os.close(fd)  # and with it the lock
                raise SurveyError(cannot_write(self.root, exc)) from None
        self.fd, self.fresh = fd, True
        _HELD[key] = self
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.fresh:
            return
        del _HELD[os.path.realpath(self.root)]
        self.fresh = False
        if not self.shared:
            try:
                step("unlock")
                os.ftruncate(self.fd, 0)  # no holder to name until the next writer says who it is
            except OSError:
                pass
        os.close(self.fd)

    def _open(self) -> int:
        """The lock file, made if need be; -1 for a reader where none can be made (a read-only
        corpus, which no writer changes either)."""
        path = self.root / LOCK
        try:
            if not self.shared:
                step("lock")
            fd = os.open(path, (os.O_RDONLY if self.shared else os.O_RDWR) | os.O_CREAT | os.O_NONBLOCK
                         | NOFOLLOW, 0o666)
        except OSError as exc:
            if exc.errno in (errno.EISDIR, errno.ELOOP, errno.ENXIO):
                raise SurveyError(not_made(path)) from None
            if self.shared and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                return -1
            raise SurveyError(cannot_write(self.root, exc)) from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise SurveyError(not_made(path))
        shared = stat.S_IMODE(os.stat(self.root).st_mode) & 0o666  # whoever may write the corpus may lock it
        if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) != shared:
            with contextlib.suppress(OSError):  # a read-only corpus: no writer to let in
                os.fchmod(fd, shared)
        return fd

    def _lock(self, fd: int) -> None:
        """Take the lock, first passing the gate: the corpus folder's own flock, which a writer
        holds while it waits for the readers inside to finish, and which a reader holds only
        while it takes its shared lock. Readers that keep coming then queue behind a waiting
        writer; without the gate, two whose shared locks overlap kept one forever."""
        deadline = time.monotonic() + self.wait
        try:
            gate = os.open(self.root, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            os.close(fd)
            raise SurveyError(cannot_write(self.root, exc)) from None
        try:
            self._take(gate, fcntl.LOCK_EX, deadline, fd)
            self._take(fd, fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX, deadline, fd)
        finally:
            os.close(gate)

    def _take(self, fd: int, how: int, deadline: float, lock_fd: int) -> None:
        while True:
            try:
                fcntl.flock(fd, how | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = holder_of(os.pread(lock_fd, 4096, 0))
                    os.close(lock_fd)
                    # Readers say nothing of themselves: with no writer named, the corpus is read.
                    doing = (f"is being changed by another survey command: {describe_holder(holder)}"
                             if isinstance(holder.get("pid"), int) else
                             "is in use by another command: one reading it (survey check, mkdocs build "
                             "or serve), or a writer starting")
                    raise SurveyError(f"{shown_path(self.root)} {doing}; waited {self.wait:g} s: run this "
                                      f"again when it has finished") from None
                time.sleep(0.1)
            except OSError as exc:  # ENOLCK: a network file system without locks
                os.close(lock_fd)
                raise SurveyError(f"cannot lock {shown_path(self.root / LOCK)}: {exc.strerror}; survey "
                                  f"needs a file system with flock locks (a local disk); nothing in "
                                  f"{shown_path(self.root)} changed") from None


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
    except (ValueError, RecursionError):  # the file's text is anyone's: `[[[[...`
        return {}
    return holder if isinstance(holder, dict) else {}


def describe_holder(holder: dict[str, Any]) -> str:
    """`pid 12 (`survey import x.json`, since 2025-01-02T10:00:00Z)`, or what is known of it
    (read from a file: escaped where it is printed, core/output.py)."""
    pid = holder.get("pid")
    if not isinstance(pid, int):
        return "one that has not said who it is (a reader, or a writer starting)"
    said = [f"`{holder['command']}`"] if isinstance(holder.get("command"), str) else []
    if isinstance(holder.get("since"), str):
        said.append(f"since {holder['since']}")
    return f"pid {pid} ({', '.join(said)})"


def cannot_write(root: Path, exc: OSError) -> str:
    return (f"cannot write to {shown_path(root)}: {exc.strerror or exc}; nothing in {shown_path(root)} "
            f"changed")


def not_made(path: Path) -> str:
    return f"{shown_path(path)}: not a lock file survey made (a folder, a link or a device): remove it"
