"""What a paper's entry says (generator/site/entries.py), the links an abstract's URLs become
(markup.linked_text) and the counts of papers per quarter (timeline.py): in process, no site."""

from __future__ import annotations

import json
import re

import markdown

from generator.corpus.model import Paper
from generator.site.entries import latest, search_entry, shown_authors, shown_date, venue
from generator.site.markup import compact_html, linked_text
from generator.site.parts import page_url, root_of
from generator.site.timeline import chart, timeline


def paper(slug: str = "p", **values: object) -> Paper:
    return Paper(slug=slug, title="T", abstract="A", **values)  # type: ignore[arg-type]


def test_an_entry_says_the_date_as_readers_write_it_and_where_the_paper_is() -> None:
    # One unbreakable piece: a line breaks before or after a date, not inside it.
    assert [shown_date(d) for d in ("2025-02-07", "2025-12", "2025", None)] == [
        "7\u00a0Feb\u00a02025", "Dec\u00a02025", "2025", ""]
    assert venue(paper(arxiv="2502.11880", links={"paper": "https://x.org/a"})) == "arXiv"
    assert venue(paper(links={"paper": "https://www.usenix.org/conference/osdi24/x"})) == "usenix.org"
    assert venue(paper()) == ""


def test_an_entry_names_three_authors_then_et_al() -> None:
    assert shown_authors(paper(authors=["A", "B", "C"])) == (["A", "B", "C"], False)
    assert shown_authors(paper(authors=["A", "B", "C", "D"])) == (["A", "B", "C"], True)
    assert shown_authors(paper(authors=["A"], et_al=True)) == (["A"], True)


def test_the_search_entry_holds_what_a_result_shows() -> None:
    suggested = paper(authors=["A", "B", "C", "D"], date="2025-02-07", arxiv="2502.11880",
                      topics=["serving"], confidence={"serving": 0.854}, tags=["fp8"],
                      links={"code": "https://github.com/a/b"})
    names = {"serving": "Serving", "other": "Other"}
    entry = json.loads(search_entry(suggested, names.__getitem__, lambda t: t.upper(), "other"))
    assert entry == {"authors": ["A", "B", "C"], "more": True, "date": "7\u00a0Feb\u00a02025",
                     "venue": "arXiv", "code": "https://github.com/a/b",
                     "topics": [["serving", "Serving", "85%"]], "lead": 5, "suggested": True,
                     "tags": [["fp8", "FP8"]]}
    reviewed = paper(curated=["topics"])
    assert json.loads(search_entry(reviewed, names.__getitem__, str, "other")) == {
        "authors": [], "topics": [["other", "Other", ""]], "lead": 1}  # "lead": words before the abstract


def test_what_is_new_is_the_last_added_then_the_newest() -> None:
    papers = [paper("a", added="2026-01-01", date="2025"), paper("b", added="2026-02-01", date="2020"),
              paper("c", added="2026-02-01", date="2024"), paper("d")]
    assert [p.slug for p in latest(papers, 3)] == ["c", "b", "a"]


def test_page_urls_follow_use_directory_urls() -> None:
    paths = ("index.md", "topics/index.md", "topics/serving.md", "topics/other/2.md")
    assert [page_url(p) for p in paths] == ["", "topics/", "topics/serving/", "topics/other/2/"]
    assert [root_of(p) for p in paths] == ["", "../", "../../", "../../../"]
    assert page_url("topics/serving.md", False) == "topics/serving.html"
    assert root_of("topics/serving.md", False) == "../"


def shown(text: str) -> list[tuple[str, str]]:
    """The links Markdown makes of linked_text(text): (text, href)."""
    html = compact_html(markdown.markdown(str(linked_text(text))))
    return [(t, h) for h, t in re.findall(r'<a href="([^"]*)">([^<]*)</a>', html)]


def test_whole_urls_of_an_abstract_become_links_and_nothing_else_does() -> None:
    assert shown("Code: https://github.com/a/b.") == [("https://github.com/a/b", "https://github.com/a/b")]
    assert shown("(see https://x.org/a_(b)), then") == [("https://x.org/a_(b)", "https://x.org/a%5F%28b%29")]
    assert shown("at https://github.com/sail-sg/zero{this url}.") == [
        ("https://github.com/sail-sg/zero", "https://github.com/sail-sg/zero")]
    assert shown("www.x.org, a@b.org, https://, [x](javascript:alert(1))") == []
    assert shown("<https://y.org>") == [("https://y.org", "https://y.org")]  # the brackets stay text
    html = compact_html(markdown.markdown(str(linked_text('https://x.org/"><script>alert(1)</script>'))))
    assert "<script" not in html


def test_papers_per_quarter_count_each_series_and_say_what_they_leave_out() -> None:
    papers = [paper(f"p{i}", date=d) for i, d in enumerate(
        ["2024-11-02", "2025-01", "2025-03-30", "2025", None, *["2025-06"] * 99, "2019-09"])]
    data = timeline([("All", papers), ("Some", papers[:3])])
    assert data is not None
    assert data.periods == ["2024 Q4", "2025 Q1", "2025 Q2"]
    assert data.rows == [("All", [1, 2, 99]), ("Some", [1, 2, 0])]
    assert (data.undated, data.earlier) == (2, 1)  # no month: "2025" and None; 2019 is 1% before
    drawn = compact_html(chart(data))
    assert drawn.count('class="survey-bar"') == 5
    assert "2 papers have no date, or only a year, and are not counted." in drawn
    assert timeline([("All", [paper(date="2025")])]) is None
    years = timeline([("All", [paper("a", date="2001-01"), paper("b", date="2025-01")] * 60)])
    assert years is not None and years.periods[0] == "2001" and len(years.periods) == 25
