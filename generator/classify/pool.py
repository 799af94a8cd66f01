"""Work over many papers on every core: one process forked a core, each inheriting what the work
needs (a taxonomy's compiled rules, its model) rather than being sent it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_WORK: Callable[[list[Any]], list[Any]] | None = None  # what pooled()'s forked workers run
PARALLEL_FROM = 400  # papers; below this, starting processes costs more than it saves


def _run(chunk: list[Any]) -> list[Any]:
    assert _WORK is not None
    return _WORK(chunk)


def pooled(work: Callable[[list[Any]], list[Any]], items: list[Any], workers: int | None = None) -> list[Any]:
    """work() over items in chunks, in order, on every core (forked, so what work needs, the
    taxonomy's compiled rules among it, is inherited rather than sent), or here for a few."""
    import multiprocessing
    import os

    global _WORK
    workers = workers or min(os.cpu_count() or 1, 8)
    if workers < 2 or len(items) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return work(items)
    _WORK = work
    size = -(-len(items) // (workers * 4))
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return [r for part in pool.map(_run, chunks) for r in part]
    finally:
        _WORK = None
