"""A source's bytes, read within bounds: whatever a source file holds, reading it takes
bounded memory and time, and what cannot be read safely is refused in one line.

- A file, or a gzip file once inflated, over MAX_SOURCE_BYTES is refused. A gzip file of a
  few megabytes can inflate to terabytes: it is inflated piece by piece and stopped there.
- An XML document type is refused before any parser sees it: its entities can expand without
  limit ("billion laughs") or pull in local files.
"""

from __future__ import annotations

import codecs
import re
import zlib
from pathlib import Path

from ..core.errors import SourceError

# The real daily-papers file of 9,109 papers is 46 MB (9 MB gzipped): room for some 100,000.
MAX_SOURCE_BYTES = 512 * 2**20


def read_bytes(path: Path, shown: str) -> bytes:
    """A source file's bytes, refused past MAX_SOURCE_BYTES without reading further."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise SourceError(shown, f"cannot read: {exc.strerror}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_big(shown, "the file")
    return data


def _too_big(shown: str, what: str) -> SourceError:
    return SourceError(shown, f"{what} is over {MAX_SOURCE_BYTES // 2**20} MiB, the most a source may "
                              f"hold (the real daily-papers file of 9,109 papers is 46 MB); split it")


def _gunzip(data: bytes, shown: str) -> bytes:
    """The members of a gzip file, inflated piece by piece up to MAX_SOURCE_BYTES."""
    out: list[bytes] = []
    size = 0
    while data:
        inflater = zlib.decompressobj(wbits=31)  # one gzip member
        pending = data
        while pending and not inflater.eof:
            piece = inflater.decompress(pending, MAX_SOURCE_BYTES + 1 - size)
            size += len(piece)
            out.append(piece)
            if size > MAX_SOURCE_BYTES:
                raise _too_big(shown, "inflated, the file")
            pending = inflater.unconsumed_tail
        if not inflater.eof:
            raise SourceError(shown, "a damaged gzip file: it ends in the middle of its data")
        data = inflater.unused_data
        if data and data[:2] != b"\x1f\x8b":
            if data.strip(b"\x00"):
                raise SourceError(shown, "a damaged gzip file: unexpected bytes after its end")
            break
    return b"".join(out)


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
