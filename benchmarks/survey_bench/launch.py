"""Start a measured command so that its peak memory is its own.

Linux keeps a process's peak resident size across fork and exec: a child started by the
benchmark (hundreds of MB by then) reports the benchmark's peak whenever its own is smaller.
So the command is started by a small launcher process, whose fork carries only the launcher's
few MB; the launcher waits for it and sends back its exit code, peak memory and CPU time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

LAUNCHER = r"""
import os, sys
fd = int(sys.argv[1])
pid = os.fork()
if pid == 0:
    os.close(fd)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
code = os.waitstatus_to_exitcode(status)
os.write(fd, f"{code} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}".encode())
"""


class Measured:
    """Like subprocess.Popen(cmd, **kwargs); wait() gives (exit code, peak MB, CPU seconds)."""

    def __init__(self, cmd: list[str], **kwargs: Any) -> None:
        read, write = os.pipe()
        self._read = read
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(write), *cmd],
                                     pass_fds=(write,), **kwargs)
        os.close(write)

    def wait(self) -> tuple[int, float, float]:
        self.proc.wait()
        with os.fdopen(self._read, "rb") as fh:
            fields = fh.read().decode().split()
        if len(fields) != 3:
            raise SystemExit(f"bench: the launcher of {self.proc.args[4:]} said nothing")
        return int(fields[0]), int(fields[1]) / 1024, float(fields[2])
