"""Hostile input (issue 25): every case is refused in one line or shown exactly as written, and
nothing in the corpus is lost.

Each test is a real run: the `survey` command in a subprocess, or `mkdocs build` of a hostile
corpus checked with bs4. The cases about pages share one build (`hostile_build`). Cases that
would exhaust the machine where they are not refused run with a time and memory limit.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, make_corpus, make_project, mkdocs_build, replace_in, snapshot, soup, survey

from generator.corpus.model import Entry, Listing, Paper
from generator.corpus.store import listing_text, paper_text

SITE_NAME = "ML Systems Survey"
PAPER = "rewrite-the-stars"  # a paper of the committed corpus the file-level cases edit


def refused(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The run failed with one line on stderr, no traceback, holding each needle; the line."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-3000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def checked(corpus: Path) -> list[str]:
    """`survey check` of a corpus that has problems: its problem lines (the count line aside)."""
    result = survey("check", "--corpus", str(corpus))
    assert result.returncode == 1, result.stdout
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    *problems, summary = result.stderr.strip().splitlines()
    assert summary == f"survey check: {len(problems)} problem(s)"
    return problems


def bounded(*args: str, seconds: float = 300, prelude: str = "") -> subprocess.CompletedProcess[str]:
    """`survey ARGS` in a subprocess, so that what would run away is caught by a timeout (a hang
    fails the test instead of holding the suite) and what it refuses is refused by a real
    process. No memory limit: an address-space limit trips on the allocator's arenas, which grow
    with the cores (issue 30); that a bomb is refused before it is expanded is what the one line
    says. `prelude` runs first in the same process."""
    code = f"{prelude}\nimport sys\nfrom generator.cli.main import main\nsys.exit(main(sys.argv[1:]))"
    try:
        return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"survey {' '.join(args)[:80]} ran over {seconds:g} s: a hang")


def edit_paper(corpus: Path, old: str, new: str, slug: str = PAPER) -> None:
    replace_in(corpus / "papers" / f"{slug}.yaml", old, new, 1)


def import_refused(tmp_path: Path, source: Path, *needles: str) -> str:
    """`survey import` of one source into a corpus copy: refused in one line, nothing changed."""
    corpus = shutil.copytree(ROOT / "corpus", tmp_path / "corpus")
    before = snapshot(corpus)
    line = refused(bounded("import", str(source), "--corpus", str(corpus)), str(source), *needles)
    assert snapshot(corpus) == before
    return line


# --- the pages: one build of a hostile corpus ---------------------------------------------------

PAYLOADS = [
    "<script>alert(1)</script>", '<img src=x onerror="alert(2)">', "[x](javascript:alert(3))",
    "{{ 7*7 }} {% include 'mkdocs.yml' %}", '--8<-- "mkdocs.yml"', "&amp; &lt;b&gt; <!-- c -->",
    '=HYPERLINK("https://evil.example/","x")', "@SUM(1+1)", "+1 and -1", "-2+3 equals one",
]
LISTING_NAME = "AT&amp;T <3 \"R&D\" 'q' a < b > c {{ 7*7 }} *x* _y_ #1"
TOPIC_NAME = "Kernels & <3 &lt;GPU&gt; \"fast\" {{ 7*7 }}"
LINK = "https://example.org/a_(b)*[c]?d=1&e=2#f"
AUTHOR = "=cmd|' /C calc'!A0 <b>Eve</b>"


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Paper]]:
    """A site of papers whose titles, abstracts, authors and links carry the payloads, in a
    listing and a topic whose names carry them too, built with `mkdocs build --strict`."""
    tmp = tmp_path_factory.mktemp("hostile")
    corpus = tmp / "corpus"
    (corpus / "papers").mkdir(parents=True)
    (corpus / "listings").mkdir()
    shutil.copy(ROOT / "corpus" / "taxonomy.yaml", corpus / "taxonomy.yaml")
    replace_in(corpus / "taxonomy.yaml", "  name: Kernels\n", f"  name: {json.dumps(TOPIC_NAME)}\n")
    papers = []
    for i, text in enumerate(PAYLOADS):
        paper = Paper(slug=f"hostile-{i}", title=text if i % 2 else f"{text} in a title",
                      abstract=f"{text} starts the abstract, then {text} again", topics=["kernels"],
                      tags=["cuda"], authors=[AUTHOR, f"{text} Doe"], links={"code": LINK},
                      date="2024-01-0" + str(i % 9 + 1))
        (corpus / paper.file).write_text(paper_text(paper), encoding="utf-8")
        papers.append(paper)
    listing = Listing(slug="hostile", name=LISTING_NAME, source="hf-text", origin="hostile.txt",
                      sha256="0" * 64, entries=[Entry(paper=p.slug, title=p.title) for p in papers])
    (corpus / listing.file).write_text(listing_text(listing), encoding="utf-8")
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    return mkdocs_build(make_project(tmp, corpus)), papers


@pytest.mark.slow
def test_listing_and_topic_names_are_shown_as_written_on_every_page(
        hostile_build: tuple[Path, list[Paper]]) -> None:
    """The navigation of every page shows the names as written (the theme takes a navigation
    title as HTML); so do the titles, headings and headers of their own pages, and the home page
    and the listings' index, which name each listing (the navigation has one entry for them)."""
    site, _ = hostile_build
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    for path in pages:
        nav = soup(path).select_one("nav.md-nav--primary")
        names = [a.get_text(" ", strip=True) for a in nav.select("a.md-nav__link")]
        assert TOPIC_NAME in names and "Listings" in names, (path, names)
        assert not nav.select("script, img, b"), path
    for path in ("index.html", "listings/index.html"):
        links = [a.get_text() for a in soup(site / path).select("article a[href$='hostile/']")]
        assert links == [LISTING_NAME], path
    for folder, name in (("listings/hostile", LISTING_NAME), ("topics/kernels", TOPIC_NAME)):
        own = soup(site / folder / "index.html")
        assert own.title.get_text() == f"{name} - {SITE_NAME}"
        assert own.select_one("article h1").get_text().removesuffix("¶") == name
        assert own.select_one(".md-header__topic[data-md-component=header-topic] .md-ellipsis"
                              ).get_text(strip=True) == name
    listed = soup(site / "papers" / "hostile-0" / "index.html").select_one("article")
    assert LISTING_NAME in listed.get_text()
    code = next(a for a in listed.find_all("a") if a.get_text().startswith("Code ("))  # "Code (HOST)"
    assert urllib.parse.unquote(code["href"]) == LINK  # titles, abstracts
    # and authors as written: test_site.py's test_corpus_text_is_shown_literally_whatever_the_extensions
    # the topic page's folded rule is raw HTML in the Markdown: its name is text there too
    rule = soup(site / "topics" / "kernels" / "index.html").select_one("article details.survey-boundary")
    assert rule.summary.get_text() == f"What is in {TOPIC_NAME} and what is not"
    assert not rule.select("script, img, b")


@pytest.mark.slow
def test_csv_export_cannot_run_a_formula(hostile_build: tuple[Path, list[Paper]], tmp_path: Path) -> None:
    """exports/papers.csv (and `survey export --format csv`): a cell that a spreadsheet would
    read as a formula starts with a ', which a reader strips to get the text back."""
    site, papers = hostile_build
    published = (site / "exports" / "papers.csv").read_text(encoding="utf-8")
    project_corpus = site.parent / "corpus"
    result = survey("export", "--format", "csv", "--corpus", str(project_corpus))
    assert result.returncode == 0 and result.stdout == published
    rows = {row["slug"]: row for row in csv.DictReader(io.StringIO(published))}
    for paper in papers:
        row = rows[paper.slug]
        for column, text in (("title", paper.title), ("abstract", paper.abstract),
                             ("authors", "\n".join(paper.authors))):
            cell = row[column]
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (column, cell)
            assert (cell[1:] if cell.startswith("'") else cell) == text
    assert rows["hostile-6"]["title"] == "'" + papers[6].title
    assert rows["hostile-0"]["authors"].startswith("'=cmd|")


# --- names: markup refused where the schema says text ------------------------------------------


def test_check_refuses_markup_in_listing_topic_and_tag_names(corpus: Path) -> None:
    path = replace_in(sorted((corpus / "listings").glob("*.yaml"))[0], "\nname: ",
                      "\nname: <script>alert(1)</script> ", 1)
    replace_in(corpus / "taxonomy.yaml", "  name: Kernels\n", "  name: <img src=x onerror=alert(1)>\n")
    replace_in(corpus / "taxonomy.yaml", "  name: Data parallelism\n", "  name: <b>Data</b>\n")
    problems = checked(corpus)
    assert len(problems) == 3, problems  # and no paper's topic or tag reported as unknown
    assert any(f"{path.name}: entry {path.stem}: field 'name': contains markup" in p for p in problems)
    assert any("taxonomy.yaml: entry kernels: field 'name': contains markup" in p for p in problems)
    assert any("taxonomy.yaml: entry data-parallelism: field 'name': " in p for p in problems)


@pytest.mark.slow
def test_mkdocs_build_fails_in_one_line_on_a_corpus_error(tmp_path: Path) -> None:
    """What check refuses (test_check_refuses_markup_in_a_listing_name and the rest), the build
    refuses through the same reader, in one line."""
    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    edit_paper(project / "corpus", "title:", "title: [")
    needle = f"corpus/papers/{PAPER}.yaml:3:9: malformed YAML"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=project,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if needle in line]
    assert len(errors) == 1 and errors[0].count("\n") == 0, result.stderr
    assert not (project / "site" / "index.html").exists()


# --- resource bombs ------------------------------------------------------------------------------


def _alias_bomb(levels: int = 20) -> str:
    """21 lines: a title whose items each hold nine aliases of the item before: 9**20 items."""
    lines = ["title:", "- &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"- &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


NO_LIBYAML = "import sys\nsys.modules['yaml._yaml'] = None  # PyYAML's pure-Python loader only"


@pytest.mark.parametrize("loader", ["libyaml", "pure-python"])
def test_an_alias_bomb_and_deep_nesting_are_refused_at_once_by_either_yaml_loader(loader: str,
                                                                                   tmp_path: Path) -> None:
    """Where libyaml is missing, PyYAML's own loader runs: the same refusals hold there. (A
    corpus of the one paper: PyYAML's own loader read the committed corpus's 313 in 1 s a run.)"""
    corpus = make_corpus(tmp_path / "corpus", "papers", [PAPER])
    prelude = NO_LIBYAML if loader == "pure-python" else ""
    probe = subprocess.run([sys.executable, "-c", f"{prelude}\nimport yaml\n"
                            "from generator.core import yamlio\nprint(yaml.__with_libyaml__, "
                            "yamlio.TextLoader.__mro__[1].__name__)"], capture_output=True, text=True)
    expected = ["True", "CSafeLoader"] if loader == "libyaml" else ["False", "SafeLoader"]
    assert probe.stdout.split() == expected, probe.stderr
    path = corpus / "papers" / f"{PAPER}.yaml"
    text = path.read_text(encoding="utf-8")
    title, abstract = text.index("title:"), text.index("abstract:")
    for problem, bombed in (
            (f"{PAPER}.yaml:3:3: an alias (*name) repeats the value anchored here",
             text[:title] + _alias_bomb() + text[abstract:]),
            ("nest", text[:title] + "authors: " + "[" * 100_000 + "]" * 100_000 + "\n" + text[title:])):
        path.write_text(bombed, encoding="utf-8")
        result = bounded("check", "--corpus", str(corpus), prelude=prelude)
        problems = result.stderr.strip().splitlines()
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
        assert len(problems) == 2 and problem in problems[0] and len(problems[0]) < 300, problems


def test_a_gzip_bomb_is_refused_without_inflating_it_all(tmp_path: Path) -> None:
    """600 KB of gzip members, each a megabyte of spaces: 520 MiB once inflated."""
    member = gzip.compress(b" " * 2**20, mtime=0)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(member * 520)
    assert bomb.stat().st_size < 2**20
    import_refused(tmp_path, bomb, "inflated, the file is over 512 MiB")


@pytest.mark.parametrize(("field", "value"), [
    ("title", "x" * 500_000),  # a longer one makes the file too big (test_bounds.py)
    ("abstract", "word " * 4_000 + "end"),
    ("authors", ["A B"] * 6_000),
    ("authors[0]", ["N" * 1_000]),
    ("links.code", {"code": "https://example.org/" + "x" * 3_000}),
    ("alternate_titles[0]", ["y" * 1_001]),
])
def test_check_refuses_an_oversized_field_in_one_line(field: str, value: Any, corpus: Path) -> None:
    path = corpus / "papers" / f"{PAPER}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data[field.split("[")[0].split(".")[0]] = value
    path.write_text(yaml.safe_dump(data, width=float("inf")), encoding="utf-8")
    problems = checked(corpus)
    assert len(problems) == 1, problems
    assert f"entry {PAPER}: field '{field}': " in problems[0] and "at most" in problems[0]
    assert len(problems[0]) < 300


def test_a_catastrophic_taxonomy_rule_is_stopped_and_named(corpus: Path) -> None:
    """`^(\\w+\\s?)+$` against forty words and a '!' would backtrack for hours."""
    taxonomy = corpus / "taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8")
    anchor = "- id: data-parallelism\n"
    start = text.index("  rules:\n", text.index(anchor)) + len("  rules:\n")
    taxonomy.write_text(text[:start] + "  - match: '^(\\w+\\s?)+$'\n" + text[start:], encoding="utf-8")
    before = snapshot(corpus)
    result = bounded("add", "--title", "A crafted paper", "--abstract", "word " * 40 + "!",
                     "--corpus", str(corpus), seconds=30)
    refused(result, "taxonomy.yaml: entry data-parallelism: field 'rules[0].match': the rule ran over")
    assert snapshot(corpus) == before


@pytest.mark.parametrize("shape", ["json", "html"])
def test_json_nested_100000_deep_is_one_line(shape: str, tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    source = tmp_path / f"deep.{shape}"
    if shape == "json":
        source.write_text(deep)
    else:
        # padded to pass the count of objects and arrays a size allows (intake.py), to reach the parser
        props = '{"pad": "' + " " * 16 * 100_001 + '", "paper": ' + deep + "}"
        source.write_text('<!DOCTYPE html><html><body><div data-target="PaperContent" data-props="'
                          + props.replace('"', "&quot;") + '"></div></body></html>')
    import_refused(tmp_path, source, "nested too deeply")


# --- one line, no traceback ----------------------------------------------------------------------


def test_a_lone_surrogate_on_the_command_line_is_refused(corpus: Path) -> None:
    before = snapshot(corpus)
    undecodable = b"Bad \xff title".decode("utf-8", "surrogateescape")  # as Python reads such argv
    result = bounded("add", "--title", undecodable, "--abstract", "An abstract about kernels.",
                     "--corpus", str(corpus))
    refused(result, "field 'title': contains a lone surrogate")
    assert snapshot(corpus) == before


def test_every_problem_of_a_file_is_reported_in_one_run(corpus: Path) -> None:
    edit_paper(corpus, "links:\n  code: https://github.com/ma-xu/Rewrite-the-Stars\n", "")
    edit_paper(corpus, "topics:", "links:\n  paper: javascript:alert(1)\n  pdf: ftp://x\n"
                                  "  code: 'https://a b'\n  project: data:text/html,x\n"
                                  "date: yesterday\ntopics:")
    problems = checked(corpus)
    fields = [p.split("field '")[1].split("'")[0] for p in problems]
    assert fields == ["date", "links.paper", "links.pdf", "links.code", "links.project"]
    assert all(f"{PAPER}.yaml: entry {PAPER}: " in p for p in problems)


# --- nothing reaches out: files, code, paths -----------------------------------------------------

ATOM_HEAD = '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:xi="http://www.w3.org/2001/XInclude">'


@pytest.mark.parametrize("case", ["xxe", "dtd", "xinclude"])
def test_atom_cannot_reach_local_files(case: str, tmp_path: Path) -> None:
    """A document type is refused before any parser sees it: its entities can reach files, or
    expand without end (a billion laughs)."""
    entry = ("<entry><id>http://arxiv.org/abs/2401.00001v1</id><title>A title about kernels"
             "</title><summary>{}</summary></entry>")
    if case == "xinclude":
        include = "An abstract about kernels. <xi:include href='/etc/passwd' parse='text'/>"
        text = f"{ATOM_HEAD}{entry.format(include)}</feed>"
        corpus = shutil.copytree(ROOT / "corpus", tmp_path / "corpus")
        result = survey("import", str(_write(tmp_path / "xi.xml", text)), "--corpus", str(corpus))
        assert result.returncode == 0, result.stderr
        assert not [p for p in (corpus / "papers").glob("*.yaml") if "root:" in p.read_text()]
        return
    dtd = ('<!DOCTYPE feed [<!ENTITY x SYSTEM "file:///etc/passwd">]>' if case == "xxe"
           else '<!DOCTYPE feed SYSTEM "http://example.org/feed.dtd">')
    text = f'<?xml version="1.0"?>\n{dtd}\n{ATOM_HEAD}{entry.format("&x;" if case == "xxe" else "x")}</feed>'
    line = import_refused(tmp_path, _write(tmp_path / f"{case}.xml", text), "DOCTYPE")
    assert "root:" not in line


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_python_tags_in_a_corpus_file_run_nothing(corpus: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    edit_paper(corpus, "topics:", f"authors: !!python/object/apply:os.system ['touch {marker}']\ntopics:")
    problems = checked(corpus)
    assert len(problems) == 1 and "malformed YAML" in problems[0]
    assert not marker.exists()


@pytest.mark.parametrize("case", ["slug", "listing-name", "title"])
def test_no_name_leads_outside_the_corpus(case: str, corpus: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    if case == "slug":
        edit_paper(corpus, f"slug: {PAPER}", "slug: ../../outside")
        problems = checked(corpus)
        assert any("field 'slug': '../../outside' is not a slug" in p for p in problems), problems
        return
    before = set(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    if case == "listing-name":
        source = tmp_path / "x.json"
        source.write_text(json.dumps([{"paper": {"title": "A kernels title", "summary": "An abstract."}}]))
        before.add(source.relative_to(tmp_path))
        result = survey("import", str(source), "--name", "../../outside", "--corpus", str(corpus))
    else:
        result = survey("add", "--title", "../../outside", "--abstract", "An abstract about kernels.",
                        "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    new = {p for p in (set(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) - before)}
    # the model's scores go to the derived cache
    assert new and all(p == Path("corpus/.survey-cache.json") or (p.parts[0] == "corpus" and p.parent.name in
                                                                  ("papers", "listings")) for p in new), new
    assert not outside.exists()
