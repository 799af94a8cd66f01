"""What an import records of its source, for a reader: the listing's name, its date with the
year, where it was.

Every source an import reads becomes a listing (corpus/model.Listing): a Hugging Face listing,
and also a feed (arXiv Atom, daily-papers JSON), a bibliography or a saved paper page, so a
paper's page says where it came from ("arXiv feed arxiv-mlsys-2024-12-to-2025-12, imported
2026-11-28"); only `survey add` adds a paper that no listing holds. A name never shows an
internal file name: a Hugging Face listing is named by its date, a feed or a bibliography by its
file's name (which names the feed: `arxiv-mlsys-2024-12-to-2025-12.atom.xml.gz`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from pathlib import Path

from ..corpus.model import is_date
from .raw import Source

# What a reader calls a source of each format.
KINDS = {"hf-text": "Hugging Face Papers", "hf-html": "Hugging Face Papers",
         "hf-json": "Hugging Face daily papers", "arxiv-atom": "arXiv feed", "bibtex": "BibTeX bibliography"}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SHOWN = re.compile(r"^([A-Za-z]{3})[a-z]*\.? (\d{1,2})(?:, (\d{4}))?$")
_SUFFIXES = (".gz", ".xml", ".atom", ".json", ".txt", ".html", ".htm", ".bib")
# An arXiv id gives the month its paper was first submitted: 2503.01328 is 2025-03.
_ARXIV_MONTH = re.compile(r"^(\d\d)(0[1-9]|1[0-2])\.")


def stem(path: str) -> str:
    """A source file's name without its format's suffixes: `arxiv-mlsys.atom.xml.gz` is `arxiv-mlsys`."""
    name = Path(path).name
    while name.lower().endswith(_SUFFIXES) and "." in name[1:]:
        name = name[:name.rfind(".")]
    return name


def month_of(date: str | None, arxiv: str | None) -> str | None:
    """The month (YYYY-MM) a paper is known to exist from: its date, else its arXiv id's."""
    if date and len(date) >= 7:
        return date[:7]
    match = _ARXIV_MONTH.match(arxiv or "")
    return f"20{match.group(1)}-{match.group(2)}" if match else None


def listing_day(shown: str | None, months: Iterable[str], today: str) -> str | None:
    """The listing's date with its year: as given when it has one (`2025-03-14`, `Mar 14, 2025`);
    for a Hugging Face listing shown without one (`Mar 14`), the first such day on or after the
    newest month of its papers (a listing shows papers that exist), or, knowing none, the last
    such day up to the import. None when there is no date or it is not a day of the calendar."""
    if not shown:
        return None
    if is_date(shown):
        return shown
    match = _SHOWN.match(shown.strip())
    if match is None or match.group(1).lower() not in _MONTHS:
        return None
    month, day = _MONTHS.index(match.group(1).lower()) + 1, int(match.group(2))
    if match.group(3):
        year = int(match.group(3))
    else:
        newest = max(months, default=None)
        if newest is not None:
            year = int(newest[:4]) + ((month, day) < (int(newest[5:7]), 1))
        else:
            now = datetime.date.fromisoformat(today)
            year = now.year - ((month, day) > (now.month, now.day))
    try:
        return datetime.date(year, month, day).isoformat()
    except ValueError:
        return None


def listing_name(source: Source, day: str | None, today: str) -> str:
    """The name a reader knows the source by."""
    kind = KINDS.get(source.format, source.format)
    if not source.is_listing:  # a saved paper page, a single paper's JSON: named by its arXiv id
        first = source.entries[0].arxiv if source.entries else None
        return f"Hugging Face paper page {first or stem(source.path)}"
    if source.format in ("hf-text", "hf-html") or (source.format == "hf-json" and day):
        if day:
            when = datetime.date.fromisoformat(day) if len(day) == 10 else None
            return f"{kind}, {when.strftime('%b')} {when.day}, {when.year}" if when else f"{kind}, {day}"
        if source.format != "hf-json":
            return f"{kind} listing, imported {today}"
    return f"{kind} {stem(source.path)}"
