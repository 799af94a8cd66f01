"""The papers by their arXiv id and DOI: small files the search box reads to open a paper by its id.

Pagefind matches words, so an id finds nothing exact: "2504.11651" matched "MI250X" and "\\250
million" and not the paper of that id. A query that reads as an id (docs/assets/search.js parses
the forms readers paste: `arXiv:2504.11651v2`, an arxiv.org URL, a DOI) is looked up here instead:
the id's key names one of BUCKETS files, `ids/NNN.json`, which maps each key it holds to what a
result shows (the paper's page, title and entry). The browser fetches that one file, and only for
such a query: at 10,000 papers about 10 ids a file, about 4 KB (1.5 KB compressed).

A key is an arXiv id without its version ("2504.11651", "cs/0112017"), or a DOI in lower case
("10.1145/3600006.3613165": DOIs are case-insensitive), taken from the paper's own links. Its
file is FNV-1a (32 bits, over its UTF-8 bytes) modulo BUCKETS: search.js computes the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from urllib.parse import unquote

from ..core.tex import tex_text
from ..corpus.model import Paper

BUCKETS = 1024
FOLDER = "ids"

# A DOI in a paper's link: doi.org/DOI, or a publisher's page of it (.../doi/abs/DOI,
# link.springer.com/article/DOI).
_DOI_URL = re.compile(r"^https?://(?:(?:dx\.)?doi\.org/|[^/]+/(?:doi/(?:abs/|full/|pdf/|epdf/)?"
                      r"|(?:article|chapter)/))(10\.[0-9]{4,9}/[^?#\s]+)", re.IGNORECASE)


def doi(paper: Paper) -> str | None:
    """The paper's DOI, in lower case, as its paper or PDF link gives it; None if neither does."""
    for kind in ("paper", "pdf"):
        match = _DOI_URL.match(paper.links.get(kind, ""))
        if match:
            found = unquote(match.group(1)).removesuffix(".pdf").rstrip("/")
            # DOIs compare case-insensitively in ASCII; search.js lowers the same letters only.
            return found.translate(_ASCII_LOWER)
    return None


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def arxiv_key(arxiv: str) -> str:
    """An arXiv id as search.js reads one: an old-style id without its subject class, its archive
    in lower case ("math.GT/0309136" is "math/0309136", as arXiv's own links have it)."""
    archive, slash, number = arxiv.rpartition("/")
    return f"{archive.split('.')[0].translate(_ASCII_LOWER)}/{number}" if slash else arxiv


def keys(paper: Paper) -> list[str]:
    """The ids a reader may type for this paper: its arXiv id, its DOI."""
    return [key for key in (paper.arxiv and arxiv_key(paper.arxiv), doi(paper)) if key]


def bucket(key: str) -> int:
    """The file that holds `key`: FNV-1a of its UTF-8 bytes, modulo BUCKETS (as search.js does)."""
    value = 0x811C9DC5
    for byte in key.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value % BUCKETS


def path(number: int) -> str:
    return f"{FOLDER}/{number:03x}.json"


def id_files(papers: Iterable[Paper], url: Callable[[Paper], str],
             entry: Callable[[Paper], str]) -> dict[str, str]:
    """Each file's path and JSON: {key: [page URL from the site's root, title, entry]}, the entry
    as the paper's page gives it to the index (entries.search_entry). Every file, an empty one as
    `{}`: the browser then never asks for a file that is not there (a 404 is an error in its
    console, and the site is static: nothing else can say "no such id")."""
    files: dict[int, dict[str, list[object]]] = {}
    for paper in papers:
        shown: list[object] | None = None
        for key in keys(paper):
            if shown is None:
                shown = [url(paper), tex_text(paper.title), json.loads(entry(paper))]
            # Two papers with one DOI (a paper's versions): the first by slug keeps it.
            files.setdefault(bucket(key), {}).setdefault(key, shown)
    return {path(number): json.dumps(dict(sorted(files.get(number, {}).items())), ensure_ascii=False,
                                     separators=(",", ":"))
            for number in range(BUCKETS)}
