"""What a BibTeX entry's fields say, once bibtex.py has read them: its arXiv id (from whichever
field gives one), its date and its links.

Apart from bibtex.py so that each stays a size a person reads whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pybtex.database.input.bibtex import month_names

from ..core.tex import bib_text
from ..core.text import shorten
from ..corpus.fields import ARXIV_ID, URL_RE, date_problem, is_arxiv, is_date

_ARXIV_URL = re.compile(rf"arxiv\.org/(?:abs|pdf)/({ARXIV_ID})(?:v\d+)?", re.I)
_ARXIV_DOI = re.compile(rf"10\.48550/arxiv\.({ARXIV_ID})", re.I)
_ARXIV_IN_TEXT = re.compile(rf"arxiv\b[^0-9]{{0,40}}?({ARXIV_ID})(?:v\d+)?", re.I)
_ARXIV_BARE = re.compile(rf"^(?:arxiv:)?\s*({ARXIV_ID})(?:v\d+)?$", re.I)
_MONTHS = {name[:3].lower(): n for n, name in enumerate(month_names.values(), 1)}


def arxiv_id(raw: dict[str, str]) -> str | None:
    """The arXiv id, from the most explicit field that gives one."""
    values = {name: bib_text(value) for name, value in raw.items() if name in _ARXIV_FIELDS}
    prefix = (values.get("archiveprefix") or values.get("eprinttype") or "").lower()
    eprint = values.get("eprint", "")
    found = _ARXIV_BARE.match(eprint) if eprint and prefix in ("", "arxiv") else None
    searches: list[tuple[str, Callable[[str], re.Match[str] | None]]] = [
        ("url", _ARXIV_URL.search), ("howpublished", _ARXIV_URL.search), ("doi", _ARXIV_DOI.search),
        ("journal", _ARXIV_IN_TEXT.search), ("journaltitle", _ARXIV_IN_TEXT.search),
        ("booktitle", _ARXIV_IN_TEXT.search), ("howpublished", _ARXIV_IN_TEXT.search),
    ]
    for name, search in searches:
        if found:
            break
        found = search(values.get(name, ""))
    if not found and values.get("journal", "").lower() == "corr":  # DBLP: volume = {abs/ID}
        found = re.match(rf"^abs/({ARXIV_ID})$", values.get("volume", ""))
    arxiv = found.group(1) if found else None
    return arxiv if arxiv and is_arxiv(arxiv) else None


_ARXIV_FIELDS = ("archiveprefix", "eprinttype", "eprint", "url", "howpublished", "doi", "journal",
                 "journaltitle", "booktitle", "volume")


def entry_date(values: dict[str, str]) -> str | None:
    """The entry's date, or None where it gives none a paper can bear (`2024-02-30`, `9999`)."""
    date = _given_date(values)
    return date if date and date_problem(date) is None else None


def _given_date(values: dict[str, str]) -> str | None:
    given = bib_text(values.get("date", "")).split("/")[0]
    if given and is_date(given):
        return given
    year = bib_text(values.get("year", ""))
    if not re.fullmatch(r"\d{4}[a-z]?", year, re.ASCII):  # 2023a: a second paper of that year
        return None
    year = year[:4]
    month = bib_text(values.get("month", "")).lower()
    number = int(month) if month.isdigit() else None
    if number is None:
        word = re.search(r"[a-z]{3,}", month)
        number = _MONTHS.get(word.group()[:3]) if word else None
    return f"{year}-{number:02d}" if number and 1 <= number <= 12 else year


# A link as the whole of a `url` field (`\url{...}` around it or not), or on its own in the free
# text of `howpublished` ("Available at \url{https://...}"): never one cut out of another word,
# such as `javascript:alert(1)//http://...`.
_URL_FIELD = re.compile(r"^\s*(?:\\url\{\s*([^{}]*?)\s*\}|([^{}]*?))\s*$")
_URL_IN_TEXT = re.compile(r"(?<![^\s{])https?://[^\s{}]+")


def _link(values: dict[str, str]) -> str:
    if "url" in values:
        whole = _URL_FIELD.match(values["url"])
        url = (whole.group(1) or whole.group(2) or "") if whole else ""
        return url if URL_RE.match(url) else ""
    given = _URL_IN_TEXT.search(values.get("howpublished", ""))
    return given.group() if given and URL_RE.match(given.group()) else ""


def entry_notes(values: dict[str, str]) -> list[str]:
    """What of a read entry was left out that a person would look for."""
    if "url" in values and not _link(values) and values["url"].strip():
        return [f"field 'url': {shorten(values['url'])} is not one http:// or https:// link; not read"]
    return []


def entry_links(values: dict[str, str]) -> dict[str, str]:
    """`url` and `doi` as the paper's links: an arXiv URL or DOI is not one (the arXiv id gives
    the abstract page and the PDF); a repository is the code, a .pdf the PDF."""
    links: dict[str, str] = {}
    url = _link(values)
    if url and not _ARXIV_URL.search(url):
        host = re.match(r"https?://(?:www\.)?([^/]+)", url)
        if host and host.group(1).lower() in ("github.com", "gitlab.com"):
            links["code"] = url
        elif url.lower().endswith(".pdf"):
            links["pdf"] = url
        else:
            links["paper"] = url
    doi = re.sub(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", "", values.get("doi", "").strip(), flags=re.I)
    if doi and "paper" not in links and not _ARXIV_DOI.search(doi):
        doi_url = "https://doi.org/" + doi
        if URL_RE.match(doi_url):
            links["paper"] = doi_url
    return links
