"""What passes the output boundary when something goes wrong that no message foresaw, and the
commands that must work from any folder (audit J13, O3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_corpus, make_project, replace_in, survey

from generator.cli import main as cli

BAD = "k\x1b[2J\x1b[31mFAKE\u202e"


def test_an_unexpected_error_is_one_escaped_line_naming_its_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python printed it after the output boundary had restored the raw streams: a corpus folder
    named with an escape sequence coloured the terminal."""
    def broken(args: object) -> int:
        raise KeyError(f"papers/{BAD}.yaml")

    monkeypatch.setitem(cli.COMMANDS, "check", broken)
    result = survey("check")
    assert result.returncode == 1
    line, = result.stderr.splitlines()
    assert line.startswith("survey check: unexpected error (a bug: please report it), KeyError: "
                           "'papers/k\\x1b[2J\\x1b[31mFAKE\\u202e.yaml'; the traceback is in "), line
    path = Path(line.rsplit(" ", 1)[1])
    assert "Traceback (most recent call last)" in path.read_text(encoding="utf-8")
    path.unlink()


def test_build_finds_the_templates_and_settings_of_the_corpus_s_project(tmp_path: Path) -> None:
    """From any folder: templates/ under the working directory only was a TemplateNotFound
    traceback anywhere but the project's root."""
    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    replace_in(project / "mkdocs.yml", "site_name: ", "site_name: Elsewhere ", 1)
    result = survey("build", "--out", "out", "--corpus", "project/corpus", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "<title>Elsewhere ML Systems Survey" in (tmp_path / "out" / "feed.xml").read_text(encoding="utf-8")
    missing = survey("build", "--out", "out", "--templates", "nowhere", "--corpus", "project/corpus",
                     cwd=tmp_path)
    assert missing.stderr == "survey build: nowhere: no templates folder here (--templates DIR names it)\n"
