"""Where a paper came from is true (issue 34, item 4): every import records its source as a
listing a reader understands, with the day it was imported; only `survey add` adds a paper no
listing holds; no page shows an internal file name; a listing's date has its year."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, make_corpus, make_project, mkdocs_build, soup, survey

from generator.corpus.model import is_date
from generator.corpus.store import load_corpus
from generator.sources.listings import listing_day, stem

DAY = {"SOURCE_DATE_EPOCH": "1795824000"}  # 2026-11-28
FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>ML systems papers of 2025</title>
  <link href="https://example.org/feeds/mlsys.atom" rel="self" type="application/atom+xml"/>
  <entry><id>http://arxiv.org/abs/2502.11880v2</id><published>2025-02-17T00:00:00Z</published>
    <title>Bitnet.cpp: Efficient Edge Inference for Ternary LLMs</title>
    <summary>We run ternary models on CPUs with kernels for 1.58-bit weights, 6.25$\\times$ faster
      than full-precision baselines. Code: https://github.com/microsoft/BitNet/tree/paper .</summary>
    <author><name>Jinheng Wang</name></author></entry>
  <entry><id>http://arxiv.org/abs/2502.00001</id><published>2025-02-03T00:00:00Z</published>
    <title>A Second Paper on Serving</title>
    <summary>We serve large language models on many GPUs with a scheduler for batches.</summary></entry>
</feed>
"""


@pytest.mark.parametrize(("shown", "months", "today", "day"), [
    ("Mar 14", ["2024-09", "2024-11"], "2026-11-22", "2025-03-14"),  # after its newest paper
    ("Jan 5", ["2025-01"], "2026-11-22", "2025-01-05"),
    ("Jan 5", ["2025-02"], "2026-11-22", "2026-01-05"),
    ("Mar 14", [], "2026-11-28", "2026-03-14"),  # no paper dated: the last Mar 14 up to the import
    ("Dec 30", [], "2026-11-28", "2025-12-30"),
    ("Mar 14, 2024", ["2025-01"], "2026-11-28", "2024-03-14"),  # as given
    ("2025-03-14", [], "2026-11-28", "2025-03-14"),
    ("Feb 30", [], "2026-11-28", None), ("Someday", [], "2026-11-28", None), (None, [], "2026-11-28", None),
])
def test_a_listing_date_gets_its_year(shown: str | None, months: list[str], today: str,
                                      day: str | None) -> None:
    assert listing_day(shown, months, today) == day


def test_a_feed_is_named_by_its_file() -> None:
    real = "../shared/real/arxiv-mlsys-2024-12-to-2025-12.atom.xml.gz"
    assert stem(real) == "arxiv-mlsys-2024-12-to-2025-12"
    assert stem("refs.bib") == "refs" and stem("v1.2-papers.json") == "v1.2-papers"


@pytest.mark.slow
def test_a_feed_import_records_the_feed_where_a_reader_sees_the_paper(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    feed = tmp_path / "mlsys-2025.atom.xml"
    feed.write_text(FEED, encoding="utf-8")
    result = survey("import", str(feed), "--corpus", str(corpus), env=DAY)
    assert result.returncode == 0, result.stderr
    assert "listing recorded: arxiv-feed-mlsys-2025 (2 entries)" in result.stdout
    (listing,) = load_corpus(corpus).listings.values()
    assert (listing.name, listing.source, listing.imported, listing.url, listing.description,
            listing.date) == (
        "arXiv feed mlsys-2025", "arxiv-atom", "2026-11-28", "https://example.org/feeds/mlsys.atom",
        "ML systems papers of 2025", None)
    again = survey("import", str(feed), "--corpus", str(corpus), env=DAY)  # recognised, not read twice
    assert f"already imported, unchanged: {feed} (listing arxiv-feed-mlsys-2025)" in again.stdout
    assert survey("check", "--corpus", str(corpus)).returncode == 0

    site = mkdocs_build(make_project(tmp_path, corpus))
    slug = listing.entries[0].paper
    page = soup(site / "papers" / slug / "index.html")
    listed = page.find(id="listed-in").find_next("ul").get_text(" ", strip=True)
    assert listed == "arXiv feed mlsys-2025 , entry 1 of 2, imported 2026-11-28"
    assert "added directly" not in page.get_text()
    text = soup(site / "listings" / listing.slug / "index.html")
    body = text.select_one("article").get_text(" ", strip=True)
    assert "arXiv API response (Atom), imported 2026-11-28, from https://example.org/feeds/mlsys.atom" in body
    assert "ML systems papers of 2025" in body and feed.name not in body


@pytest.mark.slow
def test_a_bibliography_import_records_the_bibliography(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    bib = tmp_path / "survey-refs.bib"
    bib.write_text("@article{wang2025,\n  title = {Bitnet.cpp: Efficient Edge Inference for Ternary LLMs},\n"
                   "  abstract = {We run ternary models on CPUs with kernels for 1.58-bit weights.},\n"
                   "  year = {2025}, eprint = {2502.11880}, archivePrefix = {arXiv}\n}\n", encoding="utf-8")
    assert survey("import", str(bib), "--corpus", str(corpus), env=DAY).returncode == 0
    (listing,) = load_corpus(corpus).listings.values()
    assert (listing.name, listing.imported, len(listing.entries)) == ("BibTeX bibliography survey-refs",
                                                                     "2026-11-28", 1)


def test_the_committed_listings_say_when_and_never_a_file_name() -> None:
    for listing in load_corpus(ROOT / "corpus").sorted_listings():
        assert listing.imported == "2026-11-22", listing.slug
        assert listing.date is None or (is_date(listing.date) and len(listing.date) == 10), listing.slug
        assert listing.date is None or listing.date[:4] in listing.name, listing.slug
        assert not re.search(r"\d{3}_[0-9a-f]{16}", listing.name)


@pytest.mark.slow
def test_no_page_shows_an_internal_file_name(real_site: Path) -> None:
    origins = [li.origin for li in load_corpus(ROOT / "corpus").listings.values()]
    # The generated pages (docs/ quotes a file's fields and the import's output, for curators).
    pages = [real_site / "index.html", real_site / "statistics" / "index.html",
             *(page for folder in ("papers", "listings", "topics", "tags")
               for page in (real_site / folder).rglob("*.html"))]
    assert len(pages) > 313
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not [o for o in origins if o in text], page


def test_survey_add_is_what_adds_a_paper_no_listing_holds(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES.parent.parent / "corpus", corpus)
    held = {e.paper for li in load_corpus(corpus).listings.values() for e in li.entries}
    assert held == set(load_corpus(corpus).papers)  # every committed paper came from a listing
