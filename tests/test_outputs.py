"""No output overwrites an input or the corpus (issue 31): `import --left-out`, `export -o` and
`enrich --report` refuse, in one line, a path inside the corpus folder or equal to an input of
the command, and an existing file that is not a file of their kind unless --force."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_corpus, snapshot

from generator.cli.main import main

FEED = [{"paper": {"id": "2603.00011", "title": "Dating Medieval Textile Ledgers with a Language Model",
                   "summary": "We fine-tune a language model to date medieval textile trade ledgers from "
                              "Flanders and Italy; it places 80% of the ledgers within a decade of the "
                              "archivists.",
                   "authors": [{"name": "Alice Smith"}], "publishedAt": "2026-03-02T00:00:00.000Z"}}]


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder with a small corpus, a feed whose one paper is off topic, and a README."""
    make_corpus(tmp_path / "corpus", "papers", ["rewrite-the-stars"])
    (tmp_path / "feed.json").write_text(json.dumps(FEED), encoding="utf-8")
    (tmp_path / "README.md").write_text("# My notes\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def refused(capsys: pytest.CaptureFixture[str], here: Path, *args: str) -> str:
    before = snapshot(here)
    assert main(list(args)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert snapshot(here) == before
    return err


def test_left_out_report_into_the_corpus_or_over_the_feed_is_refused(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for target in ("corpus/taxonomy.yaml", "corpus/papers/rewrite-the-stars.yaml", "corpus/new.csv"):
        err = refused(capsys, here, "import", "feed.json", "--on-topic", "--left-out", target)
        assert err == (f"survey import: {target}: inside the corpus folder corpus: write the report of "
                       f"papers left out elsewhere\n")
    err = refused(capsys, here, "import", "feed.json", "--on-topic", "--left-out", "./feed.json")
    assert err == ("survey import: feed.json: an input of this command: write the report of papers left "
                   "out elsewhere\n")
    os.symlink("corpus/taxonomy.yaml", "report.csv")  # a link into the corpus is inside it too
    assert "inside the corpus folder" in refused(capsys, here, "import", "feed.json", "--on-topic",
                                                 "--left-out", "report.csv")


def test_a_file_of_another_kind_is_overwritten_only_with_force(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, here, "import", "feed.json", "--on-topic", "--left-out", "README.md")
    assert err == ("survey import: README.md: exists and is not the report of papers left out: give another "
                   "path, or --force to overwrite it\n")
    for _ in range(2):  # a report of papers left out is overwritten
        assert main(["import", "feed.json", "--on-topic", "--left-out", "left.csv"]) == 0
        assert (here / "left.csv").read_text(encoding="utf-8").startswith("id,title,best topic")
    assert main(["import", "feed.json", "--on-topic", "--left-out", "README.md", "--force"]) == 0
    assert (here / "README.md").read_text(encoding="utf-8").startswith("id,title,best topic")


def test_export_into_the_corpus_or_over_another_file_is_refused(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, here, "export", "-o", "corpus/papers/rewrite-the-stars.yaml")
    assert "inside the corpus folder corpus: write an export elsewhere" in err
    err = refused(capsys, here, "export", "--format", "csv", "-o", "README.md")
    assert err.startswith("survey export: README.md: exists and is not an export: ")
    for fmt in ("json", "csv"):  # an export of the same kind is overwritten
        assert main(["export", "--format", fmt, "-o", f"out.{fmt}"]) == 0
        assert main(["export", "--format", fmt, "-o", f"out.{fmt}"]) == 0
    refused(capsys, here, "export", "--format", "json", "-o", "out.csv")
    assert main(["export", "-o", "README.md", "--force"]) == 0


def test_enrich_report_into_the_corpus_or_over_its_input_is_refused(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["enrich", "--web", "none", "--from", "feed.json", "--report"]
    assert "inside the corpus folder" in refused(capsys, here, *args, "corpus/taxonomy.yaml")
    assert "an input of this command" in refused(capsys, here, *args, "feed.json")
    assert "is not an enrich report" in refused(capsys, here, *args, "README.md")
    assert main([*args, "report.md"]) == 0 and main([*args, "report.md"]) == 0
