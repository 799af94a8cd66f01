"""One paper edited under `mkdocs serve --dirty`: how long the rebuild takes, and what it writes.

A fresh process does what `mkdocs serve --dirty` does between two reloads of the browser: loads
the configuration (the plugins kept), builds the site once, then, after one paper's abstract
changes, builds it again. The second build is timed: until its pages are written
(`serve_rebuild_s`), and until the search index, which serve writes in the background after
the pages, is in place too (`serve_index_s`). The watcher's own delay (MkDocs's livereload
notices a change within about half a second) is not included.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .builds import Built
from .launch import Measured
from .progress import say
from .snapshot import subprocess_env

SCRIPT = r"""
import json, logging, sys, time
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

logging.basicConfig(level=logging.ERROR)
project, site, paper = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])

def config():
    return load_config(str(project / "mkdocs.yml"), site_dir=str(site))

def rebuild():
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
    cfg = config()
    t0 = time.perf_counter()
    build(cfg, dirty=True)
    seconds = time.perf_counter() - t0
    written = sum(1 for p in site.rglob("*.html") if before.get(p) != p.stat().st_mtime_ns)
    plugin = cfg.plugins["survey"]
    plugin.wait_for_search_index()  # the search index follows the pages in the background
    return seconds, written, time.perf_counter() - t0

config().plugins.on_startup(command="serve", dirty=True)
first, _, _ = rebuild()
text = paper.read_text(encoding="utf-8")
paper.write_text(text.replace("abstract: ", "abstract: Edited. ", 1) if "abstract: >-" not in text
                 else text.replace("abstract: >-\n  ", "abstract: >-\n  Edited. ", 1), encoding="utf-8")
seconds, written, indexed = rebuild()
paper.write_text(text, encoding="utf-8")
print(json.dumps({"first_s": first, "serve_rebuild_s": seconds, "serve_pages_written": written,
                  "serve_index_s": indexed}))
"""


def serve_rebuild(built: Built, args: argparse.Namespace) -> dict[str, Any]:
    papers = sorted((built.full / "corpus" / "papers").glob("*.yaml"))
    paper = papers[len(papers) // 2]
    site = Path(tempfile.mkdtemp(prefix="survey-bench-serve-", dir=args.workdir))
    t0 = time.perf_counter()
    run = Measured([sys.executable, "-c", SCRIPT, str(built.full), str(site), str(paper)],
                   cwd=built.full, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=subprocess_env())
    code, peak_mb, _ = run.wait()
    out = run.proc.stdout.read().decode() if run.proc.stdout else ""
    if code != 0 or not out.strip():
        raise SystemExit(f"bench: the serve rebuild of {built.full} failed:\n{out[-2000:]}")
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    result["serve_peak_mb"] = peak_mb
    say(f"[{built.papers}] serve --dirty: one paper edited, rebuilt in {result['serve_rebuild_s']:.2f} s "
        f"(search index {result['serve_index_s']:.1f} s) "
        f"({result['serve_pages_written']} pages written; first build {result['first_s']:.1f} s, "
        f"{time.perf_counter() - t0:.0f} s in all)")
    shutil.rmtree(site, ignore_errors=True)
    return result
