"""The invariant over the real feed (../shared/real/): what import writes, check accepts and
MkDocs builds strictly; a second import of the same file changes no byte."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT, make_project, mkdocs_build, plugin_option, real_papers, snapshot, survey

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
    # The build at scale: every paper on the site, the 8,700 with no topic that wait for a
    # curator too (they would leave 669 pages).
    plugin_option(project, "publish_waiting: true")
    corpus = project / "corpus"
    before = load_corpus(corpus)
    result = survey("import", str(real_file), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    counts = re.search(r"entries read: (\d+); papers added: (\d+); already in the corpus: (\d+)",
                       result.stdout)
    assert counts, result.stdout
    read, added, merged = map(int, counts.groups())
    assert read == 9109 and added + merged == read
    # The 19 papers that are also in the seed listings are merged and gain their metadata.
    after = load_corpus(corpus)
    assert len(after.papers) == len(before.papers) + added
    listing, = (li for slug, li in after.listings.items() if slug not in before.listings)
    seeded = [after.papers[e.paper] for e in listing.entries if e.paper in before.papers]
    assert len(seeded) >= 19
    assert all(p.authors and p.date for p in seeded)

    # Then, at once (none writes what another reads; 2 cores do two at a time; 244 s, not 292):
    # `survey check`, the same import again on a copy (it must write nothing), and the strict build.
    files = snapshot(corpus)
    copy = tmp_path / "again" / "corpus"
    shutil.copytree(corpus, copy)
    logs = {name: (tmp_path / f"{name}.out", tmp_path / f"{name}.err") for name in ("check", "again")}

    def start(name: str, *args: str) -> subprocess.Popen[bytes]:
        out, err = (path.open("wb") for path in logs[name])  # files: a full pipe would stall it
        with out, err:
            return subprocess.Popen([sys.executable, "-m", "generator", *args], cwd=ROOT, stdout=out,
                                    stderr=err)

    checking = start("check", "check", "--corpus", str(corpus))
    again = start("again", "import", str(real_file), "--corpus", str(copy))
    site = mkdocs_build(project)
    assert checking.wait(timeout=900) == 0 and again.wait(timeout=900) == 0, logs
    assert logs["check"][1].read_text() == "", logs["check"][1].read_text()[-3000:]
    assert "files written: 0" in logs["again"][0].read_text(), logs["again"][0].read_text()[-3000:]
    assert snapshot(copy) == files
    assert snapshot(corpus) == files  # and neither the check nor the build wrote anything
    some = sorted(set(after.papers) - set(before.papers))[::1000]
    for slug in some:
        page = BeautifulSoup((site / "papers" / slug / "index.html").read_text(encoding="utf-8"),
                             "html.parser")
        heading = page.select_one("article h1")
        assert heading is not None
        for permalink in heading.select("a.headerlink"):
            permalink.decompose()
        assert heading.get_text() == after.papers[slug].title
