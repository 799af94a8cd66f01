"""The copy of the sources a run measures, and the environment its subprocesses run in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# What a measurement depends on. It is copied once when the benchmark starts, and every stage and
# every build uses that copy (the builds through PYTHONPATH, which wins over the editable
# install), so edits to the working tree during a long run cannot mix two versions in one table.
SOURCES = ("generator", "templates", "docs", "mkdocs.yml", "corpus")


def snapshot_sources(dest: Path) -> Path:
    for rel in SOURCES:
        src, dst = ROOT / rel, dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dst)
    return dest


# The repository itself until `use_snapshot()` (bench.py, before anything imports the generator).
SRC = ROOT
sys.path.insert(0, str(SRC))


def use_snapshot() -> Path:
    global SRC
    SRC = snapshot_sources(Path(tempfile.mkdtemp(prefix="survey-bench-src-")))
    sys.path.insert(0, str(SRC))
    return SRC


def subprocess_env() -> dict[str, str]:
    """The environment of every subprocess: the snapshot's generator first on the path."""
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "NO_MKDOCS_2_WARNING": "1"}


def git_state() -> dict[str, Any]:
    """The commit measured, and whether the measured sources differed from it."""
    def git(*cmd: str) -> str:
        done = subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    changed = git("status", "--porcelain", "--", *SOURCES)
    return {"commit": git("rev-parse", "HEAD") or "unknown", "dirty": bool(changed),
            "changed": changed.splitlines()}

