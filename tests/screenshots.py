"""Take the README's screenshots of a paper page, on a desktop (1280x800) and on a phone (390x844).

    python tests/screenshots.py [--out docs/assets/screenshots] [--page papers/SLUG/] [--site DIR]

Builds the site from this working tree's corpus in a temp dir with `mkdocs build --strict`
(or takes the site already built in DIR), serves it and drives Debian's Chromium exactly as
tests/test_browser.py does, and writes paper-desktop.png and paper-phone.png (the visible
viewport, light palette). Before each shot it checks that the page is the paper's page, with
the paper's title, and shows a repository link and an edit button only if mkdocs.yml
configures them (out of the box it does not). Run it again whenever the look of a paper page
changes; tests/test_screenshots.py runs it on the test site.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import ROOT, make_project, mkdocs_build
from test_browser import (
    CONFIG,
    CORPUS_PAPERS,
    DESKTOP,
    PHONE,
    chromium_path,
    h1_text,
    launch_chromium,
    open_tab,
    serve,
)

# A paper with every part a paper page shows: authors, date, arXiv id, code, BibTeX, a link in its abstract.
SHOWN = "papers/pipeoffload-improving-scalability-of-pipeline-parallelism-with/"
SHOTS = {
    "paper-desktop.png": (DESKTOP, {}),
    "paper-phone.png": (PHONE, {"is_mobile": True, "has_touch": True}),
}
REPOSITORY = "[data-md-component='source'], a.md-content__button"  # the repository link, the edit button


def take(site: Path, out: Path, page: str = SHOWN) -> list[Path]:
    """Serve a built site and write each of SHOTS of one paper page into out."""
    title = {f"papers/{p.slug}/": p.title for p in CORPUS_PAPERS}[page]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with serve(site) as base, launch_chromium() as browser:
        for name, (viewport, options) in SHOTS.items():
            with open_tab(browser, viewport, **options) as tab:
                response = tab.page.goto(base + page)
                assert response is not None and response.ok, page
                tab.page.wait_for_load_state("networkidle")
                tab.page.evaluate("document.fonts.ready.then(() => true)")
                assert h1_text(tab.page) == title, page
                shown = tab.page.locator(REPOSITORY).count() > 0
                assert shown == ("repo_url" in CONFIG), f"repository link shown: {shown}"
                tab.page.screenshot(path=out / name)
                tab.assert_clean()
            written.append(out / name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "assets" / "screenshots")
    parser.add_argument("--page", default=SHOWN, help="a paper page's path below the site's base")
    parser.add_argument("--site", type=Path,
                        help="a site already built from this checkout, instead of a new build")
    args = parser.parse_args(argv)
    if chromium_path() is None:
        print("Chromium not found (apt-get install chromium, or set $CHROMIUM)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or mkdocs_build(make_project(Path(tmp)))
        for path in take(site, args.out, args.page):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
