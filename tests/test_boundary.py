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


@pytest.mark.parametrize(("name", "problem"), [
    ("<script>x</script>", "contains markup (an HTML tag, comment or declaration); write it as plain text"),
    ("x\x1b[2Jy", "contains a control character (U+001B)"),
    ("r\u202etl", "contains U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ("n" * 301, "is 301 characters long; at most 300 are allowed"),
    ("   ", "must be one line without leading, trailing or repeated spaces"),
])
def test_a_listing_name_the_import_would_refuse_is_refused_before_it_reads(name: str, problem: str,
                                                                            tmp_path: Path) -> None:
    """The import refused it at the write, after classifying the whole feed, and --dry-run said
    'listing recorded: script-x-script' (audit N1): the source named here does not exist."""
    corpus = make_corpus(tmp_path / "c", "empty")
    for dry in ((), ("--dry-run",)):
        result = survey("import", "nowhere.json", "--name", name, *dry, "--corpus", str(corpus))
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr.startswith(f"survey import: --name {problem}"), result.stderr


def test_a_page_named_with_an_escape_is_indexed_and_a_site_of_none_says_so(tmp_path: Path) -> None:
    """A docs page `esc\\e[31mRED.md` made Pagefind's glob match nothing: "pagefind failed ...
    Most likely, the directory passed to Pagefind was empty" (audit O2)."""
    from generator.core.errors import SurveyError
    from generator.site.search import build_index

    site = tmp_path / "site"
    page = "<html lang='en'><body data-pagefind-body><p>{}</p></body></html>"
    for folder, word in (("", "home"), ("esc\x1b[31mRED", "escaped"), ("listings", "listed")):
        (site / folder).mkdir(parents=True, exist_ok=True)
        (site / folder / "index.html").write_text(page.format(word), encoding="utf-8")
    assert "Indexed 2 pages" in build_index(site, ("listings",))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SurveyError) as refused:
        build_index(empty)
    assert str(refused.value) == f"search: {empty} has no page to index (Pagefind found none)"
