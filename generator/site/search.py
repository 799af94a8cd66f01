"""The search index: Pagefind run over the built HTML, once the site is written.

Pagefind splits the index into small chunks that the browser fetches as a query needs them, so
the first result costs a few hundred kilobytes at any corpus size. Only what is marked
`data-pagefind-body` is indexed: a paper's title, authors and abstract (templates/paper.md.j2)
and the hand-written pages (templates/theme/main.html), never the generated lists.

A site of more than `PART` papers is indexed in parts: Pagefind scores every page that matches
a query before it answers, so at 100,000 papers a common word costs seconds. The newest `PART`
papers and every other indexed page make part 1, in `pagefind/` as a site of that size would
have it; the older papers, newest first, make parts 2, 3, ... in `pagefind/part-2/`, ... .
`pagefind/survey-parts.json` lists those folders (none for a smaller site): the browser
searches part 1 first and the others after it has answered (docs/assets/search.js).
"""

from __future__ import annotations

import ctypes
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError

OUTPUT = "pagefind"
# The most papers in one part of the index, and where the parts after the first are listed.
PART = 10_000
MANIFEST = "survey-parts.json"
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


def _command(site_dir: Path, output: Path, skip: Iterable[str] = ()) -> list[str]:
    """Pagefind's command line. `skip` names top-level folders whose pages have nothing to
    index (the generated lists): Pagefind then does not read them, which saves it a tenth of
    its time and memory at 10,000 papers. Pages without `data-pagefind-body` are not indexed
    anyway, so the index is the same."""
    command = [str(pagefind_executable()), "--site", str(site_dir), "--output-path", str(output),
               "--force-language", "en"]
    skip = set(skip)
    if skip:
        kept = sorted(d.name for d in site_dir.iterdir() if d.is_dir() and d.name not in skip
                      and d.name != OUTPUT and not d.name.startswith("."))
        command += ["--glob", "{" + ",".join(["*.html", *(f"{_glob_text(d)}/**/*.html" for d in kept)]) + "}"]
    for selector in EXCLUDE:
        command += ["--exclude-selectors", selector]
    return command


def _finish(result: subprocess.CompletedProcess[str], site_dir: Path, output: Path) -> list[str]:
    """Check Pagefind's exit and make its bundle canonical; returns its "Indexed" lines."""
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        last = detail[-1] if detail else f"exit status {result.returncode}"
        raise SurveyError(f"search: pagefind failed on {site_dir}: {last}")
    canonical_filters(output)
    return [line.strip() for line in result.stdout.splitlines() if line.strip().startswith("Indexed")]


def _glob_text(name: str) -> str:
    """A folder name as a literal in Pagefind's glob."""
    return "".join(f"[{c}]" if c in "*?[]{},!\\" else c for c in name)


def plan_parts(papers: Iterable[tuple[str, str | None]], size: int = PART) -> list[tuple[str, ...]]:
    """The paper pages of each part, part 1 first: (page path, date) pairs, newest first (dates
    compared as text, as Pagefind sorts `data-pagefind-sort`), equal dates by path, papers
    without a date last, in parts of at most `size`. One part (or none) for a small site."""
    if size < 1:
        raise SurveyError(f"search: the part size must be at least 1, not {size!r}")
    by_path = sorted(papers, key=lambda paper: paper[0])
    newest = [path for path, _ in sorted(by_path, key=lambda paper: paper[1] or "", reverse=True)]
    return [tuple(newest[i:i + size]) for i in range(0, len(newest), size)]


_MIRROR = "-part-"


@dataclass(frozen=True)
class _Bundle:
    """One Pagefind run: the pages it reads (None: the site itself, as one part) and its folder."""

    pages: tuple[str, ...] | None
    output: Path
    mirror: Path  # where the pages are linked for Pagefind to read, mirroring the site's paths


def _bundles(site_dir: Path, output: Path, skip: Iterable[str], parts: Sequence[tuple[str, ...]]
             ) -> list[_Bundle]:
    """The runs that index the site into `output`: one over the site when it has one part;
    otherwise part 1 (its papers and every page that is not a paper) into `output` and each
    later part into `output/part-N/`."""
    mirror = site_dir / f".{output.name.lstrip('.')}{_MIRROR}"
    if len(parts) <= 1:
        return [_Bundle(None, output, site_dir)]
    later = {page for part in parts[1:] for page in part}
    first = tuple(page for page in _indexed_pages(site_dir, skip) if page not in later)
    return [_Bundle(first, output, Path(f"{mirror}1")),
            *(_Bundle(part, output / f"part-{n}", Path(f"{mirror}{n}"))
              for n, part in enumerate(parts[1:], 2))]


def _indexed_pages(site_dir: Path, skip: Iterable[str]) -> list[str]:
    """The HTML pages Pagefind reads on the whole site (see _command), as paths below it."""
    skip = set(skip)
    pages = []
    for top, folders, files in os.walk(site_dir):
        relative = Path(top).relative_to(site_dir)
        if relative == Path("."):
            folders[:] = [d for d in folders if d not in skip and d != OUTPUT and not d.startswith(".")]
        pages += [(relative / name).as_posix() for name in files if name.endswith(".html")]
    return sorted(pages)


def _link_pages(site_dir: Path, bundle: _Bundle) -> None:
    """Hard links to the bundle's pages under its mirror folder (copies where links fail)."""
    shutil.rmtree(bundle.mirror, ignore_errors=True)
    for page in bundle.pages or ():
        target = bundle.mirror / page
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(site_dir / page, target)
        except OSError:
            shutil.copyfile(site_dir / page, target)


def _run_bundle(site_dir: Path, skip: Iterable[str], bundle: _Bundle,
                run: Callable[[list[str]], subprocess.CompletedProcess[str]]) -> list[str]:
    """Index one bundle with `run` (Pagefind's command line -> its result); its "Indexed" lines."""
    if bundle.pages is None:
        return _finish(run(_command(site_dir, bundle.output, skip)), site_dir, bundle.output)
    try:
        _link_pages(site_dir, bundle)
        return _finish(run(_command(bundle.mirror, bundle.output)), site_dir, bundle.output)
    finally:
        shutil.rmtree(bundle.mirror, ignore_errors=True)


def _write_manifest(output: Path, bundles: Sequence[_Bundle]) -> None:
    """survey-parts.json: the folders of the parts after the first (none for a smaller site)."""
    folders = [b.output.relative_to(output).as_posix() for b in bundles if b.output != output]
    (output / MANIFEST).write_text(json.dumps({"parts": folders}) + "\n", encoding="utf-8")


def _summary(bundles: Sequence[_Bundle], lines: Sequence[list[str]]) -> str:
    if len(bundles) == 1:
        return "; ".join(lines[0])
    return f"in {len(bundles)} parts: " + " | ".join(
        f"part {n}: " + "; ".join(part) for n, part in enumerate(lines, 1))


def build_index(site_dir: Path, skip: Iterable[str] = (), papers: Iterable[tuple[str, str | None]] = (),
                part_size: int = PART) -> str:
    """Index the built site in place (`site_dir/pagefind/`); returns what it did and how long.
    `papers` are the paper pages (path below the site, date): more than `part_size` of them
    and the index is written in parts."""
    started = time.perf_counter()
    skip = tuple(skip)
    # Files are named by their content: an index left from an earlier build would stay beside.
    for old in (site_dir / OUTPUT, *site_dir.glob(f".{OUTPUT}{_MIRROR}*")):
        shutil.rmtree(old, ignore_errors=True)
    bundles = _bundles(site_dir, site_dir / OUTPUT, skip, plan_parts(papers, part_size))

    def run(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, capture_output=True, text=True, check=False)

    lines = [_run_bundle(site_dir, skip, bundle, run) for bundle in bundles]
    _write_manifest(site_dir / OUTPUT, bundles)
    return f"in {time.perf_counter() - started:.2f} s: " + _summary(bundles, lines)


# Unfinished bundles of the background index, inside the site folder so that the swap is a
# rename on one file system; none is left once an index is in place.
_NEXT = f".{OUTPUT}-next-"


class BackgroundIndex:
    """Pagefind over a built site in a background thread, for `mkdocs serve`: the pages are
    shown as soon as they are written, and the search index follows.

    Pagefind (1.x) has no incremental mode: each run indexes the whole site, into a fresh
    folder that then replaces `site_dir/pagefind/` in one rename. The newest request wins:
    `start` and `cancel` stop a run still going (its process is killed and its folder removed),
    so an index never mixes two builds' pages. `wait` is the state a caller can wait for; it
    includes `then`, run in the background thread once an index is in place.
    """

    def __init__(self, report: Callable[[str], None], fail: Callable[[str], None],
                 then: Callable[[], None] | None = None) -> None:
        self.report, self.fail, self.then = report, fail, then  # then: after an index is in place
        self._lock = threading.Lock()
        self._generation = 0
        self._proc: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._done.set()

    def start(self, site_dir: Path, skip: Iterable[str] = (), papers: Iterable[tuple[str, str | None]] = (),
              part_size: int = PART) -> None:
        self.cancel()
        parts = plan_parts(papers, part_size)
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._done.clear()
        for stale in site_dir.glob(f"{_NEXT}*"):
            shutil.rmtree(stale, ignore_errors=True)
        thread = threading.Thread(target=self._run, args=(generation, site_dir, tuple(skip), parts),
                                  name="survey-pagefind", daemon=True)
        self._thread = thread
        thread.start()

    def cancel(self) -> None:
        """Stop the run in progress, if any: its index is discarded."""
        with self._lock:
            self._generation += 1
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no index is being written (the last one is in place, or was cancelled)."""
        return self._done.wait(timeout)

    def _current(self, generation: int) -> bool:
        return generation == self._generation

    def _pagefind(self, generation: int, command: list[str]) -> subprocess.CompletedProcess[str]:
        """One Pagefind run, killed by `cancel`; a cancelled run raises _Cancelled."""
        with self._lock:
            if not self._current(generation):
                raise _Cancelled
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self._proc = proc
        stdout, stderr = proc.communicate()
        with self._lock:
            self._proc = None
            if not self._current(generation):
                raise _Cancelled
        return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)

    def _run(self, generation: int, site_dir: Path, skip: tuple[str, ...],
             parts: list[tuple[str, ...]]) -> None:
        started = time.perf_counter()
        output = site_dir / f"{_NEXT}{generation}"
        try:
            bundles = _bundles(site_dir, output, skip, parts)
            lines = [_run_bundle(site_dir, skip, bundle, partial(self._pagefind, generation))
                     for bundle in bundles]
            _write_manifest(output, bundles)
            with self._lock:
                if not self._current(generation):
                    return
                _swap(output, site_dir / OUTPUT)  # every part at once
            self.report(f"in {time.perf_counter() - started:.2f} s, in the background: "
                        + _summary(bundles, lines))
            if self.then is not None:
                self.then()
        except _Cancelled:
            pass
        except (SurveyError, OSError) as exc:
            if self._current(generation):
                self.fail(str(exc))
        finally:
            shutil.rmtree(output, ignore_errors=True)
            with self._lock:
                self._proc = None
                if self._current(generation):
                    self._done.set()


class _Cancelled(Exception):
    """A newer request replaced the background run."""


_RENAME_EXCHANGE = 2


def _swap(new: Path, target: Path) -> None:
    """Put the folder `new` in place of `target` (which may not exist) without a moment when
    `target` is missing where Linux allows it (renameat2's RENAME_EXCHANGE); the old folder is
    then removed."""
    if target.exists():
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            exchanged = libc.renameat2(-100, os.fsencode(new), -100, os.fsencode(target),
                                       _RENAME_EXCHANGE) == 0  # -100: AT_FDCWD
        except (AttributeError, OSError):
            exchanged = False
        if exchanged:
            shutil.rmtree(new, ignore_errors=True)  # the old index, now at new's name
            return
        old = new.with_name(new.name + "-old")
        os.rename(target, old)
        os.rename(new, target)
        shutil.rmtree(old, ignore_errors=True)
        return
    os.rename(new, target)


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
