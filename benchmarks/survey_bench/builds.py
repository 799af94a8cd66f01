"""The full `mkdocs build` and the floor: the same Markdown built by MkDocs without the plugin."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from generator.corpus.store import load_corpus
from generator.site.render import NavItem

from .snapshot import SRC, _env
from .stages import make_site


def _nav_data(items: list[NavItem], configured: Any) -> list[Any]:
    """The nav the plugin gives MkDocs: the generated items, then mkdocs.yml's own `nav`."""
    def convert(item: NavItem) -> Any:
        if item.path is None:
            return {item.title: [convert(c) for c in item.children]}
        return {item.title: item.path}

    return [convert(i) for i in items if i.path is not None or i.children] + list(configured or [])


def make_projects(work: Path, corpus_dir: Path) -> tuple[Path, Path]:
    """The full project (the repository's site sources around the corpus) and the floor one."""
    full = work / "full"
    full.mkdir()
    shutil.copy(SRC / "mkdocs.yml", full / "mkdocs.yml")
    shutil.copytree(SRC / "docs", full / "docs")
    shutil.copytree(SRC / "templates", full / "templates")
    shutil.move(str(corpus_dir), full / "corpus")

    floor = work / "floor"
    floor.mkdir()
    shutil.copytree(SRC / "docs", floor / "docs")
    # templates/ too: the theme's custom_dir (templates/theme) must be the same in both builds.
    shutil.copytree(SRC / "templates", floor / "templates")
    config = yaml.safe_load((SRC / "mkdocs.yml").read_text(encoding="utf-8"))
    cmd = [sys.executable, "-m", "generator", "build", "--out", str(floor / "docs"),
           "--corpus", str(full / "corpus"), "--templates", str(full / "templates")]
    build_help = subprocess.run([sys.executable, "-m", "generator", "build", "--help"],
                                capture_output=True, text=True, cwd=SRC, env=_env()).stdout
    if "--site-url" in build_help and config.get("site_url"):
        cmd += ["--site-url", config["site_url"]]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=full, env=_env())
    if result.returncode != 0:
        raise SystemExit(f"bench: survey build failed:\n{result.stdout}{result.stderr}")
    config["plugins"] = [p for p in config["plugins"]
                         if not (p == "survey" or (isinstance(p, dict) and "survey" in p))]
    site = make_site(load_corpus(full / "corpus"), full / "templates")
    config["nav"] = _nav_data(site.nav(), config.get("nav"))
    # The plugin marks papers/* and tags/* (but not tags/index.md) as not in the nav.
    config["not_in_nav"] = "papers/\ntags/*.md\n!tags/index.md\n"
    (floor / "mkdocs.yml").write_text(
        yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=10**9), encoding="utf-8")
    return full, floor


def mkdocs_build(project: Path, site: Path, log: Path) -> dict[str, Any]:
    """One `mkdocs build` in a fresh subprocess: wall time, its own peak RSS, warnings."""
    if site.exists():
        shutil.rmtree(site)
    env = _env()
    cmd = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)]
    load_before = os.getloadavg()[0]  # other work on the machine shows here
    with open(log, "w", encoding="utf-8") as fh:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=project, stdout=fh, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(encoding="utf-8", errors="replace")
    if proc.returncode != 0:
        raise SystemExit(f"bench: mkdocs build failed in {project}:\n{text[-4000:]}")
    warnings = [line for line in text.splitlines() if line.startswith("WARNING")]
    return {"seconds": seconds, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024, "load_before": load_before, "warnings": warnings}
