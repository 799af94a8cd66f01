"""Reading a BibTeX bibliography (a survey's .bib, a reference manager's export) into entries.

pybtex's parser reads the file: entries, `@string` macros (and the month names), `#`
concatenation, `@preamble` and `@comment`; an entry takes the fields it lacks (year, venue,
authors) from the entry its `crossref` names. Each entry gives a title, authors (and whether
`and others` ends them), a date, an arXiv id and links (`bibfields.py`) and the abstract when
there is one; LaTeX in the texts is read as it typesets (`core.tex.bib_text`, as pages read it). An
entry without an abstract comes with an empty one: the importer merges it into the paper it already
is, or reports it, and enrich reads its metadata.

A file that cannot be read stops the read with one line naming the file, the line and the
entry's key: a syntax error (an unclosed brace), one key given to two different entries, an
undefined macro in a field we read, macros expanding to more than twice the file, bytes that are
not UTF-8. An entry that no paper file could hold (a control character, a malformed or invisible
name, a field longer than a paper's) carries its problem (`RawEntry.problem`): the import leaves
it out, naming it, and reads the other entries, unless `--strict`.
"""

from __future__ import annotations

import re
from typing import Any

from pybtex.bibtex.utils import split_name_list
from pybtex.database import Person
from pybtex.database.input.bibtex import LowLevelParser, SkipEntry, UndefinedMacro, month_names
from pybtex.exceptions import PybtexError
from pybtex.scanner import PybtexSyntaxError, Token

from ..core.errors import SourceError
from ..core.tex import bib_text
from ..core.text import bad_character, has_control, shorten, squash
from ..corpus.model import MAX_ABSTRACT, MAX_AUTHORS, MAX_NAME, MAX_TITLE
from .bibfields import arxiv_id, entry_date, entry_links, entry_notes
from .raw import RawEntry, Source

# The fields read, and the longest value read in each, as written: twice the corpus's own limits
# for a title and an abstract (LaTeX typesets to less; the typeset text is then held to those,
# readers.check_entry), and room for the corpus's 5,000 authors of one paper.
LIMITS = {"title": 2 * MAX_TITLE, "abstract": 2 * MAX_ABSTRACT, "author": 200_000}
OTHER_FIELDS = ("year", "month", "date", "eprint", "archiveprefix", "eprinttype", "url", "doi",
                "journal", "journaltitle", "booktitle", "howpublished", "volume", "crossref")
OTHER_LIMIT = 2_000

_ENTRY_START = re.compile(rb"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.M)
_ENCODING = re.compile(rb"^%\s*Encoding:\s*([A-Za-z0-9_.-]+)\s*$", re.M)  # JabRef's header


def claims(data: bytes) -> bool:
    """BibTeX, when an entry (`@article{`, `@misc(`) starts a line anywhere in the file (BibTeX
    reads nothing but its @-entries, so a file may begin with pages of comments); readers.py asks
    only when no other format claims the file. Looked for in the bytes: a file in another
    encoding is still told apart, and `decode` then names its bytes."""
    return bool(_ENTRY_START.search(data))


def decode(data: bytes, shown: str) -> str:
    """The file's text: UTF-8, or the encoding a JabRef header names (`% Encoding: ISO8859_1`).
    Other bytes are refused with the line and the entry they are in: guessing Latin-1 would
    turn a Latin-2 or Windows-1252 file into wrong names without a word."""
    declared = _ENCODING.search(data, 0, 4096)
    if declared:
        name = declared.group(1).decode("ascii")
        try:
            return data.decode(name.replace("ISO", "ISO-") if re.match(r"ISO\d", name) else name)
        except LookupError:
            raise SourceError(shown, f"the file declares an unknown encoding {name!r}") from None
        except UnicodeDecodeError as exc:
            return _undecodable(data, shown, exc, name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _undecodable(data, shown, exc, "UTF-8")


def _undecodable(data: bytes, shown: str, exc: UnicodeDecodeError, encoding: str) -> str:
    line = data.count(b"\n", 0, exc.start) + 1
    keys = re.findall(rb"@[A-Za-z]+\s*[{(]\s*([^\s,{}()]+)\s*,", data[:exc.start])
    byte = data[exc.start:exc.start + 1].hex().upper()
    raise SourceError(shown, f"byte 0x{byte} is not {encoding}; save the file as UTF-8 (from Latin-1: "
                             f"iconv -f latin1 -t utf-8)", line=line,
                      entry=keys[-1].decode("ascii", "replace") if keys else None)


class _Parser(LowLevelParser):  # type: ignore[misc]
    """pybtex's scanner, finding the next of several one-character delimiters with one search:
    its own searches for each from the current position, so a quoted value with many braces
    in it is read in time quadratic in the file (a 5 MB abstract: minutes)."""

    pos: int
    text: str

    def __init__(self, text: str, shown: str) -> None:
        super().__init__(text, macros=dict(month_names), filename=shown)
        self._chars = {self.LBRACE: "{", self.RBRACE: "}", self.QUOTE: '"', self.AT: "@"}
        self._finders: dict[tuple[Any, ...], re.Pattern[str]] = {}
        self._counted = (0, 1)  # an offset, and the line it is on
        # What may be built from the file's values: its own characters once, as much again from
        # macros, and a megabyte. pybtex joins a macro's value when it is defined: 41 lines of
        # `@string{aN = aM # aM}` would double it 41 times.
        self.budget = 2 * len(text) + 2**20
        self.built = 0

    def build(self, parts: list[str], line: int, what: str) -> str:
        """The parts of a value joined, counted against the budget before they are."""
        self.built += sum(map(len, parts))
        if self.built > self.budget:
            raise SourceError(self.filename, f"{what}: with it, the file's values and @string macros "
                                             f"expand to over {self.budget:,} characters (twice the "
                                             f"file's size, and a megabyte); refused", line=line)
        return "".join(parts)

    def parse_string_body(self, body_end: Any) -> None:  # pybtex's own, joining within the budget
        self.current_field_name = self.required([self.NAME]).value
        self.required([self.EQUALS])
        self.parse_value()
        self.macros[self.current_field_name] = self.build(
            self.current_value, self.lineno, f"@string {self.current_field_name}")

    def skip_to(self, patterns: list[Any]) -> Token | None:
        if not all(p in self._chars for p in patterns):
            return super().skip_to(patterns)
        key = tuple(patterns)
        finder = self._finders.get(key)
        if finder is None:
            chars = "".join(self._chars[p] for p in patterns)
            finder = self._finders[key] = re.compile(f"[{re.escape(chars)}]")
        found = finder.search(self.text, self.pos)
        if not found:
            return None
        pattern = next(p for p in patterns if self._chars[p] == found.group())
        value = self.text[self.pos:found.end()]
        self.pos = found.end()
        self.update_lineno(value)
        return Token(value, pattern)

    def parse_command(self) -> tuple[str, Any]:
        try:
            return super().parse_command()  # type: ignore[no-any-return]
        except SkipEntry:
            # @comment{...}: pybtex skips only the word and reads on inside the braces (an entry
            # there would be read); biber and JabRef skip the whole group, and so do we.
            if self.text[self.pos - 1] == "{":
                for _ in self.parse_string(self.RBRACE):
                    pass
            raise

    def line_of(self, offset: int) -> int:
        """The line an offset is on, counted on from the last offset asked about (entries come
        in order): counting from the start for each entry would be quadratic in the file."""
        if offset < self._counted[0]:
            self._counted = (0, 1)
        at, line = self._counted
        self._counted = (offset, line + self.text.count("\n", at, offset))
        return self._counted[1]


def read_bibtex(text: str, shown: str, digest: str) -> Source:
    parser = _Parser(text, shown)
    read = {*LIMITS, *OTHER_FIELDS}

    def handle_error(error: PybtexSyntaxError) -> None:
        key = parser.current_entry_key
        start = parser.line_of(parser.command_start)
        if isinstance(error, UndefinedMacro):
            field = (parser.current_field_name or "").lower()
            if field not in read:
                return  # BibTeX warns and reads it as empty; we never read this field
            raise SourceError(shown, f"{error.args[0]!r} is not a defined @string macro", line=error.lineno,
                              entry=key, field=field) from None
        where = f" (entry from line {start})" if start != error.lineno else ""
        hint = "; is a brace or a quote left open?" if "premature end of file" in str(error.args[0]) else ""
        raise SourceError(shown, f"{error.args[0]}{where}{hint}", line=error.lineno,
                          entry=key) from None

    parser.handle_error = handle_error
    notes: list[str] = []
    seen: dict[str, tuple[int, Any]] = {}
    read_in: list[tuple[str, int, list[tuple[str, list[str]]]]] = []  # key, line, fields
    for command, body in parser:
        kind = command.lower()
        if kind in ("string", "preamble"):
            continue
        key, fields = body
        line = parser.line_of(parser.command_start)
        same = (kind, [(name.lower(), value) for name, value in fields])
        first = seen.get(key.lower())
        if first is not None:
            if first[1] != same:
                raise SourceError(shown, f"the key is also used by another entry at line {first[0]}; "
                                         f"give each entry its own key", line=line, entry=key)
            notes.append(f"{shown}:{line}: entry {key} repeats the entry of line {first[0]} "
                         f"word for word; read once")
            continue
        seen[key.lower()] = (line, same)
        read_in.append((key, line, fields))
    # An entry names the entry it takes its missing fields from (`crossref`), often a later one.
    by_key = {key.lower(): fields for key, _, fields in read_in}
    entries: list[RawEntry] = []
    for position, (key, line, fields) in enumerate(read_in, 1):
        problems: list[SourceError] = []
        values = _fields(_inherited(fields, by_key, f"{shown}:{line}: entry {key}", notes), read,
                         parser, line, key, problems)
        entry = _entry(values, position, key, line, shown, problems)
        if entry is None:
            notes.append(f"{shown}:{line}: entry {key} has no title; skipped")
            continue
        entries.append(entry)
        if entry.problem is None:
            notes += [f"{shown}:{line}: entry {key}: {note}" for note in entry_notes(values)]
    return Source(path=shown, format="bibtex", sha256=digest, entries=entries, is_listing=True,
                  notes=notes)


# Fields that name the work an entry is, not what it shares with the entry it cross-references
# (a paper's proceedings): never taken from it.
_OWN_FIELDS = frozenset(("title", "abstract", "url", "doi", "eprint", "archiveprefix", "eprinttype",
                         "howpublished", "crossref"))


def _inherited(fields: list[tuple[str, list[str]]], by_key: dict[str, list[tuple[str, list[str]]]],
               where: str, notes: list[str]) -> list[tuple[str, list[str]]]:
    """The entry's fields, then those of the entry its `crossref` names that it lacks (the year,
    the venue, the authors), as BibTeX reads them: one level, the entry's own first."""
    target = next((parts for name, parts in fields if name.lower() == "crossref"), None)
    if target is None:
        return fields
    parent = by_key.get("".join(target).strip().lower())
    if parent is None:
        notes.append(f"{where}: crossref {shorten(''.join(target))} names no entry of the file; read "
                     f"without it")
        return fields
    return [*fields, *((name, parts) for name, parts in parent if name.lower() not in _OWN_FIELDS)]


def _fields(fields: list[tuple[str, list[str]]], read: set[str], parser: _Parser, line: int,
            key: str, problems: list[SourceError]) -> dict[str, str]:
    """The fields we read, flattened (macros and `#` already resolved), within their limits;
    a field given twice is read once, as BibTeX does (the first). A field over its limit is not
    read and refuses the entry (in `problems`), not the file: the other entries are fine."""
    out: dict[str, str] = {}
    for name, parts in fields:
        low = name.lower()
        if low not in read or low in out:
            continue
        limit = LIMITS.get(low, OTHER_LIMIT)
        size = sum(map(len, parts))
        if size > limit:
            problems.append(SourceError(parser.filename, f"is {size:,} characters long; a paper's {low} "
                                                         f"is read up to {limit:,}", line=line, entry=key,
                                        field=low))
            continue
        out[low] = squash(parser.build(parts, line, f"entry {key}: field '{low}'"))
    return out


def _entry(values: dict[str, str], position: int, key: str, line: int, shown: str,
           problems: list[SourceError]) -> RawEntry | None:
    """The entry, with the first of its problems (`problems`, which the checks here add to):
    one that check's rules refuse is left out of an import, its file read on (code review F10)."""
    def text(name: str, limit: int) -> str:
        value = bib_text(values.get(name, ""))
        if has_control(value):
            problems.append(SourceError(shown, "contains a control character", line=line, entry=key,
                                        field=name))
        elif len(value) > limit:
            problems.append(SourceError(shown, f"is {len(value):,} characters long once typeset; at most "
                                               f"{limit:,} are allowed", line=line, entry=key, field=name))
        return value

    title = text("title", MAX_TITLE)
    if not title and not problems:
        return None
    abstract = text("abstract", MAX_ABSTRACT)
    authors, et_al = _authors(values.get("author", ""), shown, line, key, problems)
    return RawEntry(title=title, abstract=abstract, position=position, arxiv=arxiv_id(values),
                    authors=authors, et_al=et_al, date=entry_date(values), links=entry_links(values), key=key,
                    line=line, problem=problems[0] if problems else None)


_OTHERS = ("others", "et al.", "et al", "et. al.")


def _authors(value: str, shown: str, line: int, key: str, problems: list[SourceError]
             ) -> tuple[list[str], bool]:
    """The names, and whether the list ends in `and others` (the rest not named); a name that is
    malformed or shows what no name may adds its problem and ends the reading."""
    out = []
    et_al = False
    for name in split_name_list(value) if value else []:
        if name.strip().lower() in _OTHERS:
            et_al = True
            continue
        try:
            person = Person(name)
        except PybtexError as exc:
            problems.append(SourceError(shown, f"{shorten(name)}: {exc}", line=line, entry=key,
                                        field="author"))
            break
        parts = [*person.first_names, *person.middle_names, *person.prelast_names, *person.last_names,
                 *person.lineage_names]
        shown_name = bib_text(" ".join(parts))
        problem = bad_character(shown_name)
        if problem:
            problems.append(SourceError(shown, f"{shorten(name)} {problem}", line=line, entry=key,
                                        field="author"))
            break
        if len(shown_name) > MAX_NAME:
            problems.append(SourceError(shown, f"a name of {len(shown_name):,} characters; at most "
                                               f"{MAX_NAME:,} are allowed", line=line, entry=key,
                                        field="author"))
            break
        if shown_name:
            out.append(shown_name)
    if len(out) > MAX_AUTHORS:
        problems.append(SourceError(shown, f"names {len(out):,} authors; at most {MAX_AUTHORS:,} are "
                                           f"allowed", line=line, entry=key, field="author"))
    return out, et_al and bool(out)
