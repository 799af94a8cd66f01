"""Jobs run in a forked second process, each one's text streamed back as it is made.

`mkdocs build` renders the survey's pages this way on a machine with two or more cores: MkDocs
converts the first pages to HTML on one core while the rest are rendered on the other. The
child is a fork of the parent, so it starts with everything the parent loaded (the corpus, the
compiled templates) and reads no file again; it runs the jobs in order and writes each result
down a pipe, which a thread of the parent drains into memory. `take` waits for a result.

A job that fails stops the child: the parent's `take` of that result, or of any later one,
raises a SurveyError with the one-line description the child made of the exception.

Once its jobs are done the child can do more for the parent: each item the parent `post`s
(a page MkDocs has written) is handed to `after` in the child, and `finish` waits until all
are done.
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

Job = tuple[str, Callable[[], "str | bytes"]]

_FRAME = struct.Struct("!BII")  # kind, key length, data length
_RESULT, _ERROR, _DONE, _FINISHED = 0, 1, 2, 3
_ITEM = struct.Struct("!I")  # the length of an item posted to the child


def describe_error(key: str, exc: BaseException) -> str:
    """A job's exception as one line: a SurveyError's own, or the job's key, its type and text."""
    return str(exc) if isinstance(exc, SurveyError) else f"{key}: {type(exc).__name__}: {exc}"


class Forked:
    """Run `jobs` (key, job) in order in a forked child; `take(key)` is the job's text."""

    def __init__(self, jobs: Sequence[Job],
                 describe: Callable[[str, BaseException], str] = describe_error,
                 after: Callable[[str], None] | None = None) -> None:
        self._ready: dict[str, bytes] = {}
        self._ended = False
        self._error: str | None = None
        self._done = False  # every job's result has come
        self._finished = False  # and every posted item is done
        self._status: int | None = None
        self._changed = threading.Condition()
        read, write = os.pipe()
        items, self._post = os.pipe()  # items for `after`, from the parent to the child
        # Frozen objects are left alone by the child's garbage collector, which would otherwise
        # write to every object the parent has and so copy its memory page by page.
        gc.freeze()
        try:
            pid = os.fork()
        except BaseException:
            gc.unfreeze()
            for fd in (read, write, items, self._post):
                os.close(fd)
            raise
        if pid == 0:  # the child: it never returns from here
            os.close(read)
            os.close(self._post)
            _child(write, items, jobs, describe, after)
        gc.unfreeze()
        os.close(write)
        os.close(items)
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
                    if kind == _DONE:
                        with self._changed:
                            self._done = True
                            self._changed.notify_all()
                        continue
                    if kind == _ERROR:
                        self._error = data.decode()
                    self._finished = kind == _FINISHED
                    break
        finally:
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def take(self, key: str) -> str:
        """The text of job `key`, once the child has made it (then forgotten here)."""
        return self.take_bytes(key).decode()

    def take_bytes(self, key: str) -> bytes:
        """Job `key`'s result as it came: a text job's in UTF-8, a bytes job's as it was."""
        with self._changed:
            while key not in self._ready and not (self._done or self._ended):
                self._changed.wait()
            data = self._ready.pop(key, None)
        if data is None:
            raise SurveyError(self._failure(key))
        return data

    def _failure(self, key: str) -> str:
        if self._error is not None:
            return self._error
        if self._done:
            return f"the render process made no {key}"
        self._wait(block=True)
        status = self._status or 0
        how = (f"killed by signal {-status}" if status < 0 else f"exit status {status}")
        return f"the render process ended before it made {key} ({how})"

    def post(self, item: str) -> None:
        """Hand `item` to the child's `after`, which takes it once the jobs are done."""
        if self._post < 0:
            raise ValueError("post after finish")
        raw = item.encode()
        with contextlib.suppress(BrokenPipeError):  # the child is gone: `finish` says why
            _write(self._post, _ITEM.pack(len(raw)) + raw)

    def finish(self) -> None:
        """Wait until the child has done every item posted, and ended."""
        if self._post >= 0:
            os.close(self._post)
            self._post = -1
        self._reader.join()
        self._wait(block=True)
        if self._error is not None:
            raise SurveyError(self._error)
        if not self._finished:
            status = self._status or 0
            how = (f"killed by signal {-status}" if status < 0 else f"exit status {status}")
            raise SurveyError(f"the render process ended before its work was done ({how})")

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
        if self._post >= 0:
            os.close(self._post)
            self._post = -1
        self._reader.join()
        self._ready.clear()


def _child(fd: int, items: int, jobs: Sequence[Job], describe: Callable[[str, BaseException], str],
           after: Callable[[str], None] | None) -> None:
    # Ctrl-C reaches both processes: the child ends quietly and the parent reports it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    code = 0
    key = ""
    try:
        try:
            for key, job in jobs:
                result = job()
                data = result if isinstance(result, bytes) else result.encode()
                raw = key.encode()
                _write(fd, _FRAME.pack(_RESULT, len(raw), len(data)) + raw + data)
            _write(fd, _FRAME.pack(_DONE, 0, 0))
            with os.fdopen(items, "rb") as posted:
                while head := posted.read(_ITEM.size):
                    key = posted.read(_ITEM.unpack(head)[0]).decode()
                    if after is not None:
                        after(key)
            _write(fd, _FRAME.pack(_FINISHED, 0, 0))
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
