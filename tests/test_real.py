"""The invariant over the real feed (../shared/real/): what import writes, check accepts and
MkDocs builds strictly; a second import of the same file changes no byte."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import make_project, mkdocs_build, real_papers, snapshot, survey

from generator.corpus.store import load_corpus

pytestmark = [pytest.mark.slow, pytest.mark.real]


@pytest.fixture(scope="module")
def real_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = real_papers()
    path = tmp_path_factory.mktemp("real-data") / "daily-papers.json"
    with gzip.open(source) as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def test_real_feed_imports_into_a_corpus_that_checks_and_builds(real_file: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    corpus = project / "corpus"
    before = load_corpus(corpus)
    result = survey("import", str(real_file), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    counts = re.search(r"entries read: (\d+); papers added: (\d+); merged into existing papers: (\d+)",
                       result.stdout)
    assert counts, result.stdout
    read, added, merged = map(int, counts.groups())
    assert read == 9109 and added + merged == read
    # The 19 papers that are also in the seed listings are merged and gain their metadata.
    after = load_corpus(corpus)
    assert len(after.papers) == len(before.papers) + added
    seeded = [after.papers[slug] for slug in before.papers if after.papers[slug].arxiv]
    assert len(seeded) >= 19
    assert all(p.authors and p.date for p in seeded)

    checked = survey("check", "--corpus", str(corpus))
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert not checked.stderr

    files = snapshot(corpus)
    again = survey("import", str(real_file), "--corpus", str(corpus))
    assert again.returncode == 0 and "files written: 0" in again.stdout, again.stdout
    assert snapshot(corpus) == files

    site = mkdocs_build(project)
    some = sorted(set(after.papers) - set(before.papers))[::1000]
    for slug in some:
        page = BeautifulSoup((site / "papers" / slug / "index.html").read_text(encoding="utf-8"),
                             "html.parser")
        heading = page.select_one("article h1")
        assert heading is not None
        for permalink in heading.select("a.headerlink"):
            permalink.decompose()
        assert heading.get_text() == after.papers[slug].title
