"""One corpus measured, whatever wrote it: the generator's stages, the full and the floor builds,
then what is measured on the sites they built.

Below `cli` (the command line) and `real` (the real corpus), which both call `measure_corpus`:
a module of its own so that neither imports the other.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .browser import search_in_browser
from .builds import Built, full_and_floor, make_projects
from .progress import say
from .review import review_start
from .serve import serve_rebuild
from .sizes import site_sizes
from .snapshot import SRC
from .stages import generator_stages
from .synthetic import synthesise

# What is measured on the two sites a corpus built, in this order. Each takes the builds and the
# command line and returns keys of its own for that corpus's row of results (report.COLUMNS
# names the ones the table shows). Timings taken in a browser on the built site go here.
SiteMeasurement = Callable[[Built, argparse.Namespace], dict[str, Any]]
SITE_MEASUREMENTS: tuple[SiteMeasurement, ...] = (site_sizes, serve_rebuild, search_in_browser)
# --site-only (for 100,000 papers) leaves out the serve edit, which builds the whole site again
# first (`--only serve` measures it on its own).
SITE_ONLY_MEASUREMENTS = tuple(m for m in SITE_MEASUREMENTS if m is not serve_rebuild)


def measure_size(n: int, args: argparse.Namespace) -> dict[str, Any]:
    """A synthetic corpus of n papers, written in a temporary folder and measured there."""
    work = Path(tempfile.mkdtemp(prefix=f"survey-bench-{n}-", dir=args.workdir))
    try:
        say(f"[{n}] writing the synthetic corpus in {work}")
        t0 = time.perf_counter()
        facts = synthesise(work / "corpus", n, args.seed, args.listings)
        facts["synthesis_s"] = round(time.perf_counter() - t0, 2)
        say(f"[{n}] {facts}")
        return {"kind": "synthetic", **measure_corpus(work, facts, args)}
    finally:
        if args.keep:
            say(f"[{n}] kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def measure_corpus(work: Path, facts: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """Everything measured on the corpus in work/corpus, which has facts["papers"] papers.

    The generator's stages, the full and the floor builds, then each of SITE_MEASUREMENTS on
    the sites they built. Any corpus can be measured so (a synthetic one by measure_size, a
    real one by a module that writes it into work/corpus); the result is one row of the table.
    """
    n, runs = facts["papers"], args.runs
    if args.only == "review":  # the curator's queue alone: no build
        return {"size": n, "corpus": facts, **review_start(work / "corpus", runs)}
    if args.only == "serve":  # the serve measurement builds the site itself
        full, floor = make_projects(work, work / "corpus", floor_too=False)
        built = Built(n, full, floor, work / "site-full", work / "site-floor")
        return {"size": n, "corpus": facts, **serve_rebuild(built, args)}
    stages: dict[str, Any] = {}
    if not args.site_only:
        say(f"[{n}] generator stages, {runs} run(s) each")
        stages = {**generator_stages(work / "corpus", SRC / "templates", runs),
                  **review_start(work / "corpus", runs)}
        say(f"[{n}] " + ", ".join(f"{k[:-2]} {stages[k]:.2f} s" for k in
                                 ("load_s", "check_s", "dedupe_s", "classify_s", "related_s",
                                  "render_s", "render_site_init_s", "render_pages_s",
                                  "render_files_s")))
    built, build_results = full_and_floor(work, n, runs, floor_too=not args.site_only)
    result = {"size": n, "corpus": facts, **stages, **build_results}
    for measure in SITE_ONLY_MEASUREMENTS if args.site_only else SITE_MEASUREMENTS:
        result.update(measure(built, args))
    return result
