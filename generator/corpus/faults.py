"""Fault injection for tests/test_writes.py: a write stopped at any of its file operations.

SURVEY_FAULT=kill-after=N kills this process (SIGKILL) before its N+1th file operation of a
write; SURVEY_FAULT=enospc-after=N makes that operation fail as a full disk would. Each file
operation of a write (journal.py, and taking and releasing the lock in lock.py) calls step()
first, so a test can stop a write at every point of it.
"""

from __future__ import annotations

import errno
import os
import signal

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
