"""The terminal as `survey review` uses it: single keys without Enter or echo, a screen of
lines drawn at once, and text measured and cut in the columns a terminal shows it in.

What a line holds is escaped by the output boundary (core/output.py); the controls the screen
sends itself (clear, bold) go past it through `raw`.
"""

from __future__ import annotations

import codecs
import os
import select
import shutil
import signal
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from ..core.output import raw
from ..core.text import printable

CLEAR = "\x1b[H\x1b[2J"
RESIZED = "\x1b[resized]"  # not a key: the terminal changed its size, the screen is drawn again
BOLD, PLAIN = "\x1b[1m", "\x1b[0m"


class KeyReader:
    """Single key presses from the terminal, without Enter or echo, until closed; RESIZED when
    the terminal changed its size (SIGWINCH), so that the screen is drawn again at once, not
    at the next key."""

    def __enter__(self) -> Callable[[], str]:
        import termios
        import tty

        self.fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)  # keeps Ctrl-C a signal: it quits like q
        self.resized = False
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.winch = signal.signal(signal.SIGWINCH, self._resized)
        return self.key

    def _resized(self, *_: object) -> None:
        self.resized = True

    def key(self) -> str:
        # A signal does not interrupt a read (Python retries it), so wait a fifth of a second
        # at a time for a key and look whether the size changed meanwhile.
        while not self.resized:
            if select.select([self.fd], [], [], 0.2)[0]:
                data = os.read(self.fd, 1024)  # an arrow key is several bytes at once: read them as one
                if not data:
                    return "\x04"
                # a paste longer than a read may end inside a character: its rest comes next
                if keys := self.decoder.decode(data):
                    return keys
        self.resized = False
        return RESIZED

    def __exit__(self, *exc: object) -> None:
        import termios

        signal.signal(signal.SIGWINCH, self.winch)
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)


def typing(typed: str, keys: str) -> tuple[str, str | None]:
    """A line being typed after one read of keys: the text so far and how the line ended, None
    while it goes on, "\r" for Enter (the text taken) or "\x1b" for Esc, Ctrl-C or Ctrl-D (cancelled).

    One read holds all that arrived together: a paste with its Enter, keys typed faster than the
    screen reads them, or one key's escape sequence (an arrow is ESC [ D, ESC O D), so the keys
    are read one by one: a sequence is skipped whole and only an ESC that ends the read, or is
    followed by another ESC, is the Esc key. What follows an Enter is dropped, not kept as keys
    of the next screen: a pasted second line must not decide the next paper."""
    i = 0
    while i < len(keys):
        c = keys[i]
        i += 1
        if c in "\r\n":
            return typed, "\r"
        if c in ("\x03", "\x04") or (c == "\x1b" and keys[i:i + 1] in ("", "\x1b")):
            return typed, "\x1b"
        if c == "\x1b":
            i = _sequence_end(keys, i)
        elif c in ("\x7f", "\x08"):
            typed = typed[:-1]
        elif c.isprintable():
            typed += c
    return typed, None


def _sequence_end(keys: str, i: int) -> int:
    """Where the escape sequence whose ESC is just before `i` ends: CSI (ESC [, its parameters,
    a final letter or ~), SS3 (ESC O and one key) or an Alt key (ESC and the key)."""
    if keys[i] == "[":
        i += 1
        while i < len(keys) and not "@" <= keys[i] <= "~":
            i += 1
        return i + 1
    return i + 2 if keys[i] == "O" else i + 1


def _open_link(url: str) -> bool:
    import webbrowser

    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


@dataclass
class Terminal:
    """What the session needs of a terminal; a test gives its own keys, output and size."""

    key: Callable[[], str]
    out: TextIO = field(default_factory=lambda: sys.stdout)
    size: Callable[[], tuple[int, int]] = lambda: shutil.get_terminal_size((80, 24))
    open: Callable[[str], bool] = field(default_factory=lambda: _open_link)

    def show(self, lines: list[str], bold: int = 0) -> None:
        """The screen cleared, then the lines, the first `bold` of them after the first in bold
        (the title). The controls are the terminal's own (core/output.raw); the lines are
        escaped already (`shown`)."""
        raw(self.out, CLEAR)
        for i, line in enumerate(lines):
            if i:
                self.out.write("\n")
            if 1 <= i <= bold:
                raw(self.out, BOLD)
                self.out.write(line)
                raw(self.out, PLAIN)
            else:
                self.out.write(line)
        self.out.flush()

    def shown(self, text: str) -> str:
        """Text as this terminal shows it: controls escaped, and a character its encoding
        cannot show as its escape (what core/output.py writes), so that widths are right."""
        text = printable(text)
        encoding = getattr(self.out, "encoding", None) or "utf-8"
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = text.encode(encoding, "backslashreplace").decode(encoding)
        except LookupError:
            pass
        return text

    def dot(self) -> str:
        """The separator of a line's parts: a middle dot where the terminal can show one."""
        return " · " if self.shown("·") == "·" else " - "


def cells(text: str) -> int:
    """The columns a text takes on a terminal: two for a wide character, none for a combining one."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def cut(text: str, width: int) -> str:
    """The text cut to `width` columns, with … where it was cut."""
    if cells(text) <= width:
        return text
    out, used = [], 0
    for c in text:
        w = cells(c)
        if used + w > width - 1:
            break
        out.append(c)
        used += w
    return "".join(out).rstrip() + "…"


def wrap(text: str, width: int) -> list[str]:
    """Words to lines of at most `width` columns; a word longer than a line is cut into lines."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        while cells(word) > width:  # a link, say: the line is filled with its start
            room = width - cells(line) - 1 if line else width
            head = cut(word, room + 1)[:-1] if room > 0 else ""
            if not head:
                lines.append(line)
                line = ""
                continue
            lines.append(f"{line} {head}" if line else head)
            line, word = "", word[len(head):]
        if not line:
            line = word
        elif cells(line) + 1 + cells(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines
