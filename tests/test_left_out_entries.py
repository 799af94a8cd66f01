"""A feed import goes on past a bad entry (issue 42, item 3; code review F10): an entry that
`survey check` would refuse (an invisible character, an implausible date or arXiv id, markup in a
name, a malformed BibTeX author list) is left out with one line naming the file, the entry, the
field and the rule, counted in the summary and listed in the left-out report; the other entries
import. `--strict` refuses the whole file in one line, as every import did before."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import hf_item, make_corpus, snapshot, survey

from generator.corpus.store import load_corpus

GOOD_TITLE = "Pipeline Schedules for Serving Large Models"
GOOD_ABSTRACT = ("We schedule pipeline stages of large language models across GPUs and serve them "
                 "with a batching policy that keeps every accelerator busy.")
BAD_ABSTRACT = "We study tensor parallelism for training transformers on clusters of GPUs."


def _json(path: Path, bad: dict[str, object]) -> Path:
    good = hf_item("2501.00001", GOOD_TITLE, GOOD_ABSTRACT)
    item = hf_item("2501.00002", "Tensor Parallel Training", BAD_ABSTRACT)
    item["paper"].update(bad)
    path.write_text(json.dumps([good, item]), encoding="utf-8")
    return path


ATOM_ENTRY = ("<entry><id>{id}</id><published>{published}</published><title>{title}</title>"
              "<summary>{summary}</summary><author><name>{author}</name></author></entry>")


def _atom(path: Path, bad: dict[str, str]) -> Path:
    good = ATOM_ENTRY.format(id="http://arxiv.org/abs/2501.00001v1", published="2025-01-02T00:00:00Z",
                             title=GOOD_TITLE, summary=GOOD_ABSTRACT, author="Ann Lee")
    fields = {"id": "http://arxiv.org/abs/2501.00002v1", "published": "2025-01-03T00:00:00Z",
              "title": "Tensor Parallel Training", "summary": BAD_ABSTRACT, "author": "Bo Chen", **bad}
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
                    f"<title>feed</title>{good}{ATOM_ENTRY.format(**fields)}</feed>\n", encoding="utf-8")
    return path


def _bib(path: Path, bad: str) -> Path:
    path.write_text(f"@article{{good,\n  title = {{{GOOD_TITLE}}},\n  abstract = {{{GOOD_ABSTRACT}}},\n"
                    f"  year = 2025\n}}\n@misc{{bad,\n  title = {{Tensor Parallel Training}},\n"
                    f"  abstract = {{{BAD_ABSTRACT}}},\n  {bad}\n}}\n", encoding="utf-8")
    return path


def _page(path: Path, bad_title: str) -> Path:
    card = "<article><h3><a href='/papers/{}'>{}</a></h3><p>{}</p></article>"
    path.write_text(f"<html><body>{card.format('2501.00001', GOOD_TITLE, GOOD_ABSTRACT)}"
                    f"{card.format('2501.00002', bad_title, BAD_ABSTRACT)}</body></html>", encoding="utf-8")
    return path


CASES = {
    # name: (the file, the entry as the line names it, the field and the rule)
    "json-bidi-title": (lambda p: _json(p / "d.json", {"title": "Tensor \u202eParallel Training"}),
                        "entry #2 ", "field 'title': contains U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    "json-future-date": (lambda p: _json(p / "d.json", {"publishedAt": "9999-12-31T00:00:00.000Z"}),
                         "entry #2 'Tensor Parallel Training'", "field 'date': 9999-12-31 is still to come"),
    "json-arxiv-id": (lambda p: _json(p / "d.json", {"id": "2413.00002"}),
                      "entry #2 'Tensor Parallel Training'",
                      "field 'arxiv': '2413.00002' is not an arXiv id arXiv could have issued"),
    "json-author-without-name": (lambda p: _json(p / "d.json", {"authors": [{"user": "bo"}]}),
                                 "entry #2 'Tensor Parallel Training'",
                                 "field 'paper.authors[0]': must have a name"),
    "atom-invisible": (lambda p: _atom(p / "a.xml", {"summary": "We \u200bstudy tensor parallelism."}),
                       "entry #2 'Tensor Parallel Training'", "field 'abstract': contains U+200B (ZERO"),
    "atom-future-date": (lambda p: _atom(p / "a.xml", {"published": "9999-01-01T00:00:00Z"}),
                         "entry #2 'Tensor Parallel Training'", "field 'date': 9999-01-01 is still to come"),
    "atom-not-an-abstract-url": (lambda p: _atom(p / "a.xml", {"id": "http://example.org/2501.00002"}),
                                 "entry #2 'Tensor Parallel Training'",
                                 "field 'id': 'http://example.org/2501.00002' is not an arXiv abstract URL"),
    "page-bidi-title": (lambda p: _page(p / "page.html", "Tensor Parallel Training\u2066"),
                        "entry #2 ", "field 'title': contains U+2066 (LEFT-TO-RIGHT ISOLATE)"),
    "bib-commas": (lambda p: _bib(p / "refs.bib", "author = {A, B, C, D}"),
                   "entry bad", "field 'author': 'A, B, C, D': Too many commas"),
    "bib-control-in-name": (lambda p: _bib(p / "refs.bib", "author = {Doe, J\x1bane}"),
                            "entry bad",
                            r"field 'author': 'Doe, J\x1bane' contains a control character"),
    "bib-bidi-name": (lambda p: _bib(p / "refs.bib", "author = {Lee, A\u202enn}"),
                      "entry bad",
                      "field 'author': 'Lee, A\\u202enn' contains U+202E"),
    "bib-long-field": (lambda p: _bib(p / "refs.bib", "journal = {" + "x" * 2_001 + "}"),
                       "entry bad", "field 'journal': is 2,001 characters long; a paper's journal is read up "
                                    "to 2,000"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_entry_is_left_out_named_and_listed_and_the_others_import(case: str, tmp_path: Path) -> None:
    make, entry, rule = CASES[case]
    source = make(tmp_path)
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(source), "--corpus", str(corpus), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    report = f"left-out-{source.name.split('.')[0]}.csv"
    assert lines[0].startswith("entries read: 2; papers added: 1;"), lines[0]
    assert f"left out, as `survey check` would refuse them: 1 entry: {report}" in lines
    left = [line for line in lines if line.startswith("left out: ")]
    assert len(left) == 1 and left[0].startswith(f"left out: {source}:"), left
    assert f"{':6' if source.suffix == '.bib' else ''}: {entry}" in left[0] and rule in left[0], left[0]
    assert [p.title for p in load_corpus(corpus).papers.values()] == [GOOD_TITLE]
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    with (tmp_path / report).open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and rule in rows[0]["left out because"], rows
    assert not rows[0]["take it in with"] and not rows[0]["best topic"]
    assert rows[0]["title"].isprintable(), rows  # what check refuses is shown escaped


@pytest.mark.parametrize("case", ["json-bidi-title", "atom-future-date", "bib-commas"])
def test_strict_refuses_the_whole_file_in_one_line(case: str, tmp_path: Path) -> None:
    make, entry, rule = CASES[case]
    source = make(tmp_path)
    corpus = make_corpus(tmp_path / "corpus", "empty")
    before = snapshot(corpus)
    result = survey("import", str(source), "--strict", "--corpus", str(corpus), cwd=tmp_path)
    assert result.returncode == 1, result.stdout
    line, = result.stderr.splitlines()
    assert line.startswith(f"survey import: {source}") and entry in line and rule in line, line
    assert snapshot(corpus) == before and not list(tmp_path.glob("left-out-*"))


def test_a_file_whose_every_entry_is_refused_is_refused(tmp_path: Path) -> None:
    """Nothing to import is no feed with a bad entry: the file is refused, counting the rest."""
    source = tmp_path / "d.json"
    source.write_text(json.dumps([hf_item(f"2501.0000{i}", f"Paper \u202e{i}", GOOD_ABSTRACT)
                                  for i in (1, 2, 3)]), encoding="utf-8")
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(source), "--corpus", str(corpus), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (f"survey import: {source}: entry #1 'Paper \\u202e1': field 'title': contains "
                             f"U+202E (RIGHT-TO-LEFT OVERRIDE), an invisible character that changes how the "
                             f"text around it shows (and 2 more entries refused)\n")


def test_a_hand_written_listing_is_still_refused_whole(tmp_path: Path) -> None:
    """HF listing text pairs a title with the next paragraph: a wrong entry may have shifted every
    pair after it, so the writer mends it (docs/contributing.md)."""
    source = tmp_path / "listing.txt"
    source.write_text(f"Daily Papers\n\n{GOOD_TITLE}\n\n{GOOD_ABSTRACT}\n\nTensor \u202eParallel\n\n"
                      f"{BAD_ABSTRACT}\n", encoding="utf-8")
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(source), "--corpus", str(corpus), cwd=tmp_path)
    assert result.returncode == 1 and "entry #2 'Tensor \\u202eParallel': field 'title'" in result.stderr


def test_on_topic_lists_the_refused_entries_first_in_the_same_report(tmp_path: Path) -> None:
    make, _, rule = CASES["json-future-date"]
    source = make(tmp_path)
    off = hf_item("2501.00003", "Bird Songs of the Alps", "We record the songs of alpine birds in spring.")
    source.write_text(json.dumps([*json.loads(source.read_text(encoding="utf-8")), off]), encoding="utf-8")
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(source), "--on-topic", "--corpus", str(corpus), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("entries read: 3; papers added: 1;"), result.stdout
    with (tmp_path / "left-out-d.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["id"] for r in rows] == ["2501.00002", "2501.00003"]
    assert rows[0]["left out because"].startswith(f"{source}: entry #2 'Tensor Parallel Training': {rule}")
    assert rows[1]["left out because"] == "no topic likely (--on-topic)"
    assert rows[1]["take it in with"].startswith(f"survey import {source} --on-topic --take 2501.00003")


def test_enrich_reads_the_other_entries_of_a_file_with_a_bad_one(tmp_path: Path) -> None:
    source = CASES["bib-commas"][0](tmp_path)
    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "papers").mkdir()
    (corpus / "papers" / "pipeline-schedules.yaml").write_text(
        f"slug: pipeline-schedules\ntitle: {GOOD_TITLE}\nabstract: {GOOD_ABSTRACT}\ntopics: []\ntags: []\n",
        encoding="utf-8")
    result = survey("enrich", "--web", "none", "--from", str(source), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == (f"note: {source}:6: entry bad: field 'author': 'A, B, C, D': "
                                             f"Too many commas in 'A, B, C, D'; entry skipped")
    assert load_corpus(corpus).papers["pipeline-schedules"].date == "2025"
