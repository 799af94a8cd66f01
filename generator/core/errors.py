"""Error types. Each one renders as a single line naming the file, the entry and the field."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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


# How many problems are kept: of one file, as `survey review --apply` shows of a decisions file,
# and over a run; the others are counted ("and N more problems in FILE"). Each problem is some
# 600 bytes kept for as little as the 6 of `kN: 0`: a listing of 50 unknown keys an entry cost
# 100 times its size (8 MiB: 842 MB, 1.1 million lines), where its values are held to 10 times.
PER_FILE = 100
PER_RUN = 1_000


class Problems:
    """Problems as they are found, each naming its file: the first PER_FILE of each file (and
    with `per_run`, the first per_run of all) kept in order, the others counted by file."""

    def __init__(self, per_run: int | None = None) -> None:
        self.kept: list[CorpusError] = []
        self.found = 0
        self.per_run = per_run
        self.of: dict[str, int] = {}  # problems found in each file
        self.unshown: dict[str, int] = {}  # of which not kept

    def append(self, problem: CorpusError) -> None:
        if isinstance(problem, CorpusProblems):
            self.merge(problem.all)
            return
        self.found += 1
        path = problem.path
        self.of[path] = self.of.get(path, 0) + 1
        if self.of[path] <= PER_FILE and (self.per_run is None or len(self.kept) < self.per_run):
            self.kept.append(problem)
        else:
            self.unshown[path] = self.unshown.get(path, 0) + 1

    def counted(self, path: str) -> bool:
        """Whether a problem of this file would only be counted: count it, and the caller makes
        none (a fifth of the time of a file of a million problems went into their messages)."""
        if self.of.get(path, 0) < PER_FILE and (self.per_run is None or len(self.kept) < self.per_run):
            return False
        self.found += 1
        self.of[path] = self.of.get(path, 0) + 1
        self.unshown[path] = self.unshown.get(path, 0) + 1
        return True

    def extend(self, problems: Iterable[CorpusError]) -> None:
        for problem in problems:
            self.append(problem)

    def merge(self, other: Problems) -> None:
        self.extend(other.kept)
        for path, n in other.unshown.items():
            self.found += n
            self.of[path] = self.of.get(path, 0) + n
            self.unshown[path] = self.unshown.get(path, 0) + n

    def __len__(self) -> int:
        return self.found

    def __iter__(self) -> Iterator[CorpusError]:
        return iter(self.kept)

    def lines(self) -> list[str]:
        """Each problem kept, each file's count of the others after its last one kept, then the
        files none of whose problems were kept (past per_run): ten by name, the others counted."""
        last = {p.path: i for i, p in enumerate(self.kept)}
        out = []
        for i, problem in enumerate(self.kept):
            out.append(str(problem))
            if last[problem.path] == i and problem.path in self.unshown:
                out.append(_more(self.unshown[problem.path], problem.path))
        rest = [(path, n) for path, n in self.unshown.items() if path not in last]
        out += [_more(n, path) for path, n in rest[:10]]
        if len(rest) > 10:
            n = sum(n for _, n in rest[10:])
            out.append(f"and {n:,} more problem{'s' * (n != 1)} in {len(rest) - 10:,} other files")
        return out


def _more(n: int, path: str) -> str:
    return f"and {n:,} more problem{'s' * (n != 1)} in {path}"


class CorpusProblems(CorpusError):
    """Every problem found in one file (as Problems keeps them), and with `record` the record
    as far as the file could be read (`survey check` holds it to the corpus-wide rules too).
    Raised, it reads as the first (one line, with a count of the others); `survey check` lists
    them, so one run shows what to fix."""

    def __init__(self, problems: Problems, record: Any = None) -> None:
        first = problems.kept[0]
        more = problems.found - 1
        message = first.message + (f" (and {more:,} more problem{'s' if more > 1 else ''} in this file)"
                                   if more else "")
        super().__init__(first.path, message, entry=first.entry, field=first.field, line=first.line,
                         column=first.column)
        self.all, self.problems, self.record = problems, problems.kept, record

    def __reduce__(self) -> tuple[Any, ...]:
        return (CorpusProblems, (self.all, self.record))


def raise_problems(problems: Problems | list[CorpusError], record: Any = None) -> None:
    """Raise what was found: nothing, the one problem, or all of them (always all of them with
    a record: the record goes with them)."""
    if isinstance(problems, list):
        found = Problems()
        found.extend(problems)
        problems = found
    if len(problems) == 1 and record is None:
        raise problems.kept[0]
    if problems:
        raise CorpusProblems(problems, record)


def each_problem(exc: CorpusError) -> list[CorpusError]:
    return list(exc.problems) if isinstance(exc, CorpusProblems) else [exc]


class SourceError(CorpusError):
    """A source file that cannot be imported (unknown format, bad entry, bad encoding)."""
