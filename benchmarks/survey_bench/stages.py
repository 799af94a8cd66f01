"""The generator alone, stage by stage, in this process."""

from __future__ import annotations

import gc
import inspect
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.classify.suggest import suggest
from generator.core.settings import mkdocs_config
from generator.corpus.check import (
    check_corpus,
    duplicate_problems,
    listing_problems,
    vocabulary_problems,
)
from generator.corpus.store import load_corpus
from generator.site.render import Site
from generator.sources.dedupe import Index

from .snapshot import SRC


def _timed(fn: Callable[[], Any], runs: int) -> tuple[float, list[float], Any]:
    times = []
    value = None
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, value


def generator_stages(corpus_dir: Path, templates: Path, runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {}

    med, times, corpus = _timed(lambda: load_corpus(corpus_dir), runs)
    out["load_s"], out["load_runs"] = med, times

    _, problems = check_corpus(corpus_dir)
    if problems:
        shown = "\n".join(problems.lines()[:10])
        raise SystemExit(f"bench: the synthetic corpus is not valid ({len(problems)} problems):\n{shown}")

    def check() -> int:
        return len([*vocabulary_problems(corpus), *duplicate_problems(corpus), *listing_problems(corpus)])

    out["check_s"], out["check_runs"], _ = _timed(check, runs)

    def dedupe() -> int:
        index = Index.of(corpus.papers, corpus.listings)
        found = 0
        for p in corpus.sorted_papers():
            index.match(p.title, p.abstract, p.arxiv)
            found += len(index.possible(p.title, p.abstract, exclude=p.slug))
        return found

    out["dedupe_s"], out["dedupe_runs"], out["possible_duplicates"] = _timed(dedupe, runs)

    def classify() -> int:
        return sum(len(suggest(corpus.taxonomy, p.title, p.abstract).tag_ids)
                   for p in corpus.sorted_papers())

    out["classify_s"], out["classify_runs"], _ = _timed(classify, runs)

    try:  # related papers (TF-IDF), computed when a Site is made; absent from older generators
        from generator.site import related
    except ImportError:
        out["related_s"], out["related_runs"] = 0.0, []
    else:
        out["related_s"], out["related_runs"], _ = _timed(
            lambda: related.related_papers(corpus.sorted_papers()), runs)

    # What the plugin's on_files does after check_corpus: make the Site, render every page,
    # make the other files (feeds, exports) where the generator has them.
    parts: dict[str, list[float]] = {"site_init": [], "pages": [], "files": []}

    def render() -> tuple[dict[str, str], dict[str, str]]:
        t0 = time.perf_counter()
        site = make_site(corpus, templates)
        t1 = time.perf_counter()
        pages = site.pages()
        t2 = time.perf_counter()
        others = site.files() if hasattr(site, "files") else {}
        t3 = time.perf_counter()
        parts["site_init"].append(t1 - t0)
        parts["pages"].append(t2 - t1)
        parts["files"].append(t3 - t2)
        return pages, others

    out["render_s"], out["render_runs"], (pages, others) = _timed(render, runs)
    for name, times in parts.items():
        out[f"render_{name}_s"] = statistics.median(times)
    out["pages"] = len(pages)
    out["markdown_bytes"] = sum(len(v.encode()) for v in pages.values())
    out["other_files"] = len(others)
    out["other_files_bytes"] = sum(len(v.encode()) for v in others.values())
    return out


SITE_URL = (mkdocs_config(SRC / "mkdocs.yml") or {}).get("site_url") or ""


def make_site(corpus: Any, templates: Path) -> Site:
    """A Site as the plugin makes it (with the site URL where the generator takes one)."""
    if "publish_waiting" in inspect.signature(Site).parameters:  # every paper: builds.py says why
        return Site(corpus, templates, site_url=SITE_URL, publish_waiting=True)  # type: ignore[call-arg]
    if "site_url" in inspect.signature(Site).parameters:
        return Site(corpus, templates, site_url=SITE_URL)  # type: ignore[call-arg]
    return Site(corpus, templates)
