"""Errors where people look: under `mkdocs serve` a corpus or template error shows as a page naming
the file, the line and the problem, and the page comes back once it is fixed (in Chromium:
tests/test_browser.py, test_a_corpus_error_shows_...). `mkdocs build` fails in one line:
tests/test_hostile.py."""

from __future__ import annotations

import re
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
