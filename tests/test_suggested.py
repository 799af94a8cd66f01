"""Readers tell a decision from a guess (issue 29, point 4), and topic pages start with a
sentence for readers (point 5).

One small site (conftest.make_corpus's "review": two papers whose topics a person reviewed, six the
model suggested, one of them hostile and one with no topic, which waits off the site), built
once for the module with `mkdocs build --strict` and read with BeautifulSoup; the schema and the
writers in process.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup, Tag
from conftest import (
    HOSTILE_ABSTRACT,
    HOSTILE_SLUG,
    HOSTILE_TITLE,
    REVIEWED,
    ROOT,
    SUGGESTED,
    make_corpus,
    snapshot,
)

from generator.cli.main import main
from generator.corpus.store import load_corpus, paper_text

UNSURE = "arithmetic-sampling-parallel-diverse-decoding-for-large-language"  # parallelism 0.62
# The suggested papers on the site: the one with no topic waits for a curator (test_publish).
PUBLISHED = [s for s in SUGGESTED if s != "algorithms-for-caching-and-mts-with-reduced-number-of"]


@pytest.fixture
def site(review_site: Path) -> Path:
    return review_site


def article(site: Path, page: str) -> Tag:
    soup = BeautifulSoup((site / page / "index.html").read_text(encoding="utf-8"), "html.parser")
    found = soup.find("article")
    assert isinstance(found, Tag)
    return found


def text(tag: Tag) -> str:
    return " ".join(tag.get_text(" ").split())


# --- the paper page -----------------------------------------------------------------------------


def chips(page: Tag) -> list[tuple[str, bool]]:
    """A paper page's topic chips: (text, marked as suggested)."""
    return [(text(a), "survey-topic--suggested" in a["class"])
            for a in page.find("p", class_="survey-chips").find_all("a", class_="survey-topic")]


def test_a_suggested_topic_says_suggested_with_its_confidence_and_that_no_one_reviewed_it(site: Path) -> None:
    page = article(site, f"papers/{UNSURE}")
    assert chips(page) == [("Parallelism suggested 62%", True)]
    note = page.find("p", class_="survey-suggested")
    assert note is not None and text(note).startswith(
        "Not reviewed yet: the topic model suggested this topic, with how sure it is as a percentage, "
        "and no person has checked it.")
    assert note.find("a")["href"] == "../../topic-boundaries/#suggested-and-reviewed-topics"


def test_a_paper_whose_topics_a_person_reviewed_shows_no_mark(site: Path) -> None:
    for slug in REVIEWED:
        page = article(site, f"papers/{slug}")
        assert chips(page) and not any(suggested for _, suggested in chips(page))
        assert "suggested" not in text(page.find("p", class_="survey-chips"))
        assert page.find(class_="survey-suggested") is None
        assert "suggested" not in page.find(attrs={"data-pagefind-meta": "entry"}).get_text()
    # among its related papers, the one whose topics the model suggested is marked
    related = article(site, f"papers/{REVIEWED[1]}").find("h2", id="related-papers").find_next_sibling("ul")
    assert [text(li) for li in related.find_all("li")] == [
        f"{HOSTILE_TITLE} · 2 Jan 2025 · Quantization suggested 100%"]


def test_a_suggested_paper_with_no_topic_says_so_where_the_site_publishes_it(tmp_path: Path) -> None:
    """By default such a paper waits for a curator, off the site (test_publish); published
    (`publish_waiting: true`), it is under Other, marked suggested with no confidence."""
    from generator.site.render import Site

    slug = "algorithms-for-caching-and-mts-with-reduced-number-of"
    corpus = load_corpus(make_corpus(tmp_path / "corpus", "review"))
    page = Site(corpus, ROOT / "templates", publish_waiting=True).pages()[f"papers/{slug}.md"]
    shown = BeautifulSoup(page, "html.parser").find("p", class_="survey-chips")
    assert chips(shown.parent) == [("Other suggested", True)]
    # No confidence is shown for Other: the note does not speak of one.
    assert ("*Not reviewed yet: the topic model suggested none of the topics, so the paper is under Other, "
            "and no person has checked it.*") in page



def test_the_hostile_paper_shows_its_text_exactly_and_nothing_of_it_runs(site: Path) -> None:
    page = article(site, f"papers/{HOSTILE_SLUG}")
    h1 = page.find("h1")
    h1.find("a", class_="headerlink").decompose()
    assert h1.get_text() == HOSTILE_TITLE
    abstract = page.find("h2", id="abstract").find_next_sibling("p")
    assert abstract.get_text() == HOSTILE_ABSTRACT
    assert page.find("script") is None and page.find("b") is None
    assert chips(page) == [("Quantization suggested 100%", True)]


# --- topic pages, the home page, search and the exports -----------------------------------------


def entry_marks(page: Tag) -> dict[str, list[str]]:
    """Each paper entry of a list page: its paper's slug and the text of its topic chips."""
    return {li.find("a")["href"].split("/")[-2]: [text(a) for a in li.find_all("a", class_="survey-topic")]
            for li in page.find_all("li", class_="survey-entry")}


def test_a_topic_page_counts_the_reviewed_and_marks_each_suggested_entry(site: Path) -> None:
    page = article(site, "topics/parallelism")
    numbers = page.find("p", class_="survey-numbers")
    assert text(numbers) == "4 papers · 1 reviewed ( only these ) · 3 suggested · BibTeX (1 of 4) · Atom feed"
    assert numbers.find("a", string="only these")["href"] == "../../search/?topic=Parallelism&review=reviewed"
    assert entry_marks(page) == {
        REVIEWED[0]: ["Parallelism"], UNSURE: ["Parallelism suggested 62%"],
        "a-unified-sequence-parallelism-approach-for-long-context": ["Parallelism suggested 100%"],
        "accelerating-feedforward-computation-via-parallel-nonlinear": ["Parallelism suggested 98%",
                                                                        "Serving suggested 54%"]}


def test_suggested_is_worded_one_way_on_every_page_and_in_the_search_data(site: Path) -> None:
    """Topic, tag and home pages, the paper page, its related papers and its search entry: each
    says a suggested topic as "suggested" and the model's confidence as a percentage."""
    want = "Parallelism suggested 62%"
    assert entry_marks(article(site, "topics/parallelism"))[UNSURE] == [want]
    paper = load_corpus(ROOT / "corpus").papers[UNSURE]
    for tag in paper.tags:
        assert entry_marks(article(site, f"tags/{tag}"))[UNSURE] == [want]
    assert entry_marks(article(site, ""))[UNSURE] == [want]
    assert chips(article(site, f"papers/{UNSURE}")) == [(want, True)]
    data = article(site, f"papers/{UNSURE}").find(attrs={"data-pagefind-meta": "entry"})
    entry = json.loads(data.get_text())
    assert entry["suggested"] is True and entry["topics"] == [["parallelism", "Parallelism", "62%"]]
    for page in (site / "papers").glob("*/index.html"):
        shown = text(article(site, f"papers/{page.parent.name}"))
        assert "topics suggested" not in shown and "suggested," not in shown and "confidence 0" not in shown


def test_a_topic_page_opens_with_its_sentence_then_its_papers_the_rule_folded(site: Path) -> None:
    taxonomy = load_corpus(ROOT / "corpus").taxonomy
    for topic in taxonomy.topics:
        page = article(site, f"topics/{topic.id}")
        first = page.find("h1").find_next_sibling()
        assert (first.name, first["class"], first.get_text()) == ("p", ["survey-summary"], topic.summary)
        numbers = first.find_next_sibling()
        assert numbers["class"] == ["survey-numbers"]
        rule = numbers.find_next_sibling()
        if "survey-years" in rule.get("class", []):  # its years, each a link (issue 43)
            rule = rule.find_next_sibling()
        assert rule.name == "details" and "survey-boundary" in rule["class"]
        assert not rule.has_attr("open")  # folded
        assert rule.find("p").get_text() == topic.description
        listed = page.find("ul")
        assert listed is None or listed.sourceline > rule.sourceline  # the papers after, at once


def test_the_home_page_says_what_each_topic_covers_in_its_sentence(site: Path) -> None:
    taxonomy = load_corpus(ROOT / "corpus").taxonomy
    items = article(site, "").find_all("li", class_="survey-topic-entry")
    got = {li.find("a").get_text(): li.find("br").next_sibling.strip() for li in items}
    assert got == {**{t.name: t.summary for t in taxonomy.topics},
                   "Other": "Papers on none of the topics above, still part of the survey: their tags say "
                            "what they are about."}
    assert text(items[0]).startswith("Parallelism · 4 papers · 1 of 4 reviewed")


def test_each_paper_is_in_the_search_facet_reviewed_or_suggested(site: Path) -> None:
    facet = {}
    for path in sorted((site / "papers").glob("*/index.html")):
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        facet[path.parent.name] = soup.find(attrs={"data-pagefind-filter": "review"}).get_text()
    assert facet == {**dict.fromkeys(REVIEWED, "reviewed"),
                     **dict.fromkeys([*PUBLISHED, HOSTILE_SLUG], "suggested")}
    assert '"review"' in (ROOT / "docs" / "assets" / "search.js").read_text()  # the search page shows it


def test_the_exports_say_whether_a_paper_was_reviewed(site: Path) -> None:
    records = {r["slug"]: r for r in json.loads((site / "exports" / "papers.json").read_text())}
    assert {s: r["reviewed"] for s, r in records.items()} == {
        **dict.fromkeys(REVIEWED, True), **dict.fromkeys([*PUBLISHED, HOSTILE_SLUG], False)}
    assert records[UNSURE]["confidence"] == {"parallelism": 0.62}
    assert "confidence" not in records[REVIEWED[0]]
    rows = list(csv.DictReader(io.StringIO((site / "exports" / "papers.csv").read_text())))
    assert {r["slug"]: r["reviewed"] for r in rows} == {s: "true" if r["reviewed"] else "false"
                                                       for s, r in records.items()}


# --- the schema and the writers --------------------------------------------------------------


def test_a_file_written_before_keeps_reading_and_loses_confidence_and_doubt_when_next_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A paper file kept the model's `confidence` and `doubt` until issue 42: such a file is still
    valid whatever they hold (nothing reads them), and a command that writes it for another
    reason drops them; no command writes them."""
    corpus = make_corpus(tmp_path / "corpus", "review")
    path = corpus / "papers" / f"{UNSURE}.yaml"
    good = path.read_text(encoding="utf-8")
    assert "confidence" not in good and "doubt" not in good
    old = good.replace("tags:", "confidence:\n  parallelism: 0.9\n  serving: high\ndoubt: lots\ntags:", 1)
    path.write_text(old, encoding="utf-8")
    assert main(["check", "--corpus", str(corpus)]) == 0
    assert paper_text(load_corpus(corpus).papers[UNSURE]) == good
    assert main(["classify", "--write", "--corpus", str(corpus)]) == 0
    assert path.read_text(encoding="utf-8") == old  # no suggestion moved: the file is left as it is
    decisions = tmp_path / "d.csv"
    decisions.write_text(f"slug,topics\n{UNSURE},serving\n", encoding="utf-8")
    assert main(["review", "--apply", str(decisions), "--corpus", str(corpus)]) == 0
    decided = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert "topics" in decided["curated"] and not {"confidence", "doubt"} & set(decided)


def test_topic_summaries_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = make_corpus(tmp_path / "corpus", "review")
    taxonomy = corpus / "taxonomy.yaml"
    data = yaml.safe_load(taxonomy.read_text(encoding="utf-8"))
    del data["topics"][1]["summary"]
    data["topics"][2]["summary"] = "x" * 201
    taxonomy.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert main(["check", "--corpus", str(corpus)]) == 1
    err = capsys.readouterr().err
    assert "taxonomy.yaml: entry quantization: field 'summary': is required" in err
    assert "taxonomy.yaml: entry serving: field 'summary': is 201 characters long; at most 200" in err


def test_add_and_classify_write_what_they_suggest_and_the_model_s_numbers_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`survey add` writes the suggested topics and no number of the model's; the page shows the
    model's confidence from the derived cache. A model that changes a paper's confidence but not
    its suggested topics changes no paper file."""
    corpus = make_corpus(tmp_path / "corpus", "review")
    title, abstract = "Serving LLMs with paged KV caches", (
        "We build an LLM serving system with a paged KV cache and continuous batching that raises "
        "serving throughput 3x at the same latency.")
    assert main(["add", "--title", title, "--abstract", abstract, "--corpus", str(corpus)]) == 0
    added = yaml.safe_load((corpus / "papers" / "serving-llms-with-paged-kv-caches.yaml").read_text())
    assert added["topics"] == ["serving"] and not {"confidence", "doubt"} & set(added)
    assert main(["add", "--title", "Fused attention kernels", "--abstract", "A fused attention kernel "
                 "in Triton, 2x faster.", "--topic", "kernels", "--corpus", str(corpus)]) == 0
    assert main(["classify", "--write", "--corpus", str(corpus)]) == 0
    before, exported = snapshot(corpus), exports(corpus, capsys)
    model = corpus / "topic_model.yaml"  # a curator nudges the model: confidences move, no topic does
    model.write_text(re.sub(r"(parallelism:\n    bias: )(\S+)", lambda m: f"{m[1]}{float(m[2]) + 0.05}",
                            model.read_text(encoding="utf-8")), encoding="utf-8")
    capsys.readouterr()
    assert main(["classify", "--write", "--corpus", str(corpus)]) == 0
    assert capsys.readouterr().out == ("survey classify: files written: 0 (the suggestions of every paper "
                                       "are the model's already)\n")
    assert {k: v for k, v in snapshot(corpus).items() if k != "topic_model.yaml"} == {
        k: v for k, v in before.items() if k != "topic_model.yaml"}
    records = exports(corpus, capsys)
    new, old = (r[UNSURE]["confidence"]["parallelism"] for r in (records, exported))
    assert 0.5 < old == 0.62 < new < 1  # shown as the model now says it
    assert "confidence" not in records["fused-attention-kernels"]


def exports(corpus: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    assert main(["export", "--corpus", str(corpus)]) == 0
    return {r["slug"]: r for r in json.loads(capsys.readouterr().out)}


def test_classify_write_shows_ten_of_its_changes_and_counts_them_all(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A refresh after `survey train` changes most papers (945 lines at 951): --write names ten
    changes, as `survey classify` lists them, and counts every one."""
    corpus = make_corpus(tmp_path / "corpus", "review")
    for path in sorted((corpus / "papers").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        reviewed = "topics" in data.get("curated", [])
        data.update(topics=["kernels"] if reviewed else [], tags=["fp8"],
                    curated=["topics"] if reviewed else [])
        data.pop("confidence", None)
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    capsys.readouterr()
    assert main(["classify", "--corpus", str(corpus)]) == 0
    differ = capsys.readouterr().out.splitlines()
    kept = [line for line in differ if line.endswith(" (curated, kept)")]
    topics = [line for line in differ if ": topics: " in line and line not in kept]
    assert len(differ) > 10 and kept and topics
    assert main(["classify", "--write", "--corpus", str(corpus)]) == 0
    said = capsys.readouterr().out.splitlines()
    changes = [line for line in differ if line not in kept]  # the changes, without the kept ones
    assert len(changes) > 10 and said[:10] == changes[:10]
    assert said[10:] == [
        f"and {len(changes) - 10} more like these, counted below",
        f"survey classify: files written: 8 (suggested topics changed on {len(topics)} papers, tags on "
        f"{len(changes) - len(topics)}); {len(kept)} not taken where a person set the field (curated, kept)"]
    assert main(["classify", "--corpus", str(corpus)]) == 0
    assert capsys.readouterr().out.splitlines() == kept  # the rest written


def test_serve_renders_a_paper_page_again_when_only_its_confidence_changed() -> None:
    """The reuse key of a page holds what it shows: the confidence too."""
    import copy

    from generator.site.render import Site
    from generator.site.reuse import RenderCache

    corpus = load_corpus(ROOT / "corpus")
    corpus.papers, corpus.listings = {s: corpus.papers[s] for s in sorted(corpus.papers)[:3]}, {}
    slug = next(iter(corpus.papers))
    cache = RenderCache()
    unsure = copy.deepcopy(corpus.papers[slug])
    unsure.curated, unsure.confidence = [], {t: 0.7 for t in unsure.topics}
    corpus.papers[slug] = unsure
    first = Site(corpus, ROOT / "templates", cache=cache).pages()[f"papers/{slug}.md"]
    surer = copy.deepcopy(unsure)
    surer.confidence = {t: 0.9 for t in unsure.topics}
    corpus.papers[slug] = surer
    second = Site(corpus, ROOT / "templates", cache=cache).pages()[f"papers/{slug}.md"]
    assert "suggested 70%" in first and "suggested 90%" in second
