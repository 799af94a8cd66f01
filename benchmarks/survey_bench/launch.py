"""Start a measured command so that its peak memory is its own.

Linux keeps a process's peak resident size across fork and exec: a child started by the
benchmark (hundreds of MB by then) reports the benchmark's peak whenever its own is smaller.
So the command is started by a small launcher process, whose fork carries only the launcher's
few MB; the launcher waits for it and sends back its exit code, peak memory and CPU time.

That peak is of one process at a time (the command's, or a child's it waited for, whichever is
larger): a build whose pages are rendered in a second process beside it would hide that
process. So the memory of the command's whole process tree is also sampled while it runs, five
times a second (the sum of each process's proportional set size, which counts a page two
processes share half in each), and the peak reported is the larger of the two.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from pathlib import Path
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
        self.tree_peak_mb = 0.0
        self._running = True
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while self._running:
            self.tree_peak_mb = max(self.tree_peak_mb, tree_pss_mb(self.proc.pid, itself=False))
            threading.Event().wait(0.2)

    def wait(self) -> tuple[int, float, float]:
        self.proc.wait()
        self._running = False
        self._sampler.join()
        with os.fdopen(self._read, "rb") as fh:
            fields = fh.read().decode().split()
        if len(fields) != 3:
            raise SystemExit(f"bench: the launcher of {self.proc.args[4:]} said nothing")
        return int(fields[0]), max(int(fields[1]) / 1024, self.tree_peak_mb), float(fields[2])


def tree_pss_mb(pid: int, itself: bool = True) -> float:
    """The proportional set size of a process and all its descendants, in MB (0 for a process
    that has ended meanwhile)."""
    total_kb = 0
    todo = [pid]
    while todo:
        current = todo.pop()
        if itself or current != pid:
            try:
                with open(f"/proc/{current}/smaps_rollup") as fh:
                    for line in fh:
                        if line.startswith("Pss:"):
                            total_kb += int(line.split()[1])
                            break
            except OSError:
                pass
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo += [int(c) for c in task.read_text().split()]
    return total_kb / 1024
