"""Bytes on disk."""

from __future__ import annotations

import os
from pathlib import Path


def _tree_bytes(folder: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            total += os.path.getsize(os.path.join(dirpath, name))
    return total
