"""Error types. Each one renders as a single line naming the file, the entry and the field."""

from __future__ import annotations


class SurveyError(Exception):
    """A problem the user can fix; the CLI prints it as one line, without a traceback."""


class CorpusError(SurveyError):
    def __init__(
        self,
        path: str,
        message: str,
        *,
        entry: str | None = None,
        field: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = path
        self.entry = entry
        self.field = field
        self.line = line
        self.column = column
        self.message = message
        super().__init__(str(self))

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


class SourceError(CorpusError):
    """A source file that cannot be imported (unknown format, bad entry, bad encoding)."""


class DuplicateError(SurveyError):
    def __init__(self, message: str, existing: str) -> None:
        self.existing = existing
        super().__init__(message)


class OfflineError(SurveyError):
    pass
