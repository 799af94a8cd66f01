"""Every input's cost is bounded by its size, macros and inflation included (issue 31): no input
under the caps takes more than about ten times its inflated size in memory, and what cannot be
read within that is refused in one line. Memory is what Python's allocator traced
(tracemalloc), which does not depend on the machine."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import make_corpus, survey

from generator.cli.main import main
from generator.core.errors import CorpusError, SourceError, SurveyError
from generator.sources import hf_html, hf_json, intake, readers
from generator.sources.readers import parse_source

MiB = 2**20


def peak(call: Callable[[], Any]) -> tuple[Any, int]:
    """What the call returned (or the error it raised), and the most memory it held at once."""
    tracemalloc.start()
    try:
        try:
            result: Any = call()
        except CorpusError as exc:
            result = exc
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_inflating_holds_the_inflated_bytes_once() -> None:
    """24 MiB inflated from 24 KB: one call inflating it all held it twice (blocks, then one
    bytes object), and the pieces then joined twice again."""
    data = gzip.compress(b"[" + b"{}," * (8 * MiB) + b"{}]", mtime=0)
    out, held = peak(lambda: intake.unpacked(data, "x.json.gz"))
    assert len(out) == 24 * MiB + 4
    assert held < 1.3 * len(out), held


def test_a_refused_inflation_holds_no_more_than_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake, "MAX_SOURCE_BYTES", 8 * MiB)
    data = gzip.compress(b" " * (64 * MiB), mtime=0)
    error, held = peak(lambda: intake.unpacked(data, "x.json.gz"))
    assert isinstance(error, SourceError) and "inflated, the file is over 8 MiB" in str(error)
    assert held < 1.5 * 8 * MiB, held


def test_reading_a_small_file_holds_no_more_than_a_piece(tmp_path: Path) -> None:
    """read(cap + 1) asked for 512 MiB at once, whatever the file's size."""
    small = tmp_path / "small.txt"
    small.write_bytes(b"x" * 1000)
    data, held = peak(lambda: intake.read_bytes(small, "small.txt"))
    assert data == b"x" * 1000
    assert held < 3 * intake.PIECE, held


def test_json_of_empty_objects_is_refused_before_building_them() -> None:
    """`[{},{},...]`: 4 MiB of JSON, a million objects of 64 bytes each had it been built."""
    data = gzip.compress(b"[" + b"{}," * (4 * MiB // 3) + b"{}]", mtime=0)
    error, held = peak(lambda: parse_source(data, "x.json.gz"))
    assert isinstance(error, SourceError), error
    assert "1,398,103 objects or arrays in 4,194,307 characters: more than one per 16, where" in str(error)
    assert held < 3 * 4 * MiB, held


def test_json_items_are_read_one_at_a_time() -> None:
    """Objects sparse enough to pass the count, none of them a paper: refused at the first, with
    the rest never built."""
    item = b'{"unknown_field_padding": 1},'
    data = b"[" + item * (4 * MiB // len(item)) + b"{}]"
    error, held = peak(lambda: parse_source(data, "x.json"))
    assert isinstance(error, SourceError) and "entry #1: field 'paper.title'" in str(error), error
    assert held < 3 * len(data), held


def test_a_json_list_of_more_papers_than_a_listing_holds_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hf_json, "MAX_ENTRIES", 2)
    paper = {"paper": {"id": "2401.00001", "title": "T", "summary": "S"}}
    assert len(parse_source(json.dumps([paper] * 2).encode(), "x.json").entries) == 2
    with pytest.raises(SourceError, match="has over 2 papers, the most one listing holds; split it"):
        parse_source(json.dumps([paper] * 3).encode(), "x.json")


@pytest.mark.parametrize("text", [
    '[{"paper": {"title": "T", "summary": "S"}} {}]',
    '[{"paper": {"title": "T", "summary": "S"}}] x',
    '{"paper": {"title": "T", "summary": "S"}} {}',
    '[{"paper": {"title": "T", "summary": "S"}},]',
    '[{"paper": {"title": "T", "summary": "S"}}',
])
def test_malformed_json_read_item_by_item_is_named_as_json_names_it(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as whole:
        json.loads(text)
    with pytest.raises(SourceError) as caught:
        parse_source(text.encode(), "x.json")
    error = whole.value
    assert str(caught.value) == f"x.json:{error.lineno}:{error.colno}: malformed JSON: {error.msg}"


def test_json_read_item_by_item_gives_what_it_gave() -> None:
    paper = {"paper": {"id": "2401.00001", "title": "T", "summary": "S", "authors": [{"name": "A"}]}}
    listing = parse_source(f" [ {json.dumps(paper)} , {json.dumps(paper)} ]\n".encode(), "x.json")
    one = parse_source(f"\n{json.dumps(paper)}  \n".encode(), "x.json")
    assert (listing.is_listing, len(listing.entries), one.is_listing, len(one.entries)) == (True, 2, False, 1)
    assert listing.entries[1].authors == one.entries[0].authors == ["A"]


def test_memory_running_out_while_reading_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Under a process limit lower than a source needs (`ulimit -v`), the MemoryError that
    reading raises is one line naming the file."""
    def exhausted(data: bytes, shown: str) -> bytes:
        raise MemoryError

    monkeypatch.setattr(readers, "unpacked", exhausted)
    source = tmp_path / "daily.json.gz"
    source.write_bytes(b"[]")
    corpus = make_corpus(tmp_path / "corpus", "empty")
    assert main(["import", str(source), "--corpus", str(corpus)]) == 1
    assert capsys.readouterr().err == (f"survey import: {source}: not enough memory to read it (reading a "
                                       f"source takes a few times its size); split it, or allow the "
                                       f"process more\n")


ATOM = b'<feed xmlns="http://www.w3.org/2005/Atom">'


@pytest.mark.parametrize(("data", "error"), [
    (ATOM + b"<x/>" * 2**20 + b"</feed>", "1,048,579 tags or attributes in 4,194,353 characters: more "
                                          "than one per 16, where an arXiv feed has one per 43"),
    (ATOM + b"<entry " + b"".join(b'a%d="" ' % i for i in range(400_000)) + b"/></feed>",
     "400,004 tags or attributes in 4,288,948 characters: more than one per 16"),
    (b"<html><body>" + b"<b>x</b>" * 2**19 + b"</body></html>",
     "1,048,580 tags in 4,194,330 characters: more than one per 16, where a saved Hugging Face page"),
    (b"@misc{k, " + b"".join(b"f%d={x}, " % i for i in range(400_000)) + b"title={T}}\n",
     "400,001 fields in 5,088,910 characters: more than one per 16, where a real bibliography has one per"),
    (b"Daily Papers\n\n" + b"T a\n\nA b.\n\n" * 2**19, "2,097,154 lines in 5,767,182 characters: more "
                                                        "than one per 32, where a Hugging Face listing"),
], ids=["Atom's tags", "Atom's attributes", "HTML's tags", "BibTeX's fields", "listing text's lines"])
def test_a_source_denser_than_any_real_one_is_refused_before_parsing(data: bytes, error: str) -> None:
    """Built, these took 22 (Atom's elements), 29 (Atom's attributes), 137 (BeautifulSoup's
    tags), 27 (BibTeX's fields) and 74 (a listing text's entries) times their size."""
    refused, held = peak(lambda: parse_source(data, "x"))
    assert isinstance(refused, SourceError) and str(refused).startswith(f"x: {error}"), refused
    assert held < 3 * len(data), held


CARD = "<article><h3><a href='/papers/2401.00001'>t</a></h3><p>{}</p></article>"


@pytest.mark.parametrize("page", [
    "<html><body><h1>T</h1><h2>Abstract</h2>" + ("<p>" + "x" * 26 + "</p>") * 7500 + "</body></html>",
    "<html><body><h1>T</h1><h2>Abstract</h2><p>x</p>" + "".join(f"<t{i:04x}>{'x' * 18}</t{i:04x}>"
                                                               for i in range(10000)),  # each a name
    "<html><body>" + CARD.format("x" * (129 - len(CARD) + 2)) * 1750 + "</body></html>",
], ids=["abstract paragraphs", "element names", "paper cards"])
def test_a_saved_page_of_small_tags_holds_a_few_times_its_size(page: str) -> None:
    """Pages as dense in tags as a page may be (one per 16 characters): BeautifulSoup's tree of
    them took 37 to 66 times their size; the streaming reader keeps only the open elements and
    the texts it reads. A quarter of a megabyte shows the ratio a megabyte does, in a quarter of
    the time (tracemalloc)."""
    assert 16 <= len(page) / page.count("<") < 17  # parse_source's limit
    read, held = peak(lambda: hf_html.parse_hf_html(page, "x.html"))
    assert not isinstance(read, SourceError), read
    assert read.items and all(abstract for _, abstract, _ in read.items)
    assert held < 10 * len(page), held / len(page)


def test_a_tag_of_a_few_attributes_and_long_spaces_holds_about_its_size() -> None:
    """html.parser's greedy patterns kept some 150 bytes of state a character of a tag."""
    page = ("<html><body><h1>T</h1><h2>Abstract</h2><p>x</p><a b" + " " * 4 * MiB + "c='" + "y" * MiB
            + "'></a></body></html>")
    read, held = peak(lambda: hf_html.parse_hf_html(page, "x.html"))
    assert read.items == [("T", "x", None)]
    assert held < 3 * len(page), held / len(page)


def test_a_tag_may_have_1000_attributes_not_more() -> None:
    page = "<html><body><h1>T</h1><h2>Abstract</h2><p>x</p><a{}></a></body></html>"
    assert hf_html.parse_hf_html(page.format(" b" * 1000), "x.html").items == [("T", "x", None)]
    with pytest.raises(SourceError, match="a tag with more than 1,000 attributes"):
        hf_html.parse_hf_html(page.format(" b" * 1001), "x.html")


def test_a_start_tag_is_read_as_html_parser_reads_it() -> None:
    """The possessive patterns match what html.parser's own match, on 3,000 random tags."""
    import html.parser
    import random

    class Recording:
        events: list[object]

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.events.append((tag, attrs))

        def handle_data(self, data: str) -> None:
            self.events.append(data)

    class Plain(Recording, html.parser.HTMLParser):
        pass

    class Bounded(Recording, intake.BoundedHTMLParser):
        pass

    pick = random.Random(36)
    for _ in range(3000):
        text = "<a" + "".join(pick.choice(" \t\n/=>'\"bc") for _ in range(pick.randrange(30))) + ">d"
        plain, bounded = Plain(), Bounded("x.html")
        plain.events, bounded.events = [], []
        plain.feed(text)
        bounded.feed(text)
        assert bounded.events == plain.events, text


@pytest.mark.parametrize(("page", "error"), [
    ("<html><body><h1>T</h1><h2>Abstract</h2>" + "<p>x" * 30000,
     "x.html: paragraphs, headings or links nested more than 16 deep inside each other: not a saved page; "
     "not read"),
    ("<html><body><h1>T</h1><h2>Abstract</h2>" + "<p>" * 15 + "x" * 100_000,
     "x.html: paragraphs or headings nested inside each other so deep that their texts repeat: not a saved "
     "page; not read"),
    ("<html><body>" + "<article><h3><a href='/papers/2401.00001'>t</a></h3>" * 9,
     "x.html: paper cards (<article>) nested more than 8 deep: not a saved page; not read"),
    ("<html><body>" + "<div>x" * 600,
     "x.html: elements nested more than 512 deep (at line 1 column 3073): not a saved page; not read"),
    ("<html><body><p>a</p><![ x]]></body></html>",
     "x.html: markup that no saved page holds, at line 1 column 24: not read"),
    ("<html><body><p>&#" + "9" * 5000 + ";</p></body></html>",
     "x.html: markup that no saved page holds, at line 1 column 16: not read"),
    ("<html><body><h1>T</h1><h2>Abstract</h2><p>x</p>\n<a" + " b=c" * 2**20 + "></a></body></html>",
     "x.html: a tag with more than 1,000 attributes (at line 2 column 1): not a saved page; not read"),
    ("<html><body>\n <a" + " b='x>y'/" * 2**18 + "></a></body></html>",
     "x.html: a tag with more than 1,000 attributes (at line 2 column 2): not a saved page; not read"),
], ids=["paragraphs in paragraphs", "a text repeated by its paragraphs", "cards in cards",
        "elements 600 deep", "a marked section without a name", "a character reference of 5,000 digits",
        "a tag of a million attributes", "quoted ones"])
def test_pages_no_browser_saves_are_refused_in_one_line(page: str, error: str) -> None:
    """Each open paragraph holds the text of those inside it: 30,000 nested paragraphs would hold
    their text 15,000 times over; open elements past a browser's depth; what html.parser itself
    raises on (AssertionError, ValueError); a tag's attributes, which
    html.parser lists whole (a 4 MB page of one tag took 713 MB)."""
    result, held = peak(lambda: parse_source(page.encode(), "x.html"))
    assert isinstance(result, SourceError) and str(result) == error, result
    assert held < 10 * len(page) + 2**16, held / len(page)  # 2**16: the parser's own, whatever the page


@pytest.mark.parametrize(("unit", "method"), [
    ("<!--aaaaaaaaaaa>", "parse_comment"), ("<![CDATA[aaaaaa>", "parse_marked_section"),
    ("</cccccccccccc ", "parse_endtag"), ("<?aaaaaaaaaaaaa ", "parse_pi"), ("<a b=", "parse_starttag")])
def test_markup_left_open_is_parsed_once_not_once_an_opening(unit: str, method: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A comment or marked section left open runs to the end of the page, and a tag cut off by
    the end is dropped, as in a browser. html.parser looked for the end again from each opening
    after it: 20,000 openings, 20,000 searches to the end of the page (a megabyte took 41 s)."""
    import html.parser

    calls = []
    parse = getattr(html.parser.HTMLParser, method)
    monkeypatch.setattr(html.parser.HTMLParser, method,
                        lambda self, *args: calls.append(1) or parse(self, *args))
    page = hf_html.parse_hf_html("<html><body><h1>T</h1><h2>Abstract</h2><p>a</p>" + unit * 20000, "x.html")
    assert page.items == [("T", "a", None)]
    assert len(calls) <= 5, len(calls)  # the head's own tags, and the first opening


@pytest.mark.parametrize(("data", "error"), [
    (b'[{"paper": {"id": "2401.00001", "title": "T", "summary": "A.", "upvotes": ' + b"9" * 5000 + b"}}]",
     "x: JSON with a number of more than 4,300 digits, which no daily-papers file has; not read"),
    (b'<html><body><div data-target="PaperContent" data-props="{&quot;paper&quot;:{&quot;upvotes&quot;:'
     + b"9" * 5000 + b'}}"></div></body></html>',
     "x: the page's embedded PaperContent data is JSON with a number of more than 4,300 digits"),
], ids=["daily-papers JSON", "a saved page's embedded data"])
def test_a_number_python_will_not_read_is_one_line(data: bytes, error: str) -> None:
    """Python's JSON reader raises ValueError on an integer of more than 4,300 digits: one line."""
    with pytest.raises(SourceError) as refused:
        parse_source(data, "x")
    assert str(refused.value) == error


@pytest.mark.parametrize(("name", "row"), [("d.yaml", "- {slug: a, topics: [x, y, z, w, v]}\n"),
                                           ("d.csv", "a,x\n")])
def test_a_decisions_file_is_read_a_decision_at_a_time(name: str, row: str, tmp_path: Path) -> None:
    """4 MiB of decisions, every one wrong: each is checked as it is read (built whole, 16 MiB
    took 2.0 GB), and reading stops after the first 100 problems, which are said."""
    from generator.corpus.decisions import SHOWN_PROBLEMS, read_plan
    from generator.corpus.store import load_corpus

    corpus = load_corpus(make_corpus(tmp_path / "corpus", "empty"))
    path = tmp_path / name
    path.write_text(("slug,topics\n" if name.endswith(".csv") else "") + row * (4 * MiB // len(row)))
    plan, held = peak(lambda: read_plan(path, corpus))
    first_row = 2 if name.endswith(".csv") else 1  # a table's first line names the columns
    assert len(plan.problems) == SHOWN_PROBLEMS and plan.stopped == SHOWN_PROBLEMS + first_row
    assert "no paper with this slug in the corpus" in str(plan.problems[0])
    assert held < MiB // 4, held


def test_a_paper_file_over_1_mib_is_refused_unread(tmp_path: Path) -> None:
    """The largest real paper file is 12.5 KB; a paper file is parsed at some 150 times its size
    (16 MiB took 2.5 GB and 42 s)."""
    from generator.corpus.store import load_corpus
    from generator.corpus.writes import write_files

    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "papers").mkdir()
    text = "slug: big\ntitle: T\nabstract: A\ntopics: []\ntags: []\nextra:\n" + "- a\n" * (MiB // 4)
    (corpus / "papers" / "big.yaml").write_text(text)
    result = survey("check", "--corpus", "corpus", cwd=tmp_path)
    assert result.stderr.splitlines()[0] == (f"corpus/papers/big.yaml: the file is {len(text):,} bytes, over "
                                             f"1 MiB, the most a paper's file may hold; not read")
    (corpus / "papers" / "big.yaml").unlink()
    with pytest.raises(SurveyError, match=f"nothing written: .*big.yaml: the file is {len(text):,} bytes"):
        write_files(load_corpus(corpus), [("papers/big.yaml", text)])


LISTING_HEAD = ("slug: zz-crafted\nname: Crafted\nimported: '2026-11-22'\nsource: hf-text\norigin: x.txt\n"
                f"sha256: '{'0' * 64}'\nentries:\n")


def test_a_file_s_problems_cost_no_more_than_its_values(tmp_path: Path) -> None:
    """Each unknown key of a listing's entries made a problem, all kept until printed: some 100
    times the file's size (audit L3: 8 MiB took 842 MB and printed 1.09 million lines). The first
    PER_FILE problems of a file are kept, the others counted."""
    from generator.core.errors import PER_FILE
    from generator.core.text import shown_path
    from generator.corpus.check import check_corpus

    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "listings").mkdir()
    row = "- {" + ", ".join(f"k{j}: 0" for j in range(50)) + "}\n"
    text = LISTING_HEAD + row * (MiB // 4 // len(row))
    (corpus / "listings" / "zz-crafted.yaml").write_text(text)
    (_, problems), held = peak(lambda: check_corpus(corpus))
    assert held < 10 * len(text), held / len(text)
    lines = problems.lines()
    assert len(problems) == (MiB // 4 // len(row)) * 52  # 50 unknown keys, no paper, no title
    assert len(lines) == PER_FILE + 1
    shown = shown_path(corpus / "listings" / "zz-crafted.yaml")
    assert lines[-1] == f"and {len(problems) - PER_FILE:,} more problems in {shown}"
