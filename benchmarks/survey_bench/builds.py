"""The full `mkdocs build` and the floor: the same Markdown built by MkDocs without the plugin."""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.core.settings import mkdocs_config
from generator.corpus.store import load_corpus
from generator.site.render import NavItem

from .launch import Measured
from .progress import say
from .snapshot import SRC, subprocess_env
from .stages import make_site


def _nav_data(items: list[NavItem], configured: Any) -> list[Any]:
    """The nav the plugin gives MkDocs: the generated items, then mkdocs.yml's own `nav`."""
    def convert(item: NavItem) -> Any:
        if item.path is None:
            return {item.title: [convert(c) for c in item.children]}
        return {item.title: item.path}

    return [convert(i) for i in items if i.path is not None or i.children] + list(configured or [])


def make_projects(work: Path, corpus_dir: Path, floor_too: bool = True) -> tuple[Path, Path]:
    """The full project (the repository's site sources around the corpus) and the floor one."""
    full = work / "full"
    full.mkdir()
    shutil.copy(SRC / "mkdocs.yml", full / "mkdocs.yml")
    # Every paper on the site, as before the site left out the papers that wait for a curator
    # (a third of the synthetic papers and most of the real feed's): the figures measure scale.
    config_text = (full / "mkdocs.yml").read_text(encoding="utf-8")
    (full / "mkdocs.yml").write_text(config_text.replace("publish_waiting: false", "publish_waiting: true"),
                                     encoding="utf-8")
    shutil.copytree(SRC / "docs", full / "docs")
    shutil.copytree(SRC / "templates", full / "templates")
    shutil.move(str(corpus_dir), full / "corpus")

    floor = work / "floor"
    if not floor_too:
        return full, floor
    floor.mkdir()
    shutil.copytree(SRC / "docs", floor / "docs")
    # templates/ too: the theme's custom_dir (templates/theme) must be the same in both builds.
    shutil.copytree(SRC / "templates", floor / "templates")
    config = mkdocs_config(SRC / "mkdocs.yml")
    cmd = [sys.executable, "-m", "generator", "build", "--out", str(floor / "docs"),
           "--corpus", str(full / "corpus"), "--templates", str(full / "templates")]
    build_help = subprocess.run([sys.executable, "-m", "generator", "build", "--help"],
                                capture_output=True, text=True, cwd=SRC, env=subprocess_env()).stdout
    if "--site-url" in build_help and config.get("site_url"):
        cmd += ["--site-url", config["site_url"]]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=full, env=subprocess_env())
    if result.returncode != 0:
        raise SystemExit(f"bench: survey build failed:\n{result.stdout}{result.stderr}")
    config["plugins"] = [p for p in config["plugins"]
                         if not (p == "survey" or (isinstance(p, dict) and "survey" in p))]
    site = make_site(load_corpus(full / "corpus"), full / "templates")
    config["nav"] = _nav_data(site.nav(), config.get("nav"))
    # The plugin keeps out of the nav every page its own nav does not list.
    config["not_in_nav"] = "papers/\ntags/\n!tags/index.md\ntopics/*/\nlistings/*/\nsearch.md\n"
    (floor / "mkdocs.yml").write_text(
        yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=10**9), encoding="utf-8")
    return full, floor


# The floor's search index: the plugin's own indexing step (generator.site.search.build_index,
# Pagefind and the sorting of its filters) run on the floor's site once MkDocs has written it.
_INDEX = ("import sys; from pathlib import Path; from generator.site import search; "
          "print('search index written to pagefind/ ' + search.build_index(Path(sys.argv[1]), "
          "getattr(search, 'LIST_FOLDERS', ())))")


def index_site(site: Path, log: Path) -> dict[str, Any]:
    """Pagefind over a built site, as the plugin runs it, in a fresh subprocess."""
    with open(log, "a", encoding="utf-8") as fh:
        t0 = time.perf_counter()
        code, peak_mb, cpu_s = Measured([sys.executable, "-c", _INDEX, str(site)], stdout=fh,
                                        stderr=subprocess.STDOUT, env=subprocess_env()).wait()
        seconds = time.perf_counter() - t0
    text = log.read_text(encoding="utf-8", errors="replace")
    if code != 0:
        raise SystemExit(f"bench: indexing {site} failed:\n{text[-4000:]}")
    return {"seconds": seconds, "cpu_s": cpu_s, "peak_mb": peak_mb, "search_index_s": _index_s(text)}


def _index_s(log_text: str) -> float | None:
    indexed = re.search(r"search index written to pagefind/ in ([\d.]+) s", log_text)
    return float(indexed.group(1)) if indexed else None


def floor_build(project: Path, site: Path, log: Path) -> dict[str, Any]:
    """The floor: `mkdocs build` without the plugin, then the same Pagefind run on its site.

    MkDocs and Material alone would give a site with a search index (Material's search
    plugin); this one gets the index the full site has, so full / floor charges the plugin
    with its own work only. Time and CPU time are the two steps' sum, the peak memory their
    larger one (as for the full build, whose Pagefind runs as a child of MkDocs).
    """
    built = mkdocs_build(project, site, log)
    index = index_site(site, log)
    return {**built, "seconds": built["seconds"] + index["seconds"],
            "cpu_s": built["cpu_s"] + index["cpu_s"], "peak_mb": max(built["peak_mb"], index["peak_mb"]),
            "mkdocs_s": built["seconds"], "mkdocs_cpu_s": built["cpu_s"], "mkdocs_peak_mb": built["peak_mb"],
            "index_peak_mb": index["peak_mb"], "search_index_s": index["search_index_s"]}


def mkdocs_build(project: Path, site: Path, log: Path) -> dict[str, Any]:
    """One `mkdocs build` in a fresh subprocess: wall time, its own peak RSS, warnings."""
    if site.exists():
        shutil.rmtree(site)
    env = subprocess_env()
    cmd = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)]
    load_before = os.getloadavg()[0]  # other work on the machine shows here
    with open(log, "w", encoding="utf-8") as fh:
        t0 = time.perf_counter()
        code, peak_mb, cpu_s = Measured(cmd, cwd=project, stdout=fh, stderr=subprocess.STDOUT, env=env).wait()
        seconds = time.perf_counter() - t0
    text = log.read_text(encoding="utf-8", errors="replace")
    if code != 0:
        raise SystemExit(f"bench: mkdocs build failed in {project}:\n{text[-4000:]}")
    warnings = [line for line in text.splitlines() if line.startswith("WARNING")]
    return {"seconds": seconds, "cpu_s": cpu_s, "peak_mb": peak_mb, "load_before": load_before,
            "warnings": warnings, "search_index_s": _index_s(text)}


@dataclass(frozen=True)
class Built:
    """A corpus after its builds: the two projects and the sites they built last."""

    papers: int
    full: Path
    floor: Path
    site_full: Path
    site_floor: Path


def full_and_floor(work: Path, n: int, runs: int, floor_too: bool = True) -> tuple[Built, dict[str, Any]]:
    """`runs` builds of each project made around work/corpus, alternating: times and memory.

    Without `floor_too` only the full site is built (for sizes where the floor takes too long).
    """
    full, floor = make_projects(work, work / "corpus", floor_too)
    builds: dict[str, list[dict[str, Any]]] = {"full": [], "floor": []}
    for i in range(runs):
        for kind, project in (("full", full), ("floor", floor))[:2 if floor_too else 1]:
            build = mkdocs_build if kind == "full" else floor_build
            b = build(project, work / f"site-{kind}", work / f"{kind}-{i}.log")
            builds[kind].append(b)
            say(f"[{n}] {kind} build {i + 1}/{runs}: {b['seconds']:.2f} s "
                f"({b['cpu_s']:.2f} s CPU), "
                f"peak {b['peak_mb']:.0f} MB, {len(b['warnings'])} warning line(s)")
    built = Built(n, full, floor, work / "site-full", work / "site-floor")
    if not floor_too:
        return built, {
            "full_s": statistics.median(b["seconds"] for b in builds["full"]),
            "full_runs": [b["seconds"] for b in builds["full"]],
            "full_cpu_s": statistics.median(b["cpu_s"] for b in builds["full"]),
            "full_peak_mb": max(b["peak_mb"] for b in builds["full"]),
            "build_warnings": builds["full"][-1]["warnings"],
            "search_index_s": _median_of(builds["full"], "search_index_s"),
        }
    for kind in builds:
        if builds[kind][-1]["warnings"]:
            say(f"[{n}] {kind} build warnings: " + " | ".join(builds[kind][-1]["warnings"][:5]))
    full_s = statistics.median(b["seconds"] for b in builds["full"])
    floor_s = statistics.median(b["seconds"] for b in builds["floor"])
    full_cpu = statistics.median(b["cpu_s"] for b in builds["full"])
    floor_cpu = statistics.median(b["cpu_s"] for b in builds["floor"])
    full_index = _median_of(builds["full"], "search_index_s")
    floor_index = _median_of(builds["floor"], "search_index_s")
    # Both ratios: with the index in both builds (the target's), and with it out of both.
    bare = ((full_s - full_index) / (floor_s - floor_index)
            if full_index is not None and floor_index is not None else None)
    return built, {
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
        "build_warnings": builds["full"][-1]["warnings"],
        "search_index_s": full_index,
        "floor_search_index_s": floor_index,
        "ratio_without_index": bare,
        "floor_mkdocs_s": statistics.median(b["mkdocs_s"] for b in builds["floor"]),
        "floor_mkdocs_peak_mb": max(b["mkdocs_peak_mb"] for b in builds["floor"]),
        "floor_index_peak_mb": max(b["index_peak_mb"] for b in builds["floor"]),
    }


def _median_of(builds: list[dict[str, Any]], key: str) -> float | None:
    values = [b[key] for b in builds if b.get(key) is not None]
    return statistics.median(values) if values else None
