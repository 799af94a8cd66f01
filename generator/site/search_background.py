"""The search index under `mkdocs serve`: Pagefind in a background thread, swapped in whole."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from ..core.errors import SurveyError
from .search import OUTPUT, PART, index_into, plan_parts

# Unfinished bundles of the background index, inside the site folder so that the swap is a
# rename on one file system; none is left once an index is in place.
_NEXT = f".{OUTPUT}-next-"


class BackgroundIndex:
    """Pagefind over a built site in a background thread, for `mkdocs serve`: the pages are
    shown as soon as they are written, and the search index follows.

    Pagefind (1.x) has no incremental mode: each run indexes the whole site, into a fresh
    folder that then replaces `site_dir/pagefind/` in one rename. The newest request wins:
    `start` and `cancel` stop a run still going (its process is killed and its folder removed),
    so an index never mixes two builds' pages. `wait` is the state a caller can wait for; it
    includes `then`, run in the background thread once an index is in place.
    """

    def __init__(self, report: Callable[[str], None], fail: Callable[[str], None],
                 then: Callable[[], None] | None = None) -> None:
        self.report, self.fail, self.then = report, fail, then  # then: after an index is in place
        self._lock = threading.Lock()
        self._generation = 0
        self._proc: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._done.set()

    def start(self, site_dir: Path, skip: Iterable[str] = (), papers: Iterable[tuple[str, str | None]] = (),
              part_size: int = PART) -> None:
        self.cancel()
        parts = plan_parts(papers, part_size)
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._done.clear()
        for stale in site_dir.glob(f"{_NEXT}*"):
            shutil.rmtree(stale, ignore_errors=True)
        thread = threading.Thread(target=self._run, args=(generation, site_dir, tuple(skip), parts),
                                  name="survey-pagefind", daemon=True)
        self._thread = thread
        thread.start()

    def cancel(self) -> None:
        """Stop the run in progress, if any: its index is discarded."""
        with self._lock:
            self._generation += 1
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no index is being written (the last one is in place, or was cancelled)."""
        return self._done.wait(timeout)

    def _current(self, generation: int) -> bool:
        return generation == self._generation

    def _pagefind(self, generation: int, command: list[str]) -> subprocess.CompletedProcess[str]:
        """One Pagefind run, killed by `cancel`; a cancelled run raises _Cancelled."""
        with self._lock:
            if not self._current(generation):
                raise _Cancelled
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self._proc = proc
        stdout, stderr = proc.communicate()
        with self._lock:
            self._proc = None
            if not self._current(generation):
                raise _Cancelled
        return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)

    def _run(self, generation: int, site_dir: Path, skip: tuple[str, ...],
             parts: list[tuple[str, ...]]) -> None:
        started = time.perf_counter()
        output = site_dir / f"{_NEXT}{generation}"
        try:
            said = index_into(site_dir, output, skip, parts, partial(self._pagefind, generation))
            with self._lock:
                if not self._current(generation):
                    return
                _swap(output, site_dir / OUTPUT)  # every part at once
            self.report(f"in {time.perf_counter() - started:.2f} s, in the background: {said}")
            if self.then is not None:
                self.then()
        except _Cancelled:
            pass
        except (SurveyError, OSError) as exc:
            if self._current(generation):
                self.fail(str(exc))
        finally:
            shutil.rmtree(output, ignore_errors=True)
            with self._lock:
                self._proc = None
                if self._current(generation):
                    self._done.set()


class _Cancelled(Exception):
    """A newer request replaced the background run."""


_RENAME_EXCHANGE = 2


def _swap(new: Path, target: Path) -> None:
    """Put the folder `new` in place of `target` (which may not exist) without a moment when
    `target` is missing where Linux allows it (renameat2's RENAME_EXCHANGE); the old folder is
    then removed."""
    if target.exists():
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            exchanged = libc.renameat2(-100, os.fsencode(new), -100, os.fsencode(target),
                                       _RENAME_EXCHANGE) == 0  # -100: AT_FDCWD
        except (AttributeError, OSError):
            exchanged = False
        if exchanged:
            shutil.rmtree(new, ignore_errors=True)  # the old index, now at new's name
            return
        old = new.with_name(new.name + "-old")
        os.rename(target, old)
        os.rename(new, target)
        shutil.rmtree(old, ignore_errors=True)
        return
    os.rename(new, target)
