"""tests/screenshots.py, which takes the README's screenshots, run on the seed site as a command
(its own Playwright: a second one in this process would clash with test_browser.py's)."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from screenshots import SHOTS
from test_browser import ZERO, chromium_path, unavailable

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_readme_screenshots_show_a_paper_page(real_site: Path, tmp_path: Path) -> None:
    """The script checks the page (the paper's title, no repository link out of the box,
    nothing failed to load) before each shot; here, that each shot is a PNG of its viewport's size."""
    if chromium_path() is None:
        unavailable("Chromium not found (apt-get install chromium, or set $CHROMIUM)")
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "screenshots.py"), "--site", str(real_site),
         "--out", str(tmp_path), "--page", f"papers/{ZERO}/"],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == [str(tmp_path / name) for name in SHOTS]
    for name, (viewport, _) in SHOTS.items():
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", name
        assert struct.unpack(">II", data[16:24]) == (viewport["width"], viewport["height"]), name
