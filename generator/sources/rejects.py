"""The papers a curator rejected (corpus/rejected.yaml), as import, `survey add` and `survey
enrich` meet them: matched the way a duplicate is (the same arXiv id, a title, a near-duplicate
abstract: dedupe.py), so that a rejected paper stays out whatever source brings it back; and
brought back only when asked (`--take ID --force`, `survey add --force`), which also takes it
out of the rejected file.
"""

from __future__ import annotations

import functools
from collections.abc import Container, Sequence

from ..corpus.rejected import REJECTED_FILE, Rejected, rejected_text
from .dedupe import Index


class Rejects:
    def __init__(self, rejected: Sequence[Rejected]) -> None:
        self.entries = list(rejected)
        self.slugs = frozenset(r.slug for r in rejected)
        self.back: dict[str, Rejected] = {}  # brought back: out of the rejected file when written

    @functools.cached_property
    def _index(self) -> Index:
        index = Index()
        for entry in self.entries:
            index.add(entry)
        return index

    def match(self, title: str, abstract: str, arxiv: str | None) -> Rejected | None:
        """The rejected paper this one is, if any (and not brought back)."""
        found = self.find(title, abstract, arxiv)
        return found[0] if found else None

    def find(self, title: str, abstract: str, arxiv: str | None) -> tuple[Rejected, str] | None:
        """The rejected paper this one is and what matched ("title", "arxiv", "abstract" or
        "same abstract"), if any (and not brought back)."""
        if not self.entries:
            return None
        found = self._index.match(title, abstract, arxiv)
        return None if found is None or found.slug in self.back else (self._by_slug[found.slug], found.how)

    @functools.cached_property
    def _by_slug(self) -> dict[str, Rejected]:
        return {r.slug: r for r in self.entries}

    def bring_back(self, entry: Rejected) -> None:
        self.back[entry.slug] = entry

    def files(self) -> list[tuple[str, str | None]]:
        """The rejected file without the papers brought back (none left: no file)."""
        if not self.back:
            return []
        left = [r for r in self.entries if r.slug not in self.back]
        return [(REJECTED_FILE, rejected_text(left) if left else None)]


def why(entry: Rejected) -> str:
    """How a message names a rejection: when, and why where a reason was given."""
    return f"rejected on {entry.rejected}" + (f" ({entry.reason})" if entry.reason else "")


class Taken:
    """The slugs a new paper may not have: the corpus's, and the rejected papers' (a rejected
    paper brought back later keeps its slug, so no other paper may take it)."""

    def __init__(self, papers: Container[str], rejects: Rejects) -> None:
        self.papers, self.rejects = papers, rejects

    def __contains__(self, slug: object) -> bool:
        return slug in self.papers or slug in self.rejects.slugs
