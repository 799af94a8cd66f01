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
  os.wait4 for that one child, so earlier builds do not leak into it);
- site bytes per paper (the whole site folder of the full build / N) and search-index bytes
  per paper (site/search/search_index.json / N).

    python benchmarks/bench.py --sizes 1000 3000 10000 --runs 3 --json out.json
    python benchmarks/bench.py --quick          # 1000 papers, one build of each: a smoke test

See docs/benchmark.md for the targets and the last measured table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .builds import make_projects, mkdocs_build
from .report import table, targets
from .sizes import _tree_bytes
from .snapshot import ROOT, SRC, _git_state
from .stages import generator_stages
from .synthetic import synthesise


def measure_size(n: int, args: argparse.Namespace) -> dict[str, Any]:
    runs = args.runs
    work = Path(tempfile.mkdtemp(prefix=f"survey-bench-{n}-", dir=args.workdir))
    try:
        _say(f"[{n}] writing the synthetic corpus in {work}")
        t0 = time.perf_counter()
        facts = synthesise(work / "corpus", n, args.seed, args.listings)
        facts["synthesis_s"] = round(time.perf_counter() - t0, 2)
        _say(f"[{n}] {facts}")

        _say(f"[{n}] generator stages, {runs} run(s) each")
        stages = generator_stages(work / "corpus", SRC / "templates", runs)
        _say(f"[{n}] " + ", ".join(f"{k[:-2]} {stages[k]:.2f} s" for k in
                                  ("load_s", "check_s", "dedupe_s", "classify_s", "related_s",
                                   "render_s", "render_site_init_s", "render_pages_s",
                                   "render_files_s")))

        full, floor = make_projects(work, work / "corpus")
        builds: dict[str, list[dict[str, Any]]] = {"full": [], "floor": []}
        for i in range(runs):
            for kind, project in (("full", full), ("floor", floor)):
                b = mkdocs_build(project, work / f"site-{kind}", work / f"{kind}-{i}.log")
                builds[kind].append(b)
                _say(f"[{n}] {kind} build {i + 1}/{runs}: {b['seconds']:.2f} s "
                     f"({b['cpu_s']:.2f} s CPU), "
                     f"peak {b['peak_mb']:.0f} MB, {len(b['warnings'])} warning line(s)")
        for kind in builds:
            if builds[kind][-1]["warnings"]:
                _say(f"[{n}] {kind} build warnings: " + " | ".join(builds[kind][-1]["warnings"][:5]))

        site_full, site_floor = work / "site-full", work / "site-floor"
        site_bytes = _tree_bytes(site_full)
        theme_bytes = _tree_bytes(site_full / "assets")  # the theme's CSS, JS and fonts: fixed
        search_bytes = (site_full / "search" / "search_index.json").stat().st_size
        html_full = sum(1 for _ in site_full.rglob("*.html"))
        html_floor = sum(1 for _ in site_floor.rglob("*.html"))
        if html_full != html_floor:
            _say(f"[{n}] NOTE: the full site has {html_full} HTML pages, the floor {html_floor}")
        full_s = statistics.median(b["seconds"] for b in builds["full"])
        floor_s = statistics.median(b["seconds"] for b in builds["floor"])
        full_cpu = statistics.median(b["cpu_s"] for b in builds["full"])
        floor_cpu = statistics.median(b["cpu_s"] for b in builds["floor"])
        return {
            "size": n,
            "corpus": facts,
            **{k: v for k, v in stages.items()},
            "full_s": full_s,
            "floor_s": floor_s,
            "ratio": full_s / floor_s,
            "full_runs": [b["seconds"] for b in builds["full"]],
            "floor_runs": [b["seconds"] for b in builds["floor"]],
            "full_cpu_s": full_cpu,
            "floor_cpu_s": floor_cpu,
            "ratio_cpu": full_cpu / floor_cpu,
            "load_before_builds": [round(b["load_before"], 2) for k in builds for b in builds[k]],
            "full_cpu_runs": [b["cpu_s"] for b in builds["full"]],
            "floor_cpu_runs": [b["cpu_s"] for b in builds["floor"]],
            "full_peak_mb": max(b["peak_mb"] for b in builds["full"]),
            "floor_peak_mb": max(b["peak_mb"] for b in builds["floor"]),
            "site_bytes": site_bytes,
            "site_bytes_floor": _tree_bytes(site_floor),
            "html_pages": html_full,
            "kb_per_paper": site_bytes / n / 1024,
            "assets_bytes": theme_bytes,
            "site_breakdown": {e.name: (_tree_bytes(e) if e.is_dir() else e.stat().st_size)
                               for e in sorted(site_full.iterdir())},
            "kb_per_paper_without_assets": (site_bytes - theme_bytes) / n / 1024,
            "search_bytes": search_bytes,
            "search_kb_per_paper": search_bytes / n / 1024,
            "build_warnings": builds["full"][-1]["warnings"],
        }
    finally:
        if args.keep:
            _say(f"[{n}] kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
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
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.runs = [1000], 1
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.listings < 2:
        parser.error("--listings must be at least 2")

    command = "python benchmarks/bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    started = _dt.datetime.now(_dt.UTC)
    source = _git_state()
    _say(f"measuring {source['commit'][:12]}{' with uncommitted changes' if source['dirty'] else ''} "
         f"(sources copied to {SRC})")
    try:
        results = [measure_size(n, args) for n in args.sizes]
    finally:
        if SRC != ROOT and not args.keep:
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
                         "seed": args.seed},
            "results": results,
            "targets": verdicts,
            "table": table(results),
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0
