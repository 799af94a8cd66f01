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

import pytest
from conftest import ROOT, hf_item, make_corpus, make_project, survey, survey_process

from generator.core.text import printable

# Clears the screen, prints a red FAKE, reverses the rest of the line, rings the bell.
BAD = "k\x1b[2J\x1b[31mFAKE\x1b[0m\u202e\x07"
TITLE = f"Pipeline Parallel Training {BAD}"
ABSTRACT = "We study pipeline parallel training of large models on many accelerators at once."


def _files() -> dict[str, tuple[str, bytes]]:
    """Each input kind, holding BAD in a name, key, slug or title: (file name, bytes)."""
    bib = (f"@article{{{BAD}, title = {{Pipeline Parallel Escape Key}}, author = {{Rae, C{BAD}}}, "
           f"year = {{2024}}, abstract = {{{ABSTRACT}}}, url = {{javascript:1}}}}\n")
    daily = [hf_item(f"2401.0000{BAD}", TITLE, ABSTRACT, [f"Ann {BAD}"])]
    atom = ('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry>'
            f'<id>http://arxiv.org/abs/{BAD}</id><title>{TITLE}</title><summary>{ABSTRACT}</summary>'
            '</entry></feed>')
    html = f"<html><body><h1>{TITLE}</h1><h2>Abstract</h2><p>{ABSTRACT}</p></body></html>"
    return {
        "hf-text": (f"{BAD}.txt", f"Daily Papers\n\n{TITLE}\n\n{ABSTRACT}\n".encode()),
        "hf-html": (f"{BAD}.html", html.encode()),
        "hf-json": (f"{BAD}.json.gz", gzip.compress(json.dumps(daily).encode())),
        "atom": (f"{BAD}.xml", atom.encode()),
        "bibtex": (f"{BAD}.bib", bib.encode()),
        "decisions-csv": (f"{BAD}.csv", f"slug,topics\n{BAD},serving\n".encode()),
        "decisions-yaml": (f"{BAD}.yaml", f"- slug: {json.dumps(BAD)}\n  topics: []\n".encode()),
    }


def assert_escaped(result: subprocess.CompletedProcess[str]) -> None:
    """Every line printed, on both streams, is what printable() leaves as it is; and the input's
    text did reach one (escaped), so the case tested something."""
    printed = result.stdout + result.stderr
    assert "Traceback" not in printed, printed
    for line in printed.splitlines():
        assert printable(line) == line, line
    assert "FAKE" in printed, printed


@pytest.mark.parametrize("kind", ["hf-text", "hf-html", "hf-json", "atom", "bibtex"])
def test_import_and_enrich_print_a_hostile_source_escaped(kind: str, tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    name, data = _files()[kind]
    path = tmp_path / name
    path.write_bytes(data)
    assert_escaped(survey("import", "--dry-run", str(path), "--corpus", str(corpus)))
    if kind in ("hf-json", "bibtex"):
        assert_escaped(survey("enrich", "--web", "none", "--dry-run", "--from", str(path),
                              "--corpus", str(corpus)))


@pytest.mark.parametrize("kind", ["decisions-csv", "decisions-yaml"])
def test_review_apply_prints_a_hostile_decisions_file_escaped(kind: str, tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    name, data = _files()[kind]
    (tmp_path / name).write_bytes(data)
    result = survey("review", "--apply", str(tmp_path / name), "--corpus", str(corpus))
    assert result.returncode == 1
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
