"""Reading the Hugging Face daily-papers API's JSON (a list of papers, or one paper object) into
entries; `hf_item_entry` reads one item, also for the saved HTML pages that embed them.

In a module of its own for the size of readers.py; readers.py chooses it by the content.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.errors import SourceError
from ..core.text import shorten, squash
from ..corpus.fields import URL_RE, is_date, strip_version
from ..corpus.model import MAX_ENTRIES
from .intake import LONG_NUMBER
from .raw import RawEntry, Source

DEEP_JSON = "nested too deeply (daily-papers JSON is 6 levels deep)"

# The fields `hf_item_entry` reads; the API's other fields (avatars, organisations, media, AI
# summaries) would double the memory a 9,000-paper file takes once parsed.
_HF_FIELDS = frozenset(("paper", "id", "title", "summary", "authors", "name", "hidden", "publishedAt",
                        "githubRepo", "projectPage"))


_SPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, pos: int) -> int:
    found = _SPACE.match(text, pos)
    return found.end() if found else pos


def read_hf_json(text: str, path: str, digest: str) -> Source:
    """The items of a daily-papers array are parsed and read one at a time, each dropped once it
    is an entry: a first item that is no paper (`[{},{},...]`) is refused before the second is
    built (json.loads of 100 MiB of `{},` takes 52 s and 2.6 GB), one item's objects held at once."""

    def fields(obj: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in obj.items() if key in _HF_FIELDS}

    decoder = json.JSONDecoder(object_hook=fields)

    def decode(pos: int) -> tuple[Any, int]:
        try:
            return decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            raise
        except ValueError:  # Python reads no integer of more than 4,300 digits
            raise SourceError(path, f"JSON with {LONG_NUMBER}, which no daily-papers file has; "
                                    "not read") from None
    entries: list[RawEntry] = []
    pos = _skip_space(text, 0)
    is_listing = text.startswith("[", pos)
    try:
        if not is_listing:
            item, pos = decode(pos)
            entries.append(hf_item_entry(item, 1, path))
        elif text.startswith("]", pos := _skip_space(text, pos + 1)):
            pos += 1
        else:
            while True:
                if len(entries) == MAX_ENTRIES:
                    raise SourceError(path, f"has over {MAX_ENTRIES:,} papers, the most one listing "
                                            f"holds; split it")
                item, pos = decode(pos)
                entries.append(hf_item_entry(item, len(entries) + 1, path))
                pos = _skip_space(text, pos)
                if text.startswith("]", pos):
                    pos += 1
                    break
                if not text.startswith(",", pos):
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
                pos = _skip_space(text, pos + 1)
        if (pos := _skip_space(text, pos)) < len(text):
            raise json.JSONDecodeError("Extra data", text, pos)
    except json.JSONDecodeError as exc:
        raise SourceError(path, f"malformed JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
    except RecursionError:  # Python's JSON reader nests as deep as its stack: about 1,000 levels
        raise SourceError(path, f"malformed JSON: {DEEP_JSON}") from None
    return Source(path=path, format="hf-json", sha256=digest, entries=entries,
                  is_listing=is_listing, date=max((e.date for e in entries if e.date), default=None))


def hf_item_entry(item: Any, position: int, path: str) -> RawEntry:
    """One item of the daily-papers API (`{"paper": {...}}`), or a bare paper object."""
    if not isinstance(item, dict):
        raise SourceError(path, "each item must be an object", entry=f"#{position}")
    paper = item.get("paper", item)
    if not isinstance(paper, dict):
        raise SourceError(path, "must be an object", entry=f"#{position}", field="paper")
    title = paper.get("title", item.get("title"))
    label = f"#{position}" + (f" {shorten(title[:60])}" if isinstance(title, str) else "")
    summary = paper.get("summary", item.get("summary"))
    for name, value in (("title", title), ("summary", summary)):
        if not isinstance(value, str) or not value.strip():
            raise SourceError(path, "is missing or not text", entry=label, field=f"paper.{name}")
    # An item that is a paper but has a field no paper may have is left out as check would
    # refuse it (`problem`); one that is no paper (above) refuses the file: it is not this format.
    problem = None
    arxiv = paper.get("id")
    if arxiv is not None and not isinstance(arxiv, str):
        problem, arxiv = SourceError(path, "must be text", entry=label, field="paper.id"), None
    authors = []
    for j, author in enumerate(paper.get("authors") or []):
        author_name = author.get("name") if isinstance(author, dict) else None
        if not isinstance(author_name, str):
            problem = problem or SourceError(path, "must have a name", entry=label,
                                             field=f"paper.authors[{j}]")
            break
        if squash(author_name) and not (isinstance(author, dict) and author.get("hidden") is True):
            authors.append(squash(author_name))
    links = {}
    for kind, key in (("code", "githubRepo"), ("project", "projectPage")):
        url = paper.get(key)
        if isinstance(url, str) and URL_RE.match(url):
            links[kind] = url
    return RawEntry(
        title=squash(str(title)), abstract=squash(str(summary)), position=position,
        arxiv=strip_version(arxiv) if arxiv else None, authors=authors,
        date=iso_date(paper.get("publishedAt") or item.get("publishedAt")), links=links, problem=problem,
    )


def iso_date(value: Any) -> str | None:
    """The day of an ISO timestamp; nothing for what is not a real day ('2025-13-45')."""
    return value[:10] if isinstance(value, str) and is_date(value[:10], day=True) else None
