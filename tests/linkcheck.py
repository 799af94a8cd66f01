"""Link integrity of a built site (for the tests): every internal href and src, anchors included,
resolves.

Uses the standard library's HTML parser (fast enough for thousands of pages), and reads
each page once.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


@dataclass(frozen=True)
class BrokenLink:
    page: str
    attr: str
    target: str
    why: str

    def __str__(self) -> str:
        return f"{self.page}: {self.attr}={self.target!r}: {self.why}"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.ids.add(value)
            elif name in ("href", "src") and tag not in ("base",):
                self.links.append((name, value))


def _resolve(site: Path, page: Path, target: str, base: str) -> Path | None:
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith(("mailto:", "data:", "javascript:")):
        return None
    path = unquote(parts.path)
    if not path:
        return page
    if path.startswith("/"):
        # Absolute paths (the 404 page uses them) are below the site URL's path.
        path = "/" + path[len(base):] if path.startswith(base) else path
        joined = posixpath.normpath(path)
    else:
        joined = posixpath.normpath(posixpath.join("/" + page.parent.relative_to(site).as_posix(), path))
    resolved = site / joined.lstrip("/")
    if resolved.is_dir() or path.endswith("/"):
        resolved = resolved / "index.html"
    return resolved


def check_site(site: Path, *, base: str = "/", first_only: bool = False) -> list[BrokenLink]:
    """`base` is the path of the site's URL (`site_url`), e.g. "/survey/"."""
    site = site.resolve()
    base = base if base.endswith("/") else base + "/"
    pages = sorted(site.rglob("*.html"))
    parsed: dict[Path, _Collector] = {}

    def parse(path: Path) -> _Collector:
        if path not in parsed:
            collector = _Collector()
            collector.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = collector
        return parsed[path]

    broken: list[BrokenLink] = []
    for page in pages:
        rel = page.relative_to(site).as_posix()
        for attr, target in parse(page).links:
            if target.startswith("javascript:"):
                broken.append(BrokenLink(rel, attr, target, "a javascript: link"))
            resolved = _resolve(site, page, target, base)
            if resolved is None:
                continue
            if not resolved.exists():
                broken.append(BrokenLink(rel, attr, target, "no such file in the site"))
            else:
                fragment = unquote(urlsplit(target).fragment)
                if fragment and resolved.suffix == ".html" and fragment not in parse(resolved).ids:
                    broken.append(BrokenLink(rel, attr, target, f"no element with id {fragment!r}"))
            if broken and first_only:
                return broken
    return broken
