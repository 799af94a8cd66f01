from __future__ import annotations

import contextlib
import gc
import http.server
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
FIXTURES = ROOT / "tests" / "fixtures"
SEEDS = sorted((DATA / "seeds").glob("*.txt"))
SEED_NAMES = {
    "000_87ad414820e98a52.txt": "GPU systems and efficient deep learning (HF Papers, Mar 11)",
    "001_e68608dd41fdc731.txt": "GPU architecture and efficient LLMs (HF Daily Papers, Sep 10)",
    "002_c95fe666ea5c2d2b.txt": "Parallel and distributed ML systems (HF Papers)",
    "003_cda745b093196d2b.txt": "Efficient ML, neural graphics and more (HF Papers, Mar 14)",
}

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

# A test that uses one of these builds the whole real site (once a session) or drives a browser:
# it is marked slow, so `pytest -m "not slow"` leaves it out. Tests that build a site of their
# own, run `mkdocs serve`, classify or import the whole corpus or read the whole real data file
# say @pytest.mark.slow themselves.
SLOW_FIXTURES = {"real_site", "site_base", "hostile_site", "chromium", "cited_site", "review_site",
                 "literal_site"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--real", action="store_true",
                     help="also run the tests marked `real`: the real data at scale (.ci/run does)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    # The README's test command is what a newcomer and every submission wait for: the real data
    # at scale (minutes of imports and builds) runs only when asked, as .ci/run asks.
    if not config.getoption("--real"):
        real = [item for item in items if item.get_closest_marker("real")]
        if real:
            config.hook.pytest_deselected(items=real)
            items[:] = [item for item in items if not item.get_closest_marker("real")]
    # `--dist loadfile` hands out the files in this order (pyproject.toml): test_real first, its
    # import and build of 9,400 pages one chain of two minutes on one core, which the other worker
    # runs the rest beside; the other files of real data; then the files of most tests first, as
    # xdist's own order (--loadscope-reorder) has them.
    tests = Counter(item.path for item in items)
    items.sort(key=lambda item: (item.path.name != "test_real.py", not item.get_closest_marker("real"),
                                 -tests[item.path]))


REAL_PAPERS = ROOT.parent / "shared" / "real" / "hf-daily-papers-2024-05-to-2026-08.json.gz"
REAL_BIB = ROOT.parent / "shared" / "bib"


def _real(present: bool, what: str) -> None:
    """Real data lives beside this checkout (never copied into it): a test that needs it skips
    where it is absent (a fork's pull request), and fails when SURVEY_REAL_DATA=required, as
    .ci/run sets it."""
    if not present and os.environ.get("SURVEY_REAL_DATA") == "required":
        pytest.fail(f"{what} is missing, and SURVEY_REAL_DATA=required")
    if not present:
        pytest.skip(f"{what} is not beside this checkout")


def real_papers() -> Path:
    _real(REAL_PAPERS.exists(), str(REAL_PAPERS))
    return REAL_PAPERS


def real_bib_files() -> list[Path]:
    """The four real BibTeX files of ../shared/bib/."""
    files = sorted(REAL_BIB.glob("*.bib"))
    _real(len(files) == 4, f"the four .bib files of {REAL_BIB}")
    return files


def survey(*args: str, cwd: Path | None = None, input: str | None = None,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the `survey` command line in this process, as `python -m generator ARGS` would run
    it (from `cwd`, with `env` added, `input` on stdin): its exit code, stdout and stderr. An
    exception that escapes main() is printed to stderr as the interpreter prints it (exit 1), so
    "no traceback" assertions hold in-process too. Start-up and import cost 0.75 to 1.5 s a
    subprocess; this costs nothing, which is what lets every refusal be its own assertion.
    `survey_process` runs the real command in a subprocess: one test per command uses it for
    what only a process shows (its exit status as the shell sees it, nothing printed at exit, a
    fault of SURVEY_FAULT); `survey_fork` in a fork of this process, where a test needs a process
    but not its start-up (killed at each of many fault points, stopped where it would hang)."""
    from generator.cli.main import main

    assert "SURVEY_FAULT" not in (env or {}), "a fault kills or fails its process: survey_process"
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
    try:
        os.environ.update(env or {})
        os.chdir(cwd or ROOT)
        sys.stdin = io.StringIO(input or "")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code if isinstance(exc.code, int) else 1
            except Exception:
                traceback.print_exc(file=err)
                code = 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["survey", *args], code, out.getvalue(), err.getvalue())


def survey_process(*args: str, cwd: Path | None = None, input: str | None = None,
                   env: dict[str, str] | None = None, timeout: float = 600,
                   ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=cwd or ROOT, input=input,
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout)


class Forked:
    """run() in a fork of this process, in a process group of its own, from `cwd` with `env`
    added, reading nothing and printing to files of its own (`capture`) or nowhere; its exit
    code is run()'s, or SystemExit's, or 1 after a traceback, as a process gives them.

    A new interpreter (survey_process, `python -m mkdocs`) spends 0.3 to 1.5 s importing modules
    and compiling the taxonomy's rules before it does what a test looks at; a fork inherits what
    this process has imported and compiled. For what needs a process (to be killed at one of
    dozens of points, or stopped where it would hang) and where its start-up is not what is
    tested."""

    def __init__(self, run: Callable[[], int | None], cwd: Path = ROOT, env: dict[str, str] | None = None,
                 capture: bool = False) -> None:
        # what it prints, read and closed by result()
        self.files = (tempfile.TemporaryFile(), tempfile.TemporaryFile()) if capture else None  # noqa: SIM115
        self.status: int | None = None
        pid = os.fork()
        if pid == 0:  # the child: never back into pytest, whatever happens
            code: object = 1
            try:
                # What this process holds is not the child's garbage: left out of its collections,
                # which would otherwise read (and so copy) every page of it.
                gc.freeze()
                os.setpgid(0, 0)
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                for fd, file in zip((1, 2), self.files or (None, None), strict=True):
                    os.dup2(file.fileno() if file else null, fd)
                sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), "utf-8")
                sys.stdout, sys.stderr = (io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), "utf-8", errors,
                                                           line_buffering=True)
                                          for fd, errors in ((1, "strict"), (2, "backslashreplace")))
                os.environ.update(env or {})
                os.chdir(cwd)
                code = run()
            except SystemExit as exc:
                code = exc.code
                if not (code is None or isinstance(code, int)):
                    print(code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
            finally:
                with contextlib.suppress(BaseException):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(0 if code is None else code if isinstance(code, int) else 1)
        with contextlib.suppress(OSError):  # the child's own setpgid may have come first
            os.setpgid(pid, pid)
        self.pid = pid

    def running(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status is None

    def kill(self) -> None:
        """SIGKILL to its group (while it is not reaped, its pid and group are no one else's)."""
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)

    def wait(self, timeout: float = 600) -> int:
        """Its exit status as subprocess gives it (-9: killed); one that runs over is killed."""
        if self.status is None:
            timer = threading.Timer(timeout, self.kill)
            timer.start()
            try:
                self.status = os.waitpid(self.pid, 0)[1]
            finally:
                timer.cancel()
        return os.waitstatus_to_exitcode(self.status)

    def result(self, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """wait(), with what it printed (capture=True)."""
        assert self.files is not None
        code = self.wait(timeout)
        printed = []
        for file in self.files:
            file.seek(0)
            printed.append(file.read().decode("utf-8", "replace"))
            file.close()
        return subprocess.CompletedProcess([], code, *printed)


def survey_fork(*args: str, env: dict[str, str] | None = None, capture: bool = False) -> Forked:
    """The `survey` command line in a fork of this process (Forked), from ROOT."""
    def run() -> int:
        from generator.cli.main import main

        sys.argv = ["survey", *args]  # a writer names its command from it in the lock
        return main(list(args))

    return Forked(run, env=env, capture=capture)


def counted(*args: str, env: dict[str, str] | None = None,
            ) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run the real command with SURVEY_FAULT=count: its result, and the names of its write's
    file operations in order (generator/corpus/faults.py), from which a kill test takes its
    points: SURVEY_FAULT=kill-after=K stops the command before the operation steps[K]."""
    result = survey_process(*args, env={**(env or {}), "SURVEY_FAULT": "count"})
    return result, [line.split(" ", 3)[3] for line in result.stderr.splitlines()
                    if line.startswith("survey fault: ")]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file's bytes, but the lock's (every command that reads or writes makes it, and
    writes who holds it in it: generator/corpus/lock.py) and the derived cache
    (generator/corpus/derived.py: written by readers too)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name not in (".survey-lock", ".survey-cache.json")}


def unfill(corpus: Path, source: str, slugs: Container[str] | None = None) -> None:
    """The corpus as it was before `survey enrich` read the sources whose name starts with
    `source`: every field they filled (of the papers `slugs`, or all) taken out again."""
    for path in sorted((corpus / "papers").glob("*.yaml")):
        if slugs is not None and path.stem not in slugs:
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        fills = [e for e in data.get("enriched", []) if e["source"].startswith(source)]
        for fill in fills:
            for name in fill["fields"]:
                if name.startswith("links."):
                    del data["links"][name.split(".", 1)[1]]
                else:
                    del data[name]
            data["enriched"].remove(fill)
        for name in ("links", "enriched"):
            if name in data and not data[name]:
                del data[name]
        if fills:
            path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


# The papers of the "review" corpus (issue 29): two whose topics a person reviewed (curated), the
# others with the topics the model suggests, as an import writes them, one of them with no topic,
# and one hostile paper of the model's.
REVIEWED = ["2bp-2-stage-backpropagation", "8-bit-optimizers-via-block-wise-quantization"]
SUGGESTED = ["a-unified-sequence-parallelism-approach-for-long-context", "analyzing-modern-nvidia-gpu-cores",
             "accelerating-feedforward-computation-via-parallel-nonlinear",
             "arithmetic-sampling-parallel-diverse-decoding-for-large-language",
             "algorithms-for-caching-and-mts-with-reduced-number-of"]
HOSTILE_SLUG = "hostile-quantization"
HOSTILE_TITLE = "Quantization <b>*trick*</b> {{ x }} &amp; | 4-bit"
HOSTILE_ABSTRACT = ("We quantize weights to 4-bit integers with <script>alert(1)</script> and "
                    "[a link](javascript:alert(1)); low-bit inference at 2x the speed.")
# Its paper link names a DOI (in capitals, as publishers write some): the search box finds it by it.
HOSTILE_DOI_LINK = "https://doi.org/10.5555/Hostile.Quant-2025.1"
SMALL_SLUGS_MUST = ("rewrite-the-stars",)


def make_corpus(to: Path, variant: str = "small", papers: Sequence[str] = ()) -> Path:
    """A corpus folder made at `to` (returned), one of these variants:

    - "empty": the committed taxonomy alone, what an import starts from;
    - "small": a 25-odd-paper copy of the committed corpus, for the tests that look at a page or
      two: the first papers of each listing, papers in several listings (cross-links), three
      papers of each topic, tagged and dated ones, and SMALL_SLUGS_MUST; each listing keeps only
      its entries for those papers, in their order; the corpus's own taxonomy and model (a
      whole seed build takes about 10 s, this one a few);
    - "papers": the committed corpus's `papers` (slugs) alone, with its taxonomy and model;
    - "review": REVIEWED and SUGGESTED papers as a person and the model left them, and
      HOSTILE_SLUG, with a pinned model (its tests check the confidences it gives);
    - "seeded": the four seed listings of tests/data/seeds imported into "empty" (seconds: the
      session's shared copy is the `seeded_corpus` fixture).
    """
    from generator.classify.suggest import suggest
    from generator.corpus.model import Paper
    from generator.corpus.store import listing_text, load_corpus, paper_text

    to.mkdir(parents=True)
    shutil.copy(ROOT / "corpus" / "taxonomy.yaml", to / "taxonomy.yaml")
    if variant in ("empty", "seeded"):
        for seed in SEEDS if variant == "seeded" else ():
            result = survey("import", str(seed), "--name", SEED_NAMES[seed.name], "--corpus", str(to))
            assert result.returncode == 0, result.stderr
        return to
    real = load_corpus(ROOT / "corpus")
    (to / "papers").mkdir()
    if variant == "review":
        shutil.copy(FIXTURES / "topic_model_82c6543.yaml", to / "topic_model.yaml")
        taxonomy = load_corpus(to).taxonomy
        hostile = Paper(slug=HOSTILE_SLUG, title=HOSTILE_TITLE, abstract=HOSTILE_ABSTRACT, date="2025-01-02",
                        links={"paper": HOSTILE_DOI_LINK})
        for paper in [*(real.papers[s] for s in REVIEWED + SUGGESTED), hostile]:
            if paper.slug not in REVIEWED:
                paper.topics = suggest(taxonomy, paper.title, paper.abstract).topic_ids
                paper.curated = [c for c in paper.curated if c != "topics"]
            (to / paper.file).write_text(paper_text(paper), encoding="utf-8")
        return to
    if variant == "papers":
        keep = set(papers)
    elif variant == "small":
        everything = real.sorted_papers()
        keep = set(SMALL_SLUGS_MUST)
        keep |= set(sorted(slug for slug, where in real.listings_of().items() if len(where) > 1)[:4])
        for topic in real.taxonomy.topic_ids:
            keep |= {p.slug for p in [p for p in everything if topic in p.topics][:3]}
        keep |= {p.slug for p in [p for p in everything if p.tags][:3]}
        keep |= {p.slug for p in [p for p in everything if p.date and p.arxiv][:3]}
        for listing in real.sorted_listings():
            keep |= {e.paper for e in listing.entries[:3]}
        (to / "listings").mkdir()
        for listing in real.sorted_listings():
            listing.entries = [e for e in listing.entries if e.paper in keep]
            (to / listing.file).write_text(listing_text(listing), encoding="utf-8")
    else:
        raise ValueError(f"no corpus variant {variant!r}")
    shutil.copy(ROOT / "corpus" / "topic_model.yaml", to / "topic_model.yaml")
    for slug in sorted(keep):
        (to / "papers" / f"{slug}.yaml").write_text(paper_text(real.papers[slug]), encoding="utf-8")
    return to


@pytest.fixture(scope="session")
def review_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the "review" corpus, built once with `mkdocs build --strict` in a temp dir."""
    tmp = tmp_path_factory.mktemp("review")
    return mkdocs_build(make_project(tmp, make_corpus(tmp / "corpus", "review")))


@pytest.fixture(scope="session")
def literal_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, str, str]]]:
    """The site of test_site's hostile texts (every Markdown extension on) and test_tex's math
    papers, built once a session; and the hostile papers (slug, title, abstract)."""
    from test_site import hostile_project
    from test_tex import math_papers

    project, papers = hostile_project(tmp_path_factory.mktemp("literal"), math_papers())
    return mkdocs_build(project), papers


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    """A copy of the committed corpus at tmp_path/corpus, for a test that changes it."""
    return shutil.copytree(ROOT / "corpus", tmp_path / "corpus")


@pytest.fixture()
def review_corpus(tmp_path: Path) -> Path:
    """The "review" corpus (make_corpus) at tmp_path/corpus, for a test that changes it."""
    return make_corpus(tmp_path / "corpus", "review")


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def paper_data(corpus: Path, slug: str) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((corpus / "papers" / f"{slug}.yaml").read_text(encoding="utf-8"))


def hf_item(arxiv: str | None, title: str, summary: str, authors: Sequence[str] = ("Alice Smith",),
            published: str = "2026-03-02T00:00:00.000Z") -> dict:  # type: ignore[type-arg]
    """One paper of a Hugging Face daily-papers file (its `id` only where given)."""
    return {"paper": {**({"id": arxiv} if arxiv else {}), "title": title, "summary": summary,
                      "authors": [{"name": a} for a in authors], "publishedAt": published}}


def hf_feed(path: Path, *items: dict) -> str:  # type: ignore[type-arg]
    path.write_text(json.dumps(items), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="session")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The "small" corpus, shared by the session: read it, or copy it to change it."""
    return make_corpus(tmp_path_factory.mktemp("small") / "corpus")


@pytest.fixture(scope="session")
def seeded_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The "seeded" corpus, shared by the session: read it, or copy it to change it."""
    return make_corpus(tmp_path_factory.mktemp("seeded") / "corpus", "seeded")


def make_project(tmp: Path, corpus: Path | None = None) -> Path:
    """A copy of the project's site sources (mkdocs.yml, docs/, templates/) around a corpus."""
    project = tmp / "project"
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", project / "docs")
    shutil.copytree(ROOT / "templates", project / "templates")
    shutil.copytree(corpus or ROOT / "corpus", project / "corpus")
    return project


def replace_in(path: Path, old: str, new: str, count: int = -1) -> Path:
    """A test's hand edit of a text file (returned): `old`, which it must hold, made `new`."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")
    return path


def plugin_option(project: Path, line: str) -> None:
    """Set an option (`key: value`) of the survey plugin in the project's mkdocs.yml: the line of
    that key replaced, or one added."""
    key = line.split(":", 1)[0]
    config = project / "mkdocs.yml"
    found = re.search(rf"^      {re.escape(key)}:.*$", config.read_text(encoding="utf-8"), re.M)
    if found:
        replace_in(config, found.group(0) + "\n", f"      {line}\n", 1)
        return
    anchor = "      templates: templates\n"
    replace_in(config, anchor, anchor + f"      {line}\n")


def mkdocs_cli(*args: str) -> int | None:
    """`mkdocs ARGS` as its command line runs it, in this process."""
    from mkdocs.__main__ import cli

    return cli.main(args=list(args), prog_name="mkdocs")


def mkdocs_build(project: Path, site: Path | None = None, fork: bool = False) -> Path:
    """`mkdocs build --strict` of the project (its site returned), in a new interpreter, or in
    a fork of this process (`fork`). A fork spares what a new one spends importing and loading
    what MkDocs loads once a process (0.5 s of a small site's 2 s of CPU), where this process has
    built a site itself; a fork of one that has not saves nothing (the child loads it all, and
    copies the pages of this process it touches besides)."""
    site = site or project / "site"
    if fork:
        result = Forked(lambda: mkdocs_cli("build", "--strict", "--site-dir", str(site)), cwd=project,
                        capture=True).result(timeout=900)
    else:
        result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                                 str(site)], cwd=project, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    return site


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real corpus's site, built once with `mkdocs build --strict` in a temp dir."""
    project = make_project(tmp_path_factory.mktemp("real"))
    return mkdocs_build(project)


@contextmanager
def loopback(answer: Callable[[str], tuple[int, str, bytes]]) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering each GET path with answer(path) -> (status,
    content type, body), as a recorded API would; yields its base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, kind, body = answer(self.path)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits for serve_forever to look for it, once each poll interval (0.5 s by
    # default: half a second idle at the end of every test that serves, 11 s of test_fetch's 18)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
