"""Where the first search result's time goes: one reader, as the benchmark's browser run
(benchmarks/survey_bench/browser.py) sees it, with every request, the page's long tasks and
the first result on one clock (ms from the navigation's start; requests made by Pagefind's
worker are not in the page's resource timing, so they are shown on Playwright's clock, counted
from the call that opens the page, a few ms earlier).

    python benchmarks/search_waterfall.py SITE_DIR [QUERY] [--runs N]

SITE_DIR is a built site (the benchmark keeps one with --keep). With --runs N only the N first
result times are printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from survey_bench.browser import ARGS, CHROMIUM, QUERY, RESULT, WATCH, serve

LONG_TASKS = """(() => { window.__longTasks = []; new PerformanceObserver((list) => list.getEntries()
  .forEach((e) => window.__longTasks.push([e.startTime, e.duration])))
  .observe({type: "longtask", buffered: true}); })();"""
FETCHES = ("performance.getEntriesByType('resource')"
           ".map((e) => [e.name, e.startTime, e.responseEnd, e.transferSize])")


def one_reader(browser, base: str, query: str, show: bool) -> float:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    worker: list[tuple[float, str, str]] = []
    page.on("request", lambda r: worker.append((time.perf_counter(), "request", r.url[len(base):])))
    page.on("requestfinished", lambda r: worker.append((time.perf_counter(), "done", r.url[len(base):])))
    page.add_init_script(WATCH % json.dumps(RESULT))
    page.add_init_script(LONG_TASKS)
    try:
        t0 = time.perf_counter()
        page.goto(base, wait_until="domcontentloaded")
        page.locator("[data-survey-search] input[name=q]").fill(query)
        page.wait_for_function("typeof window.__firstResultAt === 'number'", timeout=120_000)
        first = page.evaluate("window.__firstResultAt")
        if show:
            nav = page.evaluate("performance.getEntriesByType('navigation')[0].toJSON()")
            rows = [(nav["domContentLoadedEventEnd"], "DOMContentLoaded (the query is filled in now)"),
                    (first, "FIRST RESULT on screen")]
            for name, start, end, size in page.evaluate(FETCHES):
                rows.append((start, f"page fetch {name[len(base):]} until {end:.0f} ({size / 1024:.0f} KB)"))
            rows += [(s, f"long task {d:.0f} ms on the page's main thread")
                     for s, d in page.evaluate("window.__longTasks")]
            for at, what in sorted(rows):
                print(f"{at:7.0f}  {what}")
            print("Pagefind's requests, ms from the call that opened the page:")
            for at, kind, url in worker:
                if "pagefind/" in url:
                    print(f"{1000 * (at - t0):7.0f}  {kind} {url}")
        return first
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("query", nargs="?", default=QUERY)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with serve(args.site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            firsts = [one_reader(browser, base, args.query, args.runs == 1) for _ in range(args.runs)]
        finally:
            browser.close()
    print("first result ms:", ", ".join(f"{f:.0f}" for f in firsts),
          f"(median {statistics.median(firsts):.0f})")


if __name__ == "__main__":
    main()
