"""BibTeX as a careless user or an attacker writes it (issue 31): macros that expand without
bound, one over-long entry among good ones, `crossref`, a long comment before the first entry,
LaTeX left raw, `and others`, links of other schemes, invisible characters in names. Each case
is the smallest file that shows it; in-process runs of `survey` (conftest.survey) where a command's
output matters."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, make_corpus, survey

from generator.core.errors import SourceError
from generator.corpus.export import bibtex
from generator.corpus.model import Paper
from generator.corpus.store import load_corpus
from generator.site.render import Site
from generator.sources.readers import parse_source

GOOD = "@article{good,\n  title = {A Good Paper},\n  abstract = {Fine.},\n  year = 2024\n}\n"


def read(text: str) -> tuple[list, list[str]]:
    source = parse_source(text.encode(), "refs.bib")
    return source.entries, source.notes


# --- macros -------------------------------------------------------------------------------------


def test_string_macros_doubling_each_other_are_refused_within_the_budget() -> None:
    """24 lines, each macro twice the last: 32 million characters; the 41 of the issue, four
    million million. Refused at the macro that passes twice the file and a megabyte, having
    built about as much."""
    lines = ['@string{a0 = "xx"}', *(f"@string{{a{i} = a{i - 1} # a{i - 1}}}" for i in range(1, 24))]
    text = "\n".join(lines) + "\n" + GOOD
    tracemalloc.start()
    try:
        with pytest.raises(SourceError) as caught:
            read(text)
        held = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value) == (f"refs.bib:20: @string a19: with it, the file's values and @string macros "
                                 f"expand to over {2 * len(text) + 2**20:,} characters (twice the file's "
                                 f"size, and a megabyte); refused")
    assert held < 4 * 2**20, held


def test_a_macro_read_in_many_entries_is_refused() -> None:
    """One title-sized macro as the title of 2,000 entries: 1.8 million characters from 70 KB."""
    text = '@string{t = "' + "t" * 900 + '"}\n' + "".join(
        f"@misc{{k{i}, title = t, abstract = {{A}}}}\n" for i in range(2000))
    with pytest.raises(SourceError, match=r"^refs\.bib:\d+: entry k\d+: field 'title': with it, the file's "
                                          r"values and @string macros expand to over"):
        read(text)


# --- one over-long entry among good ones ----------------------------------------------------------


@pytest.mark.parametrize(("title", "why"), [
    ("x" * 2_001, "is 2,001 characters long; a paper's title is read up to 2,000"),
    ("{x}" * 400 + "y" * 601, "is 1,001 characters long once typeset; at most 1,000 are allowed"),
])
def test_an_over_long_field_skips_its_entry_not_the_file(title: str, why: str, tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(GOOD + "@misc{long, title = {" + title + "}, abstract = {A}}\n", encoding="utf-8")
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(bib), "--corpus", str(corpus), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"left out: {bib}:6: entry long: field 'title': {why}" in result.stdout.splitlines()
    assert [p.title for p in load_corpus(corpus).papers.values()] == ["A Good Paper"]
    # enrich reads the same file the same way, and says so
    (corpus / "papers" / "a-good-paper.yaml").write_text(
        "slug: a-good-paper\ntitle: A Good Paper\nabstract: Fine.\ntopics: []\ntags: []\n", encoding="utf-8")
    result = survey("enrich", "--web", "none", "--from", str(bib), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert f"note: {bib}:6: entry long: field 'title': {why}; entry skipped" in result.stdout.splitlines()
    assert load_corpus(corpus).papers["a-good-paper"].date == "2024"



def test_a_bibliography_whose_only_entry_is_too_long_says_why_it_has_no_paper() -> None:
    """Eleven times a 1,000-character @string as the only entry's abstract: "no papers found",
    with no reason (audit B1, P21)."""
    text = ('@string{a0 = "' + "x" * 999 + ' "}\n@article{k, title = {T}, abstract = '
            + " # ".join(["a0"] * 11) + "}\n")
    with pytest.raises(SourceError) as refused:
        parse_source(text.encode(), "b.bib")
    # every entry refused: the file is refused with the first entry's reason (issue 42 item 3)
    assert str(refused.value) == ("b.bib:2: entry k: field 'abstract': is 10,999 characters long once "
                                  "typeset; at most 10,000 are allowed")


# --- crossref, comments, LaTeX --------------------------------------------------------------------


def test_crossref_gives_the_fields_an_entry_lacks() -> None:
    entries, notes = read(
        "@inproceedings{paper, title = {A Paper}, author = {Lee, Ann}, crossref = {Conf24}}\n"
        "@inproceedings{lost, title = {Lost}, crossref = {nowhere}}\n"
        "@proceedings{conf24, title = {Proceedings of Conf}, year = 2024, month = jun,\n"
        "  author = {Editor, Ed}, url = {https://conf.example/}, booktitle = {Conf}}\n")
    paper = entries[0]
    assert (paper.title, paper.date, paper.authors, paper.links) == ("A Paper", "2024-06", ["Ann Lee"], {})
    assert notes == ["refs.bib:2: entry lost: crossref 'nowhere' names no entry of the file; read without it"]


def test_a_bibliography_after_long_comments_is_read_as_bibtex() -> None:
    """BibTeX reads only its @-entries: 8 KB of comments first still make a bibliography."""
    entries, _ = read("% " + "a comment line of the file's header\n% " * 300 + "\n" + GOOD)
    assert [e.key for e in entries] == ["good"]


# --- authors ------------------------------------------------------------------------------------


def test_and_others_is_kept_as_et_al_and_shown(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{m, title = {Many Hands}, abstract = {A.}, author = {Lee, Ann and others},\n"
                   "  year = 2024}\n")
    corpus = make_corpus(tmp_path / "corpus", "empty")
    assert survey("import", str(bib), "--corpus", str(corpus)).returncode == 0
    paper = load_corpus(corpus).papers["many-hands"]
    assert (paper.authors, paper.et_al) == (["Ann Lee"], True)
    assert "authors:\n- Ann Lee\net_al: true\n" in (corpus / "papers" / "many-hands.yaml").read_text()
    # No topic and no review: the paper waits for a curator; published, its page says et al.
    page = Site(load_corpus(corpus), ROOT / "templates", publish_waiting=True).pages()["papers/many-hands.md"]
    assert "(../search.md?author=Ann%20Lee){ data-pagefind-filter=\"author\" } et al.\n" in page
    assert "author = {Ann Lee and others}" in (bibtex(paper) or "")
    assert survey("check", "--corpus", str(corpus)).returncode == 0


@pytest.mark.parametrize(("value", "problem"), [
    ("et_al: yes please", "field 'et_al': must be true or false, found text 'yes please'"),
    ("et_al: true", "field 'et_al': says the authors listed are the first of more, but none are listed"),
])
def test_et_al_is_checked(value: str, problem: str) -> None:
    data = yaml.safe_load(f"slug: s\ntitle: T\nabstract: A\ntopics: []\ntags: []\n{value}\n")
    with pytest.raises(SourceError.__mro__[1]) as caught:
        Paper.from_dict(data, "papers/s.yaml")
    assert str(caught.value) == f"papers/s.yaml: entry s: {problem}"


BIDI = "\u202e"


@pytest.mark.parametrize("char", [BIDI, "\u2066", "\u200b", "\ufeff", "\u200f"])
def test_an_invisible_character_in_a_name_is_refused_in_one_line(char: str) -> None:
    with pytest.raises(SourceError) as caught:
        read("@misc{n, title = {T}, author = {Lee" + char + ", Ann}}\n")
    name = f"Lee{char}, Ann"
    assert str(caught.value).startswith(f"refs.bib:1: entry n: field 'author': {name!r} contains "
                                        f"U+{ord(char):04X} (")
    assert char not in str(caught.value)  # shown as an escape
    assert str(caught.value).endswith("an invisible character that changes how the text around it shows")


def test_a_name_with_a_joiner_is_kept() -> None:
    """Persian names are written with the zero-width non-joiner."""
    entries, _ = read("@misc{n, title = {T}, author = {Mohammad\u200cZadeh, Ali}}\n")
    assert entries[0].authors == ["Ali Mohammad\u200cZadeh"]


# --- links --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "note"), [
    ("url = {javascript:alert(1)//https://evil.example/x}",
     "refs.bib:1: entry j: field 'url': 'javascript:alert(1)//https://evil.example/x' is not one http:// or "
     "https:// link; not read"),
    ("howpublished = {javascript:alert(1)//https://evil.example/x}", None),
])
def test_a_link_is_never_cut_out_of_another_scheme(field: str, note: str | None) -> None:
    entries, notes = read("@misc{j, title = {T}, " + field + "}\n")
    assert entries[0].links == {}
    assert notes == ([note] if note else [])


def test_links_as_bibliographies_write_them_are_read() -> None:
    entries, notes = read(
        "@misc{a, title = {A}, url = {\\url{https://github.com/x/y}}}\n"
        "@misc{b, title = {B}, howpublished = {Available at \\url{https://example.org/b.pdf}}}\n"
        "@misc{c, title = {C}, url = { https://example.org/c }}\n")
    assert [e.links for e in entries] == [{"code": "https://github.com/x/y"},
                                          {"pdf": "https://example.org/b.pdf"},
                                          {"paper": "https://example.org/c"}]
    assert notes == []


def test_what_no_paper_can_bear_is_not_read_from_an_entry() -> None:
    """A year to come (`9999` pinned a paper first in every newest-first list), an arXiv id of
    month 13 and a link with credentials or a host that is not the one it shows: left out."""
    entries, notes = read("@misc{a, title = {T}, year = {9999}, eprint = {2413.00001}, "
                          "url = {https://user:pass@evil.example/x}}\n"
                          "@misc{b, title = {U}, year = {2024}, url = {https://arxiv.org@evil.example/}}\n")
    assert [(e.date, e.arxiv, e.links) for e in entries] == [(None, None, {}), ("2024", None, {})]
    assert notes == [f"refs.bib:{n}: entry {key}: field 'url': '{url}' is not one http:// or https:// link; "
                     f"not read" for n, key, url in [(1, "a", "https://user:pass@evil.example/x"),
                                                      (2, "b", "https://arxiv.org@evil.example/")]]


def test_two_entries_alike_but_for_their_titles_are_two_papers_for_review(tmp_path: Path) -> None:
    """A bibliography's entries under two titles are two works to its author: abstracts a word
    apart do not make them one paper without a person."""
    abstract = ("We route every request of a serving system through a cache of evil links, and show "
                "that its latency falls by half on {} real traces.")
    bib = tmp_path / "near.bib"
    bib.write_text("".join(
        f"@article{{{key}, title = {{Pipeline Serving With Evil Links{more}}}, author = {{Rae, Ann}}, "
        f"year = {{2024}}, abstract = {{{abstract.format(n)}}}}}\n"
        for key, more, n in (("one", "", "three"), ("two", " Three", "four"))), encoding="utf-8")
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(bib), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("entries read: 2; papers added: 2; already in the corpus: 0; possible "
                          "duplicates to look at: 1")
    assert (f"review: {bib} entry two (line 2) 'Pipeline Serving With Evil Links Three': may be the same "
            f"paper as pipeline-serving-with-evil-links (abstracts share ") in out
    assert sorted(load_corpus(corpus).papers) == ["pipeline-serving-with-evil-links",
                                                  "pipeline-serving-with-evil-links-three"]
