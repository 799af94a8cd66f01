"""The twenty reader tasks of the usability test (../shared/reviews/usability-2026-11-29.md), done
in Chromium at 1280x800 and 390x844, each from the home page, and counted as that report counts
them: a click (or a tap), a query typed with Enter, or the scroll of one screen to bring what is
sought into view; on a desktop a link of the page's contents stands for its scrolls when fewer.

    python benchmarks/reader_tasks.py SITE

SITE is a built site (`mkdocs build --site-dir SITE`), served gzipped on loopback as
`bench.py --browser` serves it. Printed: a Markdown table, one row a task, the interactions on
each screen and the path taken; a task whose end the page does not show counts as failed. A
link to another host (a PDF, a repository) is counted, and its address checked, not followed.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from survey_bench.browser import ARGS, CHROMIUM, serve

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


class Failed(Exception):
    pass


class Reader:
    """One task's reader: the page, the interactions so far and the path, in words."""

    def __init__(self, page: Any, base: str, phone: bool) -> None:
        self.page, self.base, self.phone = page, base, phone
        self.count, self.path = 0, []

    def home(self) -> None:
        self.page.goto(self.base, wait_until="load")

    def scrolls(self, locator: Any) -> int:
        """Screens to scroll until the element's bottom is on screen (then scrolled there)."""
        bottom = locator.evaluate("e => e.getBoundingClientRect().bottom")
        height = self.page.viewport_size["height"]
        screens = max(0, math.ceil((bottom - height) / height))
        if screens:
            locator.evaluate("e => e.scrollIntoView({block: 'end'})")
        return screens

    def reach(self, locator: Any, what: str, contents: str | None = None) -> None:
        """Bring an element into view: scrolls, or one click of the contents' link when fewer."""
        locator.wait_for(state="attached")
        screens = self.scrolls(locator)
        toc = self.page.locator(f"nav.md-nav--secondary a[href$='#{contents}']") if contents else None
        if screens > 1 and toc is not None and toc.count() and toc.first.is_visible():
            self.count += 1
            self.path.append(f"contents: {what}")
        else:
            self.count += screens
            if screens:
                self.path.append(f"scroll {screens} to {what}")

    def click(self, locator: Any, what: str, follow: bool = True) -> None:
        locator = locator.first
        locator.wait_for(state="attached")
        self.reach(locator, what)
        self.count += 1
        self.path.append(what)
        if follow:
            locator.click()
            self.page.wait_for_load_state("load")

    def ask(self, box: str, words: str, what: str) -> None:
        self.count += 1
        self.path.append(f'"{words}" + Enter in {what}')
        self.page.locator(box).fill(words)
        self.page.locator(box).press("Enter")
        self.page.wait_for_load_state("load")

    def topic(self, name: str) -> None:
        entry = self.page.locator("article li.survey-topic-entry > a", has_text=re.compile(f"^{name}$"))
        self.click(entry, name)

    def check(self, ok: bool, why: str) -> None:
        if not ok:
            raise Failed(why)


def first_paper(r: Reader, where: str = "article li.survey-entry", has: str | None = None) -> Any:
    """The first entry of a list (with `has` inside it): its title link."""
    entries = r.page.locator(where)
    if has:
        entries = entries.filter(has=r.page.locator(has))
    return entries.first.locator("a.survey-entry__title")


def task_title(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    title = first_paper(r).inner_text()
    r.count, r.path = 0, []
    r.home()
    words = " ".join(title.split()[:3]).strip(":,")
    r.ask("#survey-home-query", words, "the home box")
    r.page.locator(".survey-result__link").first.wait_for()
    r.click(r.page.locator(".survey-result__link", has_text=title), "the result")
    r.check(r.page.locator("article h1").inner_text().startswith(title[:20]), "not the paper")


def task_author(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    r.click(r.page.locator("article li.survey-entry .survey-meta a"), "an author's name")
    r.page.locator(".survey-result__link").first.wait_for()
    r.check("/search/?author=" in r.page.url, "not the author's papers")


def task_newest_in_topic(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    r.reach(first_paper(r), "the first entry (newest first)")


def task_newest(r: Reader) -> None:
    r.home()
    r.reach(r.page.locator("article h2#new-in-the-survey ~ ul li.survey-entry").first, "New in the survey",
            "new-in-the-survey")


def task_pdf(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    r.click(first_paper(r, has=".survey-meta:has-text('arXiv')"), "a paper")
    pdf = r.page.locator("article p.survey-actions a", has_text=re.compile("^PDF$"))
    r.click(pdf, "PDF", follow=False)
    r.check("/pdf/" in (pdf.first.get_attribute("href") or ""), "no PDF link")


def task_code(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    code = r.page.locator("article li.survey-entry a.survey-code")
    r.click(code, "the Code badge", follow=False)
    r.check((code.first.get_attribute("href") or "").startswith("http"), "no code link")


def task_cite(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    r.click(first_paper(r, has=".survey-meta:has-text('arXiv')"), "a paper")
    r.click(r.page.locator("article a.survey-cite"), "Cite")
    r.page.wait_for_function("document.querySelector('a.survey-cite').textContent === 'BibTeX copied'")


def task_topic_bibtex(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    link = r.page.locator("article p.survey-numbers a", has_text="BibTeX")
    r.click(link, "BibTeX", follow=False)
    r.check((link.first.get_attribute("href") or "").endswith("serving.bib"), "no BibTeX")


def task_feed(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    link = r.page.locator("article p.survey-numbers a", has_text="Atom feed")
    r.click(link, "Atom feed", follow=False)
    r.check((link.first.get_attribute("href") or "").endswith("feed-serving.xml"), "no feed")


def task_tag(r: Reader) -> None:
    r.home()
    r.topic("Quantization")
    r.click(r.page.locator("article li.survey-entry a.md-tag:not(.survey-topic)"), "a tag chip")
    r.check("/tags/" in r.page.url, "not a tag page")


def task_reviewed(r: Reader) -> None:
    r.home()
    r.topic("Kernels")
    r.click(r.page.locator("article p.survey-numbers a", has_text="only these"), "only these")
    r.page.locator(".survey-result__link").first.wait_for()
    r.check("review=reviewed" in r.page.url, "not the reviewed papers")


def task_year_in_topic(r: Reader) -> None:
    r.home()
    r.topic("Parallelism")
    r.click(r.page.locator("article p.survey-years a", has_text="2024"), "2024")
    r.page.locator(".survey-result__link").first.wait_for()
    r.check("topic=Parallelism" in r.page.url and "year=2024" in r.page.url, "not the year's papers")


def paper_of_serving(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    r.click(first_paper(r, has=".survey-meta:has-text('arXiv')"), "a paper")


def task_related(r: Reader) -> None:
    paper_of_serving(r)
    r.reach(r.page.locator("article h2#related-papers + ul > li").first, "Related papers", "related-papers")


def task_listed_in(r: Reader) -> None:
    paper_of_serving(r)
    r.reach(r.page.locator("article h2#listed-in + ul > li").first, "Listed in", "listed-in")


def task_topic_counts(r: Reader) -> None:
    r.home()
    r.reach(r.page.locator("article li.survey-topic-entry").last, "the topics and their counts")


def task_quarters(r: Reader) -> None:
    r.home()
    r.click(r.page.locator("article p.survey-numbers a", has_text="Statistics"), "Statistics")
    table = r.page.locator("article details.survey-timeline-table > summary")
    r.click(table, "Papers per quarter: the numbers")
    r.check(r.page.locator("article details.survey-timeline-table th", has_text="Quantization").count() > 0,
            "no quantization column")


def task_arxiv_id(r: Reader, arxiv: str) -> None:
    r.home()
    r.ask("#survey-home-query", arxiv, "the home box")
    r.page.wait_for_function("/^(The|No) paper with/.test(document.querySelector('.survey-search__status')"
                             ".textContent)")
    r.click(r.page.locator(".survey-result__link"), "the paper")
    r.check(r.page.locator("article p.survey-meta a", has_text=arxiv).count() == 1, "not the paper")


def task_reviewed_mark(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    r.reach(r.page.locator("article li.survey-entry a.survey-topic").first, "the topic chips")


def task_two_topics(r: Reader) -> None:
    r.home()
    r.topic("Serving")
    two = r.page.locator("article li.survey-entry").filter(
        has=r.page.locator("a.survey-topic:not([href$='/serving/'])"))
    r.reach(two.first.locator("a.survey-topic").last, "an entry with two topics")


def task_back_to_topic(r: Reader) -> None:
    paper_of_serving(r)
    r.click(r.page.locator("article a.survey-topic", has_text="Serving"), "its topic chip")
    r.check(r.page.url.rstrip("/").endswith("topics/serving"), "not the topic")


TASKS: list[tuple[str, Callable[..., None]]] = [
    ("Paper by three words of its title", task_title),
    ("All papers by an author named in an entry", task_author),
    ("Newest paper in serving", task_newest_in_topic),
    ("Newest paper overall", task_newest),
    ("Open a paper's PDF", task_pdf),
    ("Open a paper's code", task_code),
    ("Copy a paper's BibTeX", task_cite),
    ("A whole topic's BibTeX", task_topic_bibtex),
    ("Subscribe to a topic's feed", task_feed),
    ("Papers with a given tag", task_tag),
    ("Only the person-reviewed papers of kernels", task_reviewed),
    ("Papers from 2024 in parallelism", task_year_in_topic),
    ("A paper's related papers", task_related),
    ("Which listing a paper came from", task_listed_in),
    ("How many papers each topic has", task_topic_counts),
    ("Papers per quarter for quantization", task_quarters),
    ("Find a paper by its arXiv id", task_arxiv_id),
    ("Whether a paper's topic was decided by a person", task_reviewed_mark),
    ("A paper in two topics", task_two_topics),
    ("From a paper back to its topic's list", task_back_to_topic),
]


def an_arxiv_id(site: Path) -> str:
    """The arXiv id of the first paper page (by path) that shows one."""
    for page in sorted((site / "papers").glob("*/index.html")):
        found = re.search(r'name="citation_arxiv_id" content="([^"]+)"', page.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    raise SystemExit(f"reader_tasks: no paper of {site} has an arXiv id")


def run(browser: Any, base: str, viewport: dict[str, int], task: Callable[..., None], arxiv: str
        ) -> tuple[int | None, str]:
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    context.route(lambda url: not url.startswith(base), lambda route: route.fulfill(status=204, body=""))
    context.set_default_timeout(30_000)
    reader = Reader(context.new_page(), base, phone)
    try:
        task(reader, arxiv) if task is task_arxiv_id else task(reader)
        return reader.count, " → ".join(reader.path)
    except Exception as exc:  # a task that cannot be done is a row of the table, not a crash
        return None, f"failed: {' → '.join(reader.path)}: {str(exc).splitlines()[0]}"
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    arxiv = an_arxiv_id(args.site)
    rows, totals = [], {"desktop": 0, "phone": 0}
    with serve(args.site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for number, (name, task) in enumerate(TASKS, 1):
                desktop, path = run(browser, base, DESKTOP, task, arxiv)
                phone, phone_path = run(browser, base, PHONE, task, arxiv)
                for size, n in (("desktop", desktop), ("phone", phone)):
                    totals[size] += n or 0
                shown = path if path == phone_path else f"desktop: {path}; phone: {phone_path}"
                rows.append(f"| {number} | {name} | {'failed' if desktop is None else desktop} | "
                            f"{'failed' if phone is None else phone} | {shown} |")
                print(rows[-1], file=sys.stderr, flush=True)
        finally:
            browser.close()
    print("| # | Task | Desktop | Phone | Path |\n| --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    print(f"| | **Total** | **{totals['desktop']}** | **{totals['phone']}** | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
