"""Saved Hugging Face Papers pages (a paper page or a listing), parsed with BeautifulSoup.

The page's embedded data (`data-target="PaperContent"` / `"DailyPapers"`, a JSON `data-props`)
is the most faithful source and is preferred. Without it, the visible page is read: the `<h1>`
title and the paragraphs under the "Abstract" heading, leaving out the AI-generated summary box;
inline keyword links in the abstract are kept as their text, so the abstract stays whole.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from bs4 import BeautifulSoup, Tag

from ..core.errors import SourceError
from .intake import check_json_containers

_ARXIV_HREF = re.compile(r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5})(?:v\d+)?")
_PAPER_HREF = re.compile(r"^(?:https://huggingface\.co)?/papers/(\d{4}\.\d{4,5})(?:v\d+)?$")
_ARXIV_TEXT = re.compile(r"^arxiv:\s*(\d{4}\.\d{4,5})(?:v\d+)?$", re.IGNORECASE)
_DAY = re.compile(r"/papers/date/(\d{4}-\d{2}-\d{2})")


@dataclass
class Page:
    is_listing: bool
    items: list[Any] = field(default_factory=list)  # API-shaped dicts or (title, abstract, arxiv)
    date: str | None = None


def parse_hf_html(text: str, path: str) -> Page:
    soup = BeautifulSoup(text, "html.parser")
    for script in soup(["script", "style", "template", "noscript"]):
        script.decompose()

    listing = _props(soup, "DailyPapers", path)
    if listing is not None:
        items = listing.get("dailyPapers") or listing.get("searchResults") or []
        if isinstance(items, list) and items:
            return Page(is_listing=True, items=items, date=_str(listing.get("dateString")))
    paper = _props(soup, "PaperContent", path)
    if paper is not None and isinstance(paper.get("paper"), dict):
        return Page(is_listing=False, items=[paper["paper"]])

    cards = [a for a in soup.find_all("article") if _card_link(a)]
    if cards:
        return Page(is_listing=True, items=[_card(a, i, path) for i, a in enumerate(cards, 1)],
                    date=_listing_date(soup))
    h1 = soup.find("h1")
    if h1 is not None:
        title = _text(h1)
        abstract = _abstract(soup)
        if not abstract:
            raise SourceError(path, "is missing: no paragraph under an 'Abstract' heading",
                              entry=f"#1 {title!r}", field="abstract")
        return Page(is_listing=False, items=[(title, abstract, _arxiv(soup))])
    raise SourceError(path, "an HTML page, but not a Hugging Face paper or listing page "
                            "(no paper cards, no title)")


def _props(soup: BeautifulSoup, target: str, path: str) -> dict[str, Any] | None:
    node = soup.select_one(f'[data-target="{target}"]')
    if not isinstance(node, Tag) or not node.get("data-props"):
        return None
    props = str(node["data-props"])
    check_json_containers(props, path)
    try:
        data = json.loads(props)
    except json.JSONDecodeError as exc:
        raise SourceError(path, f"the page's embedded {target} data is not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise SourceError(path, f"the page's embedded {target} data is JSON nested too deeply") from None
    return data if isinstance(data, dict) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _text(node: Tag) -> str:
    # get_text("") keeps inline links and highlights inside words and sentences intact.
    return " ".join(node.get_text("").split())


def _card_link(article: Tag) -> Tag | None:
    h3 = article.find(["h3", "h2"])
    link = h3.find("a", href=_PAPER_HREF) if isinstance(h3, Tag) else None
    return link if isinstance(link, Tag) else None


def _card(article: Tag, position: int, path: str) -> tuple[str, str, str | None]:
    link = _card_link(article)
    assert link is not None
    title = _text(link)
    match = _PAPER_HREF.match(str(link["href"]))
    heading = link.find_parent(["h3", "h2"])
    abstract = ""
    for p in article.find_all("p"):
        if heading is not None and heading in p.parents:
            continue
        abstract = _text(p)
        if abstract:
            break
    if not abstract:
        raise SourceError(path, "is missing: this listing page shows titles only; save the "
                                "paper pages or use the daily-papers JSON", entry=f"#{position} {title!r}",
                          field="abstract")
    return title, abstract, match.group(1) if match else None


def _is_ai_summary(node: Tag) -> bool:
    for parent in [node, *node.parents]:
        classes = " ".join(parent.get("class") or []) if isinstance(parent, Tag) else ""
        if "bg-blue" in classes or "ai-summary" in classes:
            return True
    return False


def _abstract(soup: BeautifulSoup) -> str:
    heading = soup.find(lambda t: t.name in ("h2", "h3") and _text(t).strip().lower() == "abstract")
    if heading is None:
        return ""
    section = heading.find_parent("div", class_=lambda c: bool(c and "pb-8" in c)) or heading.parent
    paragraphs = []
    for node in heading.find_all_next("p"):
        if section is not None and section not in node.parents:
            break
        if node.find_parent(id="community") or node.find_parent(class_="comment"):
            break
        if _is_ai_summary(node):
            continue
        paragraphs.append(_text(node))
    return " ".join(p for p in paragraphs if p)


def _arxiv(soup: BeautifulSoup) -> str | None:
    for a in soup.find_all("a", href=True):
        if a.find_parent(id="community") or a.find_parent(class_="comment"):
            continue
        match = _ARXIV_HREF.search(str(a["href"]))
        if match:
            return match.group(1)
    for node in soup.find_all(string=_ARXIV_TEXT):
        match = _ARXIV_TEXT.match(node.strip())
        if match:
            return match.group(1)
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag):
        match = _PAPER_HREF.match(str(canonical.get("href", "")))
        if match:
            return match.group(1)
    return None


def _listing_date(soup: BeautifulSoup) -> str | None:
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag):
        match = _DAY.search(str(canonical.get("href", "")))
        if match:
            return match.group(1)
    return None
