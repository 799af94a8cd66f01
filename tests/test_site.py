"""The real corpus's site, built with `mkdocs build --strict` in a temp dir, checked with bs4."""

from __future__ import annotations

import filecmp
import gzip
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup, SoupStrainer
from conftest import ROOT, make_corpus, make_project, mkdocs_build, replace_in, soup, survey
from linkcheck import check_site

from generator.core.settings import mkdocs_config
from generator.core.tex import tex_text
from generator.corpus.model import Paper
from generator.corpus.store import load_corpus, paper_text
from generator.site.entries import shown_date
from generator.site.parts import PART_SIZE, newest_first
from generator.site.render import Site

CORPUS = load_corpus(ROOT / "corpus")
SITE_PATH = "/" + mkdocs_config(ROOT / "mkdocs.yml")["site_url"].split("/", 3)[3]


def content(page: BeautifulSoup) -> BeautifulSoup:
    article = page.select_one("article.md-content__inner")
    for permalink in article.select("a.headerlink"):
        permalink.decompose()
    return article


def list_parts(site: Path, base: str) -> list[Path]:
    """The pages of a long list (`topics/other`): the first part, then 2/, 3/ ... beside it."""
    pages = [site / base / "index.html"]
    while (site / base / str(len(pages) + 1) / "index.html").exists():
        pages.append(site / base / str(len(pages) + 1) / "index.html")
    return pages


def entry_page(site: Path, listing: str, position: int) -> tuple[Path, str]:
    """The page of a listing that holds an entry, and the link to it from a paper page."""
    part = (position - 1) // PART_SIZE + 1
    folder = f"{listing}/" if part == 1 else f"{listing}/{part}/"
    return site / "listings" / folder / "index.html", f"../../listings/{folder}#entry-{position}"


def abstract_of(page: BeautifulSoup) -> str:
    heading = page.find(id="abstract")
    return heading.find_next("p").get_text()


def test_every_paper_has_its_page_with_its_exact_text(real_site: Path) -> None:
    shown = SoupStrainer(["title", "article"])  # what is read here: the rest left unbuilt, half the time
    for paper in CORPUS.sorted_papers():
        html = (real_site / "papers" / paper.slug / "index.html").read_text(encoding="utf-8")
        page = BeautifulSoup(html, "html.parser", parse_only=shown)
        # as the one reading of TeX shows them (tests/test_tex.py holds what it shows)
        assert content(page).find("h1").get_text() == tex_text(paper.title)
        assert abstract_of(page) == tex_text(paper.abstract)
        assert page.title.get_text().startswith(tex_text(paper.title))


def test_every_internal_link_and_anchor_resolves(real_site: Path) -> None:
    assert check_site(real_site, base=SITE_PATH) == []


def test_link_check_finds_a_broken_link(real_site: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(real_site, site)
    replace_in(site / "topics" / "kernels" / "index.html", "../../papers/", "../../paper/", 1)
    replace_in(site / "about" / "index.html", "</article>", '<a href="#nowhere">x</a></article>')
    broken = check_site(site, base=SITE_PATH)
    assert {b.page for b in broken} == {"topics/kernels/index.html", "about/index.html"}


def test_papers_in_several_listings_link_to_each_and_back(real_site: Path) -> None:
    listings_of = CORPUS.listings_of()
    multi = [slug for slug, where in listings_of.items() if len({li.slug for li, _ in where}) > 1]
    assert len(multi) >= 38
    parsed: dict[Path, BeautifulSoup] = {}  # each part of a listing parsed once, not once an entry (3 s)
    for slug in multi:
        page = content(soup(real_site / "papers" / slug / "index.html"))
        hrefs = {a["href"] for a in page.find_all("a", href=True)}
        for listing, pos in listings_of[slug]:
            path, href = entry_page(real_site, listing.slug, pos)
            assert href in hrefs
            if path not in parsed:
                parsed[path] = soup(path)
            lpage = parsed[path]
            item = lpage.find(id=f"entry-{pos}").find_parent("li")
            assert item.find("a", href=f"../../papers/{slug}/".replace(
                "../../", "../" * (len(path.relative_to(real_site).parts) - 1))) is not None
            others = [(li, p) for li, p in listings_of[slug] if (li.slug, p) != (listing.slug, pos)]
            for other, opos in others:
                link = next(a for a in item.find_all("a", href=True)
                            if a.get_text() == f"{other.name}, entry {opos}")
                assert link["href"].endswith(f"#entry-{opos}")
                target = (path.parent / link["href"].split("#")[0]).resolve() / "index.html"
                assert target == entry_page(real_site, other.slug, opos)[0].resolve()


def test_listing_pages_keep_original_order_and_numbers(real_site: Path) -> None:
    split = 0
    for listing in CORPUS.sorted_listings():
        pages = list_parts(real_site, f"listings/{listing.slug}")
        assert len(pages) == -(-len(listing.entries) // PART_SIZE)
        split += len(pages) > 1
        position = 1
        for page_path in pages:
            page = content(soup(page_path))
            ol = page.select_one("ol")
            assert int(ol.get("start", 1)) == position  # the numbers go on from part to part
            items = ol.find_all("li", recursive=False)
            assert 0 < len(items) <= PART_SIZE
            for item in items:
                entry = listing.entries[position - 1]
                assert item.find(id=f"entry-{position}") is not None
                assert item.find("a", href=re.compile(rf"^(\.\./)+papers/{entry.paper}/$")) is not None
                position += 1
        assert position == len(listing.entries) + 1
    assert split >= 1, "the seed corpus should have a listing of more than one part"


def listed_in_parts(site: Path, base: str) -> list[tuple[Path, list[str]]]:
    """Each part of a paper list with the slugs it lists, in order, checking its pager."""
    pages = list_parts(site, base)
    out = []
    for number, path in enumerate(pages, 1):
        page = content(soup(path))
        slugs = [a["href"].split("/")[-2] for a in page.select("li > a[href*='papers/']")]
        assert 0 < len(slugs) <= PART_SIZE or len(pages) == 1
        if len(pages) > 1:  # the pager links every part to the first, the last and its neighbours
            pager = {(path.parent / a["href"]).resolve() for a in page.select(".survey-pager a")}
            for other in {1, len(pages), number - 1, number + 1} - {0, number, len(pages) + 1}:
                assert pages[other - 1].parent.resolve() in pager, (path, other)
        out.append((path, slugs))
    return out


def test_topic_pages_count_and_list_their_papers(real_site: Path) -> None:
    every = list(CORPUS.papers.values())
    expected = {t: [p for p in every if t in p.topics] for t in CORPUS.taxonomy.topic_ids}
    expected["other"] = [p for p in CORPUS.papers.values() if not p.topics]
    assert sum(len(v) for v in expected.values()) >= len(CORPUS.papers)
    assert len(expected["other"]) > PART_SIZE, "the seed corpus should split one topic"
    for topic, papers in expected.items():
        first = content(soup(real_site / "topics" / topic / "index.html"))
        assert re.search(rf"\b{len(papers)} papers?\b", first.get_text())
        parts = listed_in_parts(real_site, f"topics/{topic}")
        assert [s for _, slugs in parts for s in slugs] == [p.slug for p in newest_first(papers)]
        for path, slugs in parts:
            page = content(soup(path))
            up = "../" * (len(path.relative_to(real_site).parts) - 1)
            for slug in slugs:
                paper = CORPUS.papers[slug]
                item = page.find("a", href=f"{up}papers/{slug}/").find_parent("li")
                meta = item.find("span", class_="survey-meta")
                if paper.date:
                    assert shown_date(paper.date) in meta.get_text()
                names = [a.get_text() for a in meta.find_all("a")] if meta else []
                assert names == paper.authors[:3]
                if len(paper.authors) > 3:
                    assert "et al." in meta.get_text()
                linked = {(path.parent / a["href"]).resolve() for a in item.find_all("a", href=True)}
                for other in (t for t in paper.topics if t != topic):
                    assert (real_site / "topics" / other).resolve() in linked


def test_a_topic_page_links_each_year_of_its_papers(real_site: Path) -> None:
    """Issue 43: a year within a topic took five taps on a phone. Every part of a topic's list
    names the years of its papers, newest first, each with its count and a link to the search
    page on that topic and year; the chart's years link there too."""
    for topic in [*CORPUS.taxonomy.topics, None]:
        tid, name = (topic.id, topic.name) if topic else ("other", "Other")
        papers = [p for p in CORPUS.papers.values() if (tid in p.topics if topic else not p.topics)]
        years = Counter(p.year or "no date" for p in papers)
        expected = [(y, years[y]) for y in sorted(set(years) - {"no date"}, reverse=True)]
        expected += [("no date", years["no date"])] if "no date" in years else []
        by_title = real_site / "topics" / tid / "by-title" / "index.html"
        for path in [*list_parts(real_site, f"topics/{tid}"), *([by_title] if by_title.exists() else [])]:
            page = content(soup(path))
            up = "../" * (len(path.relative_to(real_site).parts) - 1)
            line = page.select_one("p.survey-years")
            links = line.find_all("a")
            assert [a.get_text().replace("\u00a0", " ") for a in links] == [y for y, _ in expected], path
            quote = urllib.parse.quote
            assert [a["href"] for a in links] == [f"{up}search/?topic={quote(name)}&year={quote(y)}"
                                                  for y, _ in expected]
            counts = line.select(".survey-years__count")
            assert [int(c.get_text()) for c in counts] == [n for _, n in expected]
            chart = page.select_one("svg.survey-timeline")
            if chart is None:
                continue
            targets = {a["xlink:href"] for a in chart.find_all("a")}
            assert targets and targets <= {f"{up}search/?topic={urllib.parse.quote_plus(name)}&year={y}"
                                           for y, _ in expected}, path


def test_lists_sort_newest_first_and_switch_to_title(tmp_path: Path) -> None:
    from generator.corpus.store import load_corpus as load

    corpus = load(ROOT / "corpus")
    kernels = sorted((p for p in corpus.papers.values() if "kernels" in p.topics), key=lambda p: p.slug)
    for paper in kernels:
        paper.date = None
    for paper, date in zip(kernels, ["2021", "2024-05-02", "2024-05-02", "2023-11"], strict=False):
        paper.date = date
    pages = Site(corpus, ROOT / "templates").pages()
    first, by_title = pages["topics/kernels.md"], pages["topics/kernels/by-title.md"]
    newest = newest_first(kernels)
    assert [p.date for p in newest[:4]] == ["2024-05-02", "2024-05-02", "2023-11", "2021"]
    assert newest[0].title.casefold() <= newest[1].title.casefold()
    order = [m for p in newest if (m := first.find(f"papers/{p.slug}.md"))]
    assert order == sorted(order)
    titles = sorted(kernels, key=lambda p: p.title.casefold())
    order = [by_title.find(f"papers/{p.slug}.md") for p in titles]
    assert order == sorted(order)
    assert "**Newest first** · [By title](kernels/by-title.md)" in first
    assert "[Newest first](../kernels.md) · **By title**" in by_title
    # a list without dates has one order, by title, and no switch
    for paper in corpus.papers.values():
        paper.date = None
    pages = Site(corpus, ROOT / "templates").pages()
    assert "topics/kernels/by-title.md" not in pages and "Order:" not in pages["topics/kernels.md"]


def test_tag_index_and_tag_pages_count_their_papers(real_site: Path) -> None:
    index = content(soup(real_site / "tags" / "index.html"))
    rows = {tr.find("a")["href"].strip("./"): int(tr.find_all("td")[1].get_text())
            for tr in index.select("tbody tr")}
    # Above the table, every tag by name (issue 43: FP8 was 9,452 px down the table on a phone).
    chips = [(a["href"], a.find(string=True).strip(), int(a.small.get_text()))
             for a in index.select("p.survey-tag-index a.md-tag")]
    by_name = sorted(CORPUS.taxonomy.tags, key=lambda t: t.name.casefold())
    assert chips == [(f"../tags/{t.id}/", t.name, rows[t.id]) for t in by_name]
    for tag in CORPUS.taxonomy.tags:
        count = sum(tag.id in p.tags for p in CORPUS.papers.values())
        assert rows[tag.id] == count
        listed = [s for _, slugs in listed_in_parts(real_site, f"tags/{tag.id}") for s in slugs]
        tagged = [p for p in CORPUS.papers.values() if tag.id in p.tags]
        assert listed == [p.slug for p in newest_first(tagged)]


def test_navigation_has_sections_but_no_paper(real_site: Path) -> None:
    page = soup(real_site / "index.html")
    nav = page.select_one("nav.md-nav--primary")
    hrefs = [a["href"] for a in nav.find_all("a", href=True)]
    assert not any(re.search(r"(^|/)papers/", h) for h in hrefs)
    for topic in [*CORPUS.taxonomy.topic_ids, "other"]:
        assert f"topics/{topic}/" in hrefs
    # the listings are one entry; the maintainers' pages are not in a reader's navigation
    # (test_publish: the footer and the contributing page link them)
    assert "listings/" in hrefs and not any(re.search(r"listings/.", h) for h in hrefs)
    assert hrefs.index("contributing/") > hrefs.index("about/")
    assert "architecture/" not in hrefs and "benchmark/" not in hrefs
    assert "tags/" in hrefs and "contributing/" in hrefs and "about/" in hrefs


def test_search_index_covers_every_paper_with_its_facets(real_site: Path) -> None:
    entry = json.loads((real_site / "pagefind" / "pagefind-entry.json").read_text())
    hand_written = [p for p in (ROOT / "docs").glob("*.md")]
    assert entry["languages"]["en"]["page_count"] == len(CORPUS.papers) + len(hand_written)
    assert not (real_site / "search" / "search_index.json").exists()  # nothing of Material's search
    for paper in CORPUS.sorted_papers():
        page = soup(real_site / "papers" / paper.slug / "index.html")
        body = page.select("[data-pagefind-body]")
        assert [b.name for b in body] == ["h1", "p"] + (["p"] if paper.authors else [])
        assert body[-1].get_text() == tex_text(paper.abstract)  # the TeX read (issue 34)
        facets = {(f["data-pagefind-filter"], f.get_text()) for f in page.select("[data-pagefind-filter]")}
        names = [CORPUS.taxonomy.topic(t).name for t in paper.topics] or ["Other"]
        assert {("topic", n) for n in names} <= facets
        assert {("tag", CORPUS.taxonomy.tag(t).name) for t in paper.tags} <= facets
        assert ("year", paper.year or "no date") in facets
        assert {("listing", li.name) for li, _ in CORPUS.listings_of().get(paper.slug, [])} <= facets
    for generated in ("topics/other/index.html", "listings/index.html", "tags/cuda/index.html", "index.html"):
        assert not soup(real_site / generated).select("[data-pagefind-body]"), generated


def test_every_paper_with_an_id_is_in_its_id_file(real_site: Path) -> None:
    """The search box finds a paper by its arXiv id in one small file (site/ids.py): each paper
    with an id is under it in the file its id names, with its page, title and entry; every file
    is there (no 404 for an id the survey lacks), none holds a paper under another file's key."""
    from generator.site.ids import BUCKETS, bucket, path

    files = {n: json.loads((real_site / path(n)).read_text(encoding="utf-8")) for n in range(BUCKETS)}
    assert len(list((real_site / "ids").iterdir())) == BUCKETS
    with_id = [p for p in CORPUS.sorted_papers() if p.arxiv]
    assert len(with_id) > 20
    for paper in with_id:
        url, title, entry = files[bucket(paper.arxiv)][paper.arxiv]
        assert (url, title) == (f"papers/{paper.slug}/", tex_text(paper.title))
        assert (real_site / url / "index.html").exists()
        page = soup(real_site / url / "index.html")
        assert entry == json.loads(page.select_one("[data-pagefind-meta=entry]").get_text())
    assert sum(len(held) for held in files.values()) == len(with_id)
    assert all(bucket(key) == n for n, held in files.items() for key in held)


@pytest.mark.parametrize(("link", "doi"), [
    ("https://doi.org/10.1145/3458817.3476205", "10.1145/3458817.3476205"),
    ("https://dx.doi.org/10.1109/SC41405.2020.00024", "10.1109/sc41405.2020.00024"),
    ("https://dl.acm.org/doi/abs/10.1145/3600006.3613165", "10.1145/3600006.3613165"),
    ("https://dl.acm.org/doi/pdf/10.1145/3600006.3613165", "10.1145/3600006.3613165"),
    ("https://link.springer.com/chapter/10.1007/978-3-031-32041-5_1", "10.1007/978-3-031-32041-5_1"),
    ("https://doi.org/10.1000/a%2Fb?x=1#y", "10.1000/a/b"),
    ("https://arxiv.org/abs/2504.11651", None),
    ("https://proceedings.mlsys.org/paper/2022/hash/x.html", None),
])
def test_a_paper_s_doi_is_read_from_its_link(link: str, doi: str | None) -> None:
    from generator.site.ids import doi as doi_of
    from generator.site.ids import keys

    paper = Paper(slug="p", title="T", abstract="A", links={"paper": link}, arxiv="2504.11651")
    assert doi_of(paper) == doi
    assert keys(paper) == ["2504.11651", *([doi] if doi else [])]
    old = Paper(slug="q", title="T", abstract="A", arxiv="math.GT/0309136")
    assert keys(old) == ["math/0309136"]  # as arXiv's links and search.js write it


def test_the_search_page_holds_its_filters_as_built(real_site: Path) -> None:
    """Issue 43: the filter box was empty for seconds, until the index had loaded. It is in the
    page: each facet's values with their counts over every paper (what a search with no words
    counts), the most first; the years newest first, "no date" last; the ten authors with the
    most papers. None is ticked; "Show the papers" closes the box on a phone."""
    page = content(soup(real_site / "search" / "index.html"))
    facets = {}
    for box in page.select(".survey-search__facets[data-built] fieldset.survey-facet"):
        values = [(label.find("input")["name"], label.find("input")["value"],
                   int(label.select_one(".survey-facet__count").get_text()))
                  for label in box.find_all("label")]
        assert len({name for name, _, _ in values}) == 1
        assert not box.select("input[checked]")
        facets[values[0][0]] = [(value, count) for _, value, count in values]

    def ranked(counts: Counter[str], most: int | None = None) -> list[tuple[str, int]]:
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:most]

    papers = list(CORPUS.papers.values())
    names = CORPUS.taxonomy.topic
    topics = Counter(n for p in papers for n in [names(t).name for t in p.topics] or ["Other"])
    years = Counter(p.year or "no date" for p in papers)
    listed = CORPUS.listings_of()
    listings = Counter(name for p in papers for name in {li.name for li, _ in listed.get(p.slug, [])})
    review = Counter("reviewed" if p.topics_reviewed else "suggested" for p in papers)
    assert facets["topic"] == ranked(topics)
    assert facets["review"] == ranked(review)
    assert facets["year"] == [*sorted(((y, n) for y, n in years.items() if y != "no date"), reverse=True),
                              ("no date", years["no date"])]
    assert facets["listing"] == ranked(listings)
    assert facets["tag"] == ranked(Counter(CORPUS.taxonomy.tag(t).name for p in papers for t in p.tags))
    assert facets["author"] == ranked(Counter(n for p in papers for n in set(p.authors)), 10)
    assert page.select_one(".survey-search__filters button.survey-search__show")


def sitemap_locs(path: Path) -> list[str]:
    return re.findall(r"<loc>([^<]*)</loc>", path.read_text(encoding="utf-8"))


def test_sitemap_every_page_view_fetches_stays_small_and_the_index_lists_every_page(real_site: Path) -> None:
    """Material's instant navigation fetches sitemap.xml on every page load: it lists the pages
    readers move between, a number set by the taxonomy; search engines get every page from
    sitemap-index.xml."""
    site_url = mkdocs_config(ROOT / "mkdocs.yml")["site_url"]
    pages = sorted(site_url + str(p.parent.relative_to(real_site)) + "/"
                   for p in real_site.rglob("index.html")
                   if p.parent.relative_to(real_site).parts[:1] not in (("assets",), ("pagefind",)))
    pages = [p.replace(site_url + "./", site_url) for p in pages]
    index = sitemap_locs(real_site / "sitemap-index.xml")
    assert index[0] == site_url + "sitemap.xml"
    names = [u.rsplit("/", 1)[1] for u in index[1:]]
    assert names == [f"sitemap-pages-{i}.xml" for i in range(1, len(index))]
    listed = [loc for url in index for loc in sitemap_locs(real_site / url.rsplit("/", 1)[1])]
    assert sorted(listed) == pages  # every page once
    small = sitemap_locs(real_site / "sitemap.xml")
    assert not [u for u in small if "/papers/" in u or re.search(r"/\d+/$", u)]
    assert {site_url, site_url + "search/", site_url + "topics/", site_url + "topics/other/"} <= set(small)
    assert all(site_url + f"papers/{slug}/" in listed for slug in CORPUS.papers)
    lists = len(CORPUS.taxonomy.topic_ids) + len(CORPUS.taxonomy.tags) + len(CORPUS.listings)
    assert len(small) < 2 * lists + 30  # each list's first part in both orders, and the rest
    unpacked = gzip.decompress((real_site / "sitemap.xml.gz").read_bytes())
    assert unpacked == (real_site / "sitemap.xml").read_bytes()


def test_old_addresses_still_resolve_and_indexes_exist(real_site: Path) -> None:
    old = ["topics/", "listings/", "tags/", "statistics/", "search/", "feed.xml"]
    old += [f"topics/{t}/" for t in [*CORPUS.taxonomy.topic_ids, "other"]]
    old += [f"listings/{li}/" for li in CORPUS.listings] + [f"tags/{t.id}/" for t in CORPUS.taxonomy.tags]
    for path in old:
        assert (real_site / path / ("" if path.endswith(".xml") else "index.html")).is_file(), path
    topics = content(soup(real_site / "topics" / "index.html"))
    assert {a["href"] for a in topics.select("td a")} == {f"../topics/{t}/".replace("../topics/", "")
                                                          for t in [*CORPUS.taxonomy.topic_ids, "other"]}
    listings = content(soup(real_site / "listings" / "index.html"))
    assert {a["href"] for a in listings.select("li a")} == {f"{li}/" for li in CORPUS.listings}


def test_no_page_is_over_100_kb(real_site: Path) -> None:
    """Issue 24: a page a reader can load and a maintainer can read."""
    sizes = {str(p.relative_to(real_site)): p.stat().st_size for p in real_site.rglob("*.html")}
    assert len(sizes) > 300  # every paper's page, and the rest
    assert {page: size for page, size in sizes.items() if size > 100 * 1024} == {}


def test_default_site_names_no_third_party(real_site: Path) -> None:
    """Out of the box: system fonts, no repository (so no GitHub API call), no edit button."""
    for page in ["index.html", "papers/rewrite-the-stars/index.html", "tags/index.html"]:
        html = soup(real_site / page)
        hosts = {urllib.parse.urlsplit(el.get("href") or el.get("src")).hostname
                 for el in html.select("link[href]:not([rel=canonical]), script[src], img[src]")}
        assert hosts == {None}, (page, hosts)
        assert not html.select("[data-md-component='source'], a.md-content__button")
        assert "Edit this file" not in html.get_text()


@pytest.fixture(scope="module")
def own_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The small corpus's site as a user makes it theirs ("Make it yours"): its repository set
    (repo_url, repo_name, edit_uri) and `use_directory_urls: false`; its project and site."""
    tmp = tmp_path_factory.mktemp("own")
    project = make_project(tmp, make_corpus(tmp / "small"))
    config = project / "mkdocs.yml"
    text = config.read_text()
    for key in ("repo_url", "repo_name", "edit_uri"):
        text, n = re.subn(rf"^# ({key}: )", r"\1", text, flags=re.MULTILINE)
        assert n == 1, key
    config.write_text(text.replace("OWNER/REPO", "example/survey") + "use_directory_urls: false\n")
    return project, mkdocs_build(project)


@pytest.mark.slow
def test_with_a_repository_the_edit_link_opens_the_corpus_file(own_site: tuple[Path, Path]) -> None:
    """"Make it yours": repo_url and edit_uri set in mkdocs.yml give every page its edit link."""
    page = soup(own_site[1] / "papers" / "rewrite-the-stars.html")
    edit = page.select_one("a.md-content__button[href*='/edit/']")
    assert edit["href"] == "https://github.com/example/survey/edit/main/corpus/papers/rewrite-the-stars.yaml"
    # the paper's row of actions has it too, where a reader looks (and only with a repository:
    # test_the_site_calls_no_third_party_out_of_the_box has none)
    action = page.select_one("p.survey-actions").find("a", string="Edit this file")
    assert action["href"] == edit["href"]
    assert page.select_one("a[data-md-component='source']")["href"] == "https://github.com/example/survey"


def test_home_page_counts(real_site: Path) -> None:
    page = content(soup(real_site / "index.html"))
    text = page.get_text(" ")
    assert "313 papers" in text and "4 listings" in text
    # The topics are counted by listing them: the four and Other.
    assert len(page.select("li.survey-topic-entry")) == len(CORPUS.taxonomy.topic_ids) + 1 == 5


HOSTILE = [
    "<kernel> + <programming model>", "S*", "C#", "$42", "10^4", "L_{2}", "\\textbf{bold}", "a | b",
    "{{ 7*7 }}", "{% raw %}x{% endraw %}", '--8<-- "mkdocs.yml"', "<!-- comment -->",
    "<script>alert(1)</script>", '<img src=x onerror="alert(2)">', "[x](javascript:alert(3))",
    ":smile:", "#12", "1st (c) -->", "~~s~~ ==m== ^^i^^ ++k++", "*[HTML]: abbr", "&amp; &lt;",
    "`code`", "Mohammad\u200cZadeh",
    # Kept raw by md_text where no processor reads them: digits, commas, full stops, hyphens.
    "1. not a list", "3.5, 10,000 and 1/2", "wait... -- x--y --> a-b", "21st 2nd 3rd 4th",
    "www.example.org and https://example.org/x and a@b.org", "- not an item", "# not a heading",
    # TeX math is read (issue 34): its text is text, and nothing of it is markup or a link.
    "$\\text{<script>alert(4)</script>}$", "$\\href{javascript:alert(5)}{x}$",
]
# What a reader sees of a hostile text: each character as written, but TeX read (issue 34).
SHOWN = {"\\textbf{bold}": "bold", "$\\text{<script>alert(4)</script>}$": "<script>alert(4)</script>",
         "$\\href{javascript:alert(5)}{x}$": "x (javascript:alert(5))",
         "wait... -- x--y --> a-b": "wait... – x–y --> a-b"}  # TeX's dashes, not its arrow (issue 43)
# A listing's name holds no HTML tag (survey check refuses one); what else HTML or Markdown reads stays.
LISTING = 'Bold <3 &amp; *x* --8<-- "x"'


def shown(text: str) -> str:
    for tex, seen in SHOWN.items():
        text = text.replace(tex, seen)
    return text


ALL_EXTENSIONS = [
    "toc", "tables", "attr_list", "abbr", "admonition", "def_list", "footnotes", "md_in_html",
    "smarty", "sane_lists", "meta", "pymdownx.arithmatex", "pymdownx.betterem", "pymdownx.caret",
    "pymdownx.mark", "pymdownx.tilde", "pymdownx.critic", "pymdownx.details", "pymdownx.emoji",
    "pymdownx.highlight", "pymdownx.inlinehilite", "pymdownx.keys", "pymdownx.magiclink",
    "pymdownx.smartsymbols", {"pymdownx.snippets": {"base_path": ["."], "check_paths": False}},
    "pymdownx.superfences", "pymdownx.tasklist", "pymdownx.tabbed", "pymdownx.escapeall",
]


def hostile_author(text: str) -> str:
    """An author's name holding the hostile text: it is a link's text, and the search filter
    in that link's target."""
    return f"Ann {text} Doe"


def hostile_project(tmp_path: Path, extra: Sequence[Paper] = ()
                    ) -> tuple[Path, list[tuple[str, str, str]]]:
    """A project of a paper for each HOSTILE text, and the `extra` papers, with every Markdown
    extension on; and the hostile papers (slug, title, abstract)."""
    corpus = tmp_path / "corpus"
    (corpus / "papers").mkdir(parents=True)
    shutil.copy(ROOT / "corpus" / "taxonomy.yaml", corpus)
    for paper in extra:
        (corpus / paper.file).write_text(paper_text(paper), encoding="utf-8")
    papers = []
    for i, text in enumerate(HOSTILE):
        title = f"Paper {i}: {text}"
        abstract = f"{text} starts the abstract; then {text} in the middle, and it ends with {text}"
        paper = Paper(slug=f"hostile-{i}", title=title, abstract=abstract, topics=["kernels"],
                      tags=["cuda"], authors=[hostile_author(text)])
        (corpus / "papers" / f"hostile-{i}.yaml").write_text(paper_text(paper))
        papers.append((paper.slug, title, abstract))
    (corpus / "listings").mkdir()
    (corpus / "listings" / "l.yaml").write_text(yaml.safe_dump({
        "slug": "l", "name": LISTING, "sha256": "0", "source": "hf-json", "origin": "x",
        "entries": [{"paper": "hostile-0", "title": "x"}]}))
    project = make_project(tmp_path, corpus)
    config = mkdocs_config(project / "mkdocs.yml")
    config["markdown_extensions"] = ALL_EXTENSIONS
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config))
    return project, papers


def test_corpus_text_is_shown_literally_whatever_the_extensions(
        literal_site: tuple[Path, list[tuple[str, str, str]]]) -> None:
    site, papers = literal_site
    topic = content(soup(site / "topics" / "kernels" / "index.html"))
    for slug, title, abstract in papers:
        page = soup(site / "papers" / slug / "index.html")
        assert content(page).find("h1").get_text() == shown(title)
        assert abstract_of(page) == shown(abstract)
        # Nothing is a link but each whole http(s) URL, to itself ("www.x.org", "a@b.org" are not).
        links = [(a.get_text(), a["href"]) for a in page.find(id="abstract").find_next("p").find_all("a")]
        urls = re.findall(r"https?://[^\s<>]+", abstract)
        assert links == [(u, u) for u in urls] and (len(urls) == 3) == ("https://" in title)
        assert page.title.get_text() == f"{shown(title)} - ML Systems Survey"
        assert topic.find("a", href=f"../../papers/{slug}/").get_text() == shown(title)
        name = hostile_author(title.split(": ", 1)[1])
        author = content(page).find("p", class_="survey-authors").find("a")
        assert (author.get_text(), author["href"]) == (
            name, "../../search/?author=" + urllib.parse.quote(name, safe="/"))
        assert not page.select("article img, article script, article abbr, article code, "
                               "article mark, article del, article sup, article .arithmatex")
        assert not [a for a in page.find_all("a", href=True) if a["href"].startswith("javascript:")]
        assert "survey-plugin" not in page.get_text()  # no snippet of mkdocs.yml was included
    assert LISTING in [t.get_text() for t in soup(site / "statistics" / "index.html").select("svg text")]
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert "alert(1)</script>" not in text and "onerror=\"alert" not in text
        assert "<script>alert(4)" not in text and "javascript:alert(5)\"" not in text


@pytest.mark.slow
def test_the_lists_link_their_pages_without_directory_urls(own_site: tuple[Path, Path]) -> None:
    """The entries of a list are HTML whose links are the pages' URLs (templates/_entry.html.j2):
    with `use_directory_urls: false` they end in .html, and every link of the site resolves."""
    site = own_site[1]
    assert check_site(site, base=SITE_PATH) == []
    entry = content(soup(site / "topics" / "parallelism.html")).select_one("li.survey-entry")
    assert entry.select_one("a.survey-entry__title")["href"].startswith("../papers/")
    assert entry.select_one("a.survey-entry__title")["href"].endswith(".html")
    author = content(soup(site / "topics" / "parallelism.html")).select_one("li.survey-entry .survey-meta a")
    assert author["href"].startswith("../search.html?author=")


def test_two_builds_are_byte_identical(real_site: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    again = mkdocs_build(project)
    first = {p.relative_to(real_site) for p in real_site.rglob("*") if p.is_file()}
    second = {p.relative_to(again) for p in again.rglob("*") if p.is_file()}
    assert first == second
    differ = sorted(str(p) for p in first if not filecmp.cmp(real_site / p, again / p, shallow=False))
    # MkDocs gzips the sitemap with the build time in the gzip header; nothing else may differ.
    assert differ in ([], ["sitemap.xml.gz"])


def test_survey_build_writes_the_same_markdown(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = survey("build", "--out", str(out))
    assert result.returncode == 0, result.stderr
    pages = Site(CORPUS, ROOT / "templates").pages()
    written = {str(p.relative_to(out)): p.read_text(encoding="utf-8") for p in out.rglob("*.md")}
    assert written == pages


@pytest.mark.slow
def test_changing_a_corpus_file_changes_the_rebuilt_site(own_site: tuple[Path, Path], tmp_path: Path) -> None:
    """A copy of own_site's project, as built (the derived cache of its first build kept), edited."""
    project = shutil.copytree(own_site[0], tmp_path / "project", ignore=shutil.ignore_patterns("site"))
    replace_in(project / "corpus" / "papers" / "rewrite-the-stars.yaml", "Recent studies", "Newer studies", 1)
    rebuilt = mkdocs_build(project, tmp_path / "site2")
    before = abstract_of(soup(own_site[1] / "papers" / "rewrite-the-stars.html"))
    after = abstract_of(soup(rebuilt / "papers" / "rewrite-the-stars.html"))
    assert before.startswith("Recent studies") and after.startswith("Newer studies")


@contextmanager
def mkdocs_serve(project: Path, log: Path, *flags: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`mkdocs serve` of a project on a free port; yields its base URL and the process."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", *flags, "-a", f"127.0.0.1:{port}"],
            cwd=project, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield f"http://127.0.0.1:{port}{SITE_PATH}", server
        finally:
            server.terminate()
            server.wait(timeout=30)


def wait_for_page(url: str, text: str, server: subprocess.Popen[bytes], log: Path,
                  timeout: float = 240) -> str:
    """Poll the served page until it holds `text`, up to a deadline; fail at once if the server
    stops. A request that fails meanwhile (not yet listening, mid-rebuild) is polled again."""
    deadline = time.monotonic() + timeout
    while True:
        if server.poll() is not None:
            pytest.fail(f"mkdocs serve exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                page = response.read().decode("utf-8")
            last = f"a page without {text!r}"
            if text in page:
                return page
        except OSError as error:
            last = repr(error)
        if time.monotonic() > deadline:
            pytest.fail(f"{url} did not show {text!r} within {timeout:.0f} s (last: {last}):\n"
                        f"{log.read_text()[-3000:]}")
        time.sleep(0.25)  # the poll interval, not a wait for the change


@pytest.mark.parametrize(("own", "generated"), [
    ("papers/rewrite-the-stars.md",
     "page papers/rewrite-the-stars.md (both are papers/rewrite-the-stars/index.html)"),
    ("topics.md", "page topics/index.md (both are topics/index.html)"),  # another path, the same page
    ("exports/papers.csv", "file exports/papers.csv (both are exports/papers.csv)"),
])
def test_a_hand_written_file_may_not_hide_a_generated_one(own: str, generated: str, tmp_path: Path) -> None:
    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    (project / "docs" / own).parent.mkdir(parents=True, exist_ok=True)
    (project / "docs" / own).write_text("# Mine\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=project,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert f"docs/{own} would hide the generated {generated}; rename or remove it" in result.stderr, \
        result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("page", ["index.html", "topics/serving/index.html"])
def test_theme_has_palette_toggle_and_instant_navigation(real_site: Path, page: str) -> None:
    html = soup(real_site / page)
    assert len(html.select("form[data-md-component='palette'] input")) == 2
    config = json.loads(html.select_one("script#__config").string)
    assert "navigation.instant" in config["features"]


@pytest.mark.parametrize("value", [
    'a "q" \\ b', "emoji 😀 x", "line\u2028separator", "bom\ufeffx", "c1\x85x", "---", "- x: y",
    "it's", "tab\tx", "null", "2021-01-01", "&amp; <b>", "{{ 7*7 }}", "#not a comment",
])
def test_front_matter_round_trips_any_text(value: str) -> None:
    from generator.site.render import front_matter

    text = front_matter(title=value, tags=[value, "b"])
    assert text.startswith("---\n") and text.endswith("---\n")
    assert yaml.safe_load(text[4:-4]) == {"title": value, "tags": [value, "b"]}
