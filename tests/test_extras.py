"""Related papers, Atom feeds, downloadable exports, BibTeX and the statistics page."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import feedparser
import pytest
from conftest import ROOT, make_corpus, make_project, mkdocs_build, soup, survey

from generator.core.text import first_sentence
from generator.corpus.export import bibtex, bibtex_keys
from generator.corpus.model import Paper
from generator.corpus.store import load_corpus
from generator.site.entries import shown_authors, shown_date
from generator.site.related import related_papers

CORPUS = load_corpus(ROOT / "corpus")
SITE_URL = "https://ml-systems-survey.github.io/survey/"


def test_two_versions_of_a_paper_find_each_other_first(tmp_path: Path) -> None:
    """With the k-medoids versions kept apart, each is the other's most related paper."""
    papers = list(CORPUS.papers.values())
    merged = next(p for p in papers if p.alternate_titles)
    listing = next(li for li in CORPUS.listings.values() for e in li.entries
                   if e.paper == merged.slug and e.abstract)
    entry = next(e for e in listing.entries if e.paper == merged.slug and e.abstract)
    other = Paper(slug="faster-k-medoids", title=merged.alternate_titles[0], abstract=entry.abstract)
    original = Paper(slug=merged.slug, title=merged.title, abstract=merged.abstract)
    rest = [p for p in papers if p.slug != merged.slug]
    related = related_papers([*rest, original, other])
    assert related[original.slug][0] == other.slug
    assert related[other.slug][0] == original.slug


def test_most_related_papers_share_a_topic() -> None:
    related = related_papers(list(CORPUS.papers.values()))
    shares = []
    for slug, others in related.items():
        mine = set(CORPUS.papers[slug].topics) or {"other"}
        if others:
            shares.append(sum(bool((set(CORPUS.papers[o].topics) or {"other"}) & mine)
                              for o in others) / len(others))
    majority = sum(s > 0.5 for s in shares) / len(shares)
    assert majority >= 0.7, majority  # measured: 0.70 of papers, mean share 0.66
    assert all(len(v) <= 5 and len(set(v)) == len(v) for v in related.values())
    assert related == related_papers(list(reversed(list(CORPUS.papers.values()))))


def test_paper_pages_list_related_papers(real_site: Path) -> None:
    related = related_papers(list(CORPUS.papers.values()))
    for slug in list(sorted(CORPUS.papers))[:40]:
        page = soup(real_site / "papers" / slug / "index.html")
        section = page.find(id="related-papers").find_next("ul")
        hrefs = [a["href"] for a in section.find_all("a")]
        assert hrefs == [f"../{other}/" for other in related[slug]]
        # each as the lists name a paper: its first authors and its date (the year only, before)
        for li, other in zip(section.find_all("li"), related[slug], strict=True):
            paper = CORPUS.papers[other]
            names, more = shown_authors(paper)
            said = ", ".join(names) + (" et al." if more else "")
            assert (f" · {said}" if said else "") + (f" · {shown_date(paper.date)}" if paper.date else "") \
                in li.get_text(), li.get_text()


def test_feeds_parse_and_hold_the_right_entries(real_site: Path) -> None:
    feed = feedparser.parse((real_site / "feed.xml").read_bytes())
    assert not feed.bozo, feed.bozo_exception
    assert feed.version == "atom10"
    assert len(feed.entries) == 50
    # newest added first; among papers added the same day, by their date (all full days here)
    expected = sorted(CORPUS.papers.values(), key=lambda p: (p.added or "", p.date or "", p.slug),
                      reverse=True)[:50]
    dated = [bool(p.date) for p in expected]
    assert dated[0] and dated == sorted(dated, reverse=True)  # the dated papers lead
    assert [e.link for e in feed.entries] == [SITE_URL + p.path for p in expected]
    assert feed.entries[0].title == expected[0].title
    assert feed.entries[0].summary == expected[0].abstract
    for topic in ["parallelism", "quantization", "serving", "kernels", "other"]:
        parsed = feedparser.parse((real_site / f"feed-{topic}.xml").read_bytes())
        assert not parsed.bozo
        members = {p.path for p in CORPUS.papers.values() if topic in p.topics or
                   (topic == "other" and not p.topics)}
        assert parsed.entries and {e.link.removeprefix(SITE_URL) for e in parsed.entries} <= members


def test_pages_announce_their_feeds(real_site: Path) -> None:
    home = soup(real_site / "index.html")
    assert home.find("link", rel="alternate", type="application/atom+xml", href="feed.xml")
    topic = soup(real_site / "topics" / "serving" / "index.html")
    feeds = {link["href"] for link in topic.find_all("link", rel="alternate")}
    assert {"../../feed.xml", "../../feed-serving.xml"} <= feeds


def test_the_downloads_are_the_export_and_the_statistics_page_links_them(real_site: Path) -> None:
    """What each holds: test_check's export tests (the CSV's: test_hostile's csv test)."""
    assert (real_site / "exports" / "papers.json").read_text(encoding="utf-8") == survey("export").stdout
    stats = soup(real_site / "statistics" / "index.html")
    hrefs = {a["href"] for a in stats.find_all("a", href=True)}
    assert {"../exports/papers.json", "../exports/papers.csv", "../feed.xml"} <= hrefs


@pytest.fixture(scope="module")
def cited_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The small corpus plus ZeRO-Infinity's arXiv record (authors, date, id), built."""
    tmp_path = tmp_path_factory.mktemp("cited")
    corpus = make_corpus(tmp_path / "corpus")
    result = survey("import", str(ROOT / "tests" / "fixtures" / "arxiv_zero_infinity.xml"),
                    "--corpus", str(corpus))
    assert result.returncode == 0
    return corpus, mkdocs_build(make_project(tmp_path, corpus))


def test_bibtex_on_papers_with_a_year_or_an_arxiv_id(cited_site: tuple[Path, Path]) -> None:
    corpus, site = cited_site
    slug = "zero-infinity-breaking-the-gpu-memory-wall-for-extreme-scale"
    page = soup(site / "papers" / slug / "index.html")
    code = page.select_one("pre.survey-bibtex code").get_text()
    papers = load_corpus(corpus).papers
    assert code == bibtex(papers[slug], bibtex_keys(papers.values())[slug])
    assert code.startswith("@misc{rajbhandari2021zero,")
    assert "eprint = {2104.07857}" in code and "archivePrefix = {arXiv}" in code
    # a paper without a year or an arXiv id has none
    other = soup(site / "papers" / "rewrite-the-stars" / "index.html")
    assert other.select_one("pre.survey-bibtex") is None
    # an arXiv id alone is enough: the year is the id's
    alone = Paper(slug="x-y", title="X", abstract="a", arxiv="0704.0001")
    assert bibtex(alone) == ("@misc{2007x,\n  title = {{X}},\n  year = {2007},\n  eprint = {0704.0001},\n"
                             "  archivePrefix = {arXiv},\n  url = {https://arxiv.org/abs/0704.0001}\n}")


def head_tags(html: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    """OpenGraph properties as extruct reads them, and every <meta name> of the head as lxml's
    HTML parser reads it (citation_* are Highwire Press tags, which extruct does not cover)."""
    import extruct
    import lxml.html

    graphs = extruct.extract(html, syntaxes=["opengraph"], uniform=False)["opengraph"]
    og = {key: value for graph in graphs for key, value in graph["properties"]}
    named: dict[str, list[str]] = {}
    for node in lxml.html.fromstring(html).xpath("/html/head/meta[@name]"):
        named.setdefault(node.get("name"), []).append(node.get("content"))
    return og, named


def test_paper_page_carries_citation_and_card_tags(cited_site: tuple[Path, Path]) -> None:
    corpus, site = cited_site
    slug = "zero-infinity-breaking-the-gpu-memory-wall-for-extreme-scale"
    paper = load_corpus(corpus).papers[slug]
    og, tags = head_tags((site / "papers" / slug / "index.html").read_text(encoding="utf-8"))
    assert tags["citation_title"] == [paper.title]
    assert tags["citation_author"] == paper.authors == ["Samyam Rajbhandari", "Olatunji Ruwase",
                                                         "Jeff Rasley", "Shaden Smith", "Yuxiong He"]
    assert tags["citation_publication_date"] == ["2021/04/16"]
    assert tags["citation_arxiv_id"] == ["2104.07857"]
    assert tags["citation_pdf_url"] == ["https://arxiv.org/pdf/2104.07857"]
    assert (og["og:title"], og["og:type"]) == (paper.title, "article")
    assert og["og:site_name"] == "ML Systems Survey"
    assert og["og:url"] == SITE_URL + paper.path
    assert og["og:description"] == first_sentence(paper.abstract)
    assert tags["twitter:description"] == [first_sentence(paper.abstract)]
    assert (tags["twitter:card"], tags["twitter:title"]) == (["summary"], [paper.title])
    # a page that is not a paper has the card but no citation tags
    og, tags = head_tags((site / "topics" / "serving" / "index.html").read_text(encoding="utf-8"))
    assert (og["og:type"], og["og:title"]) == ("website", "Serving")
    assert not [k for k in tags if k.startswith("citation_")]


def test_bib_files_import_into_a_real_bibtex_parser(cited_site: tuple[Path, Path]) -> None:
    from pybtex.database import parse_string

    corpus, site = cited_site
    papers = load_corpus(corpus).papers
    citable = {p.slug for p in papers.values() if p.year or p.arxiv}
    keys = bibtex_keys(papers.values())
    assert set(keys) == citable and len(set(keys.values())) == len(keys)
    whole = parse_string((site / "exports" / "survey.bib").read_text(encoding="utf-8"), "bibtex")
    assert sorted(whole.entries) == sorted(keys.values())
    topic = parse_string((site / "exports" / "topics" / "parallelism.bib").read_text(encoding="utf-8"),
                         "bibtex")
    zero = topic.entries["rajbhandari2021zero"]
    assert zero.type == "misc" and zero.fields["year"] == "2021" and zero.fields["eprint"] == "2104.07857"
    assert [str(person) for person in zero.persons["author"]] == [
        "Rajbhandari, Samyam", "Ruwase, Olatunji", "Rasley, Jeff", "Smith, Shaden", "He, Yuxiong"]
    members = {keys[p.slug] for p in papers.values() if "parallelism" in p.topics and p.slug in keys}
    assert set(topic.entries) == members
    for folder, ids in (("topics", ["parallelism", "other"]), ("tags", [t.id for t in CORPUS.taxonomy.tags]),
                        ("listings", list(CORPUS.listings))):
        for name in ids:
            parse_string((site / "exports" / folder / f"{name}.bib").read_text(encoding="utf-8"), "bibtex")
    page = soup(site / "topics" / "parallelism" / "index.html")
    assert page.find("a", href="../../exports/topics/parallelism.bib")
    listing = next(iter(CORPUS.listings))
    assert soup(site / "listings" / listing / "index.html").find(
        "a", href=f"../../exports/listings/{listing}.bib")
    assert soup(site / "tags" / "cuda" / "index.html").find("a", href="../../exports/tags/cuda.bib")


def test_bibtex_escapes_latex_specials() -> None:
    paper = Paper(slug="x", title="S* & C# in 100% of $ {cases}_x", abstract="a",
                  authors=["Ann O'Neil"], date="2024")
    entry = bibtex(paper)
    assert entry is not None
    assert r"title = {{S* \& C\# in 100\% of \$ \{cases\}\_x}}" in entry


def test_statistics_numbers_equal_the_corpus(real_site: Path) -> None:
    page = soup(real_site / "statistics" / "index.html")
    tables = [t for t in page.select("article table") if not t.find_parent("details")]
    topics = {tr.find_all("td")[0].get_text(): int(tr.find_all("td")[1].get_text())
              for tr in tables[0].select("tbody tr")}
    names = {t.id: t.name for t in CORPUS.taxonomy.topics}
    expected = Counter(names[t] for p in CORPUS.papers.values() for t in p.topics)
    expected["Other"] = sum(not p.topics for p in CORPUS.papers.values())
    assert topics == dict(expected)
    listings = {tr.find_all("td")[0].get_text(): int(tr.find_all("td")[1].get_text())
                for tr in tables[1].select("tbody tr")}
    assert listings == {li.name: len(li.entries) for li in CORPUS.listings.values()}
    overlap = [[int(td.get_text()) for td in tr.find_all("td")[1:]] for tr in tables[2].select("tbody tr")]
    ids = CORPUS.taxonomy.topic_ids
    for i, a in enumerate(ids):
        for j, b in enumerate(ids):
            assert overlap[i][j] == sum(a in p.topics and b in p.topics for p in CORPUS.papers.values())
    tags = {tr.find_all("td")[0].get_text(): int(tr.find_all("td")[1].get_text())
            for tr in tables[3].select("tbody tr")}
    tag_names = {t.id: t.name for t in CORPUS.taxonomy.tags}
    assert tags == dict(Counter(tag_names[t] for p in CORPUS.papers.values() for t in p.tags))
    charts = page.select("article svg.survey-chart:not(.survey-timeline)")
    assert len(charts) == 4
    bars = charts[0].find_all("rect")
    assert [int(t.get_text()) for t in charts[0].find_all("text")[1::2]] == list(topics.values())
    assert len(bars) == len(topics)
    assert all("http" not in (c.get("href") or "") for c in page.select("article svg *"))


def test_papers_per_quarter_count_each_topic_s_dated_papers(real_site: Path) -> None:
    """The chart of papers per quarter and its table: each topic's papers by the quarter of
    their date, from the first quarter shown; the papers it leaves out are said."""
    page = soup(real_site / "statistics" / "index.html")
    chart = page.select_one("article svg.survey-timeline")
    details = page.select_one("article details.survey-timeline-table")
    names = [th.get_text() for th in details.select("thead th")][1:]
    rows = [[td.get_text() for td in tr.find_all("td")] for tr in details.select("tbody tr")]
    first = rows[0][0]
    assert re.fullmatch(r"\d{4} Q[1-4]", first)
    assert chart["aria-label"].startswith(f"Papers per quarter, {first} to ")

    def quarter(date: str) -> str:
        return f"{date[:4]} Q{(int(date[5:7]) - 1) // 3 + 1}"

    ids = {t.name: t.id for t in CORPUS.taxonomy.topics}
    monthly = [p for p in CORPUS.papers.values() if p.date and len(p.date) >= 7]
    for column, name in enumerate(names, 1):
        papers = [p for p in monthly if (ids[name] in p.topics if name in ids else not p.topics)]
        expected = Counter(quarter(p.date) for p in papers if quarter(p.date) >= first)  # type: ignore[arg-type]
        assert {r[0]: int(r[column]) for r in rows if int(r[column])} == dict(expected), name
    assert len(chart.select("rect.survey-bar")) == sum(1 for r in rows for c in r[1:] if int(c))
    undated = len(CORPUS.papers) - len(monthly)
    earlier = sum(quarter(p.date) < first for p in monthly)  # type: ignore[arg-type]
    note = " ".join(details.get_text().split())
    assert f"{undated} papers have no date, or only a year, and are not counted." in note
    assert earlier == 0 or f"{earlier} paper" in note


def test_every_paper_of_a_thousand_gets_related_papers_and_its_copies_come_first() -> None:
    """Three copies of each seed paper (939 papers): every one has its related papers, and a
    paper's copies are its most related. (How fast related papers are at 10,000 papers is the
    benchmark's to say, benchmarks/bench.py, not a test's.)"""
    base = list(CORPUS.papers.values())
    many = [Paper(slug=f"{p.slug}-{i}", title=f"{p.title} {i}", abstract=p.abstract)
            for i in range(3) for p in base]
    related = related_papers(many)
    assert len(related) == len(many)
    assert re.match(r".*-\d$", related[many[0].slug][0])


def test_feeds_put_papers_by_their_date_and_each_tag_has_one(tmp_path: Path) -> None:
    from generator.site.render import Site

    corpus = load_corpus(ROOT / "corpus")
    slugs = sorted(corpus.papers)
    for paper in corpus.papers.values():
        paper.date = None
    dated = {slugs[0]: "2019", slugs[1]: "2025-03", slugs[2]: "2024-12-31"}
    for slug, day in dated.items():
        corpus.papers[slug].date = day
    site = Site(corpus, ROOT / "templates", site_url=SITE_URL, site_name="My Survey")
    files = site.files()
    feed = feedparser.parse(files["feed.xml"].encode())
    assert not feed.bozo and feed.feed.title == "My Survey: newest papers"
    # every paper was added the same day: those with a date come first, newest first
    order = [e.link.removeprefix(SITE_URL + "papers/").rstrip("/") for e in feed.entries]
    assert order[:3] == [slugs[1], slugs[2], slugs[0]]
    assert feed.entries[0].published.startswith("2025-03-01")
    corpus.papers[slugs[3]].added = "2026-12-01"  # added later: first, even without a date
    feed = feedparser.parse(Site(corpus, ROOT / "templates", site_url=SITE_URL).files()["feed.xml"].encode())
    assert feed.entries[0].link == SITE_URL + f"papers/{slugs[3]}/"
    for tag in corpus.taxonomy.tags:
        parsed = feedparser.parse(files[f"feed-{tag.id}.xml"].encode())
        assert not parsed.bozo and parsed.feed.title == f"My Survey: tag {tag.name}"
        members = {SITE_URL + p.path for p in corpus.papers.values() if tag.id in p.tags}
        assert {e.link for e in parsed.entries} <= members
        assert len(parsed.entries) == min(50, len(members))
    page = site.pages()["tags/pipeline-parallelism.md"]
    assert 'feed: "feed-pipeline-parallelism.xml"' in page
