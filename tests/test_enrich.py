"""`survey enrich` end to end: recorded API answers served on loopback, the cache, the real file.

The answers in tests/fixtures/enrich/ are in the formats arXiv's API (Atom), Semantic
Scholar's /paper/search/match and OpenAlex's /works give; the server picks one by the title a
request asks about, as the real services would answer for that title.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import FIXTURES, ROOT, loopback, make_corpus, real_papers, replace_in, snapshot, survey, unfill

from generator.core.text import match_key
from generator.corpus.model import Paper
from generator.corpus.store import load_corpus
from generator.sources.metadata import Record, judge

ENRICH = FIXTURES / "enrich"
ZERO_INF = "zero-infinity-breaking-the-gpu-memory-wall-for-extreme-scale"
ZERO = "zero-memory-optimizations-toward-training-trillion-parameter"
GPTQ = "gptq-accurate-post-training-quantization-for-generative-pre"
MEGATRON = "megatron-lm-training-multi-billion-parameter-language-models"
FLASH = "flashdecoding-faster-large-language-model-inference-on-gpus"
PAPERS = [ZERO_INF, ZERO, GPTQ, MEGATRON, FLASH]
DAY = {"SOURCE_DATE_EPOCH": "1795000000"}  # 2026-11-18

CORPUS = load_corpus(ROOT / "corpus")


def title_key(slug: str) -> str:
    return match_key(CORPUS.papers[slug].title)


# (api, the title asked about) -> (status, fixture); anything else gets the "nothing" answer
ANSWERS = {
    ("arxiv", title_key(ZERO_INF)): (200, FIXTURES / "arxiv_zero_infinity.xml"),
    ("arxiv", title_key(ZERO)): (200, ENRICH / "arxiv-zero-close-title-other-work.xml"),
    ("s2", title_key(GPTQ)): (200, ENRICH / "s2-gptq.json"),
    ("s2", title_key(ZERO)): (200, ENRICH / "s2-zero-same-title-other-abstract.json"),
    ("s2", title_key(FLASH)): (200, ENRICH / "s2-flashdecoding-no-abstract.json"),
    ("openalex", title_key(MEGATRON)): (200, ENRICH / "openalex-megatron.json"),
}
NOTHING = {
    "arxiv": (200, ENRICH / "arxiv-no-result.xml"),
    "s2": (404, ENRICH / "s2-no-match.json"),
    "openalex": (200, ENRICH / "openalex-no-result.json"),
}


@dataclass
class Apis:
    env: dict[str, str]
    asked: list[tuple[str, str]] = field(default_factory=list)


def _asked(path: str) -> tuple[str, str]:
    parts = urlsplit(path)
    query = parse_qs(parts.query)
    if parts.path == "/arxiv/api/query":
        return "arxiv", match_key(query["search_query"][0].removeprefix("ti:"))
    if parts.path == "/s2/graph/v1/paper/search/match":
        assert "externalIds" in query["fields"][0]
        return "s2", match_key(query["query"][0])
    if parts.path == "/openalex/works":
        return "openalex", match_key(query["filter"][0].removeprefix("title.search:"))
    raise AssertionError(f"unexpected request {path}")


@pytest.fixture()
def apis() -> Iterator[Apis]:
    """arXiv, Semantic Scholar and OpenAlex stand-ins on one loopback port."""
    served = Apis(env={})

    def answer(path: str) -> tuple[int, str, bytes]:
        api, title = _asked(path)
        served.asked.append((api, title))
        status, fixture = ANSWERS.get((api, title), NOTHING[api])
        return status, "application/atom+xml" if api == "arxiv" else "application/json", fixture.read_bytes()

    with loopback(answer) as base:
        served.env = {"SURVEY_ARXIV_API": f"{base}/arxiv/api/query", "SURVEY_S2_API": f"{base}/s2/graph/v1",
                      "SURVEY_OPENALEX_API": f"{base}/openalex", **DAY}
        yield served


def corpus_copy(tmp_path: Path, name: str = "corpus") -> Path:
    target = shutil.copytree(ROOT / "corpus", tmp_path / name)
    unfill(target, "BibTeX bibliography ", PAPERS)  # these papers without their BibTeX fills
    # a curator decided GPTQ's authors: never filled
    replace_in(target / "papers" / f"{GPTQ}.yaml", "curated:\n", "curated:\n- authors\n")
    return target


def enrich(corpus: Path, cache: Path, *extra: str, env: dict[str, str]) -> tuple[int, str, str]:
    paper_args = [arg for slug in PAPERS for arg in ("--paper", slug)]
    result = survey("enrich", "--corpus", str(corpus), "--cache", str(cache), "--delay", "0",
                    *paper_args, *extra, env=env)
    return result.returncode, result.stdout, result.stderr


def test_enrich_end_to_end_on_recorded_answers(apis: Apis, tmp_path: Path) -> None:
    corpus, cache = corpus_copy(tmp_path), tmp_path / "cache"
    before = snapshot(corpus)
    code, out, err = enrich(corpus, cache, "--report", str(tmp_path / "report.md"), env=apis.env)
    assert code == 0, err
    papers = load_corpus(corpus).papers

    # exact title on arXiv: id, authors and date, with where and when they came from
    zero_inf = papers[ZERO_INF]
    assert (zero_inf.arxiv, zero_inf.date) == ("2104.07857", "2021-04-16")
    assert zero_inf.authors[:2] == ["Samyam Rajbhandari", "Olatunji Ruwase"]
    assert [e.to_dict() for e in zero_inf.enriched] == [
        {"source": "arXiv API", "fetched": "2026-11-18", "fields": ["arxiv", "authors", "date"]}]
    # Semantic Scholar: the arXiv id and the date; the authors are curated, so left alone
    gptq = papers[GPTQ]
    assert (gptq.arxiv, gptq.date, gptq.authors) == ("2210.17323", "2022-10-31", [])
    assert gptq.enriched[0].source == "Semantic Scholar"
    # OpenAlex: the abstract rebuilt from its inverted index confirms the record
    megatron = papers[MEGATRON]
    assert (megatron.arxiv, megatron.date, megatron.authors[0]) == ("1909.08053", "2019-09-17",
                                                                     "Mohammad Shoeybi")
    assert megatron.links == {}  # the PDF link comes from the arXiv id, not stored twice

    # the wrong matches are not written, and are listed for a person
    assert snapshot(corpus)[f"papers/{ZERO}.yaml"] == before[f"papers/{ZERO}.yaml"]
    assert snapshot(corpus)[f"papers/{FLASH}.yaml"] == before[f"papers/{FLASH}.yaml"]
    review = [line for line in out.splitlines() if line.startswith("review: ")]
    assert len(review) == 3, out
    assert any(ZERO in line and "arXiv 2306.10209" in line and "abstracts only" in line for line in review)
    assert any(ZERO in line and "same title, but the abstracts share only" in line for line in review)
    assert any(FLASH in line and "no abstract to confirm it" in line for line in review)
    assert out.splitlines()[0] == (
        "papers lacking an arXiv id, authors or a date: 5; enriched: 3 (OpenAlex: 1; "
        "Semantic Scholar: 1; arXiv API: 1); for review: 3; not found: 0")
    assert "### For a person to decide" in (tmp_path / "report.md").read_text()
    # nothing else changed, and the corpus is still valid
    changed = {k for k, v in snapshot(corpus).items() if before.get(k) != v}
    assert changed == {f"papers/{s}.yaml" for s in (ZERO_INF, GPTQ, MEGATRON)}
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    # arXiv first, then the others only while fields are missing
    assert apis.asked.count(("arxiv", title_key(ZERO_INF))) == 1 and len(apis.asked) == 12

    # offline, from the cache alone: the same files, and no request
    again = corpus_copy(tmp_path, "again")
    asked = len(apis.asked)
    code, _, err = enrich(again, cache, "--offline", env=apis.env)
    assert code == 0, err
    assert len(apis.asked) == asked
    assert snapshot(again) == snapshot(corpus)
    # a second run finds nothing left to do that it can do
    code, out3, _ = enrich(corpus, cache, "--offline", env=apis.env)
    assert "enriched: 0" in out3 and "files written: 0" in out3


def test_offline_without_a_cache_writes_nothing(tmp_path: Path) -> None:
    corpus = corpus_copy(tmp_path)
    before = snapshot(corpus)
    code, out, err = enrich(corpus, tmp_path / "empty-cache", "--offline", env=DAY)
    assert err == ("survey enrich: could not ask any source about the 5 papers lacking metadata (--offline, "
                   "and none of their answers is in the cache); nothing written: run it again online, or "
                   "with --web none\n") and code == 1
    assert "not found: 0; not asked: 5; not looked up: 15" in out and "files written: 0" in out
    assert snapshot(corpus) == before


def test_unreachable_api_is_one_line_and_nothing_is_lost(tmp_path: Path) -> None:
    corpus = corpus_copy(tmp_path)
    before = snapshot(corpus)
    dead = "http://127.0.0.1:9"
    env = {"SURVEY_ARXIV_API": f"{dead}/api/query", "SURVEY_S2_API": dead, "SURVEY_OPENALEX_API": dead, **DAY}
    code, out, err = enrich(corpus, tmp_path / "cache", env=env)
    assert code == 1 and err.startswith("survey enrich: could not ask any source about the ") \
        and err.count("\n") == 1, err
    assert [line for line in out.splitlines() if line.startswith("unreachable: ")] == [
        "unreachable: arXiv API: cannot reach 127.0.0.1:9 ([Errno 111] Connection refused); "
        "skipped for the rest of this run",
        "unreachable: Semantic Scholar: cannot reach 127.0.0.1:9 ([Errno 111] Connection refused); "
        "skipped for the rest of this run",
        "unreachable: OpenAlex: cannot reach 127.0.0.1:9 ([Errno 111] Connection refused); "
        "skipped for the rest of this run",
    ]
    assert snapshot(corpus) == before


def test_a_bad_option_is_one_line(tmp_path: Path) -> None:
    result = survey("enrich", "--corpus", str(ROOT / "corpus"), "--web", "google", "--offline")
    assert result.returncode == 1
    assert result.stderr == "survey enrich: --web: unknown source 'google'; use arxiv, s2, openalex or none\n"
    result = survey("enrich", "--corpus", str(ROOT / "corpus"), "--paper", "no-such", "--offline")
    assert result.returncode == 1 and "no paper with the slug 'no-such'" in result.stderr


@pytest.mark.parametrize(("title", "abstract", "verdict"), [
    ("ZERO-infinity: breaking the GPU memory wall for extreme-scale deep learning", None, "title-only"),
    ("ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning",
     "We study recommender systems on phones and their embedding caches for ranking.", "review"),
    ("ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme-Scale Learning", "same", "accept"),
    ("ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme-Scale Learning", None, "review"),
    ("ZeRO-Offload: Democratizing Billion-Scale Model Training", None, None),
])
def test_judge(title: str, abstract: str | None, verdict: str | None) -> None:
    paper = CORPUS.papers[ZERO_INF]
    record = Record(source="x", fetched="2026-01-01", title=title,
                    abstract=paper.abstract if abstract == "same" else abstract)
    got = judge(paper, record)
    assert (got[0] if got else None) == verdict


def bare(title: str, **fields: object) -> Paper:
    return Paper.from_dict({"slug": "p", "title": title, "abstract": "We do things.", "topics": [],
                            "tags": [], **fields}, "papers/p.yaml")


@pytest.mark.parametrize(("paper", "record", "verdict"), [
    # a title match alone is checked against what else the two give
    ({"authors": ["Ann Lee"]}, {"authors": ["Bo Li"], "date": "2020"}, ("review", "no author in common")),
    ({"date": "2012"}, {"date": "2020"}, ("review", "its year is 2020, the paper's 2012")),
    ({"arxiv": "2001.00001"}, {"arxiv": "2001.00002"}, ("review", "its arXiv id is 2001.00002")),
    ({"authors": ["Ann Lee"]}, {"authors": ["A. Lee", "Bo Li"], "arxiv": "2001.00002"},
     ("accept", "same title")),
    ({"date": "2019"}, {"date": "2020", "arxiv": "2001.00002"}, ("accept", "same title")),
    ({}, {"authors": ["Bo Li"], "date": "2020"}, ("title-only", "same title, and nothing else to compare")),
])
def test_a_title_match_without_an_abstract_is_checked_against_the_rest(
        paper: dict[str, object], record: dict[str, object], verdict: tuple[str, str]) -> None:
    other = Record(source="x", fetched="2026-01-01", title="Deep learning", **record)  # type: ignore[arg-type]
    got = judge(bare("Deep Learning", **paper), other)
    assert got is not None and (got[0], verdict[1] in got[1]) == (verdict[0], True), got


BIB = "BibTeX bibliography wrong.bib"


def test_a_match_on_the_title_alone_writes_nothing_and_is_for_review(tmp_path: Path) -> None:
    """Any `.bib` entry may carry a paper's title with another's id, authors and link: with nothing
    else to compare (the paper has no authors or date, the entry no abstract), a person decides."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "papers").mkdir()
    for slug, title, extra in (("deep-learning", "Deep Learning", ""), ("deep-nets", "Deep Nets", ""),
                               ("wide-nets", "Wide Nets", "authors:\n- Ann Lee\n")):
        (corpus / "papers" / f"{slug}.yaml").write_text(
            f"slug: {slug}\ntitle: {title}\nabstract: We do things.\n{extra}topics: []\ntags: []\n",
            encoding="utf-8")
    before = snapshot(corpus)
    bib = tmp_path / "wrong.bib"
    bib.write_text("@misc{dl, title = {Deep Learning}, author = {Mallory, Eve and Trudy, Intruder}, "
                   "eprint = {1901.00001}, url = {https://spam.example/x}}\n"
                   "@misc{nets, title = {Deep Nets}, year = 2016, url = {https://spam.example/y}}\n"
                   "@misc{wide, title = {Wide Nets}, author = {Cy Wu}, year = 2016}\n")
    report = tmp_path / "report.md"
    result = survey("enrich", "--web", "none", "--from", str(bib), "--report", str(report),
                    "--corpus", str(corpus), env=DAY)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("papers lacking an arXiv id, authors or a date: 3; enriched: 0; for review: 3; "
                        "not found: 0")
    alone = ("same title, and nothing else to compare (the paper has no authors or date, the record no "
             "abstract)")
    assert lines[1:] == [
        f"review: papers/deep-learning.yaml: may be {BIB}: 'Deep Learning' (arXiv 1901.00001): {alone}; "
        f"once checked, --confirm deep-learning writes it",
        f"review: papers/deep-nets.yaml: may be {BIB}: 'Deep Nets' (entry nets, line 2): {alone}; once "
        f"checked, --confirm deep-nets writes it",
        f"review: papers/wide-nets.yaml: may be {BIB}: 'Wide Nets' (entry wide, line 3): same title, but no "
        f"author in common",
        "confirm: 2 of the papers for review match by the title alone and nothing disagrees; once you have "
        "checked them, run this again with --confirm all, or --confirm SLUG... for those you checked",
        "files written: 0"]
    assert "### For a person to decide" in report.read_text()
    assert snapshot(corpus) == before

    # A person has read the list: what they confirm is written, and only that (issue 42, item 5).
    def confirm(*slugs: str) -> tuple[int, list[str]]:
        result = survey("enrich", "--web", "none", "--from", str(bib), "--confirm", *slugs,
                        "--corpus", str(corpus), env=DAY)
        return result.returncode, (result.stdout + result.stderr).splitlines()

    code, lines = confirm("wide-nets")  # something disagrees: not for --confirm
    assert code == 1 and lines[-1] == ("survey enrich: --confirm wide-nets: no record of this run matches "
                                       "this paper by its title alone (see the review: lines); nothing "
                                       "written"), lines
    assert snapshot(corpus) == before
    code, lines = confirm("deep-nets")
    assert code == 0, lines
    assert lines[0].startswith(f"papers lacking an arXiv id, authors or a date: 3; enriched: 1 ({BIB}: 1); "
                               f"for review: 2;")
    assert "confirmed by a person (--confirm), matched by the title alone: 1 paper" in lines
    papers = load_corpus(corpus).papers
    assert (papers["deep-nets"].date, papers["deep-nets"].links) == ("2016", {"paper": "https://spam.example/y"})
    assert [e.to_dict() for e in papers["deep-nets"].enriched] == [
        {"source": BIB, "fetched": "2026-11-18", "fields": ["date", "links.paper"]}]
    assert not papers["deep-learning"].arxiv and not papers["wide-nets"].date
    code, lines = confirm("all")
    assert code == 0 and lines[-1] == "files written: 1", lines
    papers = load_corpus(corpus).papers
    assert (papers["deep-learning"].arxiv, papers["deep-learning"].authors) == (
        "1901.00001", ["Eve Mallory", "Intruder Trudy"])
    assert not papers["wide-nets"].date  # what disagrees stays for a person to fill by hand


def test_a_hand_made_paper_is_enriched_from_a_daily_papers_file(tmp_path: Path) -> None:
    corpus = corpus_copy(tmp_path)
    items = json.loads((FIXTURES / "daily_papers.json").read_text())
    paper = items[0]["paper"]
    result = survey("add", "--corpus", str(corpus), "--title", paper["title"], "--abstract",
                    " ".join(paper["summary"].split()))
    assert result.returncode == 0, result.stderr
    data = tmp_path / "daily.json.gz"
    data.write_bytes(gzip.compress(json.dumps(items).encode()))
    result = survey("enrich", "--corpus", str(corpus), "--web", "none", "--from", str(data), env=DAY)
    assert result.returncode == 0, result.stderr
    title = " ".join(paper["title"].split())
    added = next(p for p in load_corpus(corpus).papers.values() if p.title == title)
    assert added.arxiv == paper["id"] and added.authors[0] == paper["authors"][0]["name"]
    assert added.enriched[0].source == "HF daily papers JSON daily.json.gz"


@pytest.mark.slow
@pytest.mark.real  # matches the whole real feed (9,109 papers) against the corpus
def test_committed_corpus_holds_what_the_real_file_gives(seeded_corpus: Path, tmp_path: Path) -> None:
    """The 19 seed papers of the real daily-papers file, as `survey enrich` fills them."""
    real = real_papers()
    corpus = tmp_path / "corpus"
    shutil.copytree(seeded_corpus, corpus)
    result = survey("enrich", "--corpus", str(corpus), "--web", "none", "--from", str(real), env=DAY)
    assert result.returncode == 0, result.stderr
    assert f"enriched: 19 (HF daily papers JSON {real.name}: 19)" in result.stdout
    fresh = load_corpus(corpus).papers
    def daily(paper: Paper) -> bool:
        return any(e.source.startswith("HF daily papers JSON") for e in paper.enriched)

    mine = {s: (p.arxiv, p.authors, p.date, p.links) for s, p in CORPUS.papers.items() if daily(p)}
    # One code link differs by the order it came in: the committed paper has the file's, a fresh
    # import takes the repository its abstract names, which enrich then leaves (it fills only what
    # is empty). The same repository under its older name.
    pipe = "pipeoffload-improving-scalability-of-pipeline-parallelism-with"
    assert mine[pipe][3] == {"code": "https://github.com/sail-sg/zero-bubble"}
    assert fresh[pipe].links == {"code": "https://github.com/sail-sg/zero-bubble-pipeline-parallelism"}
    mine[pipe] = (*mine[pipe][:3], fresh[pipe].links)
    assert mine == {s: (p.arxiv, p.authors, p.date, p.links) for s, p in fresh.items() if daily(p)}
    assert len(mine) == 19
