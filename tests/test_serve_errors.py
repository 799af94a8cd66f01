"""Errors where people look: under `mkdocs serve` a corpus or template error shows as a page naming
the file, the line and the problem, and the page comes back once it is fixed; `mkdocs build`
still fails with one line. (In Chromium: tests/test_browser.py, test_a_corpus_error_shows_...)"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import make_corpus, make_project
from test_site import mkdocs_serve, wait_for_page

from generator.adapter.serve_error import MARKER

PAPER = "rewrite-the-stars"
TITLE = "Rewrite the Stars"


def break_yaml(path: Path) -> str:
    """Make the paper file malformed YAML on its line 2; returns the text it had."""
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("title: ", "title: [unclosed ", 1), encoding="utf-8")
    return text


@pytest.mark.slow
def test_a_build_still_fails_in_one_line(tmp_path: Path) -> None:
    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    break_yaml(project / "corpus" / "papers" / f"{PAPER}.yaml")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=project,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert re.search(rf"corpus/papers/{PAPER}\.yaml:3:9: malformed YAML", result.stderr)
    assert "Traceback" not in result.stderr


def error_page(url: str, timeout: float = 300) -> str:
    """The page at url once it is the error page (a 404's body counts: a missing page is one)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                body = response.read().decode()
        except urllib.error.HTTPError as error:
            body = error.read().decode()
        except OSError:
            body = ""
        if MARKER in body:
            return body
        assert time.monotonic() < deadline, f"{url} never showed the error page"
        time.sleep(0.25)


@pytest.mark.slow
def test_a_template_error_shows_on_every_page_under_serve(tmp_path: Path) -> None:
    """No browser needed: whatever is asked for answers at once with the template and the line."""
    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    template = project / "templates" / "paper.md.j2"
    original = template.read_text(encoding="utf-8")
    log = tmp_path / "serve.log"
    with mkdocs_serve(project, log) as (base, server):
        wait_for_page(base + f"papers/{PAPER}/", TITLE, server, log)
        template.write_text(original + "\n{{ paper.no_such_field }}\n", encoding="utf-8")
        page = error_page(base + f"papers/{PAPER}/")
        assert re.search(r"templates/paper\.md\.j2:\d+: UndefinedError", page)
        assert "paper.md.j2" in error_page(base + "no/such/page/")
        template.write_text(original, encoding="utf-8")
        wait_for_page(base + f"papers/{PAPER}/", TITLE, server, log)
