"""`survey check`, the round trip of the corpus files, and `survey export`."""

from __future__ import annotations

import csv
import datetime
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, make_corpus, replace_in, survey

from generator.core.text import slugify
from generator.corpus.model import Paper
from generator.corpus.store import listing_text, load_corpus, paper_text


def test_committed_corpus_passes_check() -> None:
    result = survey("check")
    assert result.returncode == 0, result.stderr
    assert "313 papers, 4 listings" in result.stdout


def test_round_trip_is_byte_identical() -> None:
    corpus = load_corpus(ROOT / "corpus")
    for paper in corpus.papers.values():
        path = ROOT / "corpus" / paper.file
        assert paper_text(paper) == path.read_text(encoding="utf-8"), path
    for listing in corpus.listings.values():
        path = ROOT / "corpus" / listing.file
        assert listing_text(listing) == path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize("text", [
    "<kernel> + <programming model>", "S* and C# for $42", "10^4 L_{2} \\textbf{x}", "a | b",
    "{{ 7*7 }} {% raw %}", '--8<-- "file"', "<!-- c -->", "<script>alert(1)</script>",
    "'quoted' \"double\" # not a comment: yes", "- list? ", "null", "2104.07850", "2021-04-16",
    "yes", "~", "@at &amp; *star", "Mohammad\u200cZadeh", "ünïcødé δ",
])
def test_any_text_round_trips(text: str) -> None:
    paper = Paper(slug="x", title=text.strip(), abstract=(text.strip() + " ") * 20 + "end")
    again = Paper.from_dict(__import__("generator.core.yamlio", fromlist=["load_yaml"]).load_yaml(
        paper_text(paper), "x.yaml"), "x.yaml")
    assert again == paper


def test_check_reports_one_line_per_problem(corpus: Path) -> None:
    dup = "breadth-first-pipeline-parallelism"
    papers = corpus / "papers"
    (papers / "2bp-2-stage-backpropagation.yaml").write_text(
        "slug: 2bp-2-stage-backpropagation\ntitle: 'unclosed\nabstract: x\n")
    replace_in(papers / "qlora-efficient-finetuning-of-quantized-llms.yaml", "- lora", "- loras")
    replace_in(papers / "s-lora-serving-thousands-of-concurrent-lora-adapters.yaml", "topics:\n",
               "topics:\n- servng\n")
    copy = shutil.copyfile(papers / f"{dup}.yaml", papers / f"{dup}-copy.yaml")
    replace_in(copy, f"slug: {dup}", f"slug: {dup}-copy")
    (papers / "rewrite-the-stars.yaml").rename(papers / "renamed.yaml")
    replace_in(papers / "gpipe-efficient-training-of-giant-neural-networks-using-pipeline.yaml", "topics:",
               "links:\n  code: javascript:alert(1)\ntopics:")
    result = survey("check", "--corpus", str(corpus))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    problems, summary = lines[:-1], lines[-1]
    assert summary == "survey check: 8 problem(s)"
    text = "\n".join(problems)
    assert ("2bp-2-stage-backpropagation.yaml:4:1: malformed YAML: while scanning a quoted scalar "
            "that starts at line 2, column 8: found unexpected end of stream") in text
    assert ("qlora-efficient-finetuning-of-quantized-llms.yaml: entry qlora-efficient-finetuning-of-"
            "quantized-llms: field 'tags[3]': unknown tag 'loras'; closest known tags: lora") in text
    assert "field 'topics[0]': unknown topic 'servng'" in text
    assert ("breadth-first-pipeline-parallelism-copy.yaml: entry breadth-first-pipeline-parallelism-copy: "
            "field 'title': the same paper as ") in text
    assert ("breadth-first-pipeline-parallelism-copy.yaml: entry breadth-first-pipeline-parallelism-copy: "
            "field 'arxiv': the same paper as ") in text
    assert "renamed.yaml: entry rewrite-the-stars: field 'slug': slug 'rewrite-the-stars' does not " \
           "match the file name" in text
    assert "field 'links.code': 'javascript:alert(1)' is not an http(s) URL" in text
    # the listing that pointed at the renamed paper is reported too
    assert "points at 'rewrite-the-stars', which is not in papers/" in text
    assert all(line.count(": ") >= 2 for line in problems)


AFTER_TOMORROW = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=2)).date().isoformat()
TOMORROW = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)).date().isoformat()
FIELDS = "title: {}\nabstract: A\ntopics: []\ntags: []\n"
WIDE = "\uff12\uff14\uff10\uff11.\uff10\uff10\uff10\uff10\uff11"
URL = "is not an http(s) URL with a plain host"
# Each case a paper file of its own (slug: the line added, what check says of it).
IMPLAUSIBLE = {
    "no-such-day": ("date: '2024-02-30'", "field 'date': '2024-02-30' is not a date: use YYYY, YYYY-MM or"),
    "full-width-digits": (f"arxiv: '{WIDE}'", f"field 'arxiv': '{WIDE}' is not an arXiv id"),
    "no-such-day-added": ("added: '2026-02-29'", "field 'added': '2026-02-29' is not a date: use YYYY-MM-DD"),
    "year-9999": ("date: '9999-12-31'", "field 'date': 9999-12-31 is still to come (the latest day a paper"),
    "added-9999": ("added: '9999-12-31'", "field 'added': 9999-12-31 is still to come"),
    "after-tomorrow": (f"date: '{AFTER_TOMORROW}'", f"field 'date': {AFTER_TOMORROW} is still to come"),
    # month 13, month 00, 4 digits in 2024, 5 in 2014, new style before 0704 (or in 2099), old style month 13
    **{f"arxiv-{i}": (f"arxiv: '{arxiv}'", f"field 'arxiv': '{arxiv}' is not an arXiv id arXiv could have")
       for i, arxiv in enumerate(["2413.00001", "2400.00001", "2401.0001", "1412.00001", "0703.0001",
                                  "9912.12345", "cs/0713001"])},
    "credentials": ("links: {paper: 'https://user:pass@host.example/'}",
                    f"field 'links.paper': 'https://user:pass@host.example/' {URL}"),
    "not-the-host-shown": ("links: {code: 'https://arxiv.org@evil.example/'}",
                           f"field 'links.code': 'https://arxiv.org@evil.example/' {URL}"),
    "cyrillic-host": ("links: {project: 'https://\u0430rxiv.org/x'}",
                      f"field 'links.project': 'https://\u0430rxiv.org/x' {URL}"),
    "bidi-title": ("alternate_titles: ['Rewrite \u202ethe Stars']", "field 'alternate_titles[0]': contains "
                   "U+202E (RIGHT-TO-LEFT OVERRIDE), an invisible character that changes how the text"),
    "bidi-isolate": ("abstract: A \u2066b", "field 'abstract': contains U+2066 (LEFT-TO-RIGHT ISOLATE)"),
    "bidi-author": ("authors: ['Ann \u202eLee']", "field 'authors[0]': contains U+202E (RIGHT-TO-LEFT"),
}
PLAUSIBLE = {"tomorrow": f"date: '{TOMORROW}'", "old-style": "arxiv: cs/0701001",
             "first-new-style": "arxiv: '0704.0001'", "last-4-digit": "arxiv: '1412.9999'",
             "joiner": "title: Mohammad\u200cZadeh"}


def test_what_check_accepts_is_plausible(tmp_path: Path) -> None:
    """Refused: any script's digits (\\d would take them: an arXiv link to nowhere), a day the
    calendar lacks, a day to come (9999-12-31 would be first in every newest-first list and the
    feed), a month arXiv never had; a link whose host is not the one it shows; a bidi control in a title."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "papers").mkdir()
    for slug, line in [*((s, line) for s, (line, _) in IMPLAUSIBLE.items()), *PLAUSIBLE.items()]:
        key = line.split(":", 1)[0]
        fields = FIELDS.format(slug).splitlines(keepends=True)
        text = "".join(f for f in fields if not f.startswith(f"{key}:"))
        (corpus / "papers" / f"{slug}.yaml").write_text(f"slug: {slug}\n{line}\n{text}", encoding="utf-8")
    result = survey("check", "--corpus", "corpus", cwd=tmp_path)
    *problems, count = result.stderr.splitlines()
    assert count == f"survey check: {len(IMPLAUSIBLE)} problem(s)", result.stderr
    for slug, (_, problem) in IMPLAUSIBLE.items():
        start = f"corpus/papers/{slug}.yaml: entry {slug}: {problem}"
        assert any(p.startswith(start) for p in problems), (start, problems)


def test_every_command_has_help_and_takes_corpus() -> None:
    for command in ("import", "check", "export", "explain", "classify", "quality", "build", "add"):
        result = survey(command, "--help")
        assert result.returncode == 0 and "--corpus" in result.stdout, command


def test_missing_corpus_folder_is_one_line(tmp_path: Path) -> None:
    result = survey("check", "--corpus", str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "no corpus folder" in result.stderr


def test_export_json_has_every_paper_with_its_listings() -> None:
    result = survey("export")
    assert result.returncode == 0
    records = json.loads(result.stdout)
    corpus = load_corpus(ROOT / "corpus")
    assert [r["slug"] for r in records] == sorted(corpus.papers)
    by_slug = {r["slug"]: r for r in records}
    for slug, paper in corpus.papers.items():
        rec = by_slug[slug]
        assert (rec["title"], rec["abstract"], rec["topics"], rec["tags"]) == \
            (paper.title, paper.abstract, paper.topics, paper.tags)
        assert rec["url"] == f"papers/{slug}/"
    assert sum(len(r["listings"]) for r in records) == 366
    assert result.stdout == survey("export").stdout  # deterministic


def test_export_csv_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "corpus.csv"
    assert survey("export", "--format", "csv", "-o", str(out)).returncode == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    corpus = load_corpus(ROOT / "corpus")
    assert len(rows) == len(corpus.papers)
    for row in rows:
        paper = corpus.papers[row["slug"]]
        assert row["title"] == paper.title and row["abstract"] == paper.abstract
        assert (row["topics"].split("\n") if row["topics"] else []) == paper.topics
        assert (row["tags"].split("\n") if row["tags"] else []) == paper.tags


def test_slugs_are_stable_ascii_and_unique() -> None:
    assert slugify("PIXART-δ: Fast and Controllable Image Generation") == \
        "pixart-fast-and-controllable-image-generation"
    assert slugify("Mélange: Cost Efficient LLM Serving") == "melange-cost-efficient-llm-serving"
    assert slugify("A", {"a"}) == "a-2"
    assert slugify("δδδ") == "paper"


def test_a_newcomer_s_slips_are_named_with_their_fix(tmp_path: Path) -> None:
    """Three hand-written slips, each named in its own file: a title with ': ' (quote it), an
    unknown field, a copy of a paper (on the copy, not on the paper it copies)."""
    corpus = make_corpus(tmp_path / "corpus")
    papers = corpus / "papers"
    (papers / "a-copy.yaml").write_text(
        "slug: a-copy\ntitle: '2BP: 2-Stage Backpropagation'\nabstract: A\nadded: '2026-11-27'\n"
        "topics: []\ntags: []\n")
    (papers / "b-typo.yaml").write_text("slug: b-typo\ntitle: Typo\nabstract: A\nauthor: Ann Lee\n"
                                           "topics: []\ntags: []\n")
    (papers / "c-colon.yaml").write_text("slug: c-colon\ntitle: KV: a cache\nabstract: A\n")
    result = survey("check", "--corpus", str(corpus))
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert any("a-copy.yaml: entry a-copy: field 'title': the same paper as " in line
               and "2bp-2-stage-backpropagation.yaml (same title)" in line for line in lines)
    # the fields a person may write: not the retired ones (confidence, doubt), read and dropped
    assert any(line.endswith("b-typo.yaml: entry b-typo: field 'author': unknown field; known fields: slug, "
                             "title, alternate_titles, abstract, arxiv, authors, et_al, date, links, topics, "
                             "tags, added, enriched, curated") for line in lines)
    assert any(line.endswith("c-colon.yaml:2:10: field 'title': malformed YAML: mapping values are not "
                             "allowed in this context; put the value in quotes: title: 'KV: a cache'")
               for line in lines)


def test_a_removed_working_directory_is_no_traceback(tmp_path: Path) -> None:
    """A shell left in a folder that was removed: messages show paths as given (os.getcwd fails)."""
    gone, none = tmp_path / "gone", tmp_path / "none"
    for args, out in ((["check", "--corpus", str(ROOT / "corpus")], "all valid"),
                      (["review", "--list", "--corpus", str(none)], f"{none}: no corpus")):
        gone.mkdir()
        script = f'cd "{gone}" && rmdir "{gone}" && exec "{sys.executable}" -m generator "$@"'
        result = subprocess.run(["sh", "-c", script, "sh", *args], capture_output=True, text=True,
                                timeout=120)
        assert "Traceback" not in result.stderr and out in result.stdout + result.stderr, result.stderr[-500:]


def test_one_run_names_every_problem_of_every_file(tmp_path: Path) -> None:
    """A bad date hid the same file's unknown topic and tag until the next run (usability P4), a
    listing's bad day its entry pointing at no paper, a bad entry of rejected.yaml the others'
    paper kept in the corpus: every problem of a file is named in one run."""
    corpus = make_corpus(tmp_path / "corpus")
    paper = corpus / "papers" / "rewrite-the-stars.yaml"
    replace_in(paper, "topics: []\ntags: []", "date: '2026-10-32'\ntopics: [kernel]\ntags: [fp-8]")
    listing = sorted((corpus / "listings").glob("*.yaml"))[0]
    replace_in(listing, "imported: '2026-11-22'", "imported: '2026-13-01'")
    replace_in(listing, "entries:\n", "entries:\n- paper: nowhere\n  title: Nowhere\n")
    (corpus / "rejected.yaml").write_text(
        "- {slug: zz-bad, title: Gone, abstract: A, rejected: 'yesterday'}\n"
        "- {slug: rewrite-the-stars, title: Rewrite the Stars, abstract: A, rejected: '2026-11-01'}\n")
    result = survey("check", "--corpus", "corpus", cwd=tmp_path)
    stars = "corpus/papers/rewrite-the-stars.yaml: entry rewrite-the-stars: field"
    where = f"corpus/listings/{listing.name}"
    expected = [f"{stars} 'date': '2026-10-32' is not a date", f"{stars} 'topics[0]': unknown topic 'kernel'",
                f"{stars} 'tags[0]': unknown tag 'fp-8'",
                f"{stars} 'slug': rejected earlier (entry rewrite-the-stars of corpus/rejected.yaml",
                f"{where}: entry {listing.stem}: field 'imported': '2026-13-01' is not",
                f"{where}: entry {listing.stem} #1: field 'paper': points at 'nowhere'",
                "corpus/rejected.yaml: entry zz-bad: field 'rejected': 'yesterday' is not a date"]
    lines = result.stderr.splitlines()
    for start in expected:
        assert any(line.startswith(start) for line in lines), (start, lines)
    assert lines[-1] == f"survey check: {len(expected)} problem(s)"


def test_problems_past_the_bounds_are_counted_by_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's first PER_FILE problems are kept, and the first per_run of a run: the others are
    one line a file, and past ten files one line in all."""
    from generator.core import errors

    monkeypatch.setattr(errors, "PER_FILE", 2)
    problems = errors.Problems(per_run=5)
    for f in range(15):
        problems.extend(errors.CorpusError(f"f{f}.yaml", f"p{i}") for i in range(3))
    assert len(problems) == 45
    assert problems.lines() == [
        "f0.yaml: p0", "f0.yaml: p1", "and 1 more problem in f0.yaml", "f1.yaml: p0", "f1.yaml: p1",
        "and 1 more problem in f1.yaml", "f2.yaml: p0", "and 2 more problems in f2.yaml",
        *(f"and 3 more problems in f{f}.yaml" for f in range(3, 13)), "and 6 more problems in 2 other files"]


def test_a_listing_s_and_a_rejection_s_days_are_not_to_come(tmp_path: Path) -> None:
    """A listing's `imported: '2099-01-01'` and a rejection's `rejected: '2099-01-01'` passed,
    where a paper's date and added day are refused past tomorrow (audit V4)."""
    corpus = make_corpus(tmp_path / "corpus")
    listing = sorted((corpus / "listings").glob("*.yaml"))[0]
    replace_in(listing, "imported: '2026-11-22'", f"imported: '{AFTER_TOMORROW}'")
    replace_in(listing, "date: '2025-03-14'", "date: '2099'")
    (corpus / "rejected.yaml").write_text(f"- {{slug: zz-gone, title: Gone, abstract: A, rejected: "
                                          f"'{AFTER_TOMORROW}'}}\n")
    result = survey("check", "--corpus", "corpus", cwd=tmp_path)
    latest = TOMORROW
    assert result.stderr.splitlines() == [
        f"corpus/rejected.yaml: entry zz-gone: field 'rejected': {AFTER_TOMORROW} is still to come (the "
        f"latest day a rejection may bear is {latest})",
        f"corpus/listings/{listing.name}: entry {listing.stem}: field 'date': 2099 is still to come (the "
        f"latest day a listing may bear is {latest})",
        f"corpus/listings/{listing.name}: entry {listing.stem}: field 'imported': {AFTER_TOMORROW} is still "
        f"to come (the latest day an import may bear is {latest})",
        "survey check: 3 problem(s)"]


@pytest.mark.parametrize(("text", "problem"), [
    ("topics:\n  serving: {bias: lots, weights: {}}\n",
     "entry serving: field 'bias': must be a number, not 'lots'"),
    ("topics: [\n", "malformed YAML"),
    ("topics:\n  cooking: {bias: 0, weights: {}}\n", "entry cooking: not a topic of the taxonomy"),
    ("topics:\n  serving: {bias: 0, weights: {title:kv: many}}\n",
     "entry serving: field 'weights.title:kv': must be a number, not 'many'"),
])
def test_a_topic_model_broken_by_hand_fails_check_in_one_line(
        small: Path, tmp_path: Path, text: str, problem: str) -> None:
    """The build reads the model when a paper waits for review (its confidences): check reads it
    the same way, so a model it passes builds."""
    from generator.core.text import shown_path

    corpus = shutil.copytree(small, tmp_path / "corpus")
    (corpus / "topic_model.yaml").write_text(text, encoding="utf-8")
    result = survey("check", "--corpus", str(corpus))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    line, *rest = result.stderr.splitlines()
    assert line.startswith(f"{shown_path(corpus / 'topic_model.yaml')}") and problem in line, line
    assert rest == ["survey check: 1 problem(s)"]
