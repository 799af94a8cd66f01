"""The real corpus's site, built with `mkdocs build --strict` in a temp dir, checked with bs4."""

from __future__ import annotations

import filecmp
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from conftest import ROOT, make_project, mkdocs_build, survey

from generator.corpus.store import load_corpus
from generator.site.linkcheck import check_site
from generator.site.render import Site

CORPUS = load_corpus(ROOT / "corpus")
SITE_PATH = "/" + yaml.safe_load((ROOT / "mkdocs.yml").read_text())["site_url"].split("/", 3)[3]


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def content(page: BeautifulSoup) -> BeautifulSoup:
    article = page.select_one("article.md-content__inner")
    for permalink in article.select("a.headerlink"):
        permalink.decompose()
    return article


def abstract_of(page: BeautifulSoup) -> str:
    heading = page.find(id="abstract")
    return heading.find_next("p").get_text()


def test_every_paper_has_its_page_with_its_exact_text(real_site: Path) -> None:
    for paper in CORPUS.sorted_papers():
        page = soup(real_site / "papers" / paper.slug / "index.html")
        assert content(page).find("h1").get_text() == paper.title
        assert abstract_of(page) == paper.abstract
        assert page.title.get_text().startswith(paper.title)


def test_every_internal_link_and_anchor_resolves(real_site: Path) -> None:
    assert check_site(real_site, base=SITE_PATH) == []


def test_link_check_finds_a_broken_link(real_site: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(real_site, site)
    page = site / "topics" / "kernels" / "index.html"
    page.write_text(page.read_text().replace("../../papers/", "../../paper/", 1))
    anchor = site / "about" / "index.html"
    anchor.write_text(anchor.read_text().replace("</article>", '<a href="#nowhere">x</a></article>'))
    broken = check_site(site, base=SITE_PATH)
    assert {b.page for b in broken} == {"topics/kernels/index.html", "about/index.html"}


def test_papers_in_several_listings_link_to_each_and_back(real_site: Path) -> None:
    listings_of = CORPUS.listings_of()
    multi = [slug for slug, where in listings_of.items() if len({li.slug for li, _ in where}) > 1]
    assert len(multi) >= 38
    for slug in multi:
        page = content(soup(real_site / "papers" / slug / "index.html"))
        hrefs = {a["href"] for a in page.find_all("a", href=True)}
        for listing, pos in listings_of[slug]:
            assert f"../../listings/{listing.slug}/#entry-{pos}" in hrefs
            lpage = soup(real_site / "listings" / listing.slug / "index.html")
            item = lpage.find(id=f"entry-{pos}").find_parent("li")
            assert item.find("a", href=f"../../papers/{slug}/") is not None
            others = [(li, p) for li, p in listings_of[slug] if (li.slug, p) != (listing.slug, pos)]
            links = {a["href"] for a in item.find_all("a", href=True)}
            for other, opos in others:
                target = (f"#entry-{opos}" if other.slug == listing.slug
                          else f"../{other.slug}/#entry-{opos}")
                assert target in links


def test_listing_pages_keep_original_order(real_site: Path) -> None:
    for listing in CORPUS.sorted_listings():
        page = content(soup(real_site / "listings" / listing.slug / "index.html"))
        items = page.select("ol > li")
        assert len(items) == len(listing.entries)
        for item, entry in zip(items, listing.entries, strict=True):
            assert item.find("a", href=f"../../papers/{entry.paper}/") is not None


def test_topic_pages_count_and_list_their_papers(real_site: Path) -> None:
    every = list(CORPUS.papers.values())
    expected = {t: [p for p in every if t in p.topics] for t in CORPUS.taxonomy.topic_ids}
    expected["other"] = [p for p in CORPUS.papers.values() if not p.topics]
    assert sum(len(v) for v in expected.values()) >= len(CORPUS.papers)
    for topic, papers in expected.items():
        page = content(soup(real_site / "topics" / topic / "index.html"))
        assert re.search(rf"\b{len(papers)} papers?\b", page.get_text())
        linked = {a["href"].split("/")[-2] for a in page.select("li > a[href^='../../papers/']")}
        assert linked == {p.slug for p in papers}
        for paper in papers:
            others = [t for t in paper.topics if t != topic]
            item = page.find("a", href=f"../../papers/{paper.slug}/").find_parent("li")
            for other in others:
                assert item.find("a", href=f"../{other}/") is not None


def test_tag_index_and_tag_pages_count_their_papers(real_site: Path) -> None:
    index = content(soup(real_site / "tags" / "index.html"))
    rows = {tr.find("a")["href"].strip("./"): int(tr.find_all("td")[1].get_text())
            for tr in index.select("tbody tr")}
    for tag in CORPUS.taxonomy.tags:
        count = sum(tag.id in p.tags for p in CORPUS.papers.values())
        assert rows[tag.id] == count
        page = content(soup(real_site / "tags" / tag.id / "index.html"))
        listed = {a["href"].split("/")[-2] for a in page.select("a[href*='/papers/']")}
        assert listed == {p.slug for p in CORPUS.papers.values() if tag.id in p.tags}


def test_paper_tags_link_to_their_tag_page(real_site: Path) -> None:
    paper = CORPUS.papers["qlora-efficient-finetuning-of-quantized-llms"]
    page = soup(real_site / "papers" / paper.slug / "index.html")
    tag_links = {a.get_text(strip=True): a["href"] for a in page.select("a.md-tag")}
    for tag_id in paper.tags:
        name = CORPUS.taxonomy.tag(tag_id).name
        assert tag_links[name].startswith(f"../../tags/{tag_id}/#")


def test_navigation_has_sections_but_no_paper(real_site: Path) -> None:
    page = soup(real_site / "index.html")
    nav = page.select_one("nav.md-nav--primary")
    hrefs = [a["href"] for a in nav.find_all("a", href=True)]
    assert not any(re.search(r"(^|/)papers/", h) for h in hrefs)
    for topic in [*CORPUS.taxonomy.topic_ids, "other"]:
        assert f"topics/{topic}/" in hrefs
    for listing in CORPUS.listings:
        assert f"listings/{listing}/" in hrefs
    assert "tags/" in hrefs and "contributing/" in hrefs and "about/" in hrefs


def test_search_index_holds_every_title_and_abstract(real_site: Path) -> None:
    index = json.loads((real_site / "search" / "search_index.json").read_text())
    docs = {d["location"]: d for d in index["docs"]}
    for paper in CORPUS.papers.values():
        doc = docs[f"papers/{paper.slug}/"]
        text = BeautifulSoup(doc["title"], "html.parser").get_text()
        assert text == paper.title
    zero = docs["papers/zero-infinity-breaking-the-gpu-memory-wall-for-extreme-scale/#abstract"]
    assert "NVMe" in zero["text"]


def test_default_site_names_no_third_party(real_site: Path) -> None:
    """Out of the box: system fonts, no repository (so no GitHub API call), no edit button."""
    for page in ["index.html", "papers/rewrite-the-stars/index.html", "tags/index.html"]:
        html = soup(real_site / page)
        hosts = {urllib.parse.urlsplit(el.get("href") or el.get("src")).hostname
                 for el in html.select("link[href]:not([rel=canonical]), script[src], img[src]")}
        assert hosts == {None}, (page, hosts)
        assert not html.select("[data-md-component='source'], a.md-content__button")


@pytest.mark.slow
def test_with_a_repository_the_edit_link_opens_the_corpus_file(tmp_path: Path) -> None:
    """"Make it yours": repo_url and edit_uri set in mkdocs.yml give every page its edit link."""
    project = make_project(tmp_path)
    config = project / "mkdocs.yml"
    text = config.read_text()
    for key in ("repo_url", "repo_name", "edit_uri"):
        text, n = re.subn(rf"^# ({key}: )", r"\1", text, flags=re.MULTILINE)
        assert n == 1, key
    text = text.replace("OWNER/REPO", "example/survey")
    config.write_text(text)
    site = mkdocs_build(project)
    page = soup(site / "papers" / "rewrite-the-stars" / "index.html")
    edit = page.select_one("a.md-content__button[href*='/edit/']")
    assert edit["href"] == "https://github.com/example/survey/edit/main/corpus/papers/rewrite-the-stars.yaml"
    assert page.select_one("a[data-md-component='source']")["href"] == "https://github.com/example/survey"


def test_home_page_counts(real_site: Path) -> None:
    text = content(soup(real_site / "index.html")).get_text(" ")
    assert "313 papers" in text and "4 listings" in text and "4 topics" in text


HOSTILE = [
    "<kernel> + <programming model>", "S*", "C#", "$42", "10^4", "L_{2}", "\\textbf{bold}", "a | b",
    "{{ 7*7 }}", "{% raw %}x{% endraw %}", '--8<-- "mkdocs.yml"', "<!-- comment -->",
    "<script>alert(1)</script>", '<img src=x onerror="alert(2)">', "[x](javascript:alert(3))",
    ":smile:", "#12", "1st (c) -->", "~~s~~ ==m== ^^i^^ ++k++", "*[HTML]: abbr", "&amp; &lt;",
    "`code`", "\u202eevil\u202c and zero\u200bwidth",
]
ALL_EXTENSIONS = [
    "toc", "tables", "attr_list", "abbr", "admonition", "def_list", "footnotes", "md_in_html",
    "smarty", "sane_lists", "meta", "pymdownx.arithmatex", "pymdownx.betterem", "pymdownx.caret",
    "pymdownx.mark", "pymdownx.tilde", "pymdownx.critic", "pymdownx.details", "pymdownx.emoji",
    "pymdownx.highlight", "pymdownx.inlinehilite", "pymdownx.keys", "pymdownx.magiclink",
    "pymdownx.smartsymbols", {"pymdownx.snippets": {"base_path": ["."], "check_paths": False}},
    "pymdownx.superfences", "pymdownx.tasklist", "pymdownx.tabbed", "pymdownx.escapeall",
]


def hostile_project(tmp_path: Path) -> tuple[Path, list[tuple[str, str, str]]]:
    corpus = tmp_path / "corpus"
    (corpus / "papers").mkdir(parents=True)
    shutil.copy(ROOT / "corpus" / "taxonomy.yaml", corpus)
    from generator.corpus.model import Paper
    from generator.corpus.store import paper_text

    papers = []
    for i, text in enumerate(HOSTILE):
        title = f"Paper {i}: {text}"
        abstract = f"{text} starts the abstract; then {text} in the middle, and it ends with {text}"
        paper = Paper(slug=f"hostile-{i}", title=title, abstract=abstract, topics=["kernels"],
                      tags=["cuda"])
        (corpus / "papers" / f"hostile-{i}.yaml").write_text(paper_text(paper))
        papers.append((paper.slug, title, abstract))
    project = make_project(tmp_path, corpus)
    config = yaml.safe_load((project / "mkdocs.yml").read_text())
    config["markdown_extensions"] = ALL_EXTENSIONS
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config))
    return project, papers


@pytest.mark.slow
def test_corpus_text_is_shown_literally_whatever_the_extensions(tmp_path: Path) -> None:
    project, papers = hostile_project(tmp_path)
    site = mkdocs_build(project)
    topic = content(soup(site / "topics" / "kernels" / "index.html"))
    for slug, title, abstract in papers:
        page = soup(site / "papers" / slug / "index.html")
        assert content(page).find("h1").get_text() == title
        assert abstract_of(page) == abstract
        assert page.title.get_text() == f"{title} - ML Systems Survey"
        assert topic.find("a", href=f"../../papers/{slug}/").get_text() == title
        assert not page.select("article img, article script, article abbr, article code, "
                               "article mark, article del, article sup, article .arithmatex")
        assert not [a for a in page.find_all("a", href=True) if a["href"].startswith("javascript:")]
        assert "survey-plugin" not in page.get_text()  # no snippet of mkdocs.yml was included
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert "alert(1)</script>" not in text and "onerror=\"alert" not in text


def test_two_builds_are_byte_identical(real_site: Path, tmp_path: Path) -> None:
    again = mkdocs_build(make_project(tmp_path))
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
def test_changing_a_corpus_file_changes_the_rebuilt_site(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    site = mkdocs_build(project)
    path = project / "corpus" / "papers" / "rewrite-the-stars.yaml"
    path.write_text(path.read_text().replace("Recent studies", "Newer studies", 1))
    rebuilt = mkdocs_build(project, tmp_path / "site2")
    before = abstract_of(soup(site / "papers" / "rewrite-the-stars" / "index.html"))
    after = abstract_of(soup(rebuilt / "papers" / "rewrite-the-stars" / "index.html"))
    assert before.startswith("Recent studies") and after.startswith("Newer studies")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode("utf-8"))


@contextmanager
def mkdocs_serve(project: Path, log: Path, *flags: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`mkdocs serve` of a project on a free port; yields its base URL and the process."""
    port = _free_port()
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
            page = _get(url)
            last = f"a page without {text!r}"
            if text in page:
                return page
        except OSError as error:
            last = repr(error)
        if time.monotonic() > deadline:
            pytest.fail(f"{url} did not show {text!r} within {timeout:.0f} s (last: {last}):\n"
                        f"{log.read_text()[-3000:]}")
        time.sleep(0.25)  # the poll interval, not a wait for the change


@pytest.mark.slow
@pytest.mark.parametrize("flags", [[], ["--dirty"]], ids=["serve", "serve-dirty"])
def test_mkdocs_serve_rebuilds_when_a_corpus_file_changes(tmp_path: Path, flags: list[str]) -> None:
    project = make_project(tmp_path)
    log = tmp_path / "serve.log"
    with mkdocs_serve(project, log, *flags) as (base, server):
        url = base + "papers/rewrite-the-stars/"
        wait_for_page(url, "Recent studies", server, log)
        path = project / "corpus" / "papers" / "rewrite-the-stars.yaml"
        path.write_text(path.read_text().replace("Recent studies", "Served studies", 1))
        wait_for_page(url, "Served studies", server, log)


def test_a_template_error_names_the_template(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    template = project / "templates" / "paper.md.j2"
    template.write_text(template.read_text() + "\n{{ paper.no_such_field }}\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=project,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert re.search(r"templates/paper\.md\.j2:\d+: UndefinedError", result.stderr), result.stderr
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
