"""The search page as a reader opens it: time to the first result and to the facets' counts.

    python benchmarks/search_page.py SITE "search/?author=Ziwei%20Liu" "search/?q=quantization"

SITE is a built site (`bench.py --keep` leaves one, or `mkdocs build`); each URL, relative to the
site root, is opened in three fresh Chromium contexts (no cache), served gzipped on loopback as
`bench.py --browser` serves it. Printed per URL: the medians of the seconds from navigation to the
first result on screen and to the first facet count, the papers the status line counts, and the
bytes fetched (compressed) until the counts showed. The facet counts need every filter of the
index (Pagefind's `filters()`), so a filter with many values, such as the authors, shows here.
The page holds the whole survey's counts as built; "counts" is when the search has counted those
of its view. A query that reads as an arXiv id or a DOI ("search/?q=2504.11651") has no counts:
its time is the id file's answer, and the bytes of the id files it fetched are printed too.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from survey_bench.browser import ARGS, CHROMIUM, serve

# Installed before the page's scripts: when the first result, and the first facet count, are on screen.
WATCH = """(() => {
  const note = (key, selector) => {
    if (window[key] === undefined && document.querySelector(selector)) window[key] = performance.now();
  };
  new MutationObserver(() => {
    note("__resultAt", ".survey-result__link, .survey-search__away");
    note("__countsAt", ".survey-search__facets:not([data-built]) .survey-facet__count, .survey-search__away, "
         + ".survey-search__filters[hidden] ~ .survey-search__results .survey-result__link");
  }).observe(document, {childList: true, subtree: true});
})();"""


def open_once(browser: Any, url: str) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    fetched: list[int] = []
    ids: list[int] = []

    def finished(request: Any) -> None:
        size = request.sizes()["responseBodySize"]
        fetched.append(size)
        if "/ids/" in request.url:
            ids.append(size)

    page.on("requestfinished", finished)
    page.add_init_script(WATCH)
    try:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_function("window.__countsAt !== undefined && window.__resultAt !== undefined",
                               timeout=300_000)
        status = page.locator(".survey-search__status").inner_text()
        return {"result_s": page.evaluate("window.__resultAt") / 1000,
                "counts_s": page.evaluate("window.__countsAt") / 1000,
                "kb": sum(fetched) / 1024, "id_files_kb": sum(ids) / 1024, "status": status}
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("urls", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    out = {}
    with serve(args.site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for url in args.urls:
                runs = [open_once(browser, base + url) for _ in range(args.runs)]
                out[url] = {key: round(statistics.median(r[key] for r in runs), 2)
                            for key in ("result_s", "counts_s", "kb", "id_files_kb")}
                out[url]["status"] = runs[-1]["status"]
                got = out[url]
                print(f"{url}: first result {got['result_s']:.2f} s, counts {got['counts_s']:.2f} s, "
                      f"{got['kb']:.0f} KB (id files {got['id_files_kb']:.1f} KB); {got['status']}",
                      flush=True)
        finally:
            browser.close()
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
