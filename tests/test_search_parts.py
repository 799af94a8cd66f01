"""The search index in parts: which papers go to which part, and the bundles a site gets."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, make_corpus, make_project, mkdocs_build, plugin_option, snapshot

from generator.core.errors import SurveyError
from generator.corpus.store import load_corpus
from generator.site.pagefind_data import PAGEFIND_VERSION, _write, canonical_filters
from generator.site.search import LIST_FOLDERS, MANIFEST, OUTPUT, build_index, plan_parts


def test_a_small_site_is_one_part() -> None:
    papers = [(f"papers/p{i}/index.html", f"2024-01-{i + 1:02d}") for i in range(5)]
    assert plan_parts(papers, 5) == [tuple(p for p, _ in reversed(papers))]
    assert plan_parts([], 5) == []


def test_parts_are_newest_first_with_ties_by_path_and_undated_last() -> None:
    papers = [("papers/c/index.html", "2023"), ("papers/a/index.html", None),
              ("papers/b/index.html", "2024-05-01"), ("papers/e/index.html", "2024-05-01"),
              ("papers/d/index.html", "2024-05"), ("papers/f/index.html", None),
              ("papers/g/index.html", "2025-01-31")]
    parts = plan_parts(reversed(papers), 3)
    assert [len(p) for p in parts] == [3, 3, 1]
    assert [page.split("/")[1] for part in parts for page in part] == ["g", "b", "e", "d", "c", "a", "f"]
    assert plan_parts(papers, 3) == parts  # the order given does not matter


def test_pagefind_is_the_release_whose_data_files_the_index_reads() -> None:
    """canonical_filters reads Pagefind's undocumented CBOR layout (search.PAGEFIND_VERSION):
    a new Pagefind fails here until its layout has been checked and the pin moved."""
    from importlib.metadata import version

    assert version("pagefind_bin") == PAGEFIND_VERSION, (
        f"Pagefind {version('pagefind_bin')} is installed; check canonical_filters and "
        f"docs/assets/search.js against it, then move PAGEFIND_VERSION and pyproject.toml's pin")


def test_a_bundle_of_another_layout_fails_loudly(tmp_path: Path) -> None:
    (tmp_path / "filter").mkdir()
    entry = {"version": PAGEFIND_VERSION, "languages": {"en": {"hash": "", "wasm": "en"}}}
    entry["languages"]["en"]["hash"] = _write(tmp_path, "pagefind.en_", ".pf_meta", ["1", [], [], {}], 10
                                              ).removeprefix("pagefind.")
    (tmp_path / "pagefind-entry.json").write_text(json.dumps(entry))
    with pytest.raises(SurveyError, match=re.escape(f"not laid out as Pagefind {PAGEFIND_VERSION}'s")):
        canonical_filters(tmp_path)
    (tmp_path / "pagefind-entry.json").write_text(json.dumps({**entry, "version": "9.0.0"}))
    with pytest.raises(SurveyError, match=r"Pagefind 9\.0\.0 wrote"):
        canonical_filters(tmp_path)


def test_a_part_size_below_one_is_an_error() -> None:
    with pytest.raises(SurveyError, match="part size"):
        plan_parts([("papers/a/index.html", None)], 0)


def bundle_urls(bundle: Path) -> list[str]:
    """The URL of every page in a Pagefind bundle, from its fragments."""
    urls = []
    for fragment in sorted((bundle / "fragment").glob("*.pf_fragment")):
        data = gzip.decompress(fragment.read_bytes()).removeprefix(b"pagefind_dcd")
        urls.append(json.loads(data)["url"])
    return urls


def test_the_seed_site_in_parts_has_every_page_once(real_site: Path, tmp_path: Path) -> None:
    """The built site re-indexed in parts of 100 papers: each page is in exactly one bundle,
    the newest papers and the hand-written pages in the first, in the folder a one-part site
    uses; the manifest lists the others in order; a second run writes the same bytes."""
    corpus = load_corpus(ROOT / "corpus")
    papers = [(f"papers/{p.slug}/index.html", p.date) for p in corpus.papers.values()]
    plan = plan_parts(papers, 100)
    assert [len(p) for p in plan] == [100, 100, 100, len(papers) - 300]
    one = bundle_urls(real_site / OUTPUT)
    assert json.loads((real_site / OUTPUT / MANIFEST).read_text()) == {"parts": []}

    snapshots = []
    for run in (1, 2):
        site = tmp_path / f"site{run}"
        shutil.copytree(real_site, site, copy_function=shutil.copy)
        summary = build_index(site, LIST_FOLDERS, papers, 100)
        assert "in 4 parts" in summary, summary
        output = site / OUTPUT
        assert json.loads((output / MANIFEST).read_text()) == {"parts": ["part-2", "part-3", "part-4"]}
        bundles = [output, *(output / f"part-{n}" for n in (2, 3, 4))]
        urls = [bundle_urls(b) for b in bundles]
        counts = [json.loads((b / "pagefind-entry.json").read_text())["languages"]["en"]["page_count"]
                  for b in bundles]
        assert counts == [len(u) for u in urls]
        assert sum(counts) == len(one) and sorted(u for part in urls for u in part) == sorted(one)
        for part, pages in zip(urls[1:], plan[1:], strict=True):
            assert sorted(part) == sorted("/" + p.removesuffix("index.html") for p in pages)
        assert not [u for u in urls[0] if u.startswith("/papers/")
                    and u[1:] + "index.html" not in plan[0]]
        assert sorted(p.name for p in site.iterdir() if p.name.startswith(".")) == []
        snapshots.append(snapshot(output))
    assert snapshots[0] == snapshots[1]


@pytest.mark.slow
def test_the_build_indexes_in_parts_when_told(tmp_path: Path) -> None:
    """`search_part_size` in mkdocs.yml: the build hands the plugin's paper pages and dates to
    the index, which is the one a re-index of the same pages in parts of that size writes."""
    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    plugin_option(project, "search_part_size: 8")
    site = mkdocs_build(project)
    parts = json.loads((site / OUTPUT / MANIFEST).read_text())["parts"]
    assert len(parts) >= 2 and parts == [f"part-{i}" for i in range(2, len(parts) + 2)]
    built = snapshot(site / OUTPUT)
    papers = [(f"papers/{p.slug}/index.html", p.date)
              for p in load_corpus(project / "corpus").papers.values()]
    build_index(site, LIST_FOLDERS, papers, 8)
    assert snapshot(site / OUTPUT) == built
