"""Progress on standard error; the table and verdicts go to standard output."""

from __future__ import annotations

import sys


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
