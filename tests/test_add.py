"""`survey add` in each mode, against a temp corpus."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, loopback, snapshot, survey

from generator.corpus.store import load_corpus


@pytest.fixture()
def arxiv_api() -> Iterator[str]:
    """A local stand-in for the arXiv API that answers with the recorded Atom response."""
    body = (FIXTURES / "arxiv_zero_infinity.xml").read_bytes()
    asked: list[str] = []

    def answer(path: str) -> tuple[int, str, bytes]:
        asked.append(path)
        return 200, "application/atom+xml", body

    with loopback(answer) as base:
        yield f"{base}/api/query"
    assert all("id_list=2104.07857" in p for p in asked)


def test_add_from_options(corpus: Path) -> None:
    result = survey("add", "--corpus", str(corpus), "--title", "Fast <CUDA> kernels for C# on $5 GPUs",
                    "--abstract", "We write CUDA kernels for GEMM on tensor cores. They run fast on 8 GPUs.",
                    "--author", "Ada Lovelace", "--date", "2026-01-02", "--code", "https://example.org/x")
    assert result.returncode == 0, result.stderr
    slug = "fast-cuda-kernels-for-c-on-5-gpus"
    assert f"papers/{slug}.yaml" in result.stdout
    assert f"page: https://ml-systems-survey.github.io/survey/papers/{slug}/" in result.stdout
    assert f"preview: http://127.0.0.1:8000/survey/papers/{slug}/ (mkdocs serve --dirty)" in result.stdout
    paper = load_corpus(corpus).papers[slug]
    assert paper.title == "Fast <CUDA> kernels for C# on $5 GPUs"
    assert "kernels" in paper.topics and "cuda" in paper.tags  # suggested
    # a topic the model is unsure of is named for a person to read ("on 8 GPUs" reads like parallelism)
    from generator.classify.suggest import suggest

    unsure = suggest(load_corpus(corpus).taxonomy, paper.title, paper.abstract).uncertain
    assert unsure
    assert re.search(rf"^review: the model is unsure of {unsure[0].id} 0\.\d\d.*; read the abstract",
                     result.stdout, re.M)
    assert paper.authors == ["Ada Lovelace"] and paper.links == {"code": "https://example.org/x"}
    assert survey("check", "--corpus", str(corpus)).returncode == 0


def test_add_from_standard_input(corpus: Path) -> None:
    text = "Pasted title about pipeline parallelism\nWe study pipeline parallelism\nacross many GPUs.\n"
    result = survey("add", "--corpus", str(corpus), input=text)
    assert result.returncode == 0, result.stderr
    paper = load_corpus(corpus).papers["pasted-title-about-pipeline-parallelism"]
    assert paper.abstract == "We study pipeline parallelism across many GPUs."


def test_a_duplicate_is_named_with_what_it_shares(corpus: Path) -> None:
    """By its title (as match_key reads it), its abstract under another title, or nearly its
    abstract."""
    paper = load_corpus(corpus).papers["rewrite-the-stars"]
    before = snapshot(corpus)
    nearly = paper.abstract.replace("Recent studies", "Newer studies", 1)
    for title, abstract, how in ((paper.title.lower() + "!", "Anything at all.", "same title"),
                                 ("Another Title Altogether", paper.abstract, "same abstract"),
                                 ("Another Title Altogether", nearly, "nearly the same abstract")):
        result = survey("add", "--corpus", str(corpus), "--title", title, "--abstract", abstract)
        assert result.returncode == 1
        assert f"papers/rewrite-the-stars.yaml ({how}); edit that file instead" in result.stderr, how
    assert snapshot(corpus) == before


def test_add_from_arxiv(corpus: Path, arxiv_api: str, tmp_path: Path) -> None:
    # The seed corpus holds ZeRO-Infinity already: adding it again is refused...
    refused = survey("add", "--corpus", str(corpus), "--arxiv", "2104.07857v1",
                     env={"SURVEY_ARXIV_API": arxiv_api})
    assert refused.returncode == 1
    assert "already in the corpus as" in refused.stderr
    assert "papers/zero-infinity-breaking-the-gpu-memory-wall-for-extreme-scale.yaml" in refused.stderr
    assert refused.stderr.count("\n") == 1
    # ...and into an empty corpus it is added with its metadata.
    empty = tmp_path / "empty"
    (empty / "papers").mkdir(parents=True)
    shutil.copy(corpus / "taxonomy.yaml", empty)
    result = survey("add", "--corpus", str(empty), "--arxiv", "2104.07857",
                    env={"SURVEY_ARXIV_API": arxiv_api})
    assert result.returncode == 0, result.stderr
    (paper,) = load_corpus(empty).papers.values()
    assert (paper.arxiv, paper.date, paper.authors[0]) == ("2104.07857", "2021-04-16", "Samyam Rajbhandari")
    assert paper.link("pdf") == "https://arxiv.org/pdf/2104.07857"
    assert "parallelism" in paper.topics


def test_add_offline_fails_clearly(corpus: Path) -> None:
    before = snapshot(corpus)
    result = survey("add", "--corpus", str(corpus), "--arxiv", "2401.00001",
                    env={"SURVEY_ARXIV_API": "http://127.0.0.1:9/api/query"})
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "cannot reach" in result.stderr
    assert "needs the network" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(corpus) == before


def test_add_from_saved_hf_page(corpus: Path) -> None:
    result = survey("add", "--corpus", str(corpus), "--hf", str(FIXTURES / "paper.html"),
                    "--topic", "serving", "--tag", "benchmarks")
    assert result.returncode == 0, result.stderr
    paper = next(p for p in load_corpus(corpus).papers.values() if p.arxiv == "2603.01234")
    assert paper.topics == ["serving"] and paper.tags == ["benchmarks"]
    assert paper.curated == ["topics", "tags"]


def test_add_refuses_hf_urls_that_are_not_paper_pages(corpus: Path) -> None:
    result = survey("add", "--corpus", str(corpus), "--hf", "https://example.org/papers/1")
    assert result.returncode == 1 and "not a Hugging Face paper page URL" in result.stderr


def test_add_validates_like_check(corpus: Path) -> None:
    before = snapshot(corpus)
    result = survey("add", "--corpus", str(corpus), "--title", "A new paper", "--abstract", "Text.",
                    "--tag", "cuda-kernels")
    assert result.returncode == 1
    assert "unknown tag 'cuda-kernels'; closest known tags:" in result.stderr
    result = survey("add", "--corpus", str(corpus), "--title", "A new paper", "--abstract", "Text.",
                    "--code", "javascript:alert(1)")
    assert result.returncode == 1 and "is not an http(s) URL" in result.stderr
    assert snapshot(corpus) == before
