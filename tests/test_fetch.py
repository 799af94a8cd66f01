"""`survey fetch` (issue 42, item 4): the survey's new papers from arXiv's API, on recorded
answers served on loopback (tests/fixtures/fetch/, in the API's own Atom; no network), as
enrich's answers are (tests/test_enrich.py). The pages hold, newest first: two ML-systems papers
(LiquidGEMM, Nexus), an off-topic one, one with U+202E in its title, and ByteScale, which the
corpus holds already."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from conftest import FIXTURES, ROOT, loopback, make_corpus, make_project, snapshot, survey

from generator.core.errors import SurveyError
from generator.corpus.store import load_corpus
from generator.sources import fetch as fetching

PAGES = FIXTURES / "fetch"
NONE = FIXTURES / "enrich" / "arxiv-no-result.xml"
BYTESCALE = "bytescale-efficient-scaling-of-llm-training-with-a-2048k-context"  # 2502.21231, 2025-02
GPIPE = "gpipe-efficient-training-of-giant-neural-networks-using-pipeline"  # 2018-11
DAY = {"SOURCE_DATE_EPOCH": "1757030400"}  # 2025-09-05
DAYS = "from 2025-02-01 to 2025-09-05"
SETTINGS = """categories: [cs.DC, cs.LG]
words: [pipeline parallelism, LLM serving]
contact: curator@example.org
pages: 10
page_size: 2
"""


@dataclass
class Arxiv:
    base: str = ""
    asked: list[dict[str, list[str]]] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    empty: bool = False  # answer every query with no result


@pytest.fixture()
def arxiv() -> Iterator[Arxiv]:
    served = Arxiv()

    def answer(path: str) -> tuple[int, str, bytes]:
        parts = urlsplit(path)
        assert parts.path == "/api/query", path
        query = parse_qs(parts.query)
        served.asked.append(query)
        page = PAGES / f"page-{int(query['start'][0]) // 2}.xml"
        if served.empty or not page.exists():
            return 200, "application/atom+xml", NONE.read_bytes()
        if query["max_results"] != ["2"]:  # the pages of 2 recorded, as one page of 100 (the default)
            assert query["start"] == ["0"], query
            return 200, "application/atom+xml", whole_page()
        return 200, "application/atom+xml", page.read_bytes()

    with loopback(answer) as base:
        served.base = base
        yield served


def entries_and_head() -> tuple[list[str], str]:
    """The entries of the three recorded pages, newest first, and the head of the first page."""
    pages = [(PAGES / f"page-{i}.xml").read_text(encoding="utf-8") for i in range(3)]
    entries = [e for page in pages for e in re.findall(r"  <entry>.*?</entry>\n", page, re.S)]
    return entries, pages[0].split("  <entry>")[0]


def whole_page() -> bytes:
    entries, head = entries_and_head()
    head = head.replace(">2</opensearch:itemsPerPage>", ">100</opensearch:itemsPerPage>")
    return (head + "".join(entries) + "</feed>\n").encode()


def project(tmp_path: Path, settings: str = SETTINGS) -> Path:
    corpus = make_corpus(tmp_path / "corpus", "papers", [BYTESCALE, GPIPE])
    (corpus / "fetch.yaml").write_text(settings, encoding="utf-8")
    return corpus


def run(arxiv: Arxiv, tmp_path: Path, corpus: Path, *extra: str) -> tuple[int, list[str], str]:
    result = survey("fetch", "--corpus", str(corpus), "--delay", "0", *extra, cwd=tmp_path,
                    env={**DAY, "SURVEY_ARXIV_API": f"{arxiv.base}/api/query"})
    return result.returncode, result.stdout.splitlines(), result.stderr


def test_new_papers_are_asked_for_page_by_page_and_imported_on_topic(arxiv: Arxiv, tmp_path: Path) -> None:
    corpus = project(tmp_path)
    code, lines, err = run(arxiv, tmp_path, corpus, "--report", str(tmp_path / "pr.md"))
    assert code == 0, err
    # the survey's query, from the newest date of the corpus (ByteScale's 2025-02) to today
    assert [q["search_query"][0] for q in arxiv.asked] == [
        '(cat:cs.DC OR cat:cs.LG) AND (ti:"pipeline parallelism" OR abs:"pipeline parallelism" OR '
        'ti:"LLM serving" OR abs:"LLM serving") AND submittedDate:[202502010000 TO 202509052359]'] * 3
    assert [(q["start"], q["max_results"], q["sortBy"], q["sortOrder"]) for q in arxiv.asked] == [
        ([s], ["2"], ["submittedDate"], ["descending"]) for s in ("0", "2", "4")]
    assert lines[0] == (f"arXiv: 5 papers of the survey's query submitted {DAYS}; 5 read in 3 pages, "
                        f"1 already in the corpus")
    papers = load_corpus(corpus).papers
    new = {p.arxiv: p for p in papers.values() if p.slug not in (BYTESCALE, GPIPE)}
    assert sorted(new) == ["2507.06608", "2509.01229"]  # the off-topic one and the refused one left out
    feed = tmp_path / "arxiv-2025-02-01-to-2025-09-05.atom.xml"
    listing, = load_corpus(corpus).listings.values()
    assert (listing.name, listing.origin, len(listing.entries)) == (
        "arXiv, 2025-02-01 to 2025-09-05", feed.name, 2)
    assert listing.url and listing.url.startswith(f"{arxiv.base}/api/query?search_query=")
    with (tmp_path / "left-out-arxiv-2025-02-01-to-2025-09-05.csv").open(encoding="utf-8") as f:
        rows = {r["id"]: r["left out because"] for r in csv.DictReader(f)}
    assert rows["2507.00001"] == "no topic likely (--on-topic)"
    assert "field 'title': contains U+202E" in rows["2506.00002"]
    # the feed holds the new entries as arXiv wrote them; importing it again changes nothing
    assert feed.read_text(encoding="utf-8").count("<entry>") == 4
    before = snapshot(corpus)
    again = survey("import", str(feed), "--on-topic", "--corpus", str(corpus), cwd=tmp_path, env=DAY)
    assert again.returncode == 0 and snapshot(corpus) == before, again.stdout
    # what the pull request says, titled from the corpus as written
    topical = sum(bool(p.topics) for p in new.values())
    report = (tmp_path / "pr.md").read_text(encoding="utf-8")
    assert report.startswith(f"## 2 new papers: {topical} in a topic, {2 - topical} for review\n")
    assert "### Left out: 2" in report and "Tensor \\u202eParallel Training at Scale" in report
    assert "\u202e" not in report and "Nexus:Proactive Intra-GPU Disaggregation" in report


def test_a_run_with_nothing_new_writes_nothing(arxiv: Arxiv, tmp_path: Path) -> None:
    corpus = project(tmp_path)
    before = snapshot(corpus)
    arxiv.empty = True
    code, lines, err = run(arxiv, tmp_path, corpus, "--report", str(tmp_path / "pr.md"))
    assert code == 0, err
    assert lines == [f"arXiv: 0 papers of the survey's query submitted {DAYS}; 0 read in 1 page, 0 already "
                     f"in the corpus", "nothing new: nothing written"]
    assert snapshot(corpus) == before and sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]
    # papers arXiv has, but none the survey keeps: nothing written either
    arxiv.empty = False
    code, lines, err = run(arxiv, tmp_path, corpus, "--report", str(tmp_path / "pr.md"))
    assert code == 0 and (tmp_path / "pr.md").is_file(), err
    code, lines, err = run(arxiv, tmp_path, corpus, "--report", str(tmp_path / "second.md"))
    assert code == 0 and lines[-1] == "nothing new in the survey's topics: nothing written", lines
    assert not (tmp_path / "second.md").exists()


def test_the_bound_on_pages_is_kept_and_said(arxiv: Arxiv, tmp_path: Path) -> None:
    corpus = project(tmp_path, SETTINGS.replace("pages: 10", "pages: 2"))
    code, lines, err = run(arxiv, tmp_path, corpus, "--dry-run")
    assert code == 0, err
    assert len(arxiv.asked) == 2
    assert lines[0] == (f"arXiv: 5 papers of the survey's query submitted {DAYS}; 4 read in 2 pages, "
                        f"0 already in the corpus; stopped at the bound of 2 pages (`pages` in "
                        f"{corpus}/fetch.yaml): `survey fetch --since 2025-02-01 --until 2025-06-02` asks "
                        f"for the older ones")
    # that command asks for those days
    code, lines, err = run(arxiv, tmp_path, corpus, "--dry-run", "--since", "2025-02-01",
                           "--until", "2025-06-02")
    assert code == 0 and arxiv.asked[-1]["search_query"][0].endswith(
        "submittedDate:[202502010000 TO 202506022359]"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]  # a dry run writes nothing


def test_requests_are_three_seconds_apart_and_name_the_contact(
        arxiv: Arxiv, monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(fetching.time, "monotonic", lambda: 100.0)
    monkeypatch.setattr(fetching.time, "sleep", slept.append)
    seen: list[str] = []
    real_urlopen = fetching.urllib.request.urlopen

    def urlopen(request: fetching.urllib.request.Request, timeout: float) -> object:
        seen.append(request.get_header("User-agent") or "")
        return real_urlopen(request, timeout=timeout)

    monkeypatch.setattr(fetching.urllib.request, "urlopen", urlopen)
    query = fetching.Query(("cs.DC",), ("LLM serving",), "curator@example.org", pages=2, page_size=2)
    got = fetching.fetch(query, "2025-02-01", "2025-09-05", set(), fetching.Client(query.contact),
                         base=f"{arxiv.base}/api/query")
    assert (got.pages, got.more, slept) == (2, True, [3.0])
    assert seen == ["survey-fetch (a literature survey's new papers; mailto:curator@example.org)"] * 2


def test_a_paper_repeated_on_the_next_page_is_written_once_and_a_short_page_is_said(tmp_path: Path) -> None:
    """Newest first, a paper submitted while the pages are read pushes the last of a page onto
    the next; and arXiv's API sometimes ends its pages before the count it gave."""
    entries, head = entries_and_head()
    head = head.replace(">5</opensearch:", ">7</opensearch:")
    answers = [head + "".join(entries[0:2]) + "</feed>\n",
               head + "".join(entries[1:3]) + "</feed>\n",  # the second again, and the third
               head + entries[3] + "</feed>\n"]  # one where two were due: the pages end short
    asked: list[str] = []

    def answer(path: str) -> tuple[int, str, bytes]:
        asked.append(path)
        return 200, "application/atom+xml", answers[len(asked) - 1].encode()

    corpus = project(tmp_path)
    with loopback(answer) as base:
        result = survey("fetch", "--corpus", str(corpus), "--delay", "0", "--dry-run", cwd=tmp_path,
                        env={**DAY, "SURVEY_ARXIV_API": f"{base}/api/query"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        f"arXiv: 7 papers of the survey's query submitted {DAYS}; 5 read in 3 pages, 0 already in the "
        f"corpus; arXiv's pages ended before its count: `survey fetch --since 2025-02-01 --until 2025-06-02` "
        f"asks for the older ones",
        "entries read: 4; papers added: 2; already in the corpus: 0; possible duplicates to look at: 0"]


@pytest.mark.parametrize(("settings", "problem"), [
    (SETTINGS.replace("contact: curator@example.org", "contact: ''"),
     "field 'contact': '' is not an e-mail address: arXiv's API asks for one"),
    (SETTINGS.replace("cs.LG", "machine learning"),
     "field 'categories[1]': 'machine learning' is not an arXiv category such as cs.DC or stat.ML"),
    (SETTINGS.replace("LLM serving", '"LLM \\" serving"'),
     "field 'words[1]': 'LLM \" serving' may not hold a double"),
    (SETTINGS + "page: 3\n",
     "field 'page': unknown field; the fields are categories, contact, page_size, pages, words"),
    (SETTINGS.replace("pages: 10", "pages: 1000"), "field 'pages': must be a whole number from 1 to 100"),
])
def test_bad_settings_are_one_line_and_nothing_is_asked(settings: str, problem: str, arxiv: Arxiv,
                                                        tmp_path: Path) -> None:
    corpus = project(tmp_path, settings)
    code, _, err = run(arxiv, tmp_path, corpus)
    assert code == 1 and err.startswith(f"survey fetch: {corpus}/fetch.yaml: {problem}"), err
    assert err.count("\n") == 1 and not arxiv.asked


def test_the_contact_may_come_from_the_repository_variable(arxiv: Arxiv, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = project(tmp_path, SETTINGS.replace("contact: curator@example.org", "contact: ''"))
    monkeypatch.setenv("SURVEY_CONTACT_EMAIL", "maintainer@example.org")
    assert fetching.read_query(corpus).contact == "maintainer@example.org"


def test_an_unreachable_or_erring_api_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    corpus = project(tmp_path)
    before = snapshot(corpus)
    error = (b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry>'
             b"<id>http://arxiv.org/api/errors#incorrect_id_format</id><title>Error</title>"
             b"<summary>malformed query</summary></entry></feed>")
    for status, body, said in ((503, b"busy", "127.0.0.1:"), (200, error, "the arXiv API answered with an "
                                                                         "error: malformed query")):
        with loopback(lambda path, status=status, body=body: (status, "application/atom+xml", body)) as base:
            result = survey("fetch", "--corpus", str(corpus), "--delay", "0", cwd=tmp_path,
                            env={**DAY, "SURVEY_ARXIV_API": f"{base}/api/query"})
        assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
        assert said in result.stderr, result.stderr
        assert snapshot(corpus) == before and sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]


def test_since_is_the_newest_date_of_the_corpus_a_month_counting_from_its_first_day(tmp_path: Path) -> None:
    corpus = load_corpus(make_corpus(tmp_path / "corpus", "papers", [BYTESCALE, GPIPE]))
    assert fetching.newest_day(corpus.papers.values()) == "2025-02-01"
    with pytest.raises(SurveyError, match="no such file: write the survey's arXiv query there"):
        fetching.read_query(tmp_path / "corpus")


# --- the weekly workflow, its steps run as its job runs them ---------------------------------------


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          timeout=60).stdout


def run_workflow(checkout: Path, tmp: Path, arxiv: Arxiv, but: str = "pip install") -> Path:
    """The steps of .github/workflows/fetch.yml that run commands, in order, in bash, as the job
    does (the install steps aside: the test's environment is installed; and those whose command
    holds `but`), on recorded answers; the GitHub expressions of their environment given here,
    and `gh` a stand-in that writes down how it was called (in the file returned)."""
    bin_dir, temp = tmp / "bin", tmp / "runner"
    bin_dir.mkdir(parents=True)
    temp.mkdir()
    (bin_dir / "gh").write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$GH_LOG"\n', encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    given = {"SURVEY_CONTACT_EMAIL": "maintainer@example.org", "GH_TOKEN": "token", "RUN_ID": "4242"}
    env = {**os.environ, **DAY, "RUNNER_TEMP": str(temp), "GH_LOG": str(tmp / "gh.log"),
           "SURVEY_ARXIV_API": f"{arxiv.base}/api/query",
           "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]])}
    workflow = yaml.load((ROOT / ".github/workflows/fetch.yml").read_text(), Loader=yaml.BaseLoader)
    for step in workflow["jobs"]["fetch"]["steps"]:
        run = step.get("run", "")
        if not run or "pip install" in run or but in run:
            continue
        step_env = {k: given[k] if "${{" in v else v for k, v in step.get("env", {}).items()}
        result = subprocess.run(["bash", "-e", "-c", run], cwd=checkout, env={**env, **step_env},
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, (run, result.stdout, result.stderr)
    return tmp / "gh.log"


@pytest.mark.slow  # builds the site, as the workflow does
def test_the_weekly_workflow_opens_one_pull_request_and_none_when_nothing_is_new(
        arxiv: Arxiv, tmp_path: Path) -> None:
    if not shutil.which("git"):
        pytest.skip("needs git")
    # The repository variable gives the contact; the pages are of arXiv's default size, so the
    # five papers come in one (the run does not wait out the 3 s between two requests, as pages of
    # 2 would: 6 of this test's 10 s; test_new_papers_are_asked_for_page_by_page... reads pages).
    settings = SETTINGS.replace("contact: curator@example.org", "contact: ''").replace("page_size: 2\n", "")
    origin = make_project(tmp_path, project(tmp_path / "made", settings))
    shutil.copytree(ROOT / ".github", origin / ".github")
    shutil.copy(ROOT / ".gitignore", origin / ".gitignore")
    git(origin, "init", "-q", "-b", "main")
    git(origin, "-c", "user.name=S", "-c", "user.email=s@example.org", "add", "-A")
    git(origin, "-c", "user.name=S", "-c", "user.email=s@example.org", "commit", "-q", "-m", "the survey")
    git(tmp_path, "clone", "-q", str(origin), "checkout")
    log = run_workflow(tmp_path / "checkout", tmp_path / "week1", arxiv)
    assert [q["max_results"] for q in arxiv.asked] == [["100"]]
    args = log.read_text(encoding="utf-8").splitlines()
    body = Path(args[args.index("--body-file") + 1]).read_text(encoding="utf-8")
    pr_title = args[args.index("--title") + 1]
    assert args[:6] == ["pr", "create", "--base", "main", "--head", "fetch/4242"]
    assert pr_title.startswith("2 new papers: ") and pr_title.endswith(" for review"), pr_title
    assert body.startswith(f"## {pr_title}\n") and "### Left out: 2" in body
    assert "Clinical Questions for Language Models" in body  # the left-out report, in the body
    # one commit on the branch, of the corpus alone, titled as the pull request
    assert git(origin, "log", "-1", "--format=%s", "fetch/4242").strip() == pr_title
    changed = git(origin, "diff", "--name-only", "main", "fetch/4242").split()
    assert len(changed) == 3 and all(name.startswith("corpus/") for name in changed), changed
    # the next week, nothing new: no pull request, no branch
    arxiv.empty = True
    git(tmp_path, "clone", "-q", str(origin), "checkout2")
    # (its site not built: a fetch of nothing new writes nothing, test_a_run_with_nothing_new...,
    # so it would build the committed survey, the first week's site but the papers it added)
    log = run_workflow(tmp_path / "checkout2", tmp_path / "week2", arxiv, but="mkdocs build")
    assert not log.exists()
    assert git(origin, "branch", "--list").split() == ["fetch/4242", "*", "main"]
