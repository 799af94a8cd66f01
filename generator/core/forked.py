"""Jobs run in a forked second process, each one's text streamed back as it is made.

`mkdocs build` renders the survey's pages this way on a machine with two or more cores: MkDocs
converts the first pages to HTML on one core while the rest are rendered on the other. The
child is a fork of the parent, so it starts with everything the parent loaded (the corpus, the
compiled templates) and reads no file again; it runs the jobs in order and writes each result
down a pipe, which a thread of the parent drains into memory. `take` waits for a result.

A job that fails stops the child: the parent's `take` of that result, or of any later one,
raises a SurveyError with the one-line description the child made of the exception.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import struct
import threading
from collections.abc import Callable, Sequence

from .errors import SurveyError

Job = tuple[str, Callable[[], str]]

_FRAME = struct.Struct("!BII")  # kind, key length, data length
_RESULT, _ERROR, _DONE = 0, 1, 2


class Forked:
    """Run `jobs` (key, job) in order in a forked child; `take(key)` is the job's text."""

    def __init__(self, jobs: Sequence[Job], describe: Callable[[str, BaseException], str]) -> None:
        self._ready: dict[str, bytes] = {}
        self._ended = False
        self._error: str | None = None
        self._done = False
        self._status: int | None = None
        self._changed = threading.Condition()
        read, write = os.pipe()
        # Frozen objects are left alone by the child's garbage collector, which would otherwise
        # write to every object the parent has and so copy its memory page by page.
        gc.freeze()
        try:
            pid = os.fork()
        except BaseException:
            gc.unfreeze()
            os.close(read)
            os.close(write)
            raise
        if pid == 0:  # the child: it never returns from here
            os.close(read)
            _child(write, jobs, describe)
        gc.unfreeze()
        os.close(write)
        self.pid = pid
        self._reader = threading.Thread(target=self._read, args=(read,), name="survey-render",
                                        daemon=True)
        self._reader.start()

    def _read(self, fd: int) -> None:
        try:
            with os.fdopen(fd, "rb", buffering=1 << 16) as pipe:
                while True:
                    head = pipe.read(_FRAME.size)
                    if len(head) < _FRAME.size:
                        break
                    kind, key_len, data_len = _FRAME.unpack(head)
                    key = pipe.read(key_len).decode()
                    data = pipe.read(data_len)
                    if kind == _RESULT:
                        with self._changed:
                            self._ready[key] = data
                            self._changed.notify_all()
                        continue
                    if kind == _ERROR:
                        self._error = data.decode()
                    self._done = kind == _DONE
                    break
        finally:
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def take(self, key: str) -> str:
        """The text of job `key`, once the child has made it (then forgotten here)."""
        with self._changed:
            while key not in self._ready and not self._ended:
                self._changed.wait()
            data = self._ready.pop(key, None)
        if data is None:
            raise SurveyError(self._failure(key))
        return data.decode()

    def _failure(self, key: str) -> str:
        if self._error is not None:
            return self._error
        if self._done:
            return f"the render process made no {key}"
        self._wait(block=True)
        status = self._status or 0
        how = (f"killed by signal {-status}" if status < 0 else f"exit status {status}")
        return f"the render process ended before it made {key} ({how})"

    def _wait(self, block: bool) -> None:
        if self._status is not None:
            return
        pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        if pid:
            self._status = os.waitstatus_to_exitcode(status)

    def close(self) -> None:
        """Wait for the child to end, and stop it first if it is still at work."""
        if self._status is None:
            self._wait(block=False)
        if self._status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._wait(block=True)
        self._reader.join()
        self._ready.clear()


def _child(fd: int, jobs: Sequence[Job], describe: Callable[[str, BaseException], str]) -> None:
    # Ctrl-C reaches both processes: the child ends quietly and the parent reports it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    code = 0
    key = ""
    try:
        try:
            for key, job in jobs:
                data = job().encode()
                raw = key.encode()
                _write(fd, _FRAME.pack(_RESULT, len(raw), len(data)) + raw + data)
            _write(fd, _FRAME.pack(_DONE, 0, 0))
        except BrokenPipeError:
            code = 1  # the parent is gone
        except BaseException as exc:
            code = 1
            message = describe(key, exc).encode()
            _write(fd, _FRAME.pack(_ERROR, 0, len(message)) + message)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
