#!/usr/bin/env python3
"""One `mkdocs build` in this process, broken down: where its time and memory go.

    python benchmarks/build_profile.py PROJECT SITE_DIR [--profile OUT.prof]

PROJECT is a folder with mkdocs.yml (a benchmark's `full/` or `floor/` project, kept with
`bench.py --keep`). Prints the build's wall and CPU time, its own peak memory and that of its
children (Pagefind), the resident memory after each build stage, the time of each plugin's
event handlers, and MkDocs's own work per kind of page: `_populate_page` (Markdown to HTML,
with the page events) and `_build_page` (the theme's template) for paper pages, list pages
(topics, tags, listings) and the others. With --profile, a cProfile of the whole build.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import resource
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("site_dir", type=Path)
    parser.add_argument("--profile", metavar="OUT")
    args = parser.parse_args()
    site_dir = args.site_dir.resolve()
    os.chdir(args.project)
    wall0, cpu0 = time.perf_counter(), time.process_time()

    from mkdocs import plugins
    from mkdocs.commands import build
    from mkdocs.config import load_config

    spent: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    stages: list[tuple[str, float, float, float, float, int]] = []

    def charge(key: tuple[str, str], wall: float, cpu: float) -> None:
        row = spent[key]
        row[0] += time.perf_counter() - wall
        row[1] += time.process_time() - cpu
        row[2] += 1

    def run_event(self: Any, name: str, item: Any = None, **kwargs: Any) -> Any:
        for method in self.events[name]:
            self._current_plugin = self._event_origins.get(method, "?")
            wall, cpu = time.perf_counter(), time.process_time()
            result = method(item, **kwargs) if item is not None else method(**kwargs)
            charge((name, self._current_plugin), wall, cpu)
            if result is not None:
                item = result
        self._current_plugin = None
        if name in ("config", "files", "nav", "env", "post_build"):
            with open("/proc/self/statm") as fh:
                now_mb = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
            stages.append((name, time.perf_counter() - wall0, time.process_time() - cpu0, now_mb,
                           resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                           len(gc.get_objects())))
        return item

    plugins.PluginCollection.run_event = run_event  # type: ignore[method-assign]

    def kind(page: Any) -> str:
        top = page.file.src_uri.split("/")[0]
        return "paper" if top == "papers" else "list" if top in ("topics", "tags", "listings") else "other"

    for name in ("_populate_page", "_build_page"):
        original = getattr(build, name)

        def timed(page: Any, *a: Any, _original: Any = original, _name: str = name, **k: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return _original(page, *a, **k)
            finally:
                charge((_name, kind(page)), wall, cpu)

        setattr(build, name, timed)

    collections: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])  # generation -> time
    started: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[:] = [time.perf_counter(), time.process_time()]
        elif started:
            row = collections[info["generation"]]
            row[0] += time.perf_counter() - started[0]
            row[1] += time.process_time() - started[1]
            row[2] += 1

    gc.callbacks.append(on_gc)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    config = load_config(site_dir=str(site_dir))
    config.plugins.on_startup(command="build", dirty=False)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    build.build(config)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    config.plugins.on_shutdown()

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"wall {time.perf_counter() - wall0:.2f} s; CPU {me.ru_utime + me.ru_stime:.2f} s, children "
          f"{kids.ru_utime + kids.ru_stime:.2f} s; peak {me.ru_maxrss / 1024:.0f} MB, "
          f"children's peak {kids.ru_maxrss / 1024:.0f} MB")
    print("after each stage: wall s, CPU s, resident MB, peak MB, objects the collector tracks")
    for name, wall, cpu, now_mb, peak_mb, objects in stages:
        print(f"  {name:<11} {wall:8.2f} {cpu:8.2f} {now_mb:7.0f} {peak_mb:7.0f} {objects:10d}")
    print("what            by               wall s    CPU s   calls")
    for (what, who), (wall, cpu, calls) in sorted(spent.items(), key=lambda kv: -kv[1][1]):
        if wall >= 0.05:
            print(f"  {what:<14} {who:<14} {wall:8.2f} {cpu:8.2f} {int(calls):7d}")
    for generation, (wall, cpu, calls) in sorted(collections.items()):
        print(f"  {'gc':<14} {f'generation {generation}':<14} {wall:8.2f} {cpu:8.2f} {int(calls):7d}")


if __name__ == "__main__":
    main()
