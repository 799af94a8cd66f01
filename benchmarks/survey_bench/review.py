"""The curator's queue on a corpus: how long `survey review` takes to put the first paper on an
80x24 terminal, and `survey review --list` to print the whole queue (issue 42: under 1 s at
2,000 waiting papers, under 2 s at 10,000).

Each is the real command in a subprocess, as a curator starts it (the interpreter's start and
the imports included): the first screen through a pseudo-terminal, until the key line is drawn;
the list with its output to /dev/null. Wall time and the process's own CPU time (user + system),
which other work on the machine disturbs less, median of the runs.

With the project's topic model (copied in for these runs where the corpus has none, and taken
out after), so that the queue is ordered by the model's numbers as a real survey's is. Those
come from the derived cache (generator/corpus/derived.py); the first `--list` after the cache
is removed, which scores every waiting paper (a fresh clone, or a model trained since), is
measured once on its own (`review_cold_s`), before the runs.
"""

from __future__ import annotations

import os
import select
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .snapshot import SRC, subprocess_env

WAITING_TARGETS = ((2000, 1.0), (10000, 2.0))  # (waiting papers, at most so many seconds)
DRAWN = b"a accept  r reject"  # the key line: the first screen is complete


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _first_screen(corpus: Path) -> tuple[float, float]:
    master, slave = os.openpty()
    env = {**subprocess_env(), "COLUMNS": "80", "LINES": "24"}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "generator", "review", "--corpus", str(corpus)],
                            stdin=slave, stdout=slave, stderr=slave, cwd=SRC, env=env)
    seen = b""
    try:
        while DRAWN not in seen:
            ready, _, _ = select.select([master], [], [], 120)
            if not ready or proc.poll() is not None:
                raise SystemExit(f"bench: survey review drew no screen: {seen[-500:]!r}")
            seen += os.read(master, 65536)
        wall, cpu = time.perf_counter() - started, _cpu(proc.pid)
        os.write(master, b"q")
        proc.wait(timeout=120)
    finally:
        proc.kill()
        os.close(master)
        os.close(slave)
    return wall, cpu


def _list(corpus: Path) -> tuple[float, float, int]:
    started = time.perf_counter()
    before = os.times()
    done = subprocess.run([sys.executable, "-m", "generator", "review", "--list", "--corpus", str(corpus)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=SRC,
                          env=subprocess_env(), check=True)
    after = os.times()
    waiting = int(done.stderr.split("survey review: ", 1)[1].split()[0].replace(",", ""))
    cpu = after.children_user - before.children_user + after.children_system - before.children_system
    return time.perf_counter() - started, cpu, waiting


def review_start(corpus: Path, runs: int) -> dict[str, Any]:
    model = corpus / "topic_model.yaml"
    lent = not model.exists()
    if lent:
        shutil.copy(SRC / "corpus" / "topic_model.yaml", model)
    try:
        (corpus / ".survey-cache.json").unlink(missing_ok=True)
        cold = _list(corpus)
        lists = [_list(corpus) for _ in range(runs)]
        firsts = [_first_screen(corpus) for _ in range(runs)]
    finally:
        if lent:
            model.unlink()
    return {"review_waiting": lists[0][2], "review_cold_s": cold[0], "review_cold_cpu_s": cold[1],
            "review_list_s": statistics.median(t for t, _, _ in lists),
            "review_list_cpu_s": statistics.median(c for _, c, _ in lists),
            "review_first_s": statistics.median(t for t, _ in firsts),
            "review_first_cpu_s": statistics.median(c for _, c in firsts),
            "review_first_runs": [round(t, 3) for t, _ in firsts]}


def review_targets(results: list[dict[str, Any]]) -> list[tuple[str, str, bool | None]]:
    """For each target, the row with the fewest waiting papers at or above its count."""
    rows = sorted((r for r in results if "review_first_s" in r), key=lambda r: r["review_waiting"])
    out: list[tuple[str, str, bool | None]] = []
    for waiting, limit in WAITING_TARGETS:
        row = next((r for r in rows if r["review_waiting"] >= waiting), None)
        name = (f"survey review: first paper on screen and --list done within {limit:g} s at "
                f"{waiting:,} waiting")
        if row is None:
            out.append((name, "-", None))
            continue
        worst = max(row["review_first_s"], row["review_list_s"])
        out.append((name, f"first screen {row['review_first_s']:.2f} s (CPU "
                          f"{row['review_first_cpu_s']:.2f}), --list {row['review_list_s']:.2f} s (CPU "
                          f"{row['review_list_cpu_s']:.2f}) at {row['review_waiting']:,} waiting",
                    worst <= limit))
    return out
