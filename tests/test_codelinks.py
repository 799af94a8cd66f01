"""A GitHub or GitLab repository an abstract names becomes the paper's Code link when it has none
(issue 34, item 2): written by the import into the paper's file, where a curator sees it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, hf_feed, hf_item, make_corpus, survey

from generator.corpus.store import load_corpus
from generator.sources.codelinks import repository_url

DAY = {"SOURCE_DATE_EPOCH": "1795824000"}  # 2026-11-28


@pytest.mark.parametrize(("abstract", "code"), [
    ("Bitnet.cpp is publicly available at https://github.com/microsoft/BitNet/tree/paper , offering",
     "https://github.com/microsoft/BitNet"),
    ("integrated into https://github.com/ggerganov/llama.cpp.", "https://github.com/ggerganov/llama.cpp"),
    ("Code: github.com/a-b/c_d.git and more", "https://github.com/a-b/c_d"),
    ("Code is available at $\\href{https://github.com/UNITES-Lab/Occult}{https://github.com/UNITES-Lab/Occult}$.",
     "https://github.com/UNITES-Lab/Occult"),
    ("see \\url{https://github.com/NoakLiu/PiKV\\_x}", "https://github.com/NoakLiu/PiKV_x"),
    ("built with https://github.com/features/copilot; ours: https://github.com/x/y", "https://github.com/x/y"),
    ("at https://gitlab.com/group/sub/project/-/tree/main.", "https://gitlab.com/group/sub/project"),
    ("first https://gitlab.com/g/p then https://github.com/o/r", "https://gitlab.com/g/p"),
    ("the owner alone: https://github.com/microsoft", None), ("pages: https://user.github.io/x/y", None),
    ("https://notgithub.com/a/b and a@github.com/x", None), ("no code here", None),
])
def test_the_repository_an_abstract_names(abstract: str, code: str | None) -> None:
    assert repository_url(abstract) == code


def test_an_import_records_the_code_link_in_the_paper_file(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    feed = tmp_path / "feed.json"
    abstract = ("We run ternary models on CPUs with kernels for 1.58-bit weights, faster than full-precision "
                "baselines. Code: https://github.com/microsoft/BitNet/tree/paper .")
    papers = [{"paper": {"id": "2502.11880", "title": "Bitnet.cpp: Efficient Edge Inference for Ternary LLMs",
                         "summary": abstract, "authors": [{"name": "Jinheng Wang"}]}},
              {"paper": {"id": "2502.00002", "title": "A Paper With Its Own Code Link",
                         "summary": "We serve large models; see https://github.com/o/abstract-repo for more.",
                         "githubRepo": "https://github.com/o/own-repo", "authors": [{"name": "A B"}]}}]
    feed.write_text(json.dumps(papers), encoding="utf-8")
    assert survey("import", str(feed), "--corpus", str(corpus), env=DAY).returncode == 0
    by_arxiv = {p.arxiv: p for p in load_corpus(corpus).papers.values()}
    assert by_arxiv["2502.11880"].links == {"code": "https://github.com/microsoft/BitNet"}
    text = (corpus / by_arxiv["2502.11880"].file).read_text(encoding="utf-8")
    assert "links:\n  code: https://github.com/microsoft/BitNet\n" in text  # for a curator to see
    assert by_arxiv["2502.00002"].links["code"] == "https://github.com/o/own-repo"  # the source's own wins


def test_a_merge_gives_a_code_link_but_never_over_curated_links(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "papers").mkdir()
    for slug, curated in (("free", []), ("pinned", ["links"])):
        (corpus / "papers" / f"{slug}.yaml").write_text(yaml.safe_dump({
            "slug": slug, "title": f"The {slug.title()} Paper On Kernels",
            "abstract": f"We write kernels for {slug} GPUs; code at https://github.com/o/{slug}.",
            "topics": [], "tags": [], **({"curated": curated} if curated else {})}), encoding="utf-8")
    feed = hf_feed(tmp_path / "feed.json", *(
        hf_item(f"2502.0000{i}", f"The {slug.title()} Paper On Kernels",
                f"We write kernels for {slug} GPUs; code at https://github.com/o/{slug}.", ["A B"])
        for i, slug in enumerate(("free", "pinned"), 1)))
    assert survey("import", feed, "--corpus", str(corpus), env=DAY).returncode == 0
    papers = load_corpus(corpus).papers
    assert papers["free"].links == {"code": "https://github.com/o/free"}
    assert papers["pinned"].links == {}


def test_every_committed_paper_whose_abstract_names_a_repository_links_it() -> None:
    """62 of the 313 seed abstracts name a repository; each paper links one."""
    papers = load_corpus(ROOT / "corpus").sorted_papers()
    named = [p for p in papers if repository_url(p.abstract)]
    assert len(named) == 62
    assert [p.slug for p in named if "code" not in p.links] == []
    assert all(re.match(r"https://(github|gitlab)\.com/", p.links["code"]) for p in named)
