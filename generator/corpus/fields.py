"""Typed access to one record's raw mapping, as the corpus model reads it: each problem noted
with its file, entry and field, and checking goes on; and what a date, an arXiv id or a link
must be, wherever one is read (a corpus file, every source, the enrich APIs)."""

from __future__ import annotations

import datetime
import re
from typing import Any

from ..core.errors import CorpusError, Problems, raise_problems
from ..core.text import bad_character, has_markup, is_slug, shorten, squash, tex_character

# An arXiv id (https://info.arxiv.org/help/arxiv_identifier.html): YYMM.NNNNN from 2015,
# YYMM.NNNN from 0704 to 1412, archive/YYMMNNN (cs/0701001) before. ASCII digits only (\d is any
# script's: '２４０１.００００１' made a link to nowhere). ARXIV_ID finds one in a link or a text (the
# one spelling of it); is_arxiv says whether arXiv could have issued it.
ARXIV_ID = r"(?:[0-9]{4}\.[0-9]{4,5}|[a-z][a-z.-]*(?:\.[A-Z]{2})?/[0-9]{7})"
_ARXIV = re.compile(rf"{ARXIV_ID}\Z")
DATE_RE = re.compile(r"^\d{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?)?\Z", re.ASCII)
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}\Z", re.ASCII)
# A link's host is what it shows: no user or password before an `@` (`https://arxiv.org@evil.example/`
# goes to evil.example) and ASCII only (a Cyrillic `а` passes for a Latin one; write it punycode).
URL_RE = re.compile(r"^https?://[A-Za-z0-9._-]+(?::[0-9]+)?(?:[/?#][^\s<>\"'`\\]*)?\Z")


def is_date(text: str, day: bool = False) -> bool:
    """YYYY, YYYY-MM or YYYY-MM-DD (only the last with day=True), a day of the calendar (not 2024-02-30)."""
    if not (DAY_RE if day else DATE_RE).match(text):
        return False
    if len(text) < 10:
        return True
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def latest_day() -> str:
    """The latest day a paper may bear: tomorrow by this machine's clock, a day of margin for the
    time zones. `date: '9999-12-31'` pinned a paper first in every newest-first list and feed."""
    return (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)).date().isoformat()


def date_problem(text: str, day: bool = False, what: str = "a paper") -> str | None:
    """Why a paper's date (or the day it was added; or `what`'s) cannot be kept, or None."""
    if not is_date(text, day):
        return f"{shorten(text)} is not a date: use {'YYYY-MM-DD' if day else 'YYYY, YYYY-MM or YYYY-MM-DD'}"
    latest = latest_day()
    if text > latest[:len(text)]:
        return f"{text} is still to come (the latest day {what} may bear is {latest})"
    return None


def strip_version(arxiv: str) -> str:
    """An arXiv id without its version (2401.00001v2 is 2401.00001)."""
    return re.sub(r"v[0-9]+\Z", "", arxiv.strip())


def is_arxiv(text: str) -> bool:
    if not _ARXIV.match(text):
        return False
    number = text.rpartition("/")[2]
    yymm = number[:4]
    if not "01" <= yymm[2:] <= "12":
        return False
    if "/" in text:  # August 1991 to March 2007
        return yymm >= "9108" or yymm <= "0703"
    latest = latest_day()
    return "0704" <= yymm <= latest[2:4] + latest[5:7] and (len(number) == 9) == (yymm <= "1412")


MAX_TEXT = 1_000  # any text field without a limit of its own (ids, dates, sources): real max 64
MAX_ITEMS = 100  # alternate titles or enriched records of one paper: real max 1 and 0


class Fields:
    """Typed access to one record's raw mapping. Each problem is noted (naming file, entry and
    field) and checking goes on, so that one run reports every problem of a file; `done` raises
    them. Only a record that is not a mapping at all stops at once."""

    def __init__(self, data: Any, path: str, entry: str | None, allowed: tuple[str, ...],
                 prefix: str = "", problems: Problems | None = None, retired: tuple[str, ...] = ()) -> None:
        if not isinstance(data, dict):
            raise CorpusError(path, f"expected a mapping of fields, found {kind(data)}", entry=entry,
                              field=prefix.rstrip(".") or None)
        if entry is None and isinstance(data.get("slug"), str) and is_slug(data["slug"]):
            entry = data["slug"]  # a record is named by its own slug in every line, the first included
        self.data, self.path, self.entry, self.prefix = data, path, entry, prefix
        self.problems = Problems() if problems is None else problems
        # A retired field is passed over, never named to a person as one to write.
        for unknown in sorted(str(k) for k in data if k not in allowed and k not in retired):
            self.problem(unknown, f"unknown field; known fields: {', '.join(allowed)}")

    def problem(self, name: str, message: str) -> None:
        if not self.problems.counted(self.path):
            self.problems.append(CorpusError(self.path, message, entry=self.entry, field=self.prefix + name))

    def done(self, record: Any = None) -> None:
        """Raise the problems noted, if any (with `record`, the record as far as it was read)."""
        raise_problems(self.problems, record)

    def slug(self) -> str | None:
        """The record's slug (a valid one names the entry of every problem: __init__)."""
        slug = self.text("slug", required=True)
        if slug is not None and not is_slug(slug):
            self.problem("slug", f"{shorten(slug)} is not a slug (lower-case letters, digits, single "
                                 "hyphens)")
        return slug

    def text(self, name: str, *, required: bool = False, single_line: bool = True,
             limit: int = MAX_TEXT, plain: bool = False) -> str | None:
        """The field's text, or None when it is absent or has a problem (noted)."""
        value = self.data.get(name)
        if value is None:
            if required:
                self.problem(name, "is required")
            return None
        if isinstance(value, datetime.date):
            value = value.isoformat()
        if not isinstance(value, str):
            self.problem(name, f"must be text, found {kind(value)} {shorten(value)} (quote it)")
            return None
        problem = text_problem(value, limit, plain)
        if problem is None and single_line and value != squash(value):
            problem = "must be one line without leading, trailing or repeated spaces"
        if problem is None and required and not value:
            problem = "must not be empty"
        if problem is not None:
            self.problem(name, problem)
            return None
        return value

    def text_list(self, name: str, *, unique: bool = True, limit: int = MAX_TEXT,
                  items: int = MAX_ITEMS) -> list[str]:
        """The field's list of texts, without the items that have a problem (each noted)."""
        value = self.data.get(name)
        if value is None:
            return []
        if not isinstance(value, list):
            self.problem(name, f"must be a list, found {kind(value)}")
            return []
        if len(value) > items:
            self.problem(name, f"has {len(value):,} items; at most {items:,} are allowed")
            return []
        out: list[str] = []
        seen: set[str] = set()
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.problem(f"{name}[{i}]", f"must be non-empty text, found {shorten(item)}")
                continue
            problem = text_problem(item, limit, False)
            if problem is None and item != squash(item):
                problem = "must be one line without extra spaces"
            if problem is None and unique and item in seen:
                problem = f"{shorten(item)} is listed twice"
            if problem is not None:
                self.problem(f"{name}[{i}]", problem)
                continue
            seen.add(item)
            out.append(item)
        return out


def present(fields: dict[str, Any], *always: str) -> dict[str, Any]:
    """A record as its file holds it, in this order: a field with nothing in it (None, false, an
    empty text, list or mapping) is left out, but those named in `always`."""
    return {k: v for k, v in fields.items()
            if k in always or not (v is None or v is False or (isinstance(v, (str, list, dict)) and not v))}


def text_problem(value: str, limit: int, plain: bool) -> str | None:
    if len(value) > limit:
        return f"is {len(value):,} characters long; at most {limit:,} are allowed"
    bad = bad_character(value) or tex_character(value)  # what its TeX gives too, as pages show it
    if bad:
        return bad
    if plain and has_markup(value):
        return "contains markup (an HTML tag, comment or declaration); write it as plain text"
    return None


def kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false", int: "a number",
            float: "a number", type(None): "nothing"}.get(type(value), type(value).__name__)
