#!/usr/bin/env python3
"""One-paper edits under `mkdocs serve --dirty` in this process, broken down: where a rebuild goes.

    python benchmarks/serve_profile.py PROJECT [--edits N]

PROJECT is a folder with mkdocs.yml and corpus/ (a benchmark's `full/` project, kept with
`bench.py --keep`); the site is written to a temporary folder. As `bench.py --only serve`
does, the site is built once, then the abstract of the paper in the middle of `papers/` is
edited and the site rebuilt, N times (default 3), each time waiting for the search index (and
the garbage collection that follows it) before the next edit. For each rebuild: its wall and
CPU time, the time of Python's garbage collections within it, and the steps that took more
than 20 ms (plugin events, MkDocs's own steps, the survey plugin's parts), slowest first. The
paper's file is restored at the end.
"""

from __future__ import annotations

import argparse
import functools
import gc
import logging
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--edits", type=int, default=3)
    args = parser.parse_args()
    project = args.project.resolve()

    from mkdocs import plugins
    from mkdocs.commands import build
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    from generator.adapter import incremental, mkdocs_plugin
    from generator.corpus import check
    from generator.site import render

    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # wall, CPU, GC wall
    inside: list[str] = []
    gc_started = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_started[0] = time.perf_counter()
            return
        took = time.perf_counter() - gc_started[0]
        spent["(all garbage collections)"][2] += took
        if inside:
            spent[inside[-1]][2] += took

    def timed(owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def wrapper(*a: Any, **k: Any) -> Any:
            inside.append(label)
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return original(*a, **k)
            finally:
                row = spent[label]
                row[0] += time.perf_counter() - wall
                row[1] += time.process_time() - cpu
                inside.pop()

        setattr(owner, name, wrapper)

    run_event = plugins.PluginCollection.run_event

    def event(self: Any, name: str, item: Any = None, **kwargs: Any) -> Any:
        label = f"event {name}"
        inside.append(label)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return run_event(self, name, item, **kwargs)
        finally:
            spent[label][0] += time.perf_counter() - wall
            spent[label][1] += time.process_time() - cpu
            inside.pop()

    plugins.PluginCollection.run_event = event  # type: ignore[method-assign]
    for name in ("get_navigation", "_populate_page", "_build_page", "_build_theme_template"):
        timed(build, name, f"mkdocs {name}")
    timed(Files, "add_files_from_theme", "mkdocs add_files_from_theme")
    timed(mkdocs_plugin, "check_corpus", "survey check_corpus")
    timed(check, "load_corpus", "survey load_corpus")
    timed(mkdocs_plugin, "split_sitemap", "survey split_sitemap")
    for name in ("__init__", "pages", "files", "_related_papers"):
        timed(render.Site, name, f"survey Site.{name}")
    for name in ("start", "finish", "restore_pages"):
        timed(incremental.Incremental, name, f"survey Incremental.{name}")
    gc.callbacks.append(on_gc)

    logging.basicConfig(level=logging.ERROR)
    site = Path(tempfile.mkdtemp(prefix="serve-profile-"))
    papers = sorted((project / "corpus" / "papers").glob("*.yaml"))
    paper = papers[len(papers) // 2]
    text = paper.read_text(encoding="utf-8")

    def rebuild() -> tuple[float, float, Any]:
        config = load_config(str(project / "mkdocs.yml"), site_dir=str(site))
        wall, cpu = time.perf_counter(), time.process_time()
        build.build(config, dirty=True)
        return time.perf_counter() - wall, time.process_time() - cpu, config

    try:
        load_config(str(project / "mkdocs.yml"), site_dir=str(site)).plugins.on_startup(
            command="serve", dirty=True)
        wall, cpu, config = rebuild()
        config.plugins["survey"].wait_for_search_index()
        print(f"first build: wall {wall:.1f} s, CPU {cpu:.1f} s")
        for n in range(1, args.edits + 1):
            edited = (text.replace("abstract: ", f"abstract: Edited {n}. ", 1) if "abstract: >-" not in text
                      else text.replace("abstract: >-\n  ", f"abstract: >-\n  Edited {n}. ", 1))
            paper.write_text(edited, encoding="utf-8")
            spent.clear()
            wall, cpu, config = rebuild()
            print(f"edit {n}: wall {wall:.2f} s, CPU {cpu:.2f} s, garbage collections "
                  f"{spent['(all garbage collections)'][2]:.2f} s")
            for label, (w, c, g) in sorted(spent.items(), key=lambda kv: -kv[1][0]):
                if label.startswith("(") or max(w, g) < 0.02:
                    continue
                print(f"  {label:36s} wall {w:6.2f} s  CPU {c:6.2f} s  of which GC {g:5.2f} s")
            waited = time.perf_counter()
            config.plugins["survey"].wait_for_search_index()
            print(f"  search index and garbage collection, in the background: "
                  f"{time.perf_counter() - waited:.1f} s")
        config.plugins.on_shutdown()
    finally:
        paper.write_text(text, encoding="utf-8")
        shutil.rmtree(site, ignore_errors=True)


if __name__ == "__main__":
    main()
