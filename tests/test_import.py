"""Importing the seed listings and every source format; bad input leaves the corpus untouched."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from conftest import (
    FIXTURES,
    SEED_NAMES,
    SEEDS,
    hf_feed,
    hf_item,
    make_corpus,
    make_project,
    mkdocs_build,
    plugin_option,
    snapshot,
    survey,
)

from generator.core.errors import SourceError
from generator.core.tex import tex_text
from generator.core.text import match_key
from generator.corpus.store import load_corpus
from generator.sources.readers import parse_source


def raw_seed_titles() -> dict[str, list[str]]:
    """Independent of the importer: titles per seed file, read by the files' plain structure."""
    out = {}
    for seed in SEEDS:
        text = seed.read_text(encoding="utf-8")
        if "\n\n" in text:
            blocks = [b.strip() for b in text.split("\n\n") if b.strip()]
            start = next(i for i, b in enumerate(blocks) if b[:3] in ("Mar", "Sep"))
            fields = blocks[start + 1:]
        else:
            lines = [line for line in text.split("\n") if line.strip()]
            fields = [lines[2].removeprefix("Subscribe"), *lines[3:]]
        out[seed.name] = fields[0::2]
    return out


def test_each_listing_keeps_exactly_its_entries_in_order(seeded_corpus: Path) -> None:
    corpus = load_corpus(seeded_corpus)
    by_origin = {li.origin: li for li in corpus.listings.values()}
    expected = raw_seed_titles()
    assert {name: len(by_origin[name].entries) for name in SEED_NAMES} == {
        "000_87ad414820e98a52.txt": 88, "001_e68608dd41fdc731.txt": 29,
        "002_c95fe666ea5c2d2b.txt": 177, "003_cda745b093196d2b.txt": 72,
    }
    for name, titles in expected.items():
        assert [e.title for e in by_origin[name].entries] == titles
        assert by_origin[name].name == SEED_NAMES[name]
    assert sum(len(li.entries) for li in corpus.listings.values()) == 366


def test_no_paper_is_held_twice(seeded_corpus: Path) -> None:
    corpus = load_corpus(seeded_corpus)
    keys = [match_key(t) for p in corpus.papers.values() for t in p.titles]
    assert len(keys) == len(set(keys))
    abstracts = [match_key(p.abstract) for p in corpus.papers.values()]
    assert len(abstracts) == len(set(abstracts))
    assert len(corpus.papers) == 313  # 314 distinct titles, one pair merged by abstract
    for listing in corpus.listings.values():
        for entry in listing.entries:
            assert entry.paper in corpus.papers


def test_same_abstract_pair_merged_with_alternate_title(seeded_corpus: Path) -> None:
    corpus = load_corpus(seeded_corpus)
    merged = [p for p in corpus.papers.values() if p.alternate_titles]
    assert len(merged) == 1
    paper = merged[0]
    assert paper.title.startswith("Fast and Eager k-Medoids Clustering")
    assert paper.alternate_titles == [
        "Faster k-Medoids Clustering: Improving the PAM, CLARA, and CLARANS Algorithms"]
    entries = [(li.origin, e) for li in corpus.listings.values() for e in li.entries
               if e.paper == paper.slug]
    assert {e.title for _, e in entries} == {paper.title, *paper.alternate_titles}
    # The other version's abstract is not lost: its listing entry keeps it.
    other = next(e for _, e in entries if e.title != paper.title)
    assert other.abstract and other.abstract.startswith("Clustering non-Euclidean data")


def test_titles_in_several_listings_point_at_all_their_listings(seeded_corpus: Path) -> None:
    corpus = load_corpus(seeded_corpus)
    expected: dict[str, set[str]] = defaultdict(set)
    for name, titles in raw_seed_titles().items():
        for title in titles:
            expected[match_key(title)].add(name)
    shared = {k: v for k, v in expected.items() if len(v) > 1}
    assert len(shared) == 38
    listings_of = corpus.listings_of()
    slug_of = {match_key(t): p.slug for p in corpus.papers.values() for t in p.titles}
    for key, origins in shared.items():
        assert {li.origin for li, _ in listings_of[slug_of[key]]} == origins


def test_second_import_changes_no_byte(seeded_corpus: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(seeded_corpus, corpus)
    before = snapshot(corpus)
    result = survey("import", *map(str, SEEDS), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "papers added: 0" in result.stdout
    assert snapshot(corpus) == before


@pytest.mark.slow
def test_import_summary_and_review_of_possible_duplicates(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(SEEDS[2]), "--corpus", str(corpus))
    assert result.returncode == 0
    summary = result.stdout.splitlines()[0]
    assert summary == ("entries read: 177; papers added: 177; already in the corpus: 0; "
                       "possible duplicates to look at: 1")
    assert "may be the same paper as inference-acceleration-for-large-language-models-on-cpus" \
        in result.stdout


def test_committed_corpus_is_the_import_of_the_seeds(seeded_corpus: Path) -> None:
    """The committed corpus holds what the import produced, plus curation only."""
    committed = load_corpus(Path(__file__).parents[1] / "corpus")
    fresh = load_corpus(seeded_corpus)
    assert sorted(committed.papers) == sorted(fresh.papers)
    for slug, paper in fresh.papers.items():
        mine = committed.papers[slug]
        assert (mine.abstract, mine.alternate_titles) == (paper.abstract, paper.alternate_titles)
    assert {s: [e.paper for e in li.entries] for s, li in committed.listings.items()} == \
        {s: [e.paper for e in li.entries] for s, li in fresh.listings.items()}


# --- each format -------------------------------------------------------------------------------


def test_hf_paper_page_keeps_real_abstract_and_arxiv_id(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(FIXTURES / "paper.html"), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    paper = next(iter(load_corpus(corpus).papers.values()))
    assert paper.title == "Beyond p<0.05 & Friends: Rethinking Significance Tests for LLM Evaluation"
    assert paper.arxiv == "2603.01234"
    assert "paired bootstrap resampling over prompts, combined with seed averaging, gives" \
        in paper.abstract  # inline keyword links kept whole
    assert "yields calibrated confidence intervals" not in paper.abstract  # not the AI summary
    assert paper.authors == ["Mira Kovacs", "Daniel O'Neill", "Priya Raman"]
    # a single paper page is where the paper came from, as a listing of one (issue 34)
    (listing,) = load_corpus(corpus).listings.values()
    assert (listing.name, listing.url, [e.paper for e in listing.entries]) == (
        "Hugging Face paper page 2603.01234", "https://huggingface.co/papers/2603.01234", [paper.slug])


def test_hf_page_without_embedded_data_is_read_from_the_visible_page(tmp_path: Path) -> None:
    import re

    html = (FIXTURES / "paper.html").read_text()
    html = re.sub(r'<div class="SVELTE_HYDRATER contents" data-target="\w+" data-props="[^"]*">',
                  "<div>", html)
    page = tmp_path / "saved.html"
    page.write_text(html)
    corpus = make_corpus(tmp_path / "corpus", "empty")
    assert survey("import", str(page), "--corpus", str(corpus)).returncode == 0
    paper = next(iter(load_corpus(corpus).papers.values()))
    assert paper.arxiv == "2603.01234"
    assert paper.abstract.startswith("Reported gains on language-model benchmarks are often smaller")
    assert "show that paired bootstrap resampling over prompts, combined with seed averaging, gives" \
        in paper.abstract
    assert "Paired bootstrap resampling with seed averaging yields" not in paper.abstract
    assert "Librarian" not in paper.abstract


def test_hf_listing_page_becomes_a_listing(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    assert survey("import", str(FIXTURES / "listing.html"), "--corpus", str(corpus)).returncode == 0
    loaded = load_corpus(corpus)
    (listing,) = loaded.listings.values()
    assert [loaded.papers[e.paper].arxiv for e in listing.entries] == [
        "2603.01234", "2603.04567", "2603.07890"]
    assert listing.date == "2026-03-03"


def test_hf_listing_without_embedded_data_is_read_from_its_paper_cards() -> None:
    import re

    html = re.sub(r'data-target="\w+"', "", (FIXTURES / "listing.html").read_text())
    source = parse_source(html.encode(), "listing.html")
    assert source.is_listing and source.date == "2026-03-03"
    assert [(e.arxiv, e.title) for e in source.entries] == [
        ("2603.01234", "Beyond p<0.05 & Friends: Rethinking Significance Tests for LLM Evaluation"),
        ("2603.04567", "TinyRoute: Token-Level Expert Routing on Commodity GPUs"),
        ("2603.07890", "Sparse Memory Layers for Long-Context Retrieval"),
    ]
    assert source.entries[0].abstract.startswith("Reported gains on language-model benchmarks are often")
    cards = re.sub(r"<p\b[^>]*>.*?</p>", "", html, flags=re.DOTALL)  # titles only
    with pytest.raises(SourceError) as refused:
        parse_source(cards.encode(), "listing.html")
    assert str(refused.value) == (
        "listing.html: entry #1 'Beyond p<0.05 & Friends: Rethinking Significance Tests for LLM Evaluation': "
        "field 'abstract': is missing: this listing page shows titles only; save the paper pages or use the "
        "daily-papers JSON")


def test_daily_papers_json_keeps_id_authors_and_date(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    day = {"SOURCE_DATE_EPOCH": "1750000000"}  # 2025-06-15: the day each paper was added (feeds' order)
    result = survey("import", str(FIXTURES / "daily_papers.json"), "--corpus", str(corpus), env=day)
    assert result.returncode == 0, result.stderr
    papers = {p.arxiv: p for p in load_corpus(corpus).papers.values()}
    assert set(papers) == {"2603.01234", "2603.04567"}
    assert {p.added for p in papers.values()} == {"2025-06-15"}
    tiny = papers["2603.04567"]
    assert tiny.authors == ["Taro Kato", "Lena Fischer"]
    assert tiny.date == "2026-03-02"
    assert "\n" not in tiny.abstract and "prefetches weights over PCIe." in tiny.abstract


def test_arxiv_atom_keeps_id_without_version_authors_date(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(FIXTURES / "arxiv_zero_infinity.xml"), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    (paper,) = load_corpus(corpus).papers.values()
    assert paper.arxiv == "2104.07857"
    assert paper.title == "ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning"
    assert paper.authors[0] == "Samyam Rajbhandari" and len(paper.authors) == 5
    assert paper.date == "2021-04-16"
    assert paper.abstract.startswith("In the last three years, the largest dense deep learning models")
    assert "grown over 1000x" in paper.abstract


def test_arxiv_import_merges_into_the_seed_paper_by_title(seeded_corpus: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(seeded_corpus, corpus)
    result = survey("import", str(FIXTURES / "arxiv_zero_infinity.xml"), "--corpus", str(corpus))
    assert "papers added: 0; already in the corpus: 1" in result.stdout
    paper = next(p for p in load_corpus(corpus).papers.values() if p.title.startswith("ZeRO-Infinity"))
    assert paper.arxiv == "2104.07857" and paper.date == "2021-04-16"
    again = snapshot(corpus)
    survey("import", str(FIXTURES / "arxiv_zero_infinity.xml"), "--corpus", str(corpus))
    assert snapshot(corpus) == again


def test_format_is_detected_from_content_not_name(tmp_path: Path) -> None:
    disguised = tmp_path / "papers.txt"
    disguised.write_bytes((FIXTURES / "daily_papers.json").read_bytes())
    corpus = make_corpus(tmp_path / "corpus", "empty")
    assert survey("import", str(disguised), "--corpus", str(corpus)).returncode == 0
    assert len(load_corpus(corpus).papers) == 2


def test_bom_and_crlf_import_like_any_other(tmp_path: Path) -> None:
    text = SEEDS[1].read_text(encoding="utf-8")
    odd = tmp_path / "odd.txt"
    odd.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    plain, crlf = (make_corpus(tmp_path / name / "corpus", "empty") for name in ("a", "b"))
    survey("import", str(SEEDS[1]), "--corpus", str(plain))
    survey("import", str(odd), "--corpus", str(crlf))
    a, b = load_corpus(plain), load_corpus(crlf)
    assert [(p.title, p.abstract) for p in a.sorted_papers()] == \
        [(p.title, p.abstract) for p in b.sorted_papers()]


def test_curated_fields_survive_reimport(seeded_corpus: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(seeded_corpus, corpus)
    path = corpus / "papers" / "comet-towards-partical-w4a4kv4-llms-serving.yaml"
    data = yaml.safe_load(path.read_text())
    data.update(title="COMET: Towards Practical W4A4KV4 LLMs Serving", topics=["serving"],
                tags=["kv-cache"], links={"code": "https://example.org/comet"}, curated=["title", "topics"])
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=1000))
    edited = path.read_bytes()
    # a new listing holding the paper under its original title
    listing = tmp_path / "again.txt"
    original = SEEDS[0].read_text()
    listing.write_text(original.replace("Mar 11", "Mar 12"))
    result = survey("import", str(listing), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "papers added: 0" in result.stdout
    assert path.read_bytes() == edited


# --- bad input -----------------------------------------------------------------------------------

BAD_INPUTS = {
    "empty.txt": (b"", "the file is empty"),
    "blank.txt": (b"\n  \n", "the file is empty"),
    "nopapers.txt": (b"new\n\nGet trending papers in your email inbox!\n\nSubscribe\n\nMar 11\n",
                     "no papers found"),
    "latin1.txt": ("Subscribe\n\nCaf\xe9 paper\n\nabstract".encode("latin-1"), "not valid UTF-8"),
    "junk.bin": (bytes(range(256)) * 4, "binary file"),
    "notes.txt": (b"Some notes\nabout nothing in particular\n", "unknown format"),
    "emptylist.json": (b"[]", "no papers found"),
    "bad.json": (b'[{"paper": {"id": "2401.00001", "title": "T"', "malformed JSON"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_leaves_corpus_untouched(name: str, seeded_corpus: Path,
                                                          tmp_path: Path) -> None:
    content, message = BAD_INPUTS[name]
    bad = tmp_path / name
    bad.write_bytes(content)
    corpus = tmp_path / "corpus"
    shutil.copytree(seeded_corpus, corpus)
    before = snapshot(corpus)
    result = survey("import", str(SEEDS[0]), str(bad), "--corpus", str(corpus))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(bad) in lines[0] and message in lines[0]
    assert "Traceback" not in result.stderr
    assert snapshot(corpus) == before


def test_entry_with_title_but_no_abstract_is_named(tmp_path: Path) -> None:
    text = SEEDS[0].read_text()
    blocks = text.split("\n\n")
    idx = blocks.index("QLoRA: Efficient Finetuning of Quantized LLMs")
    del blocks[idx + 1]
    bad = tmp_path / "missing.txt"
    bad.write_text("\n\n".join(blocks))
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(bad), "--corpus", str(corpus))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "QLoRA: Efficient Finetuning of Quantized LLMs" in result.stderr
    assert "field 'abstract'" in result.stderr
    assert not (corpus / "papers").exists()


def test_json_item_without_summary_is_named(tmp_path: Path) -> None:
    items = json.loads((FIXTURES / "daily_papers.json").read_text())
    del items[1]["paper"]["summary"]
    items[1].pop("summary", None)
    bad = hf_feed(tmp_path / "daily.json", *items)
    result = survey("import", bad, "--corpus", str(make_corpus(tmp_path / "corpus", "empty")))
    assert result.returncode == 1
    assert "#2 'TinyRoute" in result.stderr and "paper.summary" in result.stderr


ABSTRACT = ("We study how to schedule {} across accelerators and show that a simple greedy policy\n"
            "matches an exact solver on every workload we measured while running much faster.")


def test_latex_of_arxiv_texts_is_kept_as_the_source_gave_it(tmp_path: Path) -> None:
    """The corpus keeps a text as the source gave it (issue 34); where it is shown, core/tex.py
    reads it (tests/test_tex.py)."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    source = hf_feed(tmp_path / "daily.json", hf_item(
        "2507.00002", "Prefill \\& Decode for\n  Pok\\'eChamp at \\$60",
        "Gains of 12.3\\% with \\textbf{fast} kernels (\\\"Ust\\\"un et al.); the model\\'s cost\n"
        "is $O(n^2)$ and \\ours\\ keeps \\(W_1\\) as written. Code: \\url{https://example.org/x}.",
        ["Ada Wong"]))
    assert survey("import", str(source), "--corpus", str(corpus)).returncode == 0
    (paper,) = load_corpus(corpus).papers.values()
    assert paper.title == "Prefill \\& Decode for Pok\\'eChamp at \\$60"
    assert paper.abstract == ("Gains of 12.3\\% with \\textbf{fast} kernels (\\\"Ust\\\"un et al.); "
                              "the model\\'s cost is $O(n^2)$ and \\ours\\ keeps \\(W_1\\) as written. Code: "
                              "\\url{https://example.org/x}.")
    assert tex_text(paper.title) == "Prefill & Decode for PokéChamp at $60"


def test_same_abstract_under_two_arxiv_ids_is_two_papers_named_once_as_possible_duplicates(
        tmp_path: Path) -> None:
    """Two arXiv ids are two papers, whatever their abstracts. A line naming two plainly different
    papers needs no dismissing: the import that adds the paper names it (and its slug, for `survey
    review SLUG`), a later import finds the paper itself."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    first = hf_item("2507.02592", "WebSailor: Navigating Reasoning", ABSTRACT.format("agents"), ["A B"])
    second = hf_item("2509.13305", "WebSailor-V2: Bridging the Chasm", ABSTRACT.format("agents"), ["A B"])
    result = survey("import", hf_feed(tmp_path / "daily.json", first, second), "--corpus", str(corpus))
    assert "papers added: 2; already in the corpus: 0" in result.stdout, result.stdout
    assert {p.arxiv for p in load_corpus(corpus).papers.values()} == {"2507.02592", "2509.13305"}
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    (line,) = [line for line in result.stdout.splitlines() if "may be the same paper" in line]
    assert line.endswith(": may be the same paper as websailor-navigating-reasoning (abstracts share 100% of "
                         "their wording); added as websailor-v2-bridging-the-chasm")
    assert ("review: a possible duplicate is named by the import that adds it, not again: if it is the same "
            "paper, `survey review SLUG` then r rejects the one added") in result.stdout
    (tmp_path / "later").mkdir()
    again = survey("import", hf_feed(tmp_path / "later" / "daily.json", second, first), "--corpus",
                   str(corpus))
    assert "possible duplicates to look at: 0" in again.stdout and "may be" not in again.stdout, again.stdout
    assert "a possible duplicate" not in again.stdout


def test_odd_shapes_of_daily_papers_import_into_a_valid_corpus(tmp_path: Path) -> None:
    """No id, no authors, a date that is not one, a hidden author, 700 authors, two co-authors of
    one name, a hard-wrapped title: the corpus is valid, the paper keeps what is real and drops
    what is not."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    many = [f"Author {i}" for i in range(700)]
    source = hf_feed(
        tmp_path / "daily.json",
        hf_item(None, "A Paper\n  Without an Id", ABSTRACT.format("layers"), [], published="2025-13-45"),
        hf_item("2507.00003v2", "Seven Hundred Authors", "A model report written by a very large\n"
                "team, listing every one of its members in the order they joined.", many,
                published="not a date"),
        hf_item("2507.00001", "Two Authors Called Chen Li", "Two co-authors of this paper share a "
                "name, as in 45 real papers.", ["Chen Li", "Ada Wong", "Chen Li"]),
    )
    result = survey("import", str(source), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    papers = {p.title: p for p in load_corpus(corpus).papers.values()}
    bare = papers["A Paper Without an Id"]
    assert (bare.arxiv, bare.authors, bare.date) == (None, [], None)
    crowd = papers["Seven Hundred Authors"]
    assert (crowd.arxiv, len(crowd.authors), crowd.date) == ("2507.00003", 700, None)
    namesakes = papers["Two Authors Called Chen Li"]
    assert namesakes.authors == ["Chen Li", "Ada Wong", "Chen Li"]
    result = survey("check", "--corpus", str(corpus))
    assert result.returncode == 0 and not result.stderr, result.stderr
    project = make_project(tmp_path, corpus)
    plugin_option(project, "publish_waiting: true")  # no paper here has a topic: each would wait
    site = mkdocs_build(project)
    assert "Author 699" in (site / "papers" / crowd.slug / "index.html").read_text()
    assert (site / "papers" / namesakes.slug / "index.html").read_text().count("Chen Li") >= 2


def test_daily_papers_json_with_escapes_raw_utf8_and_emoji(tmp_path: Path) -> None:
    """`\\u00dc` escapes, raw UTF-8 and characters beyond the BMP, in one file, read alike."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    escaped = json.dumps([hf_item("2507.00011", "Üstün’s Tokenizer 🚀", ABSTRACT.format("tokens"),
                                  ["Ahmet Üstün"])])
    raw = json.dumps([hf_item("2507.00012", "Ωmega Kernels 🧪", ABSTRACT.format("fp8 GEMMs")
                              .replace("simple", "plain"), ["Łukasz Kaiser"])], ensure_ascii=False)
    source = tmp_path / "mixed.json"
    source.write_bytes((escaped[:-1] + ", " + raw[1:]).encode("utf-8"))
    result = survey("import", str(source), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    papers = {p.arxiv: p for p in load_corpus(corpus).papers.values()}
    assert (papers["2507.00011"].title, papers["2507.00011"].authors) == (
        "Üstün’s Tokenizer 🚀", ["Ahmet Üstün"])
    assert (papers["2507.00012"].title, papers["2507.00012"].authors) == (
        "Ωmega Kernels 🧪", ["Łukasz Kaiser"])
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'[{"paper": {"title": "Caf\xe9", "summary": "x"}}]')
    result = survey("import", str(bad), "--corpus", str(corpus))
    assert result.returncode == 1 and "not valid UTF-8 (byte 25)" in result.stderr, result.stderr


@pytest.mark.parametrize(("paper", "field", "problem"), [
    ({"id": "2413.00001"}, "arxiv", "'2413.00001' is not an arXiv id arXiv could have issued"),
    ({"publishedAt": "9999-12-31T00:00:00.000Z"}, "date", "9999-12-31 is still to come"),
    ({"title": "Pipeline \u202eParallel"}, "title", "contains U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ({"summary": "We \u200bstudy."}, "abstract", "contains U+200B (ZERO WIDTH SPACE)"),
    ({"authors": [{"name": "Ann \u202eLee"}]}, "authors[0]", "contains U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ({"title": "T" * 2_000_000}, "title", "is 2,000,000 characters long; at most 1,000"),
    ({"title": "A \ud800 title"}, "title", "contains a lone surrogate"),
    ({"authors": [{"name": "Ann \udc00 Lee"}]}, "authors[0]", "contains a lone surrogate"),
    *(({"title": f"A {char} title"}, "title", "contains a control character") for char in "\x00\x1b\x9b"),
])
def test_an_entry_check_would_refuse_is_refused_as_it_is_read(paper: dict[str, object], field: str,
                                                               problem: str) -> None:
    """A source's entry meets check's own rules (Paper.from_dict) before anything is written."""
    item = {"paper": {"id": "2401.00001", "title": "T", "summary": "S.", **paper}}
    with pytest.raises(SourceError) as refused:
        parse_source(json.dumps([item]).encode(), "d.json")
    assert str(refused.value).startswith("d.json: entry #1 ")
    assert f": field '{field}': {problem}" in str(refused.value)
