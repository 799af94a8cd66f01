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

See docs/benchmark.md for the targets and the latest figures, benchmarks/results/history.md for
the earlier runs.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

from .measure import measure_size
from .progress import say
from .real import REAL_FILE, measure_real
from .report import table, targets
from .snapshot import ROOT, SRC, git_state


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
    parser.add_argument("--only", choices=["serve", "review"],
                        help="measure only this: 'serve', the one-paper edit under mkdocs serve "
                             "--dirty (no stages, no full or floor build; with --real, one import); "
                             "'review', survey review's first screen and --list (no build)")
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
