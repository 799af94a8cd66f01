"""What a command prints, escaped at one place: `survey` writes its standard output and error
through `Escaped` (cli/main.main installs it), so no message, note, list or screen can pass a
control, escape or bidi character from an input file to the terminal (`\\e[2J` in a decisions
file's slug cleared the curator's screen), whatever module formed the line.

A command that must send the terminal a control of its own (the review screen's clear, the
progress line's carriage return) or data the user asked for byte for byte (`survey export`)
writes it with `raw`: the one way past the escaping.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import tempfile
import traceback
from collections.abc import Iterator
from typing import TextIO

from .text import printable


class Escaped(io.TextIOBase):
    """A text stream that writes every unsafe character as its escape (`printable`), line breaks
    kept, and a character the terminal's encoding cannot show (`·` in ASCII) as its escape too."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.raw(escape_lines(text))
        return len(text)

    def raw(self, text: str) -> None:
        try:
            self.inner.write(text)
        except UnicodeEncodeError:
            encoding = self.inner.encoding or "ascii"
            self.inner.write(text.encode(encoding, "backslashreplace").decode(encoding))

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding


def escape_lines(text: str) -> str:
    """text with every unsafe character escaped (`printable`), its line breaks kept."""
    return text if text.isprintable() else "\n".join(map(printable, text.split("\n")))


class EscapedLog(logging.Filter):
    """MkDocs's log, escaped as `survey` escapes what it prints: a handler with this filter never
    writes a control, escape or bidi character from a message (a corpus file named `\\e[2J.yaml`
    in the build's list of problems), whichever module logged it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = escape_lines(record.getMessage()), ()
        return True


def raw(stream: TextIO, text: str) -> None:
    """Write text as it is: a terminal control the command sends itself, or data asked for."""
    (stream.raw if isinstance(stream, Escaped) else stream.write)(text)


@contextlib.contextmanager
def escaped() -> Iterator[None]:
    """Standard output and error escaped (`Escaped`) while the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Escaped(saved[0]), Escaped(saved[1])
    try:
        yield
        sys.stdout.flush()  # here, where a closed pipe is still the command's to handle
    finally:
        sys.stdout, sys.stderr = saved


def unexpected(exc: BaseException) -> str:
    """One line for an error the code did not expect (a bug), its traceback written to a file
    of the temporary folder: a traceback printed raw passed a path's or a value's escape
    sequence to the terminal (a corpus folder named `K\\e[31mRED`)."""
    try:
        fd, name = tempfile.mkstemp(prefix="survey-traceback-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write("".join(traceback.format_exception(exc)))
        where = f"the traceback is in {name}"
    except OSError as err:
        where = f"its traceback could not be written ({err.strerror})"
    what = " ".join(str(exc).split())
    what = what if len(what) <= 300 else what[:297] + "..."
    return f"unexpected error (a bug: please report it), {type(exc).__name__}: {what}; {where}"
