"""No output overwrites an input or the corpus (issue 31): `import --left-out`, `export -o` and
`enrich --report` refuse, in one line, a path inside the corpus folder, a corpus file by another
name (a hard link), or an input of the command; any other file there they replace."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import hf_feed, make_corpus, snapshot
from test_scope_cases import TEXTILES

from generator.cli.main import main


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder with a small corpus, a feed whose one paper is off topic, and a README."""
    make_corpus(tmp_path / "corpus", "papers", ["rewrite-the-stars"])
    hf_feed(tmp_path / "feed.json", TEXTILES)
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


def test_any_other_file_is_replaced(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "feed.json", "--on-topic", "--left-out", "README.md"]) == 0
    assert (here / "README.md").read_text(encoding="utf-8").startswith("id,title,best topic")


def test_export_into_the_corpus_or_through_a_hard_link_to_it_is_refused(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Nor through a hard link made in the working folder to corpus/taxonomy.yaml."""
    err = refused(capsys, here, "export", "-o", "corpus/papers/rewrite-the-stars.yaml")
    assert "inside the corpus folder corpus: write an export elsewhere" in err
    os.link("corpus/taxonomy.yaml", "hard.csv")
    err = refused(capsys, here, "export", "--format", "csv", "-o", "hard.csv")
    assert err == ("survey export: hard.csv: a file with other names (hard links), which may be in the "
                   "corpus: write an export elsewhere\n")
    assert main(["export", "--format", "csv", "-o", "README.md"]) == 0


def test_enrich_report_into_the_corpus_or_over_its_input_is_refused(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["enrich", "--web", "none", "--from", "feed.json", "--report"]
    assert "inside the corpus folder" in refused(capsys, here, *args, "corpus/taxonomy.yaml")
    assert "an input of this command" in refused(capsys, here, *args, "feed.json")
    assert main([*args, "report.md"]) == 0 and main([*args, "report.md"]) == 0
