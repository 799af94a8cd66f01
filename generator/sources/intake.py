"""A source's bytes, read within bounds: whatever a source file holds, reading it takes
bounded memory and time, and what cannot be read safely is refused in one line.

- A file, or a gzip file once inflated, over MAX_SOURCE_BYTES is refused. A gzip file of a
  few megabytes can inflate to terabytes: it is inflated piece by piece and stopped there.
- An XML document type is refused before any parser sees it: its entities can expand without
  limit ("billion laughs") or pull in local files.
- JSON denser in objects and arrays than any daily-papers file, and XML or HTML denser in tags
  than any feed or page, is refused before it is parsed: built, `[{},{},...]` takes twenty
  times its size, `<b>x</b><b>x</b>...` a hundred. An HTML tag of more attributes than any
  page's is refused too (`BoundedHTMLParser`, which HTML is streamed through).
"""

from __future__ import annotations

import codecs
import html.parser
import io
import re
import zlib
from html.parser import HTMLParser
from pathlib import Path

from ..core.errors import SourceError

# The real daily-papers file of 9,109 papers is 46 MB (9 MB gzipped): room for some 100,000.
MAX_SOURCE_BYTES = 512 * 2**20
PIECE = 2**20  # read, or inflated, at a time


def read_bytes(path: Path, shown: str) -> bytes:
    """A source file's bytes, refused past MAX_SOURCE_BYTES without reading further."""
    out = io.BytesIO()
    try:
        # A piece at a time: read(MAX_SOURCE_BYTES + 1) asks for the whole cap at once, which
        # under an address-space limit fails for a file of any size.
        with open(path, "rb") as fh:
            while piece := fh.read(PIECE):
                out.write(piece)
                if out.tell() > MAX_SOURCE_BYTES:
                    raise _too_big(shown, "the file")
    except OSError as exc:
        raise SourceError(shown, f"cannot read: {exc.strerror}") from None
    return out.getvalue()


def _too_big(shown: str, what: str) -> SourceError:
    return SourceError(shown, f"{what} is over {MAX_SOURCE_BYTES // 2**20} MiB, the most a source may "
                              f"hold (the real daily-papers file of 9,109 papers is 46 MB); split it")


def _gunzip(data: bytes, shown: str) -> bytes:
    """The members of a gzip file, inflated a piece of at most PIECE bytes at a time up to
    MAX_SOURCE_BYTES. Pieces, not the rest of the cap in one call: one call inflating hundreds
    of megabytes builds them in blocks and then copies the blocks into one bytes object, twice
    the memory; and the pieces go into one growing buffer, not a list joined at the end (the
    same twice again)."""
    out = io.BytesIO()
    while data:
        inflater = zlib.decompressobj(wbits=31)  # one gzip member
        pending = data
        while pending and not inflater.eof:
            out.write(inflater.decompress(pending, PIECE))
            if out.tell() > MAX_SOURCE_BYTES:
                raise _too_big(shown, "inflated, the file")
            pending = inflater.unconsumed_tail
        if not inflater.eof:
            raise SourceError(shown, "a damaged gzip file: it ends in the middle of its data")
        data = inflater.unused_data
        if data and data[:2] != b"\x1f\x8b":
            if data.strip(b"\x00"):
                raise SourceError(shown, "a damaged gzip file: unexpected bytes after its end")
            break
    return out.getvalue()  # the buffer itself, without a copy (nothing else refers to it)


# A DOCTYPE that is not a plain HTML one (which declares no entities).
_DOCTYPE = re.compile(rb"\A\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<!DOCTYPE(?!\s+html\b[^\[>]*>)",
                      re.IGNORECASE | re.DOTALL)


def unpacked(data: bytes, shown: str) -> bytes:
    """The bytes to parse: inflated when gzip-compressed, checked for size and document type."""
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_big(shown, "the file")
    if data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip(data, shown)
        except zlib.error as exc:
            raise SourceError(shown, f"a damaged gzip file: {exc}") from None
    if _DOCTYPE.match(data[:65536].removeprefix(codecs.BOM_UTF8)):
        raise SourceError(shown, "XML with a DOCTYPE or entity declarations is refused: an entity can "
                                 "expand without limit or pull in a local file")
    return data


# A parsed object costs far more than its text: an object or array some 64 to 250 bytes, an XML
# element or attribute some 90, a BibTeX field some 400, a line of listing text some 60 and an
# entry of it some 600 (an HTML page is streamed, hf_html.py: only its open elements are held,
# some 100 bytes each). The real sources are sparse: an object or array per 290 bytes in the
# daily-papers file (141,853 and 18,039 in 46 MB; a paper with 664 authors, 668 in 55 KB), a tag
# or attribute per 43 bytes in the arXiv feed, a tag per 46 in a saved Hugging Face page, a field
# per 54 in the real bibliographies, a line per 397 in the listing texts. A file with more than
# one per 16 bytes (32 for lines: an entry is two; the third item of each below) is no such
# source, and would take tens of times its size once built (or, streamed, time for nothing): it is
# refused before. Counted as the characters that open one, wherever they are (in strings too): an
# upper bound, and only past a number whose cost does not matter (small files and fixtures are
# dense).
FREE_NODES = 100_000
# What Python's JSON reader raises a ValueError on (int() of a longer string), said in one line.
LONG_NUMBER = "a number of more than 4,300 digits"
JSON_NODES = ("{[", "objects or arrays", 16, "daily-papers JSON has one per 290")
DENSITY = {"hf-json": JSON_NODES, "hf-html": ("<", "tags", 16, "a saved Hugging Face page has one per 46"),
           "arxiv-atom": ("<=", "tags or attributes", 16, "an arXiv feed has one per 43"),
           "bibtex": ("=", "fields", 16, "a real bibliography has one per 54"),
           "hf-text": ("\n", "lines", 32, "a Hugging Face listing has one per 397")}


def check_density(text: str, shown: str, marks: str, what: str, per: int, real: str) -> None:
    """Refuse a text with more than one of what `marks` opens per `per` characters, denser than
    any real source of its kind, before it is parsed (see above)."""
    count = sum(map(text.count, marks))
    if count > max(FREE_NODES, len(text) // per):
        raise SourceError(shown, f"{count:,} {what} in {len(text):,} characters: more than one per {per}, "
                                 f"where {real}; not read")


class BoundedHTMLParser(HTMLParser):
    """html.parser, where alone it would take time squared, memory many times the page's or
    raise: read as a browser reads the page, or refused in one line naming it."""

    def __init__(self, path: str) -> None:
        super().__init__(convert_charrefs=True)
        self.path = path

    def read(self, text: str) -> None:
        # A tag cut off by the end of the file is dropped, as a browser drops it: html.parser would
        # look for its '>' from each '<' after it, to the end, time squared in their number.
        last = text.rfind(">")
        cut = text.find("<", last + 1)
        saved = {name: getattr(html.parser, name) for name in _POSSESSIVE}
        vars(html.parser).update(_POSSESSIVE)  # while this page is read (parse_starttag)
        try:
            self.feed(text[:cut] if cut >= 0 else text)
            self.close()
        except (AssertionError, ValueError):  # html.parser's: `<![ x]>`, `&#` and 5,000 digits
            line, column = self.getpos()
            raise SourceError(self.path, f"markup that no saved page holds, at line {line} column "
                                         f"{column + 1}: not read") from None
        finally:
            vars(html.parser).update(saved)

    # A start tag costs html.parser far more than its size: its patterns' greedy loops keep
    # backtracking state, some 150 to 240 bytes a character of the tag (`<a b=c b=c ...>`: 4 MB
    # took 713 MB; `<a b` and a million spaces), and it lists every attribute before any is
    # handled. While `read` reads, its patterns run possessive (`*+`: the same matches, without
    # that state), and a tag of more than MAX_ATTRIBUTES attributes (a saved page's have a few;
    # each takes two characters at least) is refused before they are listed.
    def parse_starttag(self, i: int) -> int:
        end = self.check_for_whole_start_tag(i)
        if end - i > 2 * MAX_ATTRIBUTES:
            found = _POSSESSIVE["tagfind_tolerant"].match(self.rawdata, i + 1)
            for _ in range(MAX_ATTRIBUTES + 2):  # the tag's name, its attributes, what ends them
                if not found or found.end() >= end:
                    break
                found = _POSSESSIVE["attrfind_tolerant"].match(self.rawdata, found.end())
            else:
                line, column = self.getpos()
                raise SourceError(self.path, f"a tag with more than {MAX_ATTRIBUTES:,} attributes (at "
                                             f"line {line} column {column + 1}): not a saved page; not read")
        return super().parse_starttag(i)

    # A comment or a marked section (`<![CDATA[`) left open runs to the end of the page, as in a
    # browser. html.parser would give its opening as text and look for the end again from the
    # next one: time squared in their number (`<!--x>` 60,000 times took 41 s).
    def parse_comment(self, i: int, report: bool = True) -> int:
        end = super().parse_comment(i, report)
        return len(self.rawdata) if end < 0 else end

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        end = super().parse_marked_section(i, report)
        return len(self.rawdata) if end < 0 else end


MAX_ATTRIBUTES = 1000


def _possessive(name: str) -> re.Pattern[str]:
    own: re.Pattern[str] = getattr(html.parser, name)
    return re.compile(own.pattern.replace("(?:\\s|/(?!>))*", "(?:\\s|/(?!>))*+")
                      .replace("\n     )*\n", "\n     )*+\n"), own.flags)


_POSSESSIVE = {name: _possessive(name) for name in ("tagfind_tolerant", "attrfind_tolerant",
                                                     "locatestarttagend_tolerant")}
