"""tests/screenshots.py, which takes the README's screenshots, on the seed site."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from screenshots import SHOTS, take
from test_browser import ZERO, chromium_path, unavailable

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_readme_screenshots_show_a_paper_page(real_site: Path, tmp_path: Path) -> None:
    """take() checks the page (the paper's title, no repository link out of the box, nothing
    failed to load) before each shot; here, that each shot is a PNG of its viewport's size."""
    if chromium_path() is None:
        unavailable("Chromium not found (apt-get install chromium, or set $CHROMIUM)")
    shots = take(real_site, tmp_path, f"papers/{ZERO}/")
    assert [p.name for p in shots] == list(SHOTS)
    for path, (viewport, _) in zip(shots, SHOTS.values(), strict=True):
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", path
        assert struct.unpack(">II", data[16:24]) == (viewport["width"], viewport["height"]), path
