"""Reading source files into entries: HF listing text and pages, daily-papers JSON, arXiv Atom, BibTeX.

The format is detected from the content, never trusted from the file name alone. Every reader
returns a `Source`: what it is (a listing, or loose papers), and its entries in original order,
with titles and abstracts whitespace-normalised (hard wraps joined) and otherwise exactly as
written: TeX in them (`12\\%`, `2.4$\\times$`) is kept, and read where a text is shown
(core/tex.py). A BibTeX field is TeX throughout (braces, `--`, accents in names): `bibtex.py`
reads it as typeset, math and the authors' own macros kept.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import itertools
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.errors import CorpusError, SourceError, each_problem
from ..core.text import bad_character, has_markup, shorten, squash
from ..corpus.fields import URL_RE, strip_version
from ..corpus.model import MAX_DESCRIPTION, MAX_URL, Paper
from .hf_json import hf_item_entry, iso_date, read_hf_json
from .intake import DENSITY, check_density, read_bytes, unpacked
from .raw import RawEntry, Refused, Source

FORMATS = {
    "hf-text": "Hugging Face Papers listing (text)",
    "hf-html": "Hugging Face Papers page (HTML)",
    "hf-json": "Hugging Face daily papers API (JSON)",
    "arxiv-atom": "arXiv API response (Atom)",
    "bibtex": "BibTeX bibliography",
}

HF_BOILERPLATE = {
    "new",
    "get trending papers in your email inbox!",
    "get trending papers in your email inbox once a day!",
    "subscribe",
    "daily papers",
    "byak and the research community",
}
_MONTH_DAY = re.compile(
    r"^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}(?:, \d{4})?$"
)
ATOM = "{http://www.w3.org/2005/Atom}"


def read_source(path: Path, shown: str | None = None, strict: bool = True) -> Source:
    shown = shown or str(path)
    with _enough_memory(shown):  # the bytes held by parse_source alone, which drops them once read
        return parse_source(read_bytes(path, shown), shown, strict)


@contextlib.contextmanager
def _enough_memory(shown: str) -> Iterator[None]:
    """The last resort where a process may hold less than reading a source takes (a few times
    its size; `ulimit -v`): one line naming the file, not a MemoryError traceback."""
    try:
        yield
    except MemoryError:
        raise SourceError(shown, "not enough memory to read it (reading a source takes a few times "
                                 "its size); split it, or allow the process more") from None


def parse_source(data: bytes, shown: str, strict: bool = True) -> Source:
    """A source from its bytes (gzip-compressed or not); `shown` names it in messages.

    An entry that `survey check` would refuse is refused as it is read. strict: the whole file
    with it, in one line; otherwise (a feed of thousands that one bad entry should not stop) the
    entry is left out, in `source.refused`, and the others are read. A file whose every entry is
    refused, and HF listing text, are refused whole either way: a hand-written listing's
    entries are told apart by their order alone (a title, then its abstract), so one that reads
    wrong may have shifted the pairs after it; it is the writer's to mend, and short."""
    data = unpacked(data, shown)
    if not data or data.isspace():
        raise SourceError(shown, "the file is empty")
    if b"\x00" in data[:4096]:
        raise SourceError(shown, "this is a binary file, not a listing, a page, JSON or Atom")
    data = data.removeprefix(codecs.BOM_UTF8)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    digest = hashlib.sha256(data).hexdigest()
    if _JSON_START.match(data):
        text = _ascii_json(data, shown)
        fmt: str | None = "hf-json"
    elif detect(data[:8192].decode("latin-1")) is None and _bibtex().claims(data):
        # before decoding: a .bib may be in another encoding
        text, fmt = _bibtex().decode(data, shown), "bibtex"
    else:
        text = _utf8(data, shown)
        fmt = detect(text)
    del data
    if fmt is None:
        raise SourceError(
            shown,
            "unknown format: expected Hugging Face Papers text or HTML, daily-papers JSON, arXiv Atom "
            "or BibTeX",
        )
    check_density(text, shown, *DENSITY[fmt])
    reader = {"hf-text": _hf_text, "hf-html": _hf_html, "hf-json": read_hf_json, "arxiv-atom": _atom,
              "bibtex": lambda *args: _bibtex().read_bibtex(*args)}[fmt]
    source: Source = reader(text, shown, digest)
    if not source.entries:  # what the reader left out says why (a BibTeX entry's over-long abstract)
        why = f": {source.notes[0]}" if source.notes else ""
        more = len(source.notes) - 1
        why += f" (and {more:,} more)" if more > 0 else ""
        raise SourceError(shown, f"no papers found in this {FORMATS[fmt]}{why}")
    kept = []
    for entry in source.entries:
        problem = entry.problem
        if problem is None:
            try:  # a bibliography's entries seldom have an abstract: they merge, or give enrich metadata
                check_entry(entry, shown, abstract=fmt != "bibtex")
            except SourceError as exc:
                problem = exc
        if problem is None:
            kept.append(entry)
        else:
            source.refused.append(Refused.of(entry, problem))
    if source.refused and (strict or fmt == "hf-text" or not kept):
        raise _first(source.refused)
    source.entries = kept
    return source


def _first(refused: list[Refused]) -> SourceError:
    """The first entry refused, counting the others."""
    first = refused[0].problem
    more = len(refused) - 1
    if not more:
        return first
    return SourceError(first.path, f"{first.message} (and {more:,} more entr{'ies' if more > 1 else 'y'} "
                                   f"refused)", entry=first.entry, field=first.field, line=first.line,
                       column=first.column)


_JSON_START = re.compile(rb"\s*[\[{]")


_NON_ASCII = re.compile(rb"[\x80-\xff]+")


def _utf8(data: bytes, shown: str, offset: int = 0) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(shown, f"not valid UTF-8 (byte {offset + exc.start}); save the file as "
                                 f"UTF-8") from None


def _ascii_json(data: bytes, shown: str) -> str:
    """The same JSON with every non-ASCII character written as a JSON escape, so Python holds it
    in one byte a character: decoded as it is, one emoji among its 46 MB makes the real
    daily-papers file a text of four bytes a character (185 MB)."""
    def escape(match: re.Match[bytes]) -> bytes:
        return json.dumps(_utf8(match.group(), shown, match.start()))[1:-1].encode("ascii")

    return _NON_ASCII.sub(escape, data).decode("ascii")


def detect(text: str) -> str | None:
    head = text.lstrip()[:2048].lower()
    if head.startswith(("{", "[")):
        return "hf-json"
    if "<feed" in head[:400] and "http://www.w3.org/2005/atom" in head:
        return "arxiv-atom"
    if head.startswith(("<!doctype html", "<html")) or "<html" in head or "<body" in head:
        return "hf-html"
    lines = [line.strip().lower() for line in text.split("\n", 40)[:40] if line.strip()]
    if any(line in HF_BOILERPLATE - {"new"} or line.startswith("subscribe") for line in lines[:8]):
        return "hf-text"
    return None


def check_entry(entry: RawEntry, path: str, abstract: bool = True) -> None:
    """The corpus schema's rules for a paper (Paper.from_dict's own, so the two never disagree),
    checked as the source is read: what `survey check` would refuse is refused here, before
    anything is written. `abstract=False`: an entry may come without one (a BibTeX entry, which
    only merges then)."""
    data = {"slug": "entry", "title": entry.title, "abstract": entry.abstract or ("" if abstract else "-"),
            "arxiv": entry.arxiv, "authors": entry.authors or None, "et_al": entry.et_al or None,
            "date": entry.date, "links": entry.links or None, "topics": [], "tags": []}
    try:
        Paper.from_dict({k: v for k, v in data.items() if v is not None}, path)
    except CorpusError as exc:
        first = each_problem(exc)[0]
        raise SourceError(path, first.message, entry=entry.label, field=first.field) from None


# --- Hugging Face listing text -------------------------------------------------------------


def _looks_like_title(text: str) -> bool:
    """Titles are short; abstracts run to several sentences (in the seeds: titles of at most 19
    words, abstracts of at least 77)."""
    return len(text) <= 300 and len(text.split()) <= 40 and len(re.findall(r"[.!?]\s+[A-Z]", text)) < 2


def _hf_text(text: str, path: str, digest: str) -> Source:
    lines = text.split("\n")
    # Blank-line variant: fields are paragraphs (hard wraps joined). Compact variant: one per line.
    nonblank = [i for i, line in enumerate(lines) if line.strip()]
    blank_separated = any(b - a > 1 for a, b in itertools.pairwise(nonblank))
    blocks: list[str] = []
    if blank_separated:
        current: list[str] = []
        for line in [*lines, ""]:
            if line.strip():
                current.append(line)
            elif current:
                blocks.append(squash(" ".join(current)))
                current = []
    else:
        blocks = [squash(line) for line in lines if line.strip()]

    date = None
    body_start = 0
    for i, block in enumerate(blocks):
        low = block.lower()
        if low in HF_BOILERPLATE:
            body_start = i + 1
            continue
        if _MONTH_DAY.match(block) and date is None:
            date, body_start = block, i + 1
            continue
        if low.startswith("subscribe") and len(block) > len("subscribe"):
            blocks[i] = block[len("subscribe"):].strip()  # compact variant: first title glued on
            body_start = i
        break
    fields = [b for b in blocks[body_start:] if b.lower() not in HF_BOILERPLATE]

    entries: list[RawEntry] = []
    i = 0
    while i < len(fields):
        title = fields[i]
        position = len(entries) + 1
        probe = RawEntry(title=title, abstract="", position=position)
        if not _looks_like_title(title):
            raise SourceError(path, "expected a title here but found prose (is an entry's title "
                              "missing?)", entry=probe.label, field="title")
        if i + 1 >= len(fields):
            raise SourceError(path, "is missing: the file ends after this title", entry=probe.label,
                              field="abstract")
        abstract = fields[i + 1]
        if _looks_like_title(abstract) and i + 2 < len(fields) and not _looks_like_title(fields[i + 2]):
            raise SourceError(path, "is missing: the next line is another title", entry=probe.label,
                              field="abstract")
        entries.append(RawEntry(title=title, abstract=abstract, position=position))
        i += 2
    return Source(path=path, format="hf-text", sha256=digest, entries=entries, is_listing=True, date=date)


# --- arXiv API Atom -------------------------------------------------------------------------


def _atom(text: str, path: str, digest: str) -> Source:
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise SourceError(path, "Atom with a DOCTYPE or entities is refused")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line, column = exc.position
        raise SourceError(path, f"malformed XML: {exc.msg if hasattr(exc, 'msg') else exc}",
                          line=line, column=column + 1) from None
    entries = []
    for position, node in enumerate(root.iter(f"{ATOM}entry"), 1):
        raw_id = (node.findtext(f"{ATOM}id") or "").strip()
        title = squash(node.findtext(f"{ATOM}title") or "")
        if "/api/errors" in raw_id:
            raise SourceError(path, f"the arXiv API answered with an error: "
                                    f"{squash(node.findtext(f'{ATOM}summary') or title)}")
        match = re.search(r"arxiv\.org/abs/(.+?)$", raw_id)
        label = f"#{position} {shorten(title[:60])}"
        problem = None if match else SourceError(path, f"{shorten(raw_id)} is not an arXiv abstract URL",
                                                 entry=label, field="id")
        entries.append(RawEntry(
            title=title,
            abstract=squash(node.findtext(f"{ATOM}summary") or ""),
            position=position,
            arxiv=strip_version(match.group(1)) if match else None, problem=problem,
            authors=[squash(a.findtext(f"{ATOM}name") or "") for a in node.findall(f"{ATOM}author")],
            date=iso_date(node.findtext(f"{ATOM}published")),
        ))
    self_link = next((link.get("href") for link in root.findall(f"{ATOM}link")
                      if link.get("rel") == "self"), None)
    return Source(path=path, format="arxiv-atom", sha256=digest, entries=entries, is_listing=True,
                  url=source_url(self_link), title=source_title(root.findtext(f"{ATOM}title")))


def source_url(url: str | None) -> str | None:
    """A source's own address as the listing records it, when it is one http(s) URL."""
    url = (url or "").strip()
    return url if URL_RE.match(url) and len(url) <= MAX_URL and not bad_character(url) else None


def source_title(title: str | None) -> str | None:
    """A source's own title as the listing's description, when it is plain text."""
    title = squash(title or "")
    if not title or len(title) > MAX_DESCRIPTION or has_markup(title) or bad_character(title):
        return None
    if title.startswith("ArXiv Query:"):  # the API's echo of the query, which the URL holds
        return None
    return title


def _bibtex() -> Any:
    from . import bibtex  # loaded when first asked for: pybtex takes 60 ms to import
    return bibtex


# --- saved Hugging Face pages ---------------------------------------------------------------


def _hf_html(text: str, path: str, digest: str) -> Source:
    from .hf_html import parse_hf_html

    page = parse_hf_html(text, path)
    entries = []
    for position, found in enumerate(page.items, 1):
        if isinstance(found, dict):
            entries.append(hf_item_entry(found, position, path))
        else:
            title, abstract, arxiv = found
            entries.append(RawEntry(title=squash(title), abstract=squash(abstract), position=position,
                                    arxiv=arxiv))
    return Source(path=path, format="hf-html", sha256=digest, entries=entries,
                  is_listing=page.is_listing, date=page.date, url=source_url(page.url))
