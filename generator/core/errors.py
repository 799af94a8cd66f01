"""Error types. Each one renders as a single line naming the file, the entry and the field."""

from __future__ import annotations

from functools import partial
from typing import Any


class SurveyError(Exception):
    """A problem the user can fix; the CLI prints it as one line, without a traceback."""


class CorpusError(SurveyError):
    def __init__(self, path: str, message: str, *, entry: str | None = None, field: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        self.path, self.message, self.entry, self.field = path, message, entry, field
        self.line, self.column = line, column
        super().__init__(str(self))

    def __reduce__(self) -> tuple[Any, ...]:  # pickled with its fields (raised in a worker process)
        return (partial(type(self), entry=self.entry, field=self.field, line=self.line, column=self.column),
                (self.path, self.message))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [where]
        if self.entry:
            parts.append(f"entry {self.entry}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + f": {self.message}"


class CorpusProblems(CorpusError):
    """Every problem found in one file. Raised, it reads as the first (one line, with a count of
    the others); `survey check` lists them all, so one run shows what to fix."""

    def __init__(self, problems: list[CorpusError]) -> None:
        first = problems[0]
        more = len(problems) - 1
        message = first.message + (f" (and {more} more problem{'s' if more > 1 else ''} in this file)"
                                   if more else "")
        super().__init__(first.path, message, entry=first.entry, field=first.field, line=first.line,
                         column=first.column)
        self.problems = problems

    def __reduce__(self) -> tuple[Any, ...]:
        return (CorpusProblems, (self.problems,))


def raise_problems(problems: list[CorpusError]) -> None:
    """Raise what was found: nothing, the one problem, or all of them."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise CorpusProblems(problems)


def each_problem(exc: CorpusError) -> list[CorpusError]:
    return list(exc.problems) if isinstance(exc, CorpusProblems) else [exc]


class SourceError(CorpusError):
    """A source file that cannot be imported (unknown format, bad entry, bad encoding)."""
