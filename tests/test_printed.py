"""Every byte a command prints is escaped at one place (generator/core/output.py): no control,
escape or bidi character from an input reaches the terminal raw, whichever input kind carries
it and whichever module formed the line; a terminal that cannot show a character gets its
escape. (A closed pipe ends quietly: test_review's test_list_into_a_closed_pipe_ends_quietly.)"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, hf_item, make_corpus, make_project, survey, survey_process

from generator.core.text import printable

# Clears the screen, prints a red FAKE, reverses the rest of the line, rings the bell.
BAD = "k\x1b[2J\x1b[31mFAKE\x1b[0m\u202e\x07"
TITLE = f"Pipeline Parallel Training {BAD}"
ABSTRACT = "We study pipeline parallel training of large models on many accelerators at once."


def assert_escaped(result: subprocess.CompletedProcess[str]) -> None:
    """Every line printed, on both streams, is what printable() leaves as it is; and the input's
    text did reach one (escaped), so the case tested something."""
    printed = result.stdout + result.stderr
    assert "Traceback" not in printed, printed
    for line in printed.splitlines():
        assert printable(line) == line, line
    assert "FAKE" in printed, printed


def test_import_enrich_and_apply_print_hostile_input_escaped(tmp_path: Path) -> None:
    """One source kind for each stream: what import and enrich print of a daily-papers file
    (stdout), what `review --apply` refuses in a decisions file (stderr). Every reader's line
    passes the one boundary of cli/main.main, so one kind shows the guarantee for all."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    daily = tmp_path / f"{BAD}.json.gz"
    daily.write_bytes(gzip.compress(json.dumps([hf_item(f"2401.0000{BAD}", TITLE, ABSTRACT,
                                                        [f"Ann {BAD}"])]).encode()))
    assert_escaped(survey("import", "--dry-run", str(daily), "--corpus", str(corpus)))
    assert_escaped(survey("enrich", "--web", "none", "--dry-run", "--from", str(daily),
                          "--corpus", str(corpus)))
    decisions = tmp_path / f"{BAD}.csv"
    decisions.write_text(f"slug,topics\n{BAD},serving\n", encoding="utf-8")
    result = survey("review", "--apply", str(decisions), "--corpus", str(corpus))
    assert result.returncode == 1 and "FAKE" in result.stderr
    assert_escaped(result)


def test_check_and_the_build_print_a_hostile_paper_file_escaped(tmp_path: Path) -> None:
    """`mkdocs build` too: MkDocs's log passes the same escaping (core.output.EscapedLog)."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "papers").mkdir()
    text = (f"slug: {json.dumps(BAD)}\ntitle: {json.dumps(TITLE)}\nabstract: {ABSTRACT}\n"
            f"authors: [{json.dumps(BAD)}]\ntopics: []\ntags: []\n")
    (corpus / "papers" / f"{BAD}.yaml").write_text(text, encoding="utf-8")
    assert_escaped(survey("check", "--corpus", str(corpus)))
    project = make_project(tmp_path, corpus)
    assert_escaped(subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=project,
                                  capture_output=True, text=True, timeout=600))


def test_arguments_are_echoed_escaped(tmp_path: Path) -> None:
    for args in (["explain", BAD], ["review", "--topic", BAD, "--list"], ["export", "--format", BAD],
                 [BAD]):
        assert_escaped(survey(*args, "--corpus", str(ROOT / "corpus")))


def test_a_character_the_terminal_cannot_show_is_escaped_not_a_traceback() -> None:
    slug = "pixart-fast-and-controllable-image-generation-with-latent"  # PIXART-δ
    result = survey_process("explain", slug, env={"PYTHONIOENCODING": "ascii"})
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith(f"{slug}: PIXART-\\u03b4: Fast and Controllable")
