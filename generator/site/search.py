"""The search index: Pagefind run over the built HTML, once the site is written.

Pagefind splits the index into small chunks that the browser fetches as a query needs them, so
the first result costs a few hundred kilobytes at any corpus size. Only what is marked
`data-pagefind-body` is indexed: a paper's title, authors and abstract (templates/paper.md.j2)
and the hand-written pages (templates/theme/main.html), never the generated lists.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError

OUTPUT = "pagefind"
# The folders of the generated lists (topics, tags, listings), none of which is indexed.
LIST_FOLDERS = ("listings", "tags", "topics")
# Permalink signs and the edit button are not words of a page.
EXCLUDE = (".headerlink", ".md-content__button")


def pagefind_executable() -> Path:
    try:
        from pagefind_bin import get_executable  # type: ignore[import-untyped]
    except ImportError:
        raise SurveyError("search: the pagefind-bin package is missing; run "
                          "pip install -e . (it installs pagefind[bin])") from None
    return Path(get_executable())


def build_index(site_dir: Path, skip: Iterable[str] = ()) -> str:
    """Index the built site in place (`site_dir/pagefind/`); returns what it did and how long.

    `skip` names top-level folders whose pages have nothing to index (the generated lists):
    Pagefind then does not read them, which saves it a tenth of its time and memory at
    10,000 papers. Pages without `data-pagefind-body` are not indexed anyway, so the index
    is the same.
    """
    started = time.perf_counter()
    # Files are named by their content: an index left from an earlier build would stay beside.
    shutil.rmtree(site_dir / OUTPUT, ignore_errors=True)
    command = [str(pagefind_executable()), "--site", str(site_dir), "--output-subdir", OUTPUT,
               "--force-language", "en"]
    skipped = set(skip) | {OUTPUT}
    if set(skip):
        kept = sorted(d.name for d in site_dir.iterdir() if d.is_dir() and d.name not in skipped)
        command += ["--glob", "{" + ",".join(["*.html", *(f"{_glob_text(d)}/**/*.html" for d in kept)]) + "}"]
    for selector in EXCLUDE:
        command += ["--exclude-selectors", selector]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        last = detail[-1] if detail else f"exit status {result.returncode}"
        raise SurveyError(f"search: pagefind failed on {site_dir}: {last}")
    canonical_filters(site_dir / OUTPUT)
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip().startswith("Indexed")]
    return f"in {time.perf_counter() - started:.2f} s: " + "; ".join(lines)


def _glob_text(name: str) -> str:
    """A folder name as a literal in Pagefind's glob."""
    return "".join(f"[{c}]" if c in "*?[]{},!\\" else c for c in name)


_SIGNATURE = b"pagefind_dcd"


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
    for language in entry["languages"].values():
        old_meta = bundle / f"pagefind.{language['hash']}.pf_meta"
        meta = _read(old_meta)
        lang = language["hash"].split("_")[0] + "_"
        filters = []
        for name, file_hash in meta[3]:
            old = bundle / "filter" / f"{file_hash}.pf_filter"
            key, values = _read(old)
            old.unlink()
            values = sorted(values, key=lambda v: str(v[0]))
            filters.append([name, _write(bundle / "filter", lang, ".pf_filter", [key, values], 7)])
        meta[3] = sorted(filters)
        old_meta.unlink()
        language["hash"] = _write(bundle, "pagefind." + lang, ".pf_meta", meta, 10).removeprefix("pagefind.")
    entry_path.write_text(json.dumps(entry, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
