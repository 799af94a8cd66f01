"""Fault injection for the kill tests: a write stopped at any of its file operations.

Each file operation of a write (journal.py, and taking and releasing the writer's lock in
lock.py) calls step(NAME) first. SURVEY_FAULT=count prints `survey fault: N NAME` to stderr for
each, so that a test takes its kill points from the command itself; SURVEY_FAULT=kill-after=N
kills this process (SIGKILL) before its N+1th operation; SURVEY_FAULT=enospc-after=N makes that
operation fail once, as a full disk would.
"""

from __future__ import annotations

import errno
import os
import signal
import sys

_ops = 0


def step(name: str) -> None:
    global _ops
    fault = os.environ.get("SURVEY_FAULT")
    if not fault:
        return
    _ops += 1
    if fault == "count":
        print(f"survey fault: {_ops} {name}", file=sys.stderr, flush=True)
        return
    kind, _, after = fault.partition("-after=")
    if not after.isdigit() or _ops <= int(after):
        return
    if kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "enospc" and _ops == int(after) + 1:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
