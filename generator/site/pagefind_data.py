"""Pagefind's data files: its filter values sorted, so that the same site gives the same bytes."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError

_SIGNATURE = b"pagefind_dcd"
# The Pagefind release whose data files canonical_filters reads and writes, pinned exactly in
# pyproject.toml: their layout is not documented, so another release must be checked by hand
# (tests/test_search_parts.py fails until PAGEFIND_VERSION and the pin are moved together).
PAGEFIND_VERSION = "1.5.2"


def _read(path: Path) -> Any:
    import cbor2

    data = gzip.decompress(path.read_bytes())
    if not data.startswith(_SIGNATURE):
        raise SurveyError(f"search: {path} is not a Pagefind data file")
    return cbor2.loads(data[len(_SIGNATURE):])


def _write(folder: Path, prefix: str, suffix: str, value: Any, digits: int) -> str:
    """Write a Pagefind data file named, as Pagefind names them, by a hash of its content."""
    import cbor2

    data = _SIGNATURE + cbor2.dumps(value)
    name = f"{prefix}{hashlib.sha256(data).hexdigest()[:digits]}"
    (folder / f"{name}{suffix}").write_bytes(gzip.compress(data, mtime=0))
    return name


def canonical_filters(bundle: Path) -> None:
    """Pagefind writes each filter's values in hash-map order, which changes from run to run.

    Sort them (and the filters in the language's meta file), so the same site gives the same
    bytes; file names follow the content, as Pagefind's own do.
    """
    entry_path = bundle / "pagefind-entry.json"
    entry = json.loads(entry_path.read_text(encoding="utf-8"))
    if entry.get("version") != PAGEFIND_VERSION:
        raise SurveyError(f"search: Pagefind {entry.get('version')} wrote {bundle}; the survey reads "
                          f"the data files of Pagefind {PAGEFIND_VERSION} only (pip install -e .)")
    for language in entry["languages"].values():
        old_meta = bundle / f"pagefind.{language['hash']}.pf_meta"
        meta = _read(old_meta)
        lang = language["hash"].split("_")[0] + "_"
        filters = []
        if not (isinstance(meta, list) and len(meta) > 3 and _pairs(meta[3], str, str)):
            raise SurveyError(f"search: {old_meta} is not laid out as Pagefind {PAGEFIND_VERSION}'s")
        for name, file_hash in meta[3]:
            old = bundle / "filter" / f"{file_hash}.pf_filter"
            data = _read(old)
            if not (isinstance(data, list) and len(data) == 2 and _pairs(data[1], object, list)):
                raise SurveyError(f"search: {old} is not laid out as Pagefind {PAGEFIND_VERSION}'s")
            key, values = data
            old.unlink()
            values = sorted(values, key=lambda v: str(v[0]))
            filters.append([name, _write(bundle / "filter", lang, ".pf_filter", [key, values], 7)])
        meta[3] = sorted(filters)
        old_meta.unlink()
        language["hash"] = _write(bundle, "pagefind." + lang, ".pf_meta", meta, 10).removeprefix("pagefind.")
    entry_path.write_text(json.dumps(entry, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _pairs(value: Any, first: type, second: type) -> bool:
    """A list of two-item lists, each (first, second)."""
    return isinstance(value, list) and all(
        isinstance(item, list) and len(item) == 2 and isinstance(item[0], first)
        and isinstance(item[1], second) for item in value)
