"""The site publishes what the survey stands for (issue 43, item 3), and the smaller wording,
navigation and link fixes of items 43.5 and 44.5 (V3).

One small site, built once for the module with `mkdocs build --strict` in a clean environment:
the "review" corpus (conftest.make_corpus), where one paper no person reviewed has no suggested
topic (WAITING: it waits for a curator), plus a paper a person reviewed as none of the four
(NONE), a listing holding both with two others, and hostile code and project links on a
suggested paper. Read with BeautifulSoup; every file of the site, decompressed, for what must
not be there.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bs4 import Tag
from conftest import REVIEWED, ROOT, make_corpus, make_project, plugin_option, soup, survey

from generator.corpus.store import load_corpus, paper_text
from generator.site.render import Site

WAITING = "algorithms-for-caching-and-mts-with-reduced-number-of"
WAITING_TITLE = "Algorithms for Caching and MTS with reduced number of predictions"
NONE = "3d-convex-splatting-radiance-field-rendering-with-3d-smooth"
UNSURE = "arithmetic-sampling-parallel-diverse-decoding-for-large-language"  # parallelism 0.62
LISTING = "a-listing"
LISTED = [UNSURE, WAITING, NONE, REVIEWED[0]]  # the listing's entries 1 to 4
CODE, PROJECT = "https://github.com.evil.example/x", "https://xn--gthub-cta.com/p"
WORDINGS = ("(suggested", "suggested 0.", "suggested 1.00")  # the two decimals and brackets of before
NOTICE = "end of life"  # Material's notice: "Material for MkDocs reaches end of life on ..."


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The project, its built site, and what `mkdocs build` printed."""
    tmp = tmp_path_factory.mktemp("publish")
    corpus = make_corpus(tmp / "corpus", "review")
    none = load_corpus(ROOT / "corpus").papers[NONE]
    assert none.topics == [] and "topics" in none.curated
    (corpus / none.file).write_text(paper_text(none), encoding="utf-8")
    path = corpus / "papers" / f"{WAITING}.yaml"
    waiting = yaml.safe_load(path.read_text(encoding="utf-8"))
    # What would put it everywhere if it were published: the newest addition, a tag, an author,
    # an arXiv id and a code link.
    waiting.update(tags=["kv-cache"], authors=["Wanda Waiting"], arxiv="2401.00001", date="2026-11-01",
                   added="2026-11-29", links={"code": "https://example.org/waiting"})
    path.write_text(yaml.safe_dump(waiting, sort_keys=False), encoding="utf-8")
    unsure = corpus / "papers" / f"{UNSURE}.yaml"
    data = yaml.safe_load(unsure.read_text(encoding="utf-8"))
    data["links"] = {"code": CODE, "project": PROJECT}
    unsure.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    (corpus / "listings").mkdir()
    (corpus / "listings" / f"{LISTING}.yaml").write_text(yaml.safe_dump({
        "slug": LISTING, "name": "A listing", "source": "hf-json", "origin": "a.json", "sha256": "0",
        "entries": [{"paper": slug, "title": "x"} for slug in LISTED]}), encoding="utf-8")
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    project = make_project(tmp, corpus)
    # A clean environment, as a newcomer's shell: no NO_MKDOCS_2_WARNING (conftest sets it here).
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp), "LANG": "C.UTF-8"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    return project, project / "site", result.stdout + result.stderr


def every_file(site: Path) -> dict[str, str]:
    """Every file of the site as text, gzipped ones (the search index's) decompressed."""
    out = {}
    for path in sorted(site.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            out[str(path.relative_to(site))] = data.decode("utf-8", errors="replace")
    return out


def article(site: Path, page: str) -> Tag:
    found = soup(site / page / "index.html").find("article")
    assert isinstance(found, Tag)
    return found


def text(tag: Tag) -> str:
    return " ".join(tag.get_text(" ").split())


# --- papers that wait for a curator ------------------------------------------------------------


@pytest.mark.slow  # builds the module's site
def test_a_paper_that_waits_for_a_curator_is_nowhere_on_the_site(built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    files = every_file(site)
    assert not (site / "papers" / WAITING).exists()
    for needle in (WAITING, WAITING_TITLE, "Wanda Waiting", "2401.00001", "example.org/waiting"):
        assert [name for name, body in files.items() if needle in body] == [], needle


@pytest.mark.slow  # builds the module's site
def test_the_others_are_published_the_reviewed_none_paper_under_other(built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    files = every_file(site)
    for slug in (NONE, UNSURE, REVIEWED[0]):
        assert (site / "papers" / slug / "index.html").is_file()
        seen = {name.split("/")[0].split("-")[0] for name, body in files.items() if slug in body}
        # its page, lists, feeds, sitemap, search index and exports
        assert {"papers", "index.html", "topics", "listings", "sitemap", "pagefind", "exports",
                "feed.xml"} <= seen, (slug, seen)
    other = article(site, "topics/other")
    assert [a["href"] for a in other.select("a.survey-entry__title")] == [f"../../papers/{NONE}/"]
    assert text(other.find("p", class_="survey-numbers")).startswith("1 paper · 1 reviewed")


@pytest.mark.slow  # builds the module's site
def test_a_listing_leaves_out_the_waiting_entry_and_keeps_the_numbers(built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    page = article(site, f"listings/{LISTING}")
    numbers = text(page.find("p", class_="survey-numbers"))
    assert numbers.startswith("4 entries in their original order · 1 not shown: its paper waits for a "
                              "curator's review · 0 also listed elsewhere")
    assert "BibTeX (2 of 3)" in numbers  # the three on the site; two have what a citation needs
    items = page.select("ol.survey-entries > li")
    shown = [(li["value"], li.a["id"], li.select_one("a.survey-entry__title")["href"]) for li in items]
    assert shown == [("1", "entry-1", f"../../papers/{UNSURE}/"), ("3", "entry-3", f"../../papers/{NONE}/"),
                     ("4", "entry-4", f"../../papers/{REVIEWED[0]}/")]
    listed = article(site, f"papers/{NONE}").find("h2", id="listed-in").find_next_sibling("ul")
    assert text(listed) == "A listing , entry 3 of 4"
    assert listed.find("a")["href"] == f"../../listings/{LISTING}/#entry-3"


@pytest.mark.slow  # builds the module's site
def test_the_statistics_count_the_waiting_papers_and_the_queue_lists_them(
        built: tuple[Path, Path, str]) -> None:
    project, site, _ = built
    stats = text(article(site, "statistics"))
    assert "1 paper waits for a curator: no person has reviewed it and the topic model places it in no " \
           "topic, so it is not on the site until a person keeps it" in stats
    assert "8 papers, 1 listing, " in stats  # the papers on the site
    queue = survey("review", "--list", "--corpus", str(project / "corpus")).stdout
    assert WAITING in queue.split()


@pytest.mark.slow  # builds the module's site
def test_publish_waiting_puts_every_paper_on_the_site(built: tuple[Path, Path, str], tmp_path: Path) -> None:
    """The setting of docs/topic-boundaries.md: in mkdocs.yml, which `survey build` reads too."""
    project, _, _ = built
    corpus = load_corpus(project / "corpus")
    pages = Site(corpus, project / "templates", publish_waiting=True).pages()
    assert f"papers/{WAITING}.md" in pages
    assert "Other <small>suggested</small>" in pages["topics/other.md"]
    assert f"papers/{WAITING}.md" not in Site(corpus, project / "templates").pages()
    shutil.copytree(project, tmp_path / "p", ignore=shutil.ignore_patterns("site"))
    for setting, held in (("false", False), ("true", True)):
        text = (tmp_path / "p" / "mkdocs.yml").read_text(encoding="utf-8")
        assert "publish_waiting: " in text
        (tmp_path / "p" / "mkdocs.yml").write_text(
            text.replace("publish_waiting: false", f"publish_waiting: {setting}"), encoding="utf-8")
        out = tmp_path / f"out-{setting}"
        assert survey("build", "--out", str(out), "--corpus", "corpus", cwd=tmp_path / "p").returncode == 0
        assert (out / "papers" / f"{WAITING}.md").exists() is held


def test_survey_add_says_a_paper_with_no_topic_waits(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "review")
    result = survey("add", "--corpus", str(corpus), "--title", "Tomato growing in cold climates",
                    "--abstract", "We grow tomatoes in greenhouses through a northern winter.")
    assert result.returncode == 0, result.stderr
    slug = "tomato-growing-in-cold-climates"
    lines = result.stdout.splitlines()
    assert lines[1] == (f"topics: none suggested (see survey explain {slug}): the paper is not on the site "
                        f"until a person reviews it")
    assert f"page (once reviewed): https://ml-systems-survey.github.io/survey/papers/{slug}/" in lines


def test_plugin_option_is_read_by_every_command(tmp_path: Path) -> None:
    from generator.core.settings import read_settings

    project = make_project(tmp_path, make_corpus(tmp_path / "corpus", "review"))
    assert read_settings(project / "mkdocs.yml").publish_waiting is False
    plugin_option(project, "publish_waiting: true")
    assert read_settings(project / "mkdocs.yml").publish_waiting is True
    text = (project / "mkdocs.yml").read_text(encoding="utf-8")
    (project / "mkdocs.yml").write_text(text.replace("  - survey:\n", "  - search\n  - survey:\n"))
    assert read_settings(project / "mkdocs.yml").publish_waiting is True  # among other plugins


# --- wording -----------------------------------------------------------------------------------


@pytest.mark.slow  # builds the module's site
def test_a_suggestion_reads_one_way_everywhere_a_percentage_without_brackets(
        built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    want = "Parallelism suggested 62%"
    home = article(site, "")
    entry = next(li for li in home.select("li.survey-entry") if UNSURE in li.find("a")["href"])
    assert [text(a) for a in entry.select("a.survey-topic")] == [want]
    page = "papers/accelerating-feedforward-computation-via-parallel-nonlinear"
    related = article(site, page).find("h2", id="related-papers").find_next_sibling("ul")
    shown = text(related)
    assert want in shown and "(suggested" not in shown
    js = (ROOT / "docs" / "assets" / "search.js").read_text(encoding="utf-8")
    assert '" (" + words + ")"' not in js  # the header's box writes it as the lists do
    for name, body in every_file(site).items():  # the generated pages (docs/ quotes the CLI's output)
        if name.endswith(".html") and name.startswith(("papers/", "topics/", "tags/", "listings/", "index")):
            assert [w for w in WORDINGS if w in body] == [], name


@pytest.mark.slow  # builds the module's site
def test_counts_are_singular_for_one(built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    home = text(article(site, ""))
    assert "8 papers · 3 of 8 reviewed by a person" in home
    assert "Serving · 1 paper · 0 of 1 reviewed" in home and "1 papers" not in home
    assert "A listing : 4 entries" in home
    assert "1 listing" in text(article(site, ""))
    assert "A listing · 4 entries" in text(article(site, "listings"))


@pytest.mark.slow  # builds the module's site
def test_a_topic_page_says_how_many_of_its_papers_its_bibtex_holds(built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    numbers = article(site, "topics/parallelism").find("p", class_="survey-numbers")
    link = numbers.find("a", href="../../exports/topics/parallelism.bib")
    assert text(link) == "BibTeX (1 of 4)"
    held = (site / "exports" / "topics" / "parallelism.bib").read_text(encoding="utf-8")
    assert held.count("\n@") + held.startswith("@") == 1
    tag = article(site, "tags/pipeline-parallelism").find("p", class_="survey-numbers")
    assert "BibTeX (1 of 1)" in text(tag)


# --- the paper page's links (issue 44, V3) -----------------------------------------------------


@pytest.mark.slow  # builds the module's site
def test_a_code_or_project_link_shows_its_host(built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    actions = article(site, f"papers/{UNSURE}").find("p", class_="survey-actions")
    buttons = {text(a): a["href"] for a in actions.find_all("a")}
    assert buttons["Code (github.com.evil.example)"] == CODE
    assert buttons["Project page (xn--gthub-cta.com)"] == PROJECT


# --- maintainer pages and the end-of-life notice -----------------------------------------------


@pytest.mark.slow  # builds the module's site
def test_maintainer_pages_are_out_of_the_navigation_and_linked_from_the_footer(
        built: tuple[Path, Path, str]) -> None:
    _, site, _ = built
    for page in ("", f"papers/{NONE}/", "contributing/"):
        html = soup(site / page / "index.html")
        nav = html.find("nav", class_="md-nav--primary")
        assert "Code layout" not in text(nav) and "Benchmark" not in text(nav)
        assert not [a for a in nav.find_all("a", href=True) if "architecture" in a["href"]]
        footer = html.find("footer").find("div", class_="survey-maintainers")
        up = "../" * page.count("/")
        assert [(text(a), a["href"]) for a in footer.find_all("a")] == [
            ("Code layout", f"{up}architecture/"), ("Benchmark", f"{up}benchmark/")]
    contributing = article(site, "contributing")
    assert {a["href"] for a in contributing.find_all("a", href=True)} >= {"../architecture/", "../benchmark/"}
    for page in ("architecture", "benchmark"):
        assert (site / page / "index.html").is_file()


@pytest.mark.slow  # builds the module's site
def test_mkdocs_prints_no_end_of_life_notice_in_a_clean_shell(built: tuple[Path, Path, str]) -> None:
    _, _, printed = built
    assert "Documentation built" in printed and NOTICE not in printed and "Zensical" not in printed


def test_the_notice_would_print_without_the_project_setting() -> None:
    """What the notice test rests on: Material prints it when the variable is unset and the
    mkdocs.yml line is not there to set it."""
    env = {k: v for k, v in os.environ.items() if k != "NO_MKDOCS_2_WARNING"}
    as_mkdocs = "import sys; sys.argv[0] = 'mkdocs'; "
    shown = subprocess.run([sys.executable, "-c", as_mkdocs + "import material.templates"],
                           env=env, capture_output=True, text=True, timeout=60)
    assert NOTICE in shown.stderr
    both = "import generator.adapter.quiet; import material.templates"
    quiet = subprocess.run([sys.executable, "-c", as_mkdocs + both],
                           env=env, capture_output=True, text=True, timeout=60)
    assert NOTICE not in quiet.stderr
    assert "!!python/name:generator.adapter.quiet.OFF" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
