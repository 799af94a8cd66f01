"""The sitemaps: a small sitemap.xml that every page view fetches, every page for search engines.

Material's instant navigation downloads `sitemap.xml` on every full page load (once for itself
and once more for each `<link rel="alternate">`, the feeds) and intercepts a click only when the
link's page is listed there; a link to a page not listed loads as a normal page. With every
paper listed, that file grows with the corpus (1.9 MB at 10,000 papers, 19 MB at 100,000) and
a single sitemap may not hold more than 50,000 URLs anyway.

So MkDocs' sitemap is split after the build:

- `sitemap.xml` keeps the pages readers move between: the hand-written pages, the indexes and
  the first part of every topic, tag and listing (a size set by the taxonomy, not the corpus);
  instant navigation serves these.
- `sitemap-pages-N.xml` holds everything else (the papers, the later parts of long lists), at
  most 50,000 URLs each; those links load as ordinary pages.
- `sitemap-index.xml` lists all of them: the file to give search engines.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

INDEX = "sitemap-index.xml"
PER_FILE = 50_000  # the sitemap protocol's limit of URLs per file

_URL = re.compile(r"[ \t]*<url>.*?</url>\n?", re.S)
_LOC = re.compile(r"<loc>([^<]*)</loc>")
# A page that only the full sitemaps list: a paper page, or a numbered later part of a list
# ("topics/serving/3/", ".../by-title/3/"); the path is relative to the site root.
_DETAIL = re.compile(r"^(?:papers/.+|(?:topics|tags|listings)/.+/\d+/)$")


def split_sitemap(site_dir: Path, site_url: str) -> tuple[int, int] | None:
    """Split MkDocs' sitemap.xml in place; returns (pages kept in sitemap.xml, pages moved).

    Does nothing (returns None) without a sitemap.xml or a site_url; the entries are copied as
    MkDocs wrote them, in its order, so the same site gives the same files.
    """
    main = site_dir / "sitemap.xml"
    if not site_url or not main.is_file():
        return None
    text = main.read_text(encoding="utf-8")
    entries = list(_URL.finditer(text))
    if not entries:
        return None
    head, tail = text[:entries[0].start()], text[entries[-1].end():]
    base = site_url if site_url.endswith("/") else site_url + "/"
    kept: list[str] = []
    moved: list[str] = []
    for match in entries:
        loc = _LOC.search(match.group(0))
        path = loc.group(1)[len(base):] if loc and loc.group(1).startswith(base) else ""
        (moved if _DETAIL.match(path) else kept).append(match.group(0))
    for old in site_dir.glob("sitemap-pages-*.xml"):
        old.unlink()
    names = ["sitemap.xml"]
    for number, start in enumerate(range(0, len(moved), PER_FILE), start=1):
        name = f"sitemap-pages-{number}.xml"
        (site_dir / name).write_text(head + "".join(moved[start:start + PER_FILE]) + tail, encoding="utf-8")
        names.append(name)
    small = head + "".join(kept) + tail
    main.write_text(small, encoding="utf-8")
    # MkDocs' own gzip copy carries the build time; this one is the same bytes every build.
    (site_dir / "sitemap.xml.gz").write_bytes(gzip.compress(small.encode("utf-8"), mtime=0))
    (site_dir / INDEX).write_text(sitemap_index([base + name for name in names]), encoding="utf-8")
    return len(kept), len(moved)


def sitemap_index(locations: list[str]) -> str:
    from xml.sax.saxutils import escape

    items = "".join(f"    <sitemap>\n         <loc>{escape(loc)}</loc>\n    </sitemap>\n"
                    for loc in locations)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{items}</sitemapindex>\n")
