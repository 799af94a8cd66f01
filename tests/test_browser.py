"""The built site in Debian's Chromium, driven by Playwright (sync API).

The site is served from this process by a threaded http.server under the site_url's path
(/survey/), so Material's instant navigation, search worker and palette run as they do when
deployed. The site calls no third party: every test ends by checking that no request left
the site's host (Chromium resolves no host but the local server's, so such a request fails at
once; it is recorded and fails the test), so the tests never need the network.

Without Chromium (or the playwright package) these tests are skipped, unless CI=true, where
that is a failure.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import re
import shutil
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

import pytest
from conftest import ROOT, make_corpus, make_project

from generator.core.settings import mkdocs_config
from generator.core.tex import tex_text
from generator.corpus.store import load_corpus
from generator.site.pagefind_data import _read as read_pagefind
from generator.site.search import LIST_FOLDERS, MANIFEST, build_index, plan_parts

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CONFIG = mkdocs_config(ROOT / "mkdocs.yml")
SITE_URL: str = CONFIG["site_url"]
SITE_PATH = "/" + SITE_URL.split("/", 3)[3]  # "/survey/"

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # Nothing leaves the machine, and no request is intercepted to see that it does not: a route
    # (Playwright's interception) sends every request through this process and turns Chromium's
    # cache off, which made each page load about a third slower. Tab records what tried.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
ZERO = "zero-infinity-breaking-the-gpu-memory-wall-for-extreme-scale"
ZERO_TITLE = "ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
CORPUS_PAPERS = list(load_corpus(ROOT / "corpus").papers.values())
TAXONOMY = load_corpus(ROOT / "corpus").taxonomy


def chromium_path() -> Path | None:
    """Debian's Chromium, or $CHROMIUM if set; `playwright install` is never used."""
    chosen = os.environ.get("CHROMIUM")
    candidates = [chosen] if chosen else ["/usr/bin/chromium", shutil.which("chromium")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def unavailable(reason: str) -> None:
    """Skip, except on CI (CI=true), where a browser test that cannot run is a failure."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true, so the browser tests may not be skipped", pytrace=False)
    pytest.skip(reason)


# --- serving the built site ------------------------------------------------------------------


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the site directory under SITE_PATH; anything outside it is a 404."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def translate_path(self, path: str) -> str:
        bare = urlsplit(path).path
        if not bare.startswith(SITE_PATH):
            return str(Path(self.directory) / "\0outside-the-site")  # never exists: 404
        return super().translate_path("/" + path[len(SITE_PATH):])

    def do_GET(self) -> None:
        # the browser may leave the page (or cancel a fetch) while a file is sent
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if unquote(urlsplit(self.path).path) == SITE_PATH + "sitemap.xml":
                self._send_sitemap()
            else:
                super().do_GET()

    def _send_sitemap(self) -> None:
        # Material's instant navigation takes the sitemap's URLs, swaps in this page's protocol
        # and host name (not its port) and only intercepts links found there. `mkdocs serve`
        # rewrites site_url to the address it serves; do the same for this server's address.
        host, port = self.server.server_address[:2]  # type: ignore[misc,index,str-unpack]
        served = f"http://{host!s}:{port}{SITE_PATH}"
        body = (Path(self.directory) / "sitemap.xml").read_text(encoding="utf-8")
        data = body.replace(SITE_URL, served).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve a built site on a free localhost port; yields the base URL (ending in SITE_PATH)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_SiteHandler, directory=str(site)))
    # shutdown() waits for the loop's next poll: half a second by default, for each server
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{SITE_PATH}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# --- the browser -------------------------------------------------------------------------------


@contextmanager
def launch_chromium() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    assert path is not None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(path), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and (parts.hostname or "") in LOCAL_HOSTS


def leaves_the_site(url: str) -> bool:
    """A request that would need the network (data: and blob: URLs are the page's own bytes)."""
    return urlsplit(url).scheme not in ("data", "blob", "about") and not is_local(url)


@dataclass
class Tab:
    """A page in its own browser context, recording everything that went wrong on it."""

    page: Page
    context: BrowserContext
    problems: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    # Every URL the page's main frame went to, in order, including history.pushState/replaceState
    navigations: list[str] = field(default_factory=list)

    def watch(self) -> None:
        page = self.page

        def on_console(message: Any) -> None:
            if message.type == "error":
                self.problems.append(f"console error on {page.url}: {message.text} {message.location}")

        def on_failed(request: Any) -> None:
            # ERR_ABORTED: the browser cancelled it (the page went away), nothing is broken
            if is_local(request.url) and request.failure != "net::ERR_ABORTED":
                self.problems.append(f"request failed on {page.url}: {request.url} {request.failure}")

        def on_response(response: Any) -> None:
            if response.status >= 400 and is_local(response.url):
                self.problems.append(f"HTTP {response.status} on {page.url}: {response.url}")

        def on_dialog(dialog: Any) -> None:
            self.dialogs.append(f"{dialog.type} on {page.url}: {dialog.message!r}")
            dialog.dismiss()

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught error on {page.url}: {error}"))
        page.on("requestfailed", on_failed)
        page.on("response", on_response)
        page.on("dialog", on_dialog)
        page.on("framenavigated",
                lambda frame: self.navigations.append(frame.url) if frame == page.main_frame else None)

    def assert_clean(self) -> None:
        assert self.problems == [], "\n".join(self.problems)
        assert self.external == [], "requests to other hosts:\n" + "\n".join(self.external)
        assert self.dialogs == [], "\n".join(self.dialogs)


@contextmanager
def open_tab(browser: Browser, viewport: dict[str, int] = DESKTOP, **options: Any) -> Iterator[Tab]:
    options.setdefault("color_scheme", "light")
    context = browser.new_context(viewport=viewport, **options)  # type: ignore[arg-type]
    context.set_default_timeout(15_000)
    page = context.new_page()
    tab = Tab(page, context)
    # The context's requests, a worker's too (Pagefind searches in one); CHROMIUM_ARGS fails them.
    context.on("request", lambda request: tab.external.append(request.url)
               if leaves_the_site(request.url) else None)
    context.add_init_script(SITEMAP_READ)
    tab.watch()
    try:
        yield tab
    finally:
        context.close()


# --- page helpers ------------------------------------------------------------------------------

# Material's instant navigation takes a click only once it has read sitemap.xml: a click before
# that is a full page load. Its XML goes through DOMParser, and from there to the click handler
# in one synchronous run, so a document that has parsed a <urlset> is ready for instant clicks.
SITEMAP_READ = """(() => {
  const parse = DOMParser.prototype.parseFromString;
  DOMParser.prototype.parseFromString = function (text, type) {
    const doc = parse.call(this, text, type);
    if (type === "text/xml" && doc.documentElement && doc.documentElement.localName === "urlset")
      window.__survey_sitemap_read = true;
    return doc;
  };
})()"""

H1_TEXT = """() => {
  const h1 = document.querySelector("article h1");
  if (!h1) return null;
  const links = [...h1.querySelectorAll("a.headerlink")];
  links.forEach(a => a.style.display = "none");
  const text = h1.innerText;
  links.forEach(a => a.style.display = "");
  return text;
}"""

ABSTRACT_TEXT = """() => {
  const p = document.querySelector("article h2#abstract + p");
  return p ? p.innerText : null;
}"""


def h1_text(page: Page) -> str | None:
    return page.evaluate(H1_TEXT)  # type: ignore[no-any-return]


def url_is(base: str, path: str) -> Callable[[str], bool]:
    """Matches a URL whose path is base + path (the query, e.g. search's ?h=, is ignored)."""
    want = urlsplit(base + path).path
    return lambda url: urlsplit(url).path == want


def landed(tab: Tab, base: str, path: str, title: str) -> None:
    """Wait for the page at base + path with this h1 (instant navigation swaps content late).

    The URL's fragment is not read here: with navigation.tracking, Material rewrites it as the
    page scrolls, 250 ms after the scroll stops, and a rewrite still due from the page before
    can land on the new URL (a "Listed in" click once arrived at listing#abstract). Where the
    fragment matters, `clicked_to` reads it from the navigation the click made.
    """
    page = tab.page
    page.wait_for_url(url_is(base, path))
    page.wait_for_function(f"(t) => ({H1_TEXT})() === t", arg=title)
    assert urlsplit(page.url).path == urlsplit(base + path).path
    assert h1_text(page) == title
    tab.assert_clean()


def clicked_to(tab: Tab, link: Locator, base: str) -> tuple[str, str]:
    """Click a link to another page; check the page went first to the link's URL, fragment and all.

    Instant navigation pushes the link's URL onto the history when the click is taken, before
    it fetches the page, so the fragment is read from that navigation, not from the address
    bar later. Returns (path below the site's base, fragment).
    """
    path, fragment = target(base, link)
    want = base + path + (f"#{fragment}" if fragment else "")
    seen = len(tab.navigations)
    link.click()
    tab.page.wait_for_url(url_is(base, path))
    went = [u for u in tab.navigations[seen:] if url_is(base, path)(u)]
    assert went[:1] == [want], f"clicked {want}, the page went to {tab.navigations[seen:]}"
    return path, fragment


IN_VIEW = """(id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight;
}"""


def target(base: str, link: Locator) -> tuple[str, str]:
    """(path below the site's base, fragment) of the URL a link points to."""
    url = link.evaluate("a => a.href")  # resolved against the page, whatever the href
    parts, root = urlsplit(url), urlsplit(base)
    assert (parts.netloc, parts.path[:len(root.path)]) == (root.netloc, root.path), url
    return parts.path[len(root.path):], parts.fragment


def goto(tab: Tab, url: str) -> None:
    response = tab.page.goto(url, wait_until="load")
    assert response is not None and response.ok, f"{url}: {response and response.status}"


def mark_document(page: Page) -> None:
    """Tag the current document, once its instant navigation has read sitemap.xml and takes
    clicks: the mark survives instant navigation, not a full load."""
    page.wait_for_function("window.__survey_sitemap_read === true")
    page.evaluate("window.__survey_mark = true")


def still_same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__survey_mark === true"))


def scheme(page: Page) -> str | None:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")  # type: ignore[no-any-return]


# --- fixtures ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("the playwright package is not installed (pip install -e '.[test]')")
    if chromium_path() is None:
        unavailable(f"Chromium not found at {os.environ.get('CHROMIUM') or '/usr/bin/chromium'} "
                    "(apt-get install chromium, or set $CHROMIUM)")
    with launch_chromium() as browser:
        yield browser


@pytest.fixture(scope="session")
def site_base(chromium: Browser, real_site: Path) -> Iterator[str]:
    with serve(real_site) as base:
        yield base


@pytest.fixture(scope="session")
def hostile_site(chromium: Browser, literal_site: tuple[Path, list[tuple[str, str, str]]]
                 ) -> Iterator[tuple[str, list[tuple[str, str, str]]]]:
    with serve(literal_site[0]) as base:
        yield base, literal_site[1]


# The seed site's index in parts of PARTS papers (4 parts): a copy of the built site, indexed again.
PARTS = 100
PAPER_PAGES = [(f"papers/{p.slug}/index.html", p.date) for p in CORPUS_PAPERS]


@pytest.fixture(scope="session")
def parts_site(real_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("parts") / "site"
    shutil.copytree(real_site, site, copy_function=os.link)  # the pages are only read
    build_index(site, LIST_FOLDERS, PAPER_PAGES, PARTS)
    assert len(json.loads((site / "pagefind" / MANIFEST).read_text())["parts"]) == 3
    return site


@pytest.fixture(scope="session")
def parts_base(chromium: Browser, parts_site: Path) -> Iterator[str]:
    with serve(parts_site) as base:
        yield base


@pytest.fixture
def desktop(chromium: Browser) -> Iterator[Tab]:
    with open_tab(chromium) as tab:
        yield tab


# --- navigation --------------------------------------------------------------------------------


def test_home_topic_paper_listing_tag_and_back(site_base: str, desktop: Tab) -> None:
    """Every page view fetches sitemap.xml (Material's instant navigation), which lists the hubs
    only: a link to one is taken by instant navigation, a paper's loads the paper as a page."""
    tab, page = desktop, desktop.page
    sitemaps: list[tuple[str, bytes]] = []
    page.on("response", lambda r: sitemaps.append((r.url, r.body())) if "/sitemap" in r.url else None)
    goto(tab, site_base)
    landed(tab, site_base, "", "ML systems literature survey")
    mark_document(page)

    # home -> topic, by the link in the home page's topic table
    page.locator("article li.survey-topic-entry > a", has_text=re.compile(r"^Parallelism$")).click()
    landed(tab, site_base, "topics/parallelism/", "Parallelism")
    assert still_same_document(page), "instant navigation did not take the click"

    # topic -> its part that lists the paper -> paper
    # Material makes every link absolute once its scripts run: match on how hrefs end
    zero = page.locator(f"article li > a[href$='/papers/{ZERO}/']")
    number = 1
    while zero.count() == 0:
        number += 1
        page.locator(".survey-pager a", has_text="Next").first.click()
        on_part(tab, site_base, f"topics/parallelism/{number}/", "Parallelism", number)
    zero.click()
    landed(tab, site_base, f"papers/{ZERO}/", ZERO_TITLE)
    assert not still_same_document(page), "a paper is not in sitemap.xml: it loads as a page"

    # paper -> one of its listings, from "Listed in", to the paper's entry there
    listed_in = page.locator("article h2#listed-in + ul a").first
    listing_name = listed_in.inner_text()
    listing_path, entry = clicked_to(tab, listed_in, site_base)
    assert re.fullmatch(r"entry-\d+", entry), entry
    landed(tab, site_base, listing_path, listing_name)
    assert page.locator(f"article #{entry}").count() == 1

    # back to the paper with the browser's back button ...
    page.go_back()
    landed(tab, site_base, f"papers/{ZERO}/", ZERO_TITLE)
    # ... and forward again, then back through the listing's own link to the paper
    page.go_forward()
    landed(tab, site_base, listing_path, listing_name)
    item = page.locator(f"article li:has(#{entry})")
    item.locator(f"a[href$='/papers/{ZERO}/']").click()
    landed(tab, site_base, f"papers/{ZERO}/", ZERO_TITLE)

    # paper -> one of its tags, by the chip at the top of the page, -> the tag index: instant
    mark_document(page)
    chip = page.locator("article .survey-chips a.md-tag:not(.survey-topic)").first
    tag_name = chip.inner_text().strip()
    tag_path, _ = target(site_base, chip)
    chip.click()
    landed(tab, site_base, tag_path, f"Tag: {tag_name}")
    assert page.locator(f"article a[href$='papers/{ZERO}/']").count() >= 1
    page.get_by_role("link", name="All tags", exact=True).click()
    landed(tab, site_base, "tags/", "Tags")
    assert still_same_document(page), "instant navigation fell back to full page loads"
    assert sitemaps and {url for url, _ in sitemaps} == {site_base + "sitemap.xml"}
    assert all(b"/papers/" not in body for _, body in sitemaps)
    tab.assert_clean()


def test_a_listing_link_opens_at_its_entry(site_base: str, desktop: Tab) -> None:
    """A paper's "Listed in" link, opened as a page of its own, shows the paper's entry."""
    tab, page = desktop, desktop.page
    goto(tab, site_base + f"papers/{ZERO}/")
    links = page.locator("article h2#listed-in + ul a")
    targets = [target(site_base, links.nth(i)) for i in range(links.count())]
    assert targets != []
    for path, entry in targets:
        page.goto("about:blank")  # a full load each time, even of a listing seen just before
        goto(tab, site_base + path + "#" + entry)
        page.wait_for_function(IN_VIEW, arg=entry)
        item = page.locator(f"article li:has(#{entry})")
        assert item.locator(f"a[href$='/papers/{ZERO}/']").count() == 1
    tab.assert_clean()


def test_no_request_goes_to_another_host(site_base: str, desktop: Tab) -> None:
    """Chromium's request log over every kind of page and the search box: the site's host only.
    Each page waits for the network to idle, so what it asks for late is logged too; the pages
    wait side by side, in tabs of one context (one after another the waits took 4 s)."""
    log: list[str] = []
    desktop.context.on("request", lambda request: log.append(request.url))
    paths = ["", "topics/parallelism/", f"papers/{ZERO}/", "tags/", "statistics/",
             "tags/pipeline-parallelism/"]
    tabs = [desktop, *(Tab(desktop.context.new_page(), desktop.context) for _ in paths[1:])]
    for tab, path in zip(tabs, paths, strict=True):
        if tab is not desktop:
            tab.watch()
        goto(tab, site_base + path)
    last = tabs[-1].page  # a page that loads Pagefind only when the reader reaches for the box
    last.keyboard.press("/")  # opens the search box, whichever search the theme runs
    for tab in tabs:
        tab.page.wait_for_load_state("networkidle")
    kinds = {urlsplit(url).path.rsplit(".", 1)[-1] for url in log}
    assert {"css", "js"} <= kinds, log  # the log saw the page's own assets
    assert [url for url in log if "/pagefind/" in url], log  # and the search's
    assert sorted({urlsplit(url).netloc for url in log}) == [urlsplit(site_base).netloc], log
    for tab in tabs:
        tab.assert_clean()


def test_search_finds_a_paper_by_a_word_of_its_abstract(site_base: str, desktop: Tab) -> None:
    tab, page = desktop, desktop.page
    goto(tab, site_base)
    page.keyboard.press("/")  # focuses the header's box from anywhere
    box = page.locator("[data-survey-search] input[name=q]")
    page.wait_for_function("document.activeElement && document.activeElement.name === 'q'")
    assert page.evaluate("document.getElementById('__search').checked")
    box.press_sequentially("NVMe", delay=20)  # in ZeRO-Infinity's abstract, not in its title
    result = page.locator(f"#survey-quick-results a[href*='papers/{ZERO}/']")
    result.wait_for(state="visible")
    item = result.locator("xpath=ancestor::li[1]")
    assert ZERO_TITLE in item.inner_text() and "Parallelism" in item.inner_text()
    assert item.locator("mark", has_text=re.compile("^NVMe$", re.I)).count() >= 1
    # arrows then Enter open the chosen result (a paper: a page load of its own)
    links = page.locator("#survey-quick-results a")
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    position = next(i for i, href in enumerate(hrefs) if f"papers/{ZERO}/" in href)
    for _ in range(position + 1):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    landed(tab, site_base, f"papers/{ZERO}/", ZERO_TITLE)
    assert not page.evaluate("document.getElementById('__search').checked")
    assert not [u for u in tab.external if "search_index" in u]
    tab.assert_clean()


def test_a_query_typed_before_pagefind_is_ready_is_not_dropped(site_base: str, desktop: Tab) -> None:
    """Pagefind's script is held back while the reader types: the words are searched once it
    arrives."""
    tab, page = desktop, desktop.page
    held: list[Any] = []
    page.route("**/pagefind/pagefind.js", lambda route: held.append(route))
    goto(tab, site_base)
    page.keyboard.press("/")
    page.wait_for_function("document.activeElement && document.activeElement.name === 'q'")
    page.keyboard.type("NVMe", delay=20)
    meta = page.locator("[data-survey-search] .md-search-result__meta")
    page.wait_for_function("() => document.querySelector('[data-survey-search] input').value === 'NVMe'")
    assert meta.inner_text() == "Searching…"
    assert held, "the home page asks for Pagefind before the first query"
    assert page.locator("#survey-quick-results a").count() == 0
    for route in held:
        route.continue_()
    page.locator(f"#survey-quick-results a[href*='papers/{ZERO}/']").wait_for(state="visible")
    tab.assert_clean()


def test_words_typed_before_the_search_script_ran_are_searched(site_base: str, desktop: Tab) -> None:
    """On a slow connection the header's box is there before assets/search.js: what the reader
    typed into it is searched when the script arrives."""
    tab, page = desktop, desktop.page
    held: list[Any] = []
    page.route("**/assets/search.js", lambda route: held.append(route))
    with page.expect_request("**/assets/search.js"):
        page.goto(site_base, wait_until="commit")
    box = page.locator("[data-survey-search] input[name=q]")
    box.click()
    box.press_sequentially("NVMe", delay=20)
    assert page.locator("#survey-quick-results a").count() == 0
    assert held and not page.evaluate("document.readyState === 'complete'")
    for route in held:
        route.continue_()
    page.locator(f"#survey-quick-results a[href*='papers/{ZERO}/']").wait_for(state="visible")
    tab.assert_clean()


# The facets once the search has counted them for its view (before, the page's own, as built).
COUNTED = ".survey-search__facets:not([data-built]) .survey-facet__count"
BUILT_COUNTS = """() => [...document.querySelectorAll(".survey-facet__value")].map(label => [
    label.querySelector("input").name, label.querySelector("input").value,
    label.querySelector("input").checked, label.querySelector(".survey-facet__count").textContent])"""


def test_the_search_page_shows_results_before_the_counts(
        site_base: str, real_site: Path, desktop: Tab) -> None:
    """The facets' counts need every filter chunk of the index; the results only the words' and
    the topics' (papers only): with the other filter chunks held back, the results show beside
    the filters as built (the whole survey's values and counts: the box was empty for seconds,
    issue 43), and the counts of the view come when the chunks arrive."""
    tab, page = desktop, desktop.page
    bundle = real_site / "pagefind"
    entry = json.loads((bundle / "pagefind-entry.json").read_text())
    meta = read_pagefind(bundle / f"pagefind.{entry['languages']['en']['hash']}.pf_meta")
    others = {f"/pagefind/filter/{chunk}.pf_filter" for name, chunk in meta[3] if name != "topic"}
    assert len(others) == 5  # tag, year, listing, author, review
    held: list[Any] = []
    page.route(lambda url: urlsplit(url).path.endswith(tuple(others)), lambda route: held.append(route))
    goto(tab, site_base + "search/?q=pipeline")
    page.locator(".survey-result__link").first.wait_for()
    assert result_count(page) > 1
    assert held, "the counts ask for the filter chunks"
    built = page.evaluate(BUILT_COUNTS)
    topics = Counter(name for p in CORPUS_PAPERS for name in
                     ([TAXONOMY.topic(t).name for t in p.topics] or ["Other"]))
    assert [(v, int(n)) for name, v, _, n in built if name == "topic"] == sorted(
        topics.items(), key=lambda item: (-item[1], item[0]))
    assert [v for name, v, _, _ in built if name == "year"][-1] == "no date"
    assert page.locator(".survey-search__facets[data-built]").count() == 1
    for route in held:
        route.continue_()
    page.locator(COUNTED).first.wait_for()
    counted = page.evaluate(BUILT_COUNTS)
    assert [row for row in counted if row[0] == "topic"] != [row for row in built if row[0] == "topic"]
    tab.assert_clean()


def on_part(tab: Tab, base: str, path: str, title: str, number: int) -> None:
    """Landed on part `number` of a list: its pager shows that number as the current one (the
    parts share their h1, so the h1 alone does not say instant navigation swapped the content)."""
    landed(tab, base, path, title)
    tab.page.locator(".survey-pager strong", has_text=re.compile(rf"^{number}$")).first.wait_for()


def result_count(page: Page) -> int:
    status = page.locator(".survey-search__status").inner_text()
    match = re.match(r"(\d+) papers?", status)
    assert match, status
    return int(match.group(1))


def test_a_filter_narrows_the_results_and_its_url_reloads_the_view(site_base: str, desktop: Tab) -> None:
    tab, page = desktop, desktop.page
    goto(tab, site_base + "search/?q=pipeline")
    page.locator(".survey-result__link").first.wait_for()
    page.locator(COUNTED).first.wait_for()  # counts come after the results
    everything = result_count(page)
    serving = page.locator(".survey-facet input[name=topic][value=Serving]")
    expected = int(serving.locator("xpath=following-sibling::span[2]").inner_text())
    assert 0 < expected < everything
    serving.check()
    page.wait_for_url(re.compile(r"[?&]topic=Serving"))
    status = "parseInt(document.querySelector('.survey-search__status').innerText)"
    page.wait_for_function(f"(n) => {status} === n", arg=expected)
    for result in page.locator("li.survey-result").all():
        assert "Serving" in result.locator(".survey-result__chips").inner_text()
    shared = page.url
    assert "q=pipeline" in shared
    page.reload()
    page.locator(".survey-result__link").first.wait_for()
    assert page.locator("#survey-search-query").input_value() == "pipeline"
    assert page.locator(".survey-facet input[name=topic][value=Serving]").is_checked()
    assert result_count(page) == expected
    # browsing: no words, one filter, with counts on every facet
    goto(tab, site_base + "search/?topic=Kernels")
    page.locator(".survey-result__link").first.wait_for()
    assert result_count(page) == len([p for p in CORPUS_PAPERS if "kernels" in p.topics])
    # the search page draws the results first and the facet counts after them
    page.wait_for_function(f"document.querySelectorAll('{COUNTED}').length > 4")
    tab.assert_clean()


def result_slugs(page: Page) -> list[str]:
    paths = page.eval_on_selector_all(".survey-result__link", "links => links.map(a => a.pathname)")
    return sorted(path.rstrip("/").rsplit("/", 1)[1] for path in paths)


def test_an_author_name_opens_every_paper_of_that_author(site_base: str, desktop: Tab) -> None:
    """A paper's page links each author's name to the search page's author filter: there, every
    paper of that author and no other; unchecking the author gives every paper back."""
    tab, page = desktop, desktop.page
    counts = Counter(name for p in CORPUS_PAPERS for name in set(p.authors))
    author, n = min(counts.items(), key=lambda item: (-item[1], item[0]))  # the most papers
    theirs = sorted(p.slug for p in CORPUS_PAPERS if author in p.authors)
    assert n == len(theirs) >= 2
    goto(tab, site_base + f"papers/{theirs[-1]}/")
    page.locator("article a", has_text=re.compile(f"^{re.escape(author)}$")).click()
    page.wait_for_url(re.compile(r"/search/\?author="))
    page.wait_for_function("(n) => document.querySelectorAll('.survey-result__link').length === n", arg=n)
    assert page.locator(".survey-search__status").inner_text() == f"{n} papers by {author}, newest first"
    assert result_slugs(page) == theirs
    chosen = page.locator(".survey-facet input[name=author]").first
    chosen.wait_for()  # the facets come after the results
    assert chosen.is_checked() and chosen.get_attribute("value") == author
    # A co-author's name in a result opens their papers, and Back gives the first author's again:
    # Material's instant navigation only pushed such a link (the same page, other filters), and
    # under the site's path the URL went back and the results stayed.
    shown_with = {a for p in CORPUS_PAPERS if author in p.authors for a in p.authors[:3]}
    other = next(name for name in sorted(shown_with) if name != author)
    mine = sorted(p.slug for p in CORPUS_PAPERS if other in p.authors)
    said = f"{len(mine)} {'paper' if len(mine) == 1 else 'papers'} by {other}, newest first"
    page.locator(".survey-result__facts a", has_text=re.compile(f"^{re.escape(other)}$")).first.click()
    status = "(t) => document.querySelector('.survey-search__status').innerText === t"
    page.wait_for_function(status, arg=said)
    assert "author=" + quote(other) in page.url and result_slugs(page) == mine
    page.go_back()
    page.wait_for_function(status, arg=f"{n} papers by {author}, newest first")
    assert result_slugs(page) == theirs
    chosen = page.locator(".survey-facet input[name=author]").first
    chosen.wait_for()
    chosen.uncheck()
    page.wait_for_url(lambda url: "author=" not in url)
    status = "parseInt(document.querySelector('.survey-search__status').innerText)"
    page.wait_for_function(f"(n) => {status} === n",
                           arg=len(CORPUS_PAPERS))
    tab.assert_clean()


def test_a_search_by_an_author_names_them_in_every_result(site_base: str, desktop: Tab) -> None:
    """An entry names the first three authors; a search by the fourth names them too, after "et al."."""
    tab, page = desktop, desktop.page
    late = Counter(name for p in CORPUS_PAPERS for name in p.authors[3:])
    author = min(late, key=lambda name: (-late[name], name))
    theirs = [p for p in CORPUS_PAPERS if author in p.authors]
    goto(tab, site_base + "search/?author=" + quote(author))
    page.wait_for_function("(n) => document.querySelectorAll('.survey-result__link').length === n",
                           arg=len(theirs))
    lines = page.locator(".survey-result__facts").all_inner_texts()
    assert len(lines) == len(theirs) and all(author in line for line in lines), lines
    assert any(f"et al., including {author}" in line for line in lines), lines
    tab.assert_clean()


# Pagefind's papers for each of `keys` alone as an author filter, as the search page asks it.
PAPERS_OF_AUTHORS = """async ([module, keys]) => {
  const pagefind = await import(module), found = [];
  for (const key of keys) {
    const search = await pagefind.search(null, {filters: {author: {any: [key]}}});
    found.push(await Promise.all(search.results.map(r => r.data().then(d => d.url))));
  }
  return found;
}"""
# Each result of the search page: its link's path and text, and its author's name.
RESULT_ENTRIES = """items => items.map(li => {
  const link = li.querySelector(".survey-result__link");
  return [link.pathname, link.innerText, li.querySelector(".survey-result__facts a").innerText];
})"""


def test_a_hostile_author_name_finds_its_one_paper(
        hostile_site: tuple[str, list[tuple[str, str, str]]], desktop: Tab) -> None:
    """Whatever a name holds (`&amp;`, quotes, a backslash, markup), its link finds its paper.

    The reader's way once (the paper page, then its author's link); then every name: its
    filter finds its paper alone, and one search page of every name shows each paper's entry
    (a search page loaded per name took 16 s of the file's time)."""
    from test_site import hostile_author

    base, papers = hostile_site
    tab, page = desktop, desktop.page
    names = {slug: hostile_author(title.split(": ", 1)[1]) for slug, title, _ in papers}
    keys = {slug: name.replace('"', "\uff02").replace("\\", "\uff3c")  # as Pagefind can match it
            for slug, name in names.items()}
    first = papers[0][0]
    goto(tab, base + f"papers/{first}/")
    page.locator("article a[href*='search/?author=']").click()
    page.wait_for_url(re.compile(r"/search/\?author="))
    page.locator(".survey-result__link").first.wait_for()
    assert page.locator(STATUS).inner_text() == f"1 paper by {keys[first]}, newest first"
    assert result_slugs(page) == [first]

    found = page.evaluate(PAPERS_OF_AUTHORS, [base + "pagefind/pagefind.js", list(keys.values())])
    assert dict(zip(keys, found, strict=True)) == {slug: [f"{SITE_PATH}papers/{slug}/"] for slug in keys}

    # every name at once: one link holding each name as a page's author link holds it (test_site)
    goto(tab, base + "search/?" + "&".join("author=" + quote(name, safe="/") for name in names.values()))
    status = f"{len(names)} papers by {' or '.join(keys.values())}, newest first"
    page.wait_for_function(f"(t) => document.querySelector('{STATUS}')?.textContent === t", arg=status)
    page.locator(".survey-search__more").click()  # a page of 20, then "Show more"
    page.wait_for_function("(n) => document.querySelectorAll('.survey-result__link').length === n",
                           arg=len(names))
    # each result is its paper's entry: its title as the page's title shows it (its TeX read,
    # core/tex.py), its author's name exactly as written
    shown = sorted(page.eval_on_selector_all("li.survey-result", RESULT_ENTRIES))
    assert shown == sorted([f"{SITE_PATH}papers/{slug}/", tex_text(title), names[slug]]
                           for slug, title, _ in papers)
    assert tab.dialogs == []
    tab.assert_clean()


# --- a paper by its id (issue 43) ----------------------------------------------------------------

ARXIV_PAPER = next(p for p in sorted(CORPUS_PAPERS, key=lambda p: p.slug) if p.arxiv and len(p.arxiv) == 10)
QUICK_LINKS = "#survey-quick-results a"
STATUS = ".survey-search__status"


def id_forms(arxiv: str) -> list[str]:
    """An arXiv id as readers paste it: bare, with its prefix or a version, arXiv's URLs (abs,
    pdf, html), arXiv's DOI of it, a Hugging Face Papers URL."""
    return [arxiv, f"arXiv:{arxiv}", f"arxiv {arxiv}v2", f"https://arxiv.org/abs/{arxiv}v1",
            f"https://arxiv.org/pdf/{arxiv}v2.pdf", f"arxiv.org/html/{arxiv}v3",
            f"https://doi.org/10.48550/arXiv.{arxiv}", f"https://huggingface.co/papers/{arxiv}"]


def quick_id(page: Page, query: str, meta: str) -> list[str]:
    """Type a query into the header's box and wait for the box to say `meta`; the links it lists."""
    box = page.locator("[data-survey-search] input[name=q]")
    box.fill("")
    box.fill(query)
    page.wait_for_function("([m, t]) => document.querySelector(m).textContent === t", arg=[QUICK_META, meta])
    return page.eval_on_selector_all(QUICK_LINKS, "links => links.map(a => a.href)")


def open_quick_box(page: Page, phone: bool) -> None:
    if phone:
        page.locator("label.md-header__button[for=__search]").click()
    else:
        page.keyboard.press("/")
    page.wait_for_function("document.activeElement && document.activeElement.name === 'q'")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_an_arxiv_id_as_readers_paste_it_opens_its_paper(
        site_base: str, chromium: Browser, viewport: dict[str, int]) -> None:
    """Issue 43: "2504.11651" in the search boxes listed papers that matched "250" (MI250X), not
    the paper. Now each form of a paper's id gives that paper alone, in the header's box (Enter
    opens it) and on the search page."""
    phone = viewport is PHONE
    paper, arxiv = ARXIV_PAPER, ARXIV_PAPER.arxiv
    want = f"The paper with arXiv id {arxiv}"
    with open_tab(chromium, viewport, is_mobile=phone, has_touch=phone) as tab:
        page = tab.page
        goto(tab, site_base)
        open_quick_box(page, phone)
        assert page.locator(QUICK_META).inner_text().startswith("Type words or an arXiv id")
        for query in id_forms(arxiv):
            assert quick_id(page, query, want) == [site_base + f"papers/{paper.slug}/"], query
            title = page.locator("#survey-quick-results .md-search-result__item__title")
            assert title.inner_text() == tex_text(paper.title), query
        page.keyboard.press("Enter")
        landed(tab, site_base, f"papers/{paper.slug}/", tex_text(paper.title))
        # the search page reads the id as the box does: every form on a desktop, one on a phone
        for query in id_forms(arxiv)[3:4] if phone else id_forms(arxiv):
            goto(tab, site_base + "search/?q=" + quote(query))
            page.wait_for_function(f"(t) => document.querySelector('{STATUS}').textContent === t", arg=want)
            assert result_slugs(page) == [paper.slug], query
            assert not page.locator(".survey-search__filters").is_visible()  # no filter applies to an id
        tab.assert_clean()


def test_an_id_the_survey_lacks_says_so_and_links_where_it_is(site_base: str, small_base: str,
                                                              desktop: Tab) -> None:
    """An id of no paper of the survey lists no near miss: the boxes say the survey lacks it and
    link arXiv's page of it (or doi.org's); Enter then opens the search page, which says the same.
    An id still being typed says what an id looks like. A DOI of a paper's link finds it, in any case."""
    from conftest import HOSTILE_DOI_LINK, HOSTILE_SLUG, HOSTILE_TITLE

    tab, page = desktop, desktop.page
    goto(tab, site_base)
    open_quick_box(page, False)
    for query, said, away in (
            ("2504.99999", "arXiv id 2504.99999", "https://arxiv.org/abs/2504.99999"),
            ("arXiv:cs/0112017v1", "arXiv id cs/0112017", "https://arxiv.org/abs/cs/0112017"),
            ("math.GT/0309136", "arXiv id math/0309136", "https://arxiv.org/abs/math/0309136"),
            ("doi:10.1145/0000000.1111111", "DOI 10.1145/0000000.1111111", "https://doi.org/10.1145/0000000.1111111")):
        assert quick_id(page, query, f"No paper with {said} in the survey") == [away], query
    hint = "An arXiv id: four digits, a dot and five digits, like 2504.11651"
    assert quick_id(page, "2504.1165", hint) == []
    quick_id(page, "2504.99999", "No paper with arXiv id 2504.99999 in the survey")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/search/\?q=2504\.99999$"))
    status = page.locator(".survey-search__status")
    page.wait_for_function(f"() => /^No paper/.test(document.querySelector('{STATUS}').textContent)")
    assert status.inner_text() == "No paper with arXiv id 2504.99999 in the survey."
    assert page.locator(".survey-search__away a").get_attribute("href") == "https://arxiv.org/abs/2504.99999"
    assert page.locator(".survey-result").count() == 0
    # a DOI, from a paper's link, in other case and as a doi.org URL
    goto(tab, small_base)
    open_quick_box(page, False)
    doi = HOSTILE_DOI_LINK.removeprefix("https://doi.org/")
    for query in (doi.lower(), HOSTILE_DOI_LINK, f"DOI: {doi.upper()}"):
        typed = query.removeprefix("DOI: ").removeprefix("https://doi.org/")
        found = quick_id(page, query, f"The paper with DOI {typed}")
        assert found == [small_base + f"papers/{HOSTILE_SLUG}/"], query
        title = page.locator("#survey-quick-results .md-search-result__item__title")
        assert title.inner_text() == tex_text(HOSTILE_TITLE)  # the corpus's text, never markup
    assert tab.dialogs == []
    tab.assert_clean()


# --- the index in parts ------------------------------------------------------------------------

WORD = re.compile(r"[a-z]{7,}")
QUICK_META = "[data-survey-search] .md-search-result__meta"


def rare_word(paper_slug: str) -> str:
    """A word of the paper's abstract whose first five letters are in no other paper, so no
    other paper has a word of the same stem."""
    others = " ".join(p.title + " " + p.abstract + " " + " ".join(p.authors)
                      for p in CORPUS_PAPERS if p.slug != paper_slug).lower()
    paper = next(p for p in CORPUS_PAPERS if p.slug == paper_slug)
    words = sorted(set(WORD.findall(paper.abstract.lower())))
    return next((w for w in words if w[:5] not in others), "")


def quick_search(page: Page, word: str, slug: str | None = None) -> str:
    """Type a word into the header's box, wait for the paper among the results (if named); the
    count shown once every part has answered."""
    box = page.locator("[data-survey-search] input[name=q]")
    box.fill("")
    page.wait_for_function("!document.querySelector('#survey-quick-results li')")
    box.fill(word)
    page.locator("#survey-quick-results a[href*='/papers/']" if slug is None
                 else f"#survey-quick-results a[href*='papers/{slug}/']").first.wait_for(state="visible")
    page.wait_for_function("(m) => /^\\d+ matching pages?$/.test(document.querySelector(m).textContent)",
                           arg=QUICK_META)
    return page.locator(QUICK_META).inner_text()


def test_the_quick_box_searches_part_1_first_then_finds_a_paper_of_the_last_part(
        parts_base: str, site_base: str, desktop: Tab) -> None:
    """Part 1 answers before the other parts are asked; a paper of the last part is found by a
    word of its abstract; every count is the one-part index's, also for a word that some parts
    lack (where Pagefind, left alone, would answer with the pages of a shorter word)."""
    tab, page = desktop, desktop.page
    newest = plan_parts(PAPER_PAGES, PARTS)
    # the newest paper of part 1 and of the last part that has a word of its own
    first, last = (next(slug for path in part if rare_word(slug := path.split("/")[1]))
                   for part in (newest[0], newest[-1]))
    queries = [(rare_word(first), first), (rare_word(last), last), ("memory", None)]
    goto(tab, site_base)
    expected = [quick_search(page, word, slug) for word, slug in queries]

    held: list[Any] = []
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.route("**/pagefind/" + MANIFEST, lambda route: held.append(route))
    goto(tab, parts_base)
    page.locator("[data-survey-search] input[name=q]").fill(queries[0][0])
    page.locator(f"#survey-quick-results a[href*='papers/{first}/']").wait_for(state="visible")
    assert held and not [url for url in asked if "/pagefind/part-" in url]
    for route in held:
        route.continue_()
    page.unroute("**/pagefind/" + MANIFEST)
    assert [quick_search(page, word, slug) for word, slug in queries] == expected
    assert [url for url in asked if "/pagefind/part-4/" in url]
    tab.assert_clean()


def facet_counts(page: Page) -> dict[tuple[str, str], int]:
    page.wait_for_function(f"""() => document.querySelectorAll('{COUNTED}').length > 0
        && !/so far/.test(document.querySelector('.survey-search__status').textContent)""")
    rows = page.eval_on_selector_all(".survey-facet__value", """labels => labels.map(label => [
        label.querySelector("input").name, label.querySelector("input").value,
        label.querySelector(".survey-facet__count").textContent])""")
    return {(name, value): int(count) for name, value, count in rows}


# A word of about 40 papers, in each of the four parts: newest first runs across all of them
# after one "Show more" ("memory", 127 papers, took six, each searching every part again).
ACROSS_PARTS = "attention"


def test_the_parts_count_as_one_index_and_newest_first_runs_across_them(
        parts_base: str, site_base: str, desktop: Tab) -> None:
    tab, page = desktop, desktop.page
    dates = {p.slug: p.date or "" for p in CORPUS_PAPERS}
    plan = plan_parts(PAPER_PAGES, PARTS)
    part_of = {page.split("/")[1]: n for n, part in enumerate(plan) for page in part}
    orders, counts = [], []
    for base in (site_base, parts_base):
        goto(tab, base + "search/?q=memory&topic=Serving")  # the parts count as one index
        counts.append((facet_counts(page), result_count(page)))
        goto(tab, base + f"search/?q={ACROSS_PARTS}&sort=newest")
        facet_counts(page)
        while page.locator(".survey-search__more").count():
            shown = page.locator(".survey-result__link").count()
            page.locator(".survey-search__more").click()
            # More shown, and by the search over every part: "Show more" searches the parts
            # again, and a view drawn before they answer ("so far") has no button yet.
            page.wait_for_function("""(n) => document.querySelectorAll('.survey-result__link').length > n
                && !/so far/.test(document.querySelector('.survey-search__status').textContent)""", arg=shown)
        hrefs = page.eval_on_selector_all(".survey-result__link", "links => links.map(a => a.pathname)")
        orders.append([h.rstrip("/").rsplit("/", 1)[1] for h in hrefs if "/papers/" in h])
    assert counts[0] == counts[1] and counts[0][1] > 1 and len(counts[0][0]) > 4
    one, parted = orders
    assert sorted(one) == sorted(parted) and len(parted) == result_count(page)
    assert len(parted) > 20, "a page of 20: the order should run on after Show more"
    assert len({part_of[slug] for slug in parted}) == len(plan), "the query should reach every part"
    assert [part_of[slug] for slug in parted] == sorted(part_of[slug] for slug in parted)
    assert [dates[slug] for slug in parted] == sorted((dates[slug] for slug in parted), reverse=True)
    tab.assert_clean()


def test_a_topic_in_parts_links_them_and_old_entry_links_land(site_base: str, desktop: Tab) -> None:
    tab, page = desktop, desktop.page
    goto(tab, site_base + "topics/other/")
    page.locator(".survey-pager a", has_text="Next").first.click()
    on_part(tab, site_base, "topics/other/2/", "Other", 2)
    first_here = page.locator("article li > a[href*='/papers/']").first.get_attribute("href")
    page.locator(".survey-pager a", has_text=re.compile(r"^1$")).first.click()
    on_part(tab, site_base, "topics/other/", "Other", 1)
    assert page.locator(f"article li > a[href='{first_here}']").count() == 0
    # a link to the listing's entry 150, which is on its second page
    listing = "listings/parallel-and-distributed-ml-systems-hf-papers/"
    goto(tab, site_base + listing + "#entry-150")
    page.wait_for_url(re.compile(re.escape(listing) + "2/#entry-150$"))
    page.locator("#entry-150").wait_for(state="attached")
    number = page.evaluate("""() => { const li = document.getElementById('entry-150').closest('li');
        const ol = li.parentElement; return Number(ol.start) + [...ol.children].indexOf(li); }""")
    assert number == 150
    tab.assert_clean()


PALETTE_TOGGLE = "form[data-md-component='palette'] label:not([hidden])"


def test_palette_toggle_switches_and_is_remembered(site_base: str, desktop: Tab) -> None:
    tab, page = desktop, desktop.page
    toggle = page.locator(PALETTE_TOGGLE)
    goto(tab, site_base)
    assert scheme(page) == "default"
    toggle.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")

    # a page change by instant navigation, then a full load of another page
    page.locator("article li.survey-topic-entry > a", has_text=re.compile(r"^Serving$")).click()
    landed(tab, site_base, "topics/serving/", "Serving")
    assert scheme(page) == "slate"
    goto(tab, site_base + f"papers/{ZERO}/")
    assert scheme(page) == "slate"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(255, 255, 255)"

    toggle.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
    goto(tab, site_base + "tags/")
    assert scheme(page) == "default"
    tab.assert_clean()


# --- phone -------------------------------------------------------------------------------------

# Each kind of page on a phone. The lists (LIST_PAGES), the tags page, the search page and the
# listings page are checked for a sideways scroll where a phone loads them for their own checks,
# on the same screen (test_every_list_shows_its_papers_on_the_first_screen,
# test_on_a_phone_every_tag_is_..., test_on_a_phone_the_order_box_..., ..._the_listings_fit_...).
PHONE_PAGES = [
    "", "topics/", "tags/zero-sharding/", "statistics/", "contributing/", "schema/", "about/",
    f"papers/{ZERO}/",  # the drawer is tried on the last
]
# A phone's screen: 390x844 CSS pixels, two device pixels to each.
PHONE_SCREEN = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
WIDTHS = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"


def test_phone_pages_do_not_scroll_sideways_and_drawer_works(site_base: str, chromium: Browser) -> None:
    with open_tab(chromium, PHONE, **PHONE_SCREEN) as tab:
        page = tab.page
        wide = []
        for path in PHONE_PAGES:
            goto(tab, site_base + path)
            widths = page.evaluate(WIDTHS)
            if widths[0] > widths[1]:
                wide.append(f"{path or 'home'}: scrollWidth {widths[0]} > clientWidth {widths[1]}")
        assert wide == []
        tab.assert_clean()

        assert urlsplit(page.url).path.endswith(f"/papers/{ZERO}/")  # PHONE_PAGES' last
        assert page.evaluate("document.documentElement.clientWidth") == PHONE["width"]
        drawer_on_screen = """() => {
          const r = document.querySelector(".md-sidebar--primary").getBoundingClientRect();
          return r.right > 0 && r.left < document.documentElement.clientWidth;
        }"""
        assert not page.evaluate(drawer_on_screen), "the drawer shows before it is opened"
        page.locator("label.md-header__button[for='__drawer']").click()
        page.wait_for_function("document.getElementById('__drawer').checked")
        page.wait_for_function(drawer_on_screen)
        topics = page.locator("nav.md-nav--primary label.md-nav__link", has_text="Topics")
        topics.wait_for(state="visible")
        topics.click()
        serving = page.locator("nav.md-nav--primary a.md-nav__link[href$='topics/serving/']")
        serving.wait_for(state="visible")
        serving.click()
        landed(tab, site_base, "topics/serving/", "Serving")
        page.wait_for_function("!document.getElementById('__drawer').checked")
        tab.assert_clean()


# --- hostile corpus ----------------------------------------------------------------------------

INJECTED = """() => {
  const found = [];
  for (const el of document.querySelectorAll("article img, article script, article iframe, "
      + "article object, article embed, article svg script, article style")) {
    found.push(el.outerHTML.slice(0, 120));
  }
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.getAttributeNames()) {
      if (/^on/i.test(attr)) found.push(`${el.tagName} ${attr}=${el.getAttribute(attr)}`);
    }
  }
  for (const el of document.querySelectorAll("[href], [src], [action], [formaction]")) {
    for (const attr of ["href", "src", "action", "formaction"]) {
      const value = (el.getAttribute(attr) || "").replace(/[\\s\\u0000-\\u001f]/g, "");
      if (/^javascript:/i.test(value)) found.push(`${el.tagName} ${attr}=${value}`);
    }
  }
  return found;
}"""


def test_hostile_titles_and_abstracts_render_literally(
        hostile_site: tuple[str, list[tuple[str, str, str]]], desktop: Tab) -> None:
    from test_site import shown

    base, papers = hostile_site
    tab, page = desktop, desktop.page
    for slug, title, abstract in papers:
        goto(tab, base + f"papers/{slug}/")  # at "load": what a hostile text could run has run
        # Chromium's innerText sets a <math> on a line of its own; corpus text never holds a
        # line break or two spaces, so joining the lines loses nothing else.
        assert " ".join(h1_text(page).split()) == shown(title), slug
        assert " ".join(page.evaluate(ABSTRACT_TEXT).split()) == shown(abstract), slug
        assert page.evaluate(INJECTED) == [], slug
        tab.assert_clean()

    goto(tab, base + "topics/kernels/")
    assert page.evaluate(INJECTED) == []
    for slug, title, _ in papers:
        link = page.locator(f"article li > a[href$='/papers/{slug}/']")
        assert " ".join(link.inner_text().split()) == shown(title), slug
    assert tab.dialogs == []
    tab.assert_clean()


def test_chromium_typesets_the_math_with_no_script_and_no_other_host(
        hostile_site: tuple[str, list[tuple[str, str, str]]], chromium: Browser) -> None:
    """test_tex's math papers (conftest's literal_site holds them)."""
    base = hostile_site[0]
    with open_tab(chromium) as tab:
        goto(tab, base + "papers/math-paper/")
        boxes = tab.page.evaluate("""() => {
          const math = document.querySelector("article h2#abstract + p math");
          const [base, raised] = math.querySelector("msup").children;
          const box = el => el.getBoundingClientRect();
          return {width: box(math).width, base: box(base).top, raised: box(raised).top,
                  display: getComputedStyle(math).display};
        }""")
        assert boxes["width"] > 20 and boxes["raised"] < boxes["base"], boxes  # the 3 is raised
        tab.assert_clean()
    for viewport in (DESKTOP, PHONE):  # lengths keep the abstract on the first screen, in its column
        with open_tab(chromium, viewport) as tab:
            goto(tab, base + "papers/lengths/")
            shown = tab.page.evaluate("""() => {
              const p = document.querySelector("article h2#abstract + p"), words = document.createRange();
              words.selectNodeContents(p.lastChild);
              return {words: words.getClientRects()[0].bottom, title: document.title,
                      wide: document.documentElement.scrollWidth};
            }""")
            assert shown["words"] < viewport["height"], shown  # "We study kernels." on the first screen
            assert shown["wide"] <= viewport["width"], shown
            assert shown["title"].startswith("Overlay REVIEWED BY THE EDITORS kernels"), shown


# --- accessibility -----------------------------------------------------------------------------

AXE_PAGES = {"home": "", "topic": "topics/serving/", "paper": f"papers/{ZERO}/", "tag-index": "tags/",
             "topic-part": "topics/other/2/", "search": "search/?q=memory&topic=Serving",
             "statistics": "statistics/",
             "listing": "listings/parallel-and-distributed-ml-systems-hf-papers/",
             "paper-actions": "papers/pipeoffload-improving-scalability-of-pipeline-parallelism-with/"}
SERIOUS = {"serious", "critical"}


def serious_violations(page: Page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    if page.evaluate("typeof axe === 'undefined'"):  # once a document: 0.14 s each time
        page.evaluate(Axe().axe_script)
    found = []
    for violation in page.evaluate("axe.run({resultTypes: ['violations']}).then(r => r.violations)"):
        if violation["impact"] not in SERIOUS:
            continue
        for node in violation["nodes"]:
            where = " ".join(str(t) for t in node["target"])
            summary = " ".join(node.get("failureSummary", "").split())
            found.append(f"{violation['id']} ({violation['impact']}) at {where}: "
                         f"{node['html'][:160]} -- {summary}")
    return found


@pytest.mark.parametrize("path", list(AXE_PAGES.values()), ids=list(AXE_PAGES))
def test_no_serious_accessibility_violations(site_base: str, chromium: Browser, path: str) -> None:
    """In both palettes, each page loaded once (a load per palette took 29 s for the 18): a
    system that prefers dark gets slate, then the toggle gives the default palette, which a
    light system loads (test_palette_toggle_switches_and_is_remembered)."""
    try:
        import axe_playwright_python  # noqa: F401
    except ImportError:
        unavailable("axe-playwright-python (it bundles axe-core) is not installed: pip install -e '.[test]'")
    with open_tab(chromium, color_scheme="dark") as tab:
        page = tab.page
        goto(tab, site_base + path)
        if path.startswith("search/"):  # the results, then the facets' counts, come after the load
            page.locator(".survey-result__link").first.wait_for()
            page.locator(COUNTED).first.wait_for()
        assert scheme(page) == "slate"
        found = serious_violations(page)
        assert found == [], "slate:\n" + "\n".join(found)
        page.locator(PALETTE_TOGGLE).click()
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
        found = serious_violations(page)
        assert found == [], "default:\n" + "\n".join(found)
        tab.assert_clean()


@pytest.mark.parametrize("flags", [[], ["--dirty"]], ids=["serve", "serve-dirty"])
def test_a_corpus_error_shows_in_the_browser_until_it_is_fixed(
        chromium: Browser, tmp_path: Path, flags: list[str]) -> None:
    """Under mkdocs serve (tests/test_serve_errors.py): a paper page open, its file broken, the
    open page and the home page show the file, line and problem; fixed (and edited), both pages
    come back, the open one with the edit: serve rebuilds on a corpus file's change."""
    from playwright.sync_api import expect
    from test_serve_errors import MARKER, PAPER, TITLE
    from test_site import mkdocs_serve, wait_for_page

    project = make_project(tmp_path, make_corpus(tmp_path / "small"))
    paper = project / "corpus" / "papers" / f"{PAPER}.yaml"
    log = tmp_path / "serve.log"
    with mkdocs_serve(project, log, *flags) as (base, server):
        url = base + f"papers/{PAPER}/"
        wait_for_page(url, TITLE, server, log)
        context = chromium.new_context()
        try:
            page = context.new_page()
            page.goto(url)
            expect(page.locator("h1")).to_contain_text(TITLE)
            original = paper.read_text(encoding="utf-8")
            paper.write_text(original.replace("title: ", "title: [unclosed ", 1), encoding="utf-8")
            # The open page reloads by itself (MkDocs's live reload) and shows the error.
            problem = page.locator("pre")
            expect(page.locator("h1")).to_have_text("The site could not be built", timeout=180_000)
            expect(problem).to_contain_text(f"corpus/papers/{PAPER}.yaml:3:9: malformed YAML")
            expect(problem).to_contain_text("did not find expected ',' or ']'")
            # So does any other page of the survey, and the home page; nothing hangs.
            other = context.new_page()
            other.goto(base, timeout=60_000)
            expect(other.locator("pre")).to_contain_text(f"{PAPER}.yaml:3:9")
            paper.write_text(original.replace("Recent studies", "Served studies", 1), encoding="utf-8")
            expect(page.locator("h1")).to_contain_text(TITLE, timeout=180_000)
            expect(page.locator("article")).to_contain_text("Served studies", timeout=180_000)
            expect(other.locator(f"#{MARKER}")).to_have_count(0, timeout=180_000)
            expect(other.locator("h1").first).to_be_visible()
        finally:
            context.close()
        assert server.poll() is None
    assert f"{PAPER}.yaml:3:9: malformed YAML" in log.read_text()


# --- topics for readers, suggestions marked (issue 29), on a small site -------------------------

# Each word of the home page's topics that the browser laid out over two lines (issue 29: a table
# cell broke "Quantiz|ation"): a word is letters and digits between spaces and hyphens (a line
# may end after a hyphen, as in "low-|bit").
BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll("article li.survey-topic-entry")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s\\-\\u2010-\\u2014\\/]+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = [...range.getClientRects()].map(r => r.top).sort((a, b) => a - b);
        if (tops.length && tops[tops.length - 1] - tops[0] > 2) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""

TOPIC_TOP = """() => {
  const summary = document.querySelector("article p.survey-summary").getBoundingClientRect();
  const first = document.querySelector("article li.survey-entry").getBoundingClientRect();
  return {summary: [summary.top, summary.bottom], first: first.top, height: window.innerHeight};
}"""


@pytest.fixture(scope="session")
def small_base(chromium: Browser, review_site: Path) -> Iterator[str]:
    with serve(review_site) as base:
        yield base


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_topic_names_and_sentences_keep_their_words_and_each_topic_opens_on_its_papers(
        small_base: str, chromium: Browser, viewport: dict[str, int]) -> None:
    """Issue 29: the home table broke "Quantization" mid-word; a topic page began with a
    paragraph of its boundary rule. Now no word of the table breaks, and a topic page shows
    its sentence, then its first papers, on the first screen; the rule is one click away."""
    taxonomy = load_corpus(ROOT / "corpus").taxonomy
    phone = viewport is PHONE
    with open_tab(chromium, viewport, is_mobile=phone, has_touch=phone) as tab:
        page = tab.page
        goto(tab, small_base)
        cells = page.locator("article li.survey-topic-entry > a").all_inner_texts()
        assert cells == [*(t.name for t in taxonomy.topics), "Other"]
        assert page.evaluate(BROKEN_WORDS) == []
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        for topic in taxonomy.topics:
            goto(tab, small_base + f"topics/{topic.id}/")
            assert page.locator("article p.survey-summary").inner_text() == topic.summary
            box = page.evaluate(TOPIC_TOP)
            assert box["summary"][1] <= box["first"] < box["height"], (topic.id, box)
            rule = page.locator("article details.survey-boundary")
            assert not rule.locator("p").is_visible()
            rule.locator("summary").click()
            assert rule.locator("p").inner_text() == topic.description
        tab.assert_clean()


def test_the_search_page_filters_reviewed_and_suggested_papers(small_base: str, desktop: Tab) -> None:
    from conftest import REVIEWED, SUGGESTED

    tab, page = desktop, desktop.page
    goto(tab, small_base + "search/?review=suggested")
    page.locator(".survey-result__link").first.wait_for()
    # and the hostile paper; not the one with no topic, which waits off the site (test_publish)
    assert result_count(page) == len(SUGGESTED)
    for result in page.locator("li.survey-result").all():
        assert "suggested" in result.locator(".survey-result__chips").inner_text()
    page.locator(COUNTED).first.wait_for()
    legends = page.locator(".survey-facet__name").all_inner_texts()
    assert "Topics reviewed" in legends
    chosen = page.locator(".survey-facet input[name=review][value=suggested]")
    assert chosen.is_checked()
    assert chosen.locator("xpath=following-sibling::span[2]").inner_text() == str(len(SUGGESTED))
    goto(tab, small_base + "search/?review=reviewed")
    page.locator(".survey-result__link").first.wait_for()
    assert result_slugs(page) == sorted(REVIEWED)
    tab.assert_clean()


# --- a paper browser for readers (issue 34) ------------------------------------------------------

# Where the entries of a list page sit: each entry's top and bottom, and the viewport's height.
ENTRY_BOXES = """() => ({
  boxes: [...document.querySelectorAll("article li.survey-entry")].map(li => {
    const r = li.getBoundingClientRect();
    return [r.top, r.bottom];
  }),
  height: window.innerHeight,
})"""
LIST_PAGES = [*(f"topics/{t}/" for t in [*load_corpus(ROOT / "corpus").taxonomy.topic_ids, "other"]),
              "topics/other/2/", "topics/serving/by-title/", "tags/pipeline-parallelism/",
              "listings/parallel-and-distributed-ml-systems-hf-papers/"]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_list_shows_its_papers_on_the_first_screen(
        site_base: str, chromium: Browser, viewport: dict[str, int]) -> None:
    """On a phone the first entry of a list starts in the upper half of the first screen, and
    the page does not scroll sideways; on a desktop three whole entries show without scrolling.
    Each entry names the paper's first authors (each a link to the search page's author
    filter) and its topics."""
    phone = viewport is PHONE
    by_slug = {p.slug: p for p in CORPUS_PAPERS}
    with open_tab(chromium, viewport, **(PHONE_SCREEN if phone else {})) as tab:
        page = tab.page
        for path in LIST_PAGES:
            goto(tab, site_base + path)
            if phone:
                widths = page.evaluate(WIDTHS)
                assert widths[0] <= widths[1], (path, "scrollWidth > clientWidth", widths)
            seen = page.evaluate(ENTRY_BOXES)
            boxes, height = seen["boxes"], seen["height"]
            if phone:
                assert boxes[0][0] < height / 2, (path, boxes[0], height)
            else:
                assert len([b for b in boxes if b[1] <= height]) >= 3, (path, boxes[:4], height)
            # A list in parts says which part this is above its papers (a phone hid it there).
            where = page.locator("article .survey-controls .survey-pager")
            if where.count():
                assert where.is_visible() and re.search(r"Page \d+ of \d+", where.inner_text()), path
            first = page.locator("article li.survey-entry").first
            path_of = first.locator("a[href*='/papers/']").first.evaluate("a => a.pathname")
            paper = by_slug[path_of.rstrip("/").rsplit("/", 1)[1]]
            authors = first.locator(".survey-meta a").all_inner_texts()
            assert authors == paper.authors[:3], path
            if authors:
                href = first.locator(".survey-meta a").first.evaluate("a => a.pathname + a.search")
                assert href == SITE_PATH + "search/?author=" + quote(paper.authors[0], safe="/")
            assert first.locator("a.survey-topic").count() == max(1, len(paper.topics)), path
        tab.assert_clean()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_paper_page_leads_with_its_actions_and_cite_copies_the_bibtex(
        site_base: str, chromium: Browser, viewport: dict[str, int]) -> None:
    """Under the title and the authors, on the first screen: the arXiv id as a link and one row of
    actions; Cite puts the paper's BibTeX entry on the clipboard. A URL of the abstract is a link
    (this one is followed by the remains of a TeX link, "{this url}")."""
    phone = viewport is PHONE
    slug = "pipeoffload-improving-scalability-of-pipeline-parallelism-with"
    paper = {p.slug: p for p in CORPUS_PAPERS}[slug]
    with open_tab(chromium, viewport, is_mobile=phone, has_touch=phone) as tab:
        tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
        page = tab.page
        goto(tab, site_base + f"papers/{slug}/")
        actions = page.locator("article p.survey-actions")
        assert actions.locator("a").all_inner_texts() == ["arXiv page", "PDF", "Code (github.com)", "Cite"]
        assert actions.evaluate("p => p.getBoundingClientRect().bottom") <= viewport["height"]
        arxiv = page.locator("article p.survey-meta a")
        assert arxiv.inner_text() == f"arXiv:{paper.arxiv}"
        assert arxiv.get_attribute("href") == f"https://arxiv.org/abs/{paper.arxiv}"
        assert actions.locator("a", has_text="PDF").get_attribute("href") == f"https://arxiv.org/pdf/{paper.arxiv}"
        assert actions.locator("a", has_text="Code").get_attribute("href") == paper.links["code"]
        actions.locator("a", has_text="Cite").click()
        page.wait_for_function("document.querySelector('a.survey-cite').textContent === 'BibTeX copied'")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.locator("article pre.survey-bibtex code").inner_text()
        assert copied.startswith("@") and paper.arxiv in copied
        link = page.locator("article h2#abstract + p a")
        url = "https://github.com/sail-sg/zero-bubble-pipeline-parallelism"
        assert url + "{this" in paper.abstract
        assert link.all_inner_texts() == [url] and link.get_attribute("href") == url
        tab.assert_clean()


def test_the_home_page_searches_and_shows_what_is_new(small_base: str, desktop: Tab) -> None:
    """The home page for readers: a search box that opens the search page on its words, the
    latest papers as entries, the topics with how many of their papers a person reviewed."""
    tab, page = desktop, desktop.page
    goto(tab, small_base)
    # every paper of this small site but the one that waits for a curator (test_publish)
    assert page.locator("article li.survey-entry").count() == 7
    numbers = page.locator("article p.survey-numbers").inner_text()
    assert "2 of 7 reviewed by a person" in numbers
    # No count of topics that the Topics list below contradicts ("4 topics" above five, with Other).
    listed = page.locator("article li.survey-topic-entry").count()
    assert [int(n) for n in re.findall(r"(\d+) topics", numbers)] in ([], [listed])
    box = page.locator("article form.survey-home-search input[name=q]")
    box.fill("sequence parallelism")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search/\?q=sequence\+parallelism$"))
    page.locator(".survey-result__link").first.wait_for()
    assert page.locator("#survey-search-query").input_value() == "sequence parallelism"
    tab.assert_clean()


def test_a_ticked_facet_keeps_its_values_and_the_boxes_say_what_is_on(
        small_base: str, chromium: Browser) -> None:
    """Ticking "suggested" leaves "reviewed" to tick too, counted as it would add; on a phone the
    folded Filters box says a filter is on; with no words the Order box says newest first, as the
    results do."""
    from conftest import REVIEWED, SUGGESTED

    with open_tab(chromium, PHONE, is_mobile=True, has_touch=True) as tab:
        page = tab.page
        goto(tab, small_base + "search/?review=suggested")
        page.locator(".survey-result__link").first.wait_for()
        summary = page.locator(".survey-search__filters > summary")
        assert not page.locator(".survey-search__filters").evaluate("d => d.open")
        assert summary.inner_text() == "Filters (1 on)"
        assert page.locator("#survey-search-sort").input_value() == "newest"
        assert page.locator(".survey-search__status").inner_text().endswith("newest first")
        reviewed = page.locator(".survey-facet input[name=review][value=reviewed]")
        page.locator(COUNTED).first.wait_for(state="attached")
        assert reviewed.locator("xpath=following-sibling::span[2]").text_content() == str(len(REVIEWED))
        summary.click()
        reviewed.check()
        page.wait_for_url(re.compile(r"review=suggested&review=reviewed"))
        page.wait_for_function("(n) => document.querySelectorAll('.survey-result__link').length === n",
                               arg=len(REVIEWED) + len(SUGGESTED))  # one waits, one is hostile
        assert summary.inner_text() == "Filters (2 on)"
        goto(tab, small_base + "search/?q=parallel")
        page.locator(".survey-result__link").first.wait_for()
        assert page.locator("#survey-search-sort").input_value() == ""
        assert page.locator(".survey-search__filters > summary").inner_text() == "Filters"
        tab.assert_clean()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_topic_s_papers_of_a_year_are_two_taps_from_home(
        site_base: str, chromium: Browser, viewport: dict[str, int]) -> None:
    """Issue 43 (task 12 of the usability test): the papers of 2024 in Parallelism took five taps
    on a phone. Now: the topic, then its year, on the first screen; the chart's years lead there
    too (and Material's instant navigation takes those SVG links without an error)."""
    phone = viewport is PHONE
    theirs = [p for p in CORPUS_PAPERS if "parallelism" in p.topics and p.year == "2024"]
    assert len(theirs) > 1
    with open_tab(chromium, viewport, is_mobile=phone, has_touch=phone) as tab:
        page = tab.page
        goto(tab, site_base)
        mark_document(page)
        topic = page.locator("article li.survey-topic-entry > a", has_text=re.compile(r"^Parallelism$"))
        topic.click()
        landed(tab, site_base, "topics/parallelism/", "Parallelism")
        year = page.locator("article p.survey-years a", has_text=re.compile(r"^2024$"))
        box = year.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        assert box["y"] + box["height"] <= viewport["height"]  # on the first screen, no scroll
        year.click()
        page.wait_for_url(re.compile(r"/search/\?topic=Parallelism&year=2024$"))
        every = "(n) => document.querySelectorAll('.survey-result__link').length === n"
        page.wait_for_function(every, arg=min(len(theirs), 20))  # a page of 20, then "Show more"
        if len(theirs) > 20:
            page.locator(".survey-search__more").click()
            page.wait_for_function(every, arg=len(theirs))
        assert result_slugs(page) == sorted(p.slug for p in theirs)
        assert page.locator(".survey-search__status").inner_text() == f"{len(theirs)} papers, newest first"
        assert page.locator(".survey-search__filters > summary").inner_text() == "Filters (2 on)"
        if not phone:  # back to the topic: the chart's label of the year, an SVG link
            page.go_back()
            landed(tab, site_base, "topics/parallelism/", "Parallelism")
            page.locator("article svg.survey-timeline a", has_text=re.compile(r"^2024$")).click()
            page.wait_for_url(re.compile(r"/search/\?topic=Parallelism&year=2024$"))
            page.wait_for_function(every, arg=min(len(theirs), 20))
        tab.assert_clean()


def test_on_a_phone_show_n_papers_folds_the_filters_onto_the_results(site_base: str,
                                                                      chromium: Browser) -> None:
    """Issue 43: on a phone the open filter box is longer than the screen, and a tick left the
    results below it. Its foot, held on the screen, says how many papers the filters give and
    goes to them, folding the box; one paper is "1 paper matches", not "1 paper match"."""
    word = rare_word(ZERO)
    with open_tab(chromium, PHONE, is_mobile=True, has_touch=True) as tab:
        page = tab.page
        goto(tab, site_base + "search/")
        filters = page.locator(".survey-search__filters")
        show = filters.locator(".survey-search__show")
        assert not filters.evaluate("d => d.open") and not show.is_visible()
        filters.locator("summary").click()
        page.locator(COUNTED).first.wait_for()
        foot = show.bounding_box()
        assert show.is_visible() and foot is not None and foot["y"] + foot["height"] <= PHONE["height"]
        kernels = len([p for p in CORPUS_PAPERS if "kernels" in p.topics])
        page.locator(".survey-facet input[name=topic][value=Kernels]").check()
        page.wait_for_function("(t) => document.querySelector('.survey-search__show').textContent === t",
                               arg=f"Show {kernels} papers")
        show.click()
        assert not filters.evaluate("d => d.open")
        status = page.locator(".survey-search__status").bounding_box()
        assert status is not None and 0 <= status["y"] < PHONE["height"] / 2
        assert result_count(page) == kernels
        goto(tab, site_base + "search/?q=" + word)
        page.locator(".survey-result__link").first.wait_for()
        assert page.locator(".survey-search__status").inner_text() == f'1 paper matches "{word}"'
        assert show.text_content() == "Show 1 paper"
        tab.assert_clean()


def test_the_charts_need_no_script(site_base: str, chromium: Browser) -> None:
    """Papers per quarter by topic: drawn bars and a table of the same numbers, with scripts off."""
    with open_tab(chromium, java_script_enabled=False) as tab:
        page = tab.page
        for path, rows in (("statistics/", 5), ("topics/parallelism/", 1)):
            goto(tab, site_base + path)
            chart = page.locator("article svg.survey-timeline")
            assert chart.get_attribute("role") == "img"
            assert chart.get_attribute("aria-label").startswith("Papers per quarter, ")
            assert chart.locator("rect.survey-bar").count() > 0 and chart.is_visible()
            table = page.locator("article details.survey-timeline-table")
            table.locator("summary").click()
            assert table.locator("thead th").count() == rows + 1
            counted = sum(int(c) for c in table.locator("tbody td:not(:first-child)").all_inner_texts())
            assert counted > 0
        tab.assert_clean()


# Each text of the papers-per-quarter chart: its size on screen (its font size times the chart's
# scale) and its box, with the chart's box.
CHART_TEXT = """() => {
  const svg = document.querySelector("article svg.survey-timeline");
  const box = r => [r.left, r.top, r.right, r.bottom];
  return {chart: box(svg.getBoundingClientRect()), texts: [...svg.querySelectorAll("text")].map(t => ({
    text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
    box: box(t.getBoundingClientRect())}))};
}"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_chart_s_words_are_readable_on_a_phone(site_base: str, chromium: Browser,
                                                    viewport: dict[str, int]) -> None:
    """The chart is drawn to the page's width; its words stay at least 11 px on screen, inside
    the chart, none over another."""
    with open_tab(chromium, viewport) as tab:
        for path in ("statistics/", "topics/parallelism/"):
            goto(tab, site_base + path)
            drawn = tab.page.evaluate(CHART_TEXT)
            left, top, right, bottom = drawn["chart"]
            assert right <= viewport["width"], path
            texts = drawn["texts"]
            assert len(texts) >= 3, path
            for t in texts:
                assert t["px"] >= 11, (path, t)
                x0, y0, x1, y1 = t["box"]
                inside = left - 0.5 <= x0 and x1 <= right + 0.5 and top - 0.5 <= y0 and y1 <= bottom + 0.5
                assert inside, (path, t)
            for a, b in itertools.combinations(texts, 2):
                (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a["box"], b["box"]
                assert ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0, (path, a, b)
        tab.assert_clean()


def test_on_a_phone_the_order_box_stays_beside_its_label(site_base: str, chromium: Browser) -> None:
    """The search page's "Order" and its box on one line (on a phone the label ended the line of
    the words' box and the Order box began the next, under the words' box)."""
    with open_tab(chromium, PHONE, **PHONE_SCREEN) as tab:
        goto(tab, site_base + "search/?q=memory")
        widths = tab.page.evaluate(WIDTHS)
        assert widths[0] <= widths[1], ("scrollWidth > clientWidth", widths)
        label = tab.page.locator("label[for='survey-search-sort']").bounding_box()
        box = tab.page.locator("#survey-search-sort").bounding_box()
        assert label is not None and box is not None
        assert label["x"] + label["width"] <= box["x"]  # the label first, then its box
        assert box["y"] < label["y"] + label["height"] / 2 < box["y"] + box["height"]
        tab.assert_clean()


def test_without_script_the_search_page_links_the_lists(site_base: str, chromium: Browser) -> None:
    """With JavaScript off the search page says so and links the topics, tags and listings (its
    <noscript> showed "[topic](topics/index.md)" as text), and shows no form that cannot search."""
    with open_tab(chromium, java_script_enabled=False) as tab:
        goto(tab, site_base + "search/?q=memory")
        article = tab.page.locator("article")
        assert "](" not in article.inner_text() and ".md" not in article.inner_text()
        assert not tab.page.locator("#survey-search").is_visible()
        assert not tab.page.get_by_text("Loading the search index").is_visible()
        for name, path in (("topic", "topics/"), ("tag", "tags/"), ("listing", "listings/")):
            link = article.get_by_role("link", name=name, exact=True)
            link.click()
            tab.page.wait_for_url(url_is(site_base, path))
            assert tab.page.locator("article h1").inner_text().startswith(name.title())
            tab.page.go_back()
        # With scripts off Chromium refuses the head's module preload of Pagefind ("csp"): only that.
        assert all(p.endswith("pagefind/pagefind.js csp") for p in tab.problems), tab.problems
        assert tab.external == []


def test_on_a_phone_every_tag_is_on_the_tags_page_s_first_screen(site_base: str, chromium: Browser) -> None:
    """Issue 43 (R15): the Tags page was a table by count, FP8 9,452 px down it on a phone. Its
    chips, by name, come first: FP8 on the first screen, and one tap opens its papers."""
    with open_tab(chromium, PHONE, **PHONE_SCREEN) as tab:
        page = tab.page
        goto(tab, site_base + "tags/")
        chip = page.locator("article p.survey-tag-index a", has_text=re.compile(r"^FP8 \d+$"))
        box = chip.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"]
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        chip.click()
        landed(tab, site_base, "tags/fp8/", "Tag: FP8")
        tab.assert_clean()


def test_on_a_phone_the_listings_fit_the_screen(site_base: str, chromium: Browser) -> None:
    """The listings page on a phone: nothing of it is past the screen's right edge (a table of
    four columns broke each name every 8 letters and cut "Imported" off behind a scroll)."""
    with open_tab(chromium, PHONE, **PHONE_SCREEN) as tab:
        goto(tab, site_base + "listings/")
        widths = tab.page.evaluate(WIDTHS)
        assert widths[0] <= widths[1], ("scrollWidth > clientWidth", widths)
        past = tab.page.evaluate("""() => [...document.querySelectorAll("article *")]
            .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
            .map(e => e.tagName + ": " + e.textContent.slice(0, 40))""")
        assert past == []
        listing = "parallel-and-distributed-ml-systems-hf-papers"
        assert tab.page.locator(f"article a[href$='{listing}/']").is_visible()
        tab.assert_clean()


def test_the_facets_list_their_values_by_their_count_in_the_results(site_base: str, desktop: Tab) -> None:
    """A facet's values in the order of their counts in these results (not the whole index's),
    the most first; the years newest first, "no date" last."""
    tab, page = desktop, desktop.page
    goto(tab, site_base + "search/?q=memory")
    facet_counts(page)
    rows = page.eval_on_selector_all(".survey-facet__value", """labels => labels.map(label => [
        label.querySelector("input").name, label.querySelector("input").value,
        +label.querySelector(".survey-facet__count").textContent])""")
    for name in {n for n, _, _ in rows} - {"year"}:
        counts = [c for n, _, c in rows if n == name]
        assert counts == sorted(counts, reverse=True), (name, [r for r in rows if r[0] == name])
    years = [v for n, v, _ in rows if n == "year"]
    assert years[-1] == "no date" and years[:-1] == sorted(years[:-1], reverse=True)  # (it came first)
    tab.assert_clean()


def test_a_result_shows_the_words_its_abstract_matched(site_base: str, desktop: Tab) -> None:
    """Words of a paper's title and abstract: its result shows them in the abstract, not the title
    and the author list again (Pagefind's excerpt starts where the page's indexed text does)."""
    tab, page = desktop, desktop.page
    paper = {p.slug: p for p in CORPUS_PAPERS}["zero-bubble-pipeline-parallelism"]
    goto(tab, site_base + "search/?q=zero+bubble+pipeline")
    link = "a[href$='/zero-bubble-pipeline-parallelism/']"
    result = page.locator("li.survey-result", has=page.locator(link))
    teaser = result.locator(".survey-result__teaser")
    teaser.wait_for()
    words = " ".join(teaser.inner_text().split()).removeprefix("… ")
    assert words in " ".join(paper.abstract.split()), words
    assert not any(name in words for name in paper.authors), words
    marked = {m.lower() for m in teaser.locator("mark").all_inner_texts()}
    assert marked and marked <= {"zero", "bubble", "bubbles", "pipeline", "pipelines"}, marked
    # the header's box shows the same words
    box = page.locator("[data-survey-search] input[name=q]")
    box.fill("zero bubble pipeline")
    quick = page.locator("#survey-quick-results li", has=page.locator(link))
    quick_words = " ".join(quick.locator(".md-search-result__item__teaser").inner_text().split())
    quick_words = quick_words.removeprefix("… ")
    assert quick_words in " ".join(paper.abstract.split()), quick_words
    tab.assert_clean()


# The height of a lowercase letter (x-height) in the abstract's text and in its math (an italic
# n, as Chromium draws a one-letter <mi>), each at its own computed font and size.
LETTER_HEIGHTS = """() => {
  const p = document.querySelector("article h2#abstract + p");
  const span = document.createElement("span");
  span.className = "survey-math";
  span.innerHTML = "<math><mi>n</mi></math>";
  p.appendChild(span);
  const text = getComputedStyle(p), math = getComputedStyle(span.querySelector("math"));
  const c = document.createElement("canvas").getContext("2d");
  c.font = text.fontSize + " " + text.fontFamily;
  const x = c.measureText("x").actualBoundingBoxAscent;
  c.font = math.fontSize + " " + math.fontFamily;
  return [x, c.measureText("𝑛").actualBoundingBoxAscent];
}"""


def test_math_letters_stand_as_tall_as_the_text_around_them(site_base: str, desktop: Tab) -> None:
    """An abstract's math letters within 8% of the height of its text's (they stood 15% taller)."""
    goto(desktop, site_base + f"papers/{ZERO}/")
    text, math = desktop.page.evaluate(LETTER_HEIGHTS)
    assert 0.92 <= math / text <= 1.08, (text, math)
    desktop.assert_clean()
