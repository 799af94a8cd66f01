"""Bytes on disk: the site per paper, its search index, the theme's fixed assets."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .builds import Built
from .progress import say


def tree_bytes(folder: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            total += os.path.getsize(os.path.join(dirpath, name))
    return total


def site_sizes(built: Built, args: argparse.Namespace) -> dict[str, Any]:
    n, site_full, site_floor = built.papers, built.site_full, built.site_floor
    site_bytes = tree_bytes(site_full)
    theme_bytes = tree_bytes(site_full / "assets")  # the theme's CSS, JS and fonts: fixed
    search_bytes = (site_full / "search" / "search_index.json").stat().st_size
    html_full = sum(1 for _ in site_full.rglob("*.html"))
    html_floor = sum(1 for _ in site_floor.rglob("*.html"))
    if html_full != html_floor:
        say(f"[{n}] NOTE: the full site has {html_full} HTML pages, the floor {html_floor}")
    return {
        "site_bytes": site_bytes,
        "site_bytes_floor": tree_bytes(site_floor),
        "html_pages": html_full,
        "kb_per_paper": site_bytes / n / 1024,
        "assets_bytes": theme_bytes,
        "site_breakdown": {e.name: (tree_bytes(e) if e.is_dir() else e.stat().st_size)
                           for e in sorted(site_full.iterdir())},
        "kb_per_paper_without_assets": (site_bytes - theme_bytes) / n / 1024,
        "search_bytes": search_bytes,
        "search_kb_per_paper": search_bytes / n / 1024,
    }
