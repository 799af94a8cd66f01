"""`mkdocs serve --dirty` rebuilds only what changed, and the result is the site a clean build
writes: edits, an added paper and a removed paper, compared file by file."""

from __future__ import annotations

import filecmp
import gc
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import make_corpus, make_project, mkdocs_build, replace_in, snapshot
from mkdocs.commands.build import build
from mkdocs.config import load_config

from generator.corpus.store import CorpusCache, load_corpus


@pytest.fixture
def dirty_rebuild(tmp_path: Path) -> Iterator[tuple[Path, Path, Callable[..., set[str]]]]:
    """A project, its served site, and a rebuild as `mkdocs serve --dirty` does it (one process,
    the plugins kept); the rebuild returns the pages it rendered."""
    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    served = tmp_path / "served"

    def config() -> object:
        return load_config(str(project / "mkdocs.yml"), site_dir=str(served))

    first = config()
    first.plugins.on_startup(command="serve", dirty=True)  # type: ignore[attr-defined]

    def rebuild(wait: bool = True) -> set[str]:
        cfg = config()
        before = {p: p.stat().st_mtime_ns for p in served.rglob("*.html")}
        build(cfg, dirty=True)  # type: ignore[arg-type]
        # The search index follows in the background: wait for it, as a reader's next search does.
        if wait:
            assert cfg.plugins["survey"].wait_for_search_index(timeout=300)  # type: ignore[attr-defined]
        return {str(p.relative_to(served)) for p in served.rglob("*.html")
                if before.get(p) != p.stat().st_mtime_ns}

    try:
        yield project, served, rebuild
    finally:
        first.plugins.on_shutdown()  # type: ignore[attr-defined]
    assert gc.get_freeze_count() == 0  # the serve's frozen objects are the collector's again


def _differences(clean: Path, served: Path) -> list[str]:
    left = {str(p.relative_to(clean)) for p in clean.rglob("*") if p.is_file()}
    right = {str(p.relative_to(served)) for p in served.rglob("*") if p.is_file()}
    out = [f"only in the clean build: {p}" for p in sorted(left - right)]
    out += [f"only in the served site: {p}" for p in sorted(right - left)]
    out += [f"differs: {p}" for p in sorted(left & right)
            if p != "sitemap.xml.gz" and not filecmp.cmp(clean / p, served / p, shallow=False)]
    dirs = {str(p.relative_to(served)) for p in served.rglob("*") if p.is_dir()}
    out += [f"empty folder left: {d}" for d in sorted(dirs) if not any((served / d).iterdir())]
    return out


@pytest.mark.slow
def test_incremental_rebuilds_equal_a_clean_build(
    dirty_rebuild: tuple[Path, Path, Callable[..., set[str]]], tmp_path: Path
) -> None:
    project, served, rebuild = dirty_rebuild
    papers = project / "corpus" / "papers"

    def clean(name: str) -> Path:
        """The site a clean `mkdocs build --strict` writes, in a fork of this process (0.5 s of
        2 s of CPU less than a new interpreter: it has built the served site). What the serve
        keeps is its plugin's and the corpus cache of mkdocs_plugin._CACHES, which a build does
        not use."""
        return mkdocs_build(project, tmp_path / name, fork=True)

    rebuild()
    assert _differences(clean("clean0"), served) == []
    # Once the index is in place, the garbage is collected and what is left frozen: the next
    # rebuild's collections scan only what it makes.
    assert gc.get_freeze_count() > 0

    # An edit to one abstract: its page and the pages that quote it, nothing else.
    path = replace_in(papers / "rewrite-the-stars.yaml", "Recent studies", "Newer studies", 1)
    changed = rebuild()
    assert "papers/rewrite-the-stars/index.html" in changed
    assert len(changed) < 10, sorted(changed)
    assert _differences(clean("clean1"), served) == []

    # A title edit: the tag listings show titles, so they follow.
    replace_in(path, "title: Rewrite the Stars", "title: Rewrite the Stars Again", 1)
    rebuild()
    titled = snapshot(project / "corpus"), clean("clean2")
    assert _differences(titled[1], served) == []

    def as_titled() -> Path:
        """The clean build of the corpus as it was after the title edit, which it is again file
        for file: one corpus builds to the same bytes (test_site.py's two builds)."""
        assert snapshot(project / "corpus") == titled[0]
        return titled[1]

    # An added paper: its page, its topic and tag pages, the pages listing it.
    shutil.copy(papers / "rewrite-the-stars.yaml", papers / "a-new-paper.yaml")
    new = replace_in(papers / "a-new-paper.yaml", "slug: rewrite-the-stars", "slug: a-new-paper")
    replace_in(new, "title: Rewrite the Stars Again", "title: A New Paper About Stars")
    changed = rebuild()
    assert "papers/a-new-paper/index.html" in changed
    assert len(changed) < 100, len(changed)
    assert _differences(clean("clean3"), served) == []

    # A removed paper: its page goes, and every page that mentioned it follows.
    new.unlink()
    rebuild()
    assert not (served / "papers" / "a-new-paper").exists()
    assert _differences(as_titled(), served) == []

    # A paper whose review is undone, with no topic suggested, waits for a curator: its page
    # goes, and its listing's page leaves its entry out; kept again, it is back.
    reviewed = path.read_text()
    path.write_text(reviewed.replace("curated:\n- topics\n", "curated:\n", 1))
    rebuild()
    assert not (served / "papers" / "rewrite-the-stars").exists()
    assert _differences(clean("clean-waiting"), served) == []
    path.write_text(reviewed)
    assert "papers/rewrite-the-stars/index.html" in rebuild()
    assert _differences(as_titled(), served) == []

    # Two edits in quick succession: the second build starts while the first one's index is
    # being written; the newer request wins, and the index in place is the second build's.
    text = path.read_text()
    path.write_text(text.replace("Newer studies", "Later studies", 1))
    rebuild(wait=False)
    path.write_text(text.replace("Newer studies", "Latest studies", 1))
    rebuild()
    assert _differences(clean("clean5"), served) == []


def _tiny_site(site: Path, words: str) -> None:
    for name in ("a", "b"):
        (site / name).mkdir(parents=True, exist_ok=True)
        (site / name / "index.html").write_text(
            f"<html lang='en'><body><main data-pagefind-body><h1>{name}</h1><p>{words} {name}</p>"
            "</main></body></html>", encoding="utf-8")


@pytest.mark.parametrize("part_size", [None, 1], ids=["one part", "in parts"])
def test_background_index_newest_request_wins(tmp_path: Path, part_size: int | None) -> None:
    """Serve's search index: written beside the site and swapped in; a newer request cancels
    an older one, and what is left is exactly what a synchronous index of the site writes,
    also when the index is in parts (each page its own part here)."""
    from generator.site.search import PART, build_index
    from generator.site.search_background import BackgroundIndex

    papers: list[tuple[str, str | None]] = [("a/index.html", "2024"), ("b/index.html", None)]
    size = part_size or PART

    site, reference = tmp_path / "site", tmp_path / "reference"
    reports: list[str] = []
    failures: list[str] = []
    afterwards: list[int] = []
    index = BackgroundIndex(report=reports.append, fail=failures.append,
                            then=lambda: afterwards.append(len(reports)))
    _tiny_site(site, "first words")
    index.start(site, (), papers, size)
    assert index.wait(timeout=120)
    assert failures == [] and len(reports) == 1
    assert afterwards == [1]  # `then` ran once the index was in place, before wait returned
    _tiny_site(site, "second words")
    index.start(site, (), papers, size)
    _tiny_site(site, "third words")
    index.start(site, (), papers, size)  # the second run is cancelled, or its index replaced: never mixed
    assert index.wait(timeout=120)
    assert failures == []
    assert sorted(p.name for p in site.iterdir()) == ["a", "b", "pagefind"]

    _tiny_site(reference, "third words")
    build_index(reference, (), papers, size)
    assert snapshot(site / "pagefind") == snapshot(reference / "pagefind")
    assert (site / "pagefind" / "survey-parts.json").read_text() == (
        '{"parts": ["part-2"]}\n' if part_size else '{"parts": []}\n')
    index.cancel()
    assert index.wait(timeout=1)


def test_exports_with_a_memo_are_the_same_text() -> None:
    """Serve reuses each paper's JSON and CSV while its record is the same; the files are the
    ones a clean build writes."""
    import dataclasses

    from conftest import ROOT

    from generator.corpus.export import Memo, exports, to_csv, to_json
    from generator.corpus.store import load_corpus

    corpus = load_corpus(ROOT / "corpus")
    memo: Memo = {}
    assert exports(corpus, memo) == (to_json(corpus), to_csv(corpus))
    slug = sorted(corpus.papers)[5]
    corpus.papers[slug] = dataclasses.replace(corpus.papers[slug], title='Edited "title", again',
                                              abstract="Ünïcode, quotes \" and\nbreaks")
    assert exports(corpus, memo) == (to_json(corpus), to_csv(corpus))
    del corpus.papers[slug]
    assert exports(corpus, memo) == (to_json(corpus), to_csv(corpus))
    corpus.papers.clear()
    assert exports(corpus, memo) == (to_json(corpus), to_csv(corpus))


def test_the_serve_cache_sees_a_changed_file_whose_mtime_and_size_were_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cp -p`, `rsync -t` and `tar x` restore a file's mtime: the cache still sees the edit."""
    corpus = make_corpus(tmp_path / "corpus", "papers", ["rewrite-the-stars"])
    monkeypatch.setattr(CorpusCache, "RACY_NS", 0)  # the file was made just now: cache it all the same
    cache = CorpusCache()
    assert load_corpus(corpus, cache=cache).papers["rewrite-the-stars"].title == "Rewrite the Stars"
    path = corpus / "papers" / "rewrite-the-stars.yaml"
    st = path.stat()
    replace_in(path, "Rewrite the Stars", "Rewrite the Stabs")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_mtime_ns, path.stat().st_size) == (st.st_mtime_ns, st.st_size)
    assert load_corpus(corpus, cache=cache).papers["rewrite-the-stars"].title == "Rewrite the Stabs"

