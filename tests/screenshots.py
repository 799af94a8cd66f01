"""Take the README's screenshots of a paper page, on a desktop (1280x800) and on a phone (390x844).

    python tests/screenshots.py [--out docs/assets/screenshots] [--page papers/SLUG/]

Builds the site from this working tree in a temp dir with `mkdocs build --strict`, serves it
and drives Debian's Chromium exactly as tests/test_browser.py does, and writes
paper-desktop.png and paper-phone.png (the visible viewport, light palette).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import ROOT, make_project, mkdocs_build
from test_browser import DESKTOP, PHONE, ZERO, chromium_path, launch_chromium, open_tab, serve

SHOTS = {
    "paper-desktop.png": (DESKTOP, {}),
    "paper-phone.png": (PHONE, {"is_mobile": True, "has_touch": True}),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "assets" / "screenshots")
    parser.add_argument("--page", default=f"papers/{ZERO}/", help="page path below the site's base")
    args = parser.parse_args(argv)
    if chromium_path() is None:
        print("Chromium not found (apt-get install chromium, or set $CHROMIUM)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        site = mkdocs_build(make_project(Path(tmp)))
        with serve(site) as base, launch_chromium() as browser:
            for name, (viewport, options) in SHOTS.items():
                with open_tab(browser, viewport, **options) as tab:
                    response = tab.page.goto(base + args.page)
                    assert response is not None and response.ok, args.page
                    tab.page.wait_for_load_state("networkidle")
                    tab.page.evaluate("document.fonts.ready.then(() => true)")
                    tab.page.screenshot(path=args.out / name)
                    tab.assert_clean()
                print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
