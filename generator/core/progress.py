"""Progress of long work, shown on a terminal and silent anywhere else (CI, pipes, files)."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from .output import raw


class Progress:
    """A one-line counter on a terminal's stderr; silent when stderr is not a terminal."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.enabled = self.stream.isatty() and os.environ.get("CI") != "true"
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        raw(self.stream, "\r")  # back to the line's start: a control of its own (output.py)
        self.stream.write(f"{self.label}: {done}/{total}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
