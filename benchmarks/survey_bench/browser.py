"""Search as a reader meets it: Debian's Chromium on loopback, from opening the home page to the
first result in the header's search box, and every byte fetched on the way.

Runs with `--browser` only (it needs Chromium and the playwright package). The site is served
from this process by a threaded http.server that gzips text files, as GitHub Pages does
(Pagefind's own files are compressed already), to a fresh browser context each run (no
cache). Bytes are counted as they arrive (compressed), and uncompressed beside them.
Typing is not timed: the query is filled in at once, as soon as the page has loaded its scripts
(DOMContentLoaded). The first result is timed in the page: a MutationObserver notes the frame
in which the first result link is laid out, counted from the navigation's start
(performance.now()); Playwright's own wait polls with a back-off of up to 500 ms and would read
late by up to that much.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from .builds import Built
from .progress import say

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
QUERY = "checkpoint"  # a word of the synthetic abstracts, in many papers: a large answer
RESULT = "#survey-quick-results a[href*='/papers/']"
# Installed before the page's own scripts: notes when the first result is on screen.
WATCH = """(() => {
  const seen = () => {
    if (window.__firstResultAt !== undefined) return;
    const link = document.querySelector(%s);
    if (link && link.getClientRects().length) {
      window.__firstResultAt = null;
      requestAnimationFrame(() => { window.__firstResultAt = performance.now(); });
    }
  };
  new MutationObserver(seen).observe(document, {childList: true, subtree: true});
})();"""

# An index in parts (pagefind/survey-parts.json names more than part 1): the header's box says
# "so far, counting…" until every part has answered; notes when its count is final.
COUNTING = """(() => {
  new MutationObserver(() => {
    const meta = document.querySelector("[data-survey-search] .md-search-result__meta");
    if (!meta) return;
    if (/so far/.test(meta.textContent)) { window.__countingSeen = true; window.__countedAt = undefined; }
    else if (window.__countingSeen && /^(\\d+ matching pages?|No paper matches)$/.test(meta.textContent)
             && window.__countedAt === undefined) window.__countedAt = performance.now();
  }).observe(document, {childList: true, subtree: true, characterData: true});
})();"""

TEXT = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json",
        ".xml": "application/xml", ".svg": "image/svg+xml"}


class _Gzipping(SimpleHTTPRequestHandler):
    cache: ClassVar[dict[str, bytes]] = {}  # compressed once per file, for every run

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        kind = TEXT.get(path.suffix)
        if kind is None or not path.is_file() or "gzip" not in self.headers.get("Accept-Encoding", ""):
            super().do_GET()
            return
        key = str(path)
        if key not in self.cache:
            self.cache[key] = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        body = self.cache[key]
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A reader's context closed while a response was on its way (later parts of the search
        index still loading): the browser's doing, not the site's; anything else is reported."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(site: Path) -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), functools.partial(_Gzipping, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def first_result(browser: Any, base: str, query: str, parts: bool = False) -> dict[str, float]:
    """One reader: a new context, the home page, the query, the first result on screen."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    fetched: list[tuple[str, int, int]] = []
    ended: list[float] = []  # when each fetch ended, ms since the epoch

    def finished(request: Any) -> None:
        sizes = request.sizes()
        response = request.response()
        try:
            raw = len(response.body()) if response is not None else 0
        except Exception:  # the context closed while a later part's fetch was finishing
            raw = 0
        fetched.append((request.url, sizes["responseBodySize"] + sizes["responseHeadersSize"], raw))
        timing = request.timing
        ended.append(timing["startTime"] + max(timing["responseEnd"], 0))

    page.on("requestfinished", finished)
    page.add_init_script(WATCH % json.dumps(RESULT))
    page.add_init_script(COUNTING)
    try:
        t0 = time.perf_counter()
        page.goto(base, wait_until="domcontentloaded")
        loaded = time.perf_counter() - t0
        box = page.locator("[data-survey-search] input[name=q]")
        box.fill(query)
        page.wait_for_function("typeof window.__firstResultAt === 'number'", timeout=120_000)
        seconds = page.evaluate("window.__firstResultAt") / 1000
        shown_at = page.evaluate("performance.timeOrigin") + seconds * 1000
        counted = seconds
        if parts:  # an index in parts counts on after the first result
            page.wait_for_function("window.__countedAt !== undefined", timeout=120_000)
            counted = page.evaluate("window.__countedAt") / 1000
        page.wait_for_load_state("networkidle")  # what the first answer asked for, all of it
        pagefind = sum(b for url, b, _ in fetched if "/pagefind/" in url)
        biggest = max(fetched, key=lambda f: f[1])
        # An index in parts fetches the later parts after the first result: counted apart.
        before = sum(f[1] for f, end in zip(fetched, ended, strict=True) if end <= shown_at)
        return {"first_result_s": seconds, "counted_s": counted, "home_loaded_s": loaded,
                "bytes_fetched": sum(b for _, b, _ in fetched), "pagefind_bytes_fetched": pagefind,
                "bytes_before_first_result": before,
                "bytes_uncompressed": sum(r for _, _, r in fetched), "requests": len(fetched),
                "largest_fetch_bytes": biggest[1], "largest_fetch": biggest[0].rsplit("/", 2)[-1] or "/"}
    finally:
        context.close()


def in_parts(site: Path) -> bool:
    manifest = site / "pagefind" / "survey-parts.json"
    return manifest.exists() and bool(json.loads(manifest.read_text(encoding="utf-8"))["parts"])


def search_in_browser(built: Built, args: argparse.Namespace) -> dict[str, Any]:
    if not getattr(args, "browser", False):
        return {}
    from playwright.sync_api import sync_playwright

    n = built.papers
    runs = []
    with serve(built.site_full) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            parts = in_parts(built.site_full)
            for i in range(max(args.runs, 3)):
                runs.append(first_result(browser, base, QUERY, parts=parts))
                say(f"[{n}] browser run {i + 1}: first result {runs[-1]['first_result_s']:.2f} s, "
                    f"{runs[-1]['bytes_fetched'] / 1024:.0f} KB fetched "
                    f"({runs[-1]['pagefind_bytes_fetched'] / 1024:.0f} KB of index)")
        finally:
            browser.close()
    middle = {key: statistics.median(r[key] for r in runs) for key in runs[0] if key != "largest_fetch"}
    middle["largest_fetch"] = runs[-1]["largest_fetch"]
    return {**middle, "first_result_runs": [r["first_result_s"] for r in runs],
            "fetched_kb": middle["bytes_fetched"] / 1024}
