from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Container, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

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
SLOW_FIXTURES = {"real_site", "site_base", "hostile_site", "chromium", "cited_site", "small_site"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


REAL_PAPERS = ROOT.parent / "shared" / "real" / "hf-daily-papers-2024-05-to-2026-08.json.gz"


def real_papers() -> Path:
    """The real daily-papers file beside this checkout (never copied into it). Tests that need it
    skip where it is absent (a fork's pull request), and fail when SURVEY_REAL_DATA=required, as
    .ci/run sets it."""
    if REAL_PAPERS.exists():
        return REAL_PAPERS
    if os.environ.get("SURVEY_REAL_DATA") == "required":
        pytest.fail(f"{REAL_PAPERS} is missing, and SURVEY_REAL_DATA=required")
    pytest.skip(f"the real papers are not beside this checkout ({REAL_PAPERS})")


REAL_BIB = ROOT.parent / "shared" / "bib"


def real_bib_files() -> list[Path]:
    """The four real BibTeX files beside this checkout (../shared/bib/), skipped or failed like
    real_papers() where they are absent."""
    files = sorted(REAL_BIB.glob("*.bib"))
    if len(files) == 4:
        return files
    if os.environ.get("SURVEY_REAL_DATA") == "required":
        pytest.fail(f"the four .bib files of {REAL_BIB} are missing, and SURVEY_REAL_DATA=required")
    pytest.skip(f"the real BibTeX files are not beside this checkout ({REAL_BIB})")


def survey(*args: str, cwd: Path | None = None, input: str | None = None,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real `survey` command line in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "generator", *args], cwd=cwd or ROOT, input=input,
        capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=600,
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


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


def new_corpus(tmp: Path) -> Path:
    corpus = tmp / "corpus"
    corpus.mkdir(parents=True)
    shutil.copy(ROOT / "corpus" / "taxonomy.yaml", corpus / "taxonomy.yaml")
    return corpus


# A corpus of a few real papers (issue 29): two whose topics a person reviewed (curated), the
# others with the topics and confidence the model suggests, as an import writes them, one of
# them with no topic, and one hostile paper of the model's.
REVIEWED = ["2bp-2-stage-backpropagation", "8-bit-optimizers-via-block-wise-quantization"]
SUGGESTED = ["a-unified-sequence-parallelism-approach-for-long-context", "analyzing-modern-nvidia-gpu-cores",
             "accelerating-feedforward-computation-via-parallel-nonlinear",
             "arithmetic-sampling-parallel-diverse-decoding-for-large-language",
             "algorithms-for-caching-and-mts-with-reduced-number-of"]
HOSTILE_SLUG = "hostile-quantization"
HOSTILE_TITLE = "Quantization <b>*trick*</b> {{ x }} \u202eevil\u202c | 4-bit"
HOSTILE_ABSTRACT = ("We quantize weights to 4-bit integers with <script>alert(1)</script> and "
                    "[a link](javascript:alert(1)); low-bit inference at 2x the speed.")


def small_corpus(tmp: Path) -> Path:
    from generator.classify.suggest import suggest
    from generator.corpus.model import Paper
    from generator.corpus.store import load_corpus, paper_text

    corpus = new_corpus(tmp)
    shutil.copy(ROOT / "corpus" / "topic_model.yaml", corpus / "topic_model.yaml")
    (corpus / "papers").mkdir()
    real = load_corpus(ROOT / "corpus")
    hostile = Paper(slug=HOSTILE_SLUG, title=HOSTILE_TITLE, abstract=HOSTILE_ABSTRACT, date="2025-01-02")
    for paper in [*(real.papers[s] for s in REVIEWED + SUGGESTED), hostile]:
        if paper.slug not in REVIEWED:
            s = suggest(real.taxonomy, paper.title, paper.abstract)
            paper.topics, paper.confidence = s.topic_ids, s.confidence
            paper.curated = [c for c in paper.curated if c != "topics"]
        (corpus / paper.file).write_text(paper_text(paper), encoding="utf-8")
    return corpus


@pytest.fixture(scope="session")
def small_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of small_corpus, built once with `mkdocs build --strict` in a temp dir."""
    tmp = tmp_path_factory.mktemp("small")
    return mkdocs_build(make_project(tmp, small_corpus(tmp)))


def import_seeds(corpus: Path) -> None:
    for seed in SEEDS:
        result = survey("import", str(seed), "--name", SEED_NAMES[seed.name], "--corpus", str(corpus))
        assert result.returncode == 0, result.stderr


@pytest.fixture(scope="session")
def seeded_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = new_corpus(tmp_path_factory.mktemp("seeded"))
    import_seeds(corpus)
    return corpus


def make_project(tmp: Path, corpus: Path | None = None) -> Path:
    """A copy of the project's site sources (mkdocs.yml, docs/, templates/) around a corpus."""
    project = tmp / "project"
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", project / "docs")
    shutil.copytree(ROOT / "templates", project / "templates")
    shutil.copytree(corpus or ROOT / "corpus", project / "corpus")
    return project


def plugin_option(project: Path, line: str) -> None:
    """Add an option line (`key: value`) to the survey plugin of the project's mkdocs.yml."""
    path = project / "mkdocs.yml"
    config = path.read_text(encoding="utf-8")
    anchor = "      templates: templates\n"
    assert anchor in config
    path.write_text(config.replace(anchor, anchor + f"      {line}\n"), encoding="utf-8")


def mkdocs_build(project: Path, site: Path | None = None) -> Path:
    site = site or project / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=project, capture_output=True, text=True, timeout=900,
    )
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
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
