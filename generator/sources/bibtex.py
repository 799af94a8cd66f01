"""Reading a BibTeX bibliography (a survey's .bib, a reference manager's export) into entries.

pybtex's parser reads the file: entries, `@string` macros (and the month names), `#`
concatenation, `@preamble` and `@comment`. Each entry gives a title, authors, a date
(`date`, else `year` and `month`), an arXiv id (`eprint` with `archivePrefix`, an arxiv.org
URL, an arXiv DOI, `journal = {arXiv preprint arXiv:2104.07857}`, DBLP's `CoRR` volume), links
(`url`, `doi`) and the abstract when there is one; LaTeX in the texts is read as it typesets
(`core.text.typeset_tex`). An entry without an abstract comes with an empty one: the importer
merges it into the paper it already is, or reports it, and enrich reads its metadata.

Bad input stops the read with one line naming the file, the line and the entry's key: a syntax
error (an unclosed brace), one key given to two different entries, an undefined macro in a field
we read, a field we read far longer than any paper's, bytes that are not UTF-8.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from pybtex.bibtex.utils import split_name_list
from pybtex.database import Person
from pybtex.database.input.bibtex import LowLevelParser, SkipEntry, UndefinedMacro, month_names
from pybtex.exceptions import PybtexError
from pybtex.scanner import PybtexSyntaxError, Token

from ..core.errors import SourceError
from ..core.text import has_control, squash, typeset_tex
from ..corpus.model import ARXIV_RE, DATE_RE, MAX_ABSTRACT, MAX_TITLE, URL_RE
from .entries import RawEntry, Source

# The fields read, and the longest value read in each, as written: twice the corpus's own limits
# for a title and an abstract (LaTeX typesets to less; the typeset text is then held to those,
# readers.check_entry), and room for the corpus's 5,000 authors of one paper.
LIMITS = {"title": 2 * MAX_TITLE, "abstract": 2 * MAX_ABSTRACT, "author": 200_000}
OTHER_FIELDS = ("year", "month", "date", "eprint", "archiveprefix", "eprinttype", "url", "doi",
                "journal", "journaltitle", "booktitle", "howpublished", "volume")
OTHER_LIMIT = 2_000

_ENTRY_START = re.compile(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.M)
_ENCODING = re.compile(rb"^%\s*Encoding:\s*([A-Za-z0-9_.-]+)\s*$", re.M)  # JabRef's header
_ARXIV_NEW = r"(?:0[7-9]|[1-9]\d)(?:0[1-9]|1[0-2])\.\d{4,5}"
_ARXIV_OLD = r"[a-z][a-z.-]*(?:\.[A-Z]{2})?/\d{7}"
_ARXIV_URL = re.compile(rf"arxiv\.org/(?:abs|pdf)/({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?", re.I)
_ARXIV_DOI = re.compile(rf"10\.48550/arxiv\.({_ARXIV_NEW})", re.I)
_ARXIV_IN_TEXT = re.compile(rf"arxiv\b[^0-9]{{0,40}}?({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?", re.I)
_ARXIV_BARE = re.compile(rf"^(?:arxiv:)?\s*({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?$", re.I)
_MONTHS = {name[:3].lower(): n for n, name in enumerate(month_names.values(), 1)}


def claims(data: bytes) -> bool:
    """BibTeX, when an entry (`@article{`, `@misc(`) starts a line in the first 8 KB (BibTeX reads
    nothing but its @-entries, so a file may begin with any comment); readers.py asks only when
    no other format claims the file. Read as Latin-1 here only to look: a file in another
    encoding is still told apart, and `decode` then names its bytes."""
    return bool(_ENTRY_START.search(data[:8192].decode("latin-1")))


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
        raise SourceError(shown, f"{error.args[0]}{where}{_hint(error)}", line=error.lineno,
                          entry=key) from None

    parser.handle_error = handle_error
    entries: list[RawEntry] = []
    notes: list[str] = []
    seen: dict[str, tuple[int, Any]] = {}
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
        values = _fields(fields, read, shown, line, key)
        entry = _entry(values, len(entries) + 1, key, line, shown)
        if entry is None:
            notes.append(f"{shown}:{line}: entry {key} has no title; skipped")
        else:
            entries.append(entry)
    return Source(path=shown, format="bibtex", sha256=digest, entries=entries, is_listing=False,
                  notes=notes)


def _hint(error: PybtexSyntaxError) -> str:
    if "premature end of file" in str(error.args[0]):
        return "; is a brace or a quote left open?"
    return ""


def _fields(fields: list[tuple[str, list[str]]], read: set[str], shown: str, line: int,
            key: str) -> dict[str, str]:
    """The fields we read, flattened (macros and `#` already resolved), within their limits;
    a field given twice is read once, as BibTeX does (the first)."""
    out: dict[str, str] = {}
    for name, parts in fields:
        low = name.lower()
        if low not in read or low in out:
            continue
        limit = LIMITS.get(low, OTHER_LIMIT)
        size = sum(map(len, parts))
        if size > limit:
            raise SourceError(shown, f"is {size:,} characters long; a paper's {low} is read up to "
                                     f"{limit:,}", line=line, entry=key, field=low)
        out[low] = squash("".join(parts))
    return out


def _entry(values: dict[str, str], position: int, key: str, line: int, shown: str) -> RawEntry | None:
    def text(name: str) -> str:
        value = typeset_tex(values.get(name, ""))
        if has_control(value):
            raise SourceError(shown, "contains a control character", line=line, entry=key, field=name)
        return value

    title = text("title")
    if not title:
        return None
    arxiv = _arxiv(values)
    return RawEntry(title=title, abstract=text("abstract"), position=position, arxiv=arxiv,
                    authors=_authors(values.get("author", ""), shown, line, key),
                    date=_date(values), links=_links(values), key=key, line=line)


def _authors(value: str, shown: str, line: int, key: str) -> list[str]:
    out = []
    for name in split_name_list(value) if value else []:
        if name.strip().lower() in ("others", "et al.", "et al", "et. al."):  # the rest not named
            continue
        try:
            person = Person(name)
        except PybtexError as exc:
            raise SourceError(shown, f"{name!r}: {exc}", line=line, entry=key, field="author") from None
        parts = [*person.first_names, *person.middle_names, *person.prelast_names, *person.last_names,
                 *person.lineage_names]
        shown_name = typeset_tex(" ".join(parts))
        if has_control(shown_name):
            raise SourceError(shown, f"{name!r} contains a control character", line=line, entry=key,
                              field="author")
        if shown_name:
            out.append(shown_name)
    return out


def _arxiv(raw: dict[str, str]) -> str | None:
    """The arXiv id, from the most explicit field that gives one."""
    values = {name: typeset_tex(value) for name, value in raw.items() if name in _ARXIV_FIELDS}
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
        found = re.match(rf"^abs/({_ARXIV_NEW}|{_ARXIV_OLD})$", values.get("volume", ""))
    arxiv = found.group(1) if found else None
    return arxiv if arxiv and ARXIV_RE.match(arxiv) else None


_ARXIV_FIELDS = ("archiveprefix", "eprinttype", "eprint", "url", "howpublished", "doi", "journal",
                 "journaltitle", "booktitle", "volume")


def _date(values: dict[str, str]) -> str | None:
    given = typeset_tex(values.get("date", "")).split("/")[0]
    if given and DATE_RE.match(given) and _real(given):
        return given
    year = typeset_tex(values.get("year", ""))
    if not re.fullmatch(r"\d{4}[a-z]?", year):  # 2023a: a second paper of that year
        return None
    year = year[:4]
    month = typeset_tex(values.get("month", "")).lower()
    number = int(month) if month.isdigit() else None
    if number is None:
        word = re.search(r"[a-z]{3,}", month)
        number = _MONTHS.get(word.group()[:3]) if word else None
    return f"{year}-{number:02d}" if number and 1 <= number <= 12 else year


def _real(day: str) -> bool:
    if len(day) < 10:
        return True
    try:
        date.fromisoformat(day)
    except ValueError:
        return False
    return True


def _links(values: dict[str, str]) -> dict[str, str]:
    """`url` and `doi` as the paper's links: an arXiv URL or DOI is not one (the arXiv id gives
    the abstract page and the PDF); a repository is the code, a .pdf the PDF."""
    links: dict[str, str] = {}
    given = re.search(r"https?://[^\s{}]+", values.get("url") or values.get("howpublished", ""))
    url = given.group() if given else ""
    if url and URL_RE.match(url) and not _ARXIV_URL.search(url):
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

