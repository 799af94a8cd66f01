"""Benchmark of the survey site generator on synthetic corpora of N papers.

For each size N it writes a valid synthetic corpus (seeded, so every run writes the same files)
into a temporary folder and measures:

- the generator alone, per stage, in this process: load (`load_corpus`), check (the problems
  `check_corpus` adds to a loaded corpus: vocabulary, duplicates, listings), dedupe (the import
  path's `dedupe.Index`: built over the corpus, then `match` and `possible` for every paper),
  classify (`classify.suggest` on every paper) and render (`Site(corpus, templates).pages()`);
- the full `mkdocs build` of the site (mkdocs.yml, docs/ and templates/ copied from the
  repository around the synthetic corpus), and the floor: a bare `mkdocs build` of the same
  generated Markdown (`survey build --out`) with the survey plugin removed from an otherwise
  identical mkdocs.yml, the generated navigation written out in `nav` and the paper and tag
  pages kept out of it with `not_in_nav`. Full and floor builds alternate, each in a fresh
  subprocess; the medians are reported, with each build's own peak resident memory (read with
  os.wait4 by a small launcher process, so neither earlier builds nor the benchmark's own
  size leak into it);
- site bytes per paper (the whole site folder of the full build / N) and search-index bytes
  per paper (the Pagefind bundle, site/pagefind/, / N), and the largest HTML page.

    python benchmarks/bench.py --sizes 1000 3000 10000 --runs 3 --json out.json
    python benchmarks/bench.py --quick          # 1000 papers, one build of each: a smoke test
    python benchmarks/bench.py --sizes 313 10000 --runs 1 --real --only serve   # serve edits only

See docs/benchmark.md for the targets and the last measured table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .browser import search_in_browser
from .builds import Built, full_and_floor, make_projects
from .progress import say
from .real import REAL_FILE, measure_real
from .report import table, targets
from .serve import serve_rebuild
from .sizes import site_sizes
from .snapshot import ROOT, SRC, git_state
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
    if args.only == "serve":  # the serve measurement builds the site itself
        full, floor = make_projects(work, work / "corpus", floor_too=False)
        built = Built(n, full, floor, work / "site-full", work / "site-floor")
        return {"size": n, "corpus": facts, **serve_rebuild(built, args)}
    stages: dict[str, Any] = {}
    if not args.site_only:
        say(f"[{n}] generator stages, {runs} run(s) each")
        stages = generator_stages(work / "corpus", SRC / "templates", runs)
        say(f"[{n}] " + ", ".join(f"{k[:-2]} {stages[k]:.2f} s" for k in
                                 ("load_s", "check_s", "dedupe_s", "classify_s", "related_s",
                                  "render_s", "render_site_init_s", "render_pages_s",
                                  "render_files_s")))
    built, build_results = full_and_floor(work, n, runs, floor_too=not args.site_only)
    result = {"size": n, "corpus": facts, **stages, **build_results}
    for measure in SITE_ONLY_MEASUREMENTS if args.site_only else SITE_MEASUREMENTS:
        result.update(measure(built, args))
    return result


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000], metavar="N",
                        help="corpus sizes in papers (default: 1000 3000 10000)")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of each generator stage and of each build (default: 3)")
    parser.add_argument("--quick", action="store_true",
                        help="1000 papers, one run of each: a smoke test for CI")
    parser.add_argument("--listings", type=int, default=8,
                        help="listings the papers are spread over (default: 8)")
    parser.add_argument("--seed", type=int, default=20251122, help="random seed (default: 20251122)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON here")
    parser.add_argument("--workdir", metavar="DIR", help="where the temporary folders go")
    parser.add_argument("--keep", action="store_true", help="keep each size's temporary folder")
    parser.add_argument("--browser", action="store_true",
                        help="also time search in Chromium on loopback (needs /usr/bin/chromium)")
    parser.add_argument("--site-only", action="store_true",
                        help="only the full build and what is measured on its site (bytes, the "
                             "browser): no generator stages, no floor, no serve edit; for 100,000 papers")
    parser.add_argument("--only", choices=["serve"],
                        help="measure only this: 'serve', the one-paper edit under mkdocs serve "
                             "--dirty (no stages, no full or floor build; with --real, one import)")
    parser.add_argument("--real", nargs="?", const=str(REAL_FILE), metavar="FILE",
                        help="also measure the real daily-papers file, imported into a copy of the "
                             f"corpus (default FILE: {REAL_FILE})")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.runs = [1000], 1
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.listings < 2:
        parser.error("--listings must be at least 2")
    return args


def measure_all(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One row of results per corpus measured: the synthetic sizes, then any other corpus."""
    results = [measure_size(n, args) for n in args.sizes]
    if args.real:
        results.append(measure_real(args))
    return results


def main(argv: list[str] | None = None) -> int:
    keep = False
    try:
        args = parse_args(argv)
        keep = args.keep
        command = "python benchmarks/bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
        started = _dt.datetime.now(_dt.UTC)
        source = git_state()
        say(f"measuring {source['commit'][:12]}"
            f"{' with uncommitted changes' if source['dirty'] else ''} (sources copied to {SRC})")
        results = measure_all(args)
    finally:
        if SRC != ROOT and not keep:
            shutil.rmtree(SRC, ignore_errors=True)
    verdicts = targets(results)

    print(table(results))
    print()
    for v in verdicts:
        print(f"- {v['target']}: {v['measured']}: {v['verdict']}")

    if args.json:
        import material
        import mkdocs

        report = {
            "command": command,
            "started": started.isoformat(timespec="seconds"),
            "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "source": source,
            "machine": {"python": platform.python_version(), "platform": platform.platform(),
                        "cpus": os.cpu_count(), "mkdocs": mkdocs.__version__,
                        "material": getattr(material, "__version__", "?")},
            "settings": {"sizes": args.sizes, "runs": args.runs, "listings": args.listings,
                         "seed": args.seed, "real": args.real},
            "results": results,
            "targets": verdicts,
            "table": table(results),
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0
