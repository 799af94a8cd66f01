"""Typed access to one record's raw mapping, as the corpus model reads it: each problem noted
with its file, entry and field, and checking goes on."""

from __future__ import annotations

from datetime import date as _date
from typing import Any

from ..core.errors import CorpusError, raise_problems
from ..core.text import bad_character, bad_name, has_markup, shorten, squash

MAX_TEXT = 1_000  # any text field without a limit of its own (ids, dates, sources): real max 64
MAX_ITEMS = 100  # alternate titles or enriched records of one paper: real max 1 and 0


def _err(path: str, entry: str | None, name: str, message: str) -> CorpusError:
    return CorpusError(path, message, entry=entry, field=name)


class Fields:
    """Typed access to one record's raw mapping. Each problem is noted (naming file, entry and
    field) and checking goes on, so that one run reports every problem of a file; `done` raises
    them. Only a record that is not a mapping at all stops at once."""

    def __init__(self, data: Any, path: str, entry: str | None, allowed: tuple[str, ...],
                 prefix: str = "", problems: list[CorpusError] | None = None) -> None:
        if not isinstance(data, dict):
            raise CorpusError(path, f"expected a mapping of fields, found {kind(data)}", entry=entry,
                              field=prefix.rstrip(".") or None)
        self.data, self.path, self.entry, self.prefix = data, path, entry, prefix
        self.problems: list[CorpusError] = [] if problems is None else problems
        for unknown in sorted(str(k) for k in data if k not in allowed):
            self.problem(unknown, f"unknown field; known fields: {', '.join(allowed)}")

    def problem(self, name: str, message: str) -> None:
        self.problems.append(_err(self.path, self.entry, self.prefix + name, message))

    def done(self) -> None:
        raise_problems(self.problems)

    def text(self, name: str, *, required: bool = False, single_line: bool = True,
             limit: int = MAX_TEXT, plain: bool = False) -> str | None:
        """The field's text, or None when it is absent or has a problem (noted)."""
        value = self.data.get(name)
        if value is None:
            if required:
                self.problem(name, "is required")
            return None
        if isinstance(value, _date):
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
                  items: int = MAX_ITEMS, names: bool = False) -> list[str]:
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
            problem = text_problem(item, limit, False, names)
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


def text_problem(value: str, limit: int, plain: bool, name: bool = False) -> str | None:
    if len(value) > limit:
        return f"is {len(value):,} characters long; at most {limit:,} are allowed"
    bad = bad_name(value) if name else bad_character(value)
    if bad:
        return bad
    if plain and has_markup(value):
        return "contains markup (an HTML tag, comment or declaration); write it as plain text"
    return None


def kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false", int: "a number",
            float: "a number", type(None): "nothing"}.get(type(value), type(value).__name__)
