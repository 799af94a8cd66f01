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

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import SurveyError
from .pagefind_data import canonical_filters

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
        if "did not contain any html files" in last:  # its words blame the folder MkDocs wrote
            raise SurveyError(f"search: {site_dir} has no page to index (Pagefind found none)")
        raise SurveyError(f"search: pagefind failed on {site_dir}: {last}")
    canonical_filters(output)
    return [line.strip() for line in result.stdout.splitlines() if line.strip().startswith("Indexed")]


def _glob_text(name: str) -> str:
    """A folder name as a literal in Pagefind's glob: its special characters escaped with a
    backslash (`[c]` did not parse, so a docs page `esc\\e[31mRED.md` made Pagefind index no page
    at all), and a backslash, which no escape holds, matched by `?`."""
    return "".join("\\" + c if c in "?*$:[](){}<>," else "?" if c == "\\" else c for c in name)


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


def index_into(site_dir: Path, output: Path, skip: Iterable[str], parts: Sequence[tuple[str, ...]],
               run: Callable[[list[str]], subprocess.CompletedProcess[str]]) -> str:
    """Index the site into `output`, in these parts (plan_parts), each with `run` (Pagefind's
    command line -> its result): build_index's and, under serve, search_background's; what it did."""
    bundles = _bundles(site_dir, output, skip, parts)
    lines = [_run_bundle(site_dir, skip, bundle, run) for bundle in bundles]
    _write_manifest(output, bundles)
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

    def run(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, capture_output=True, text=True, check=False)

    said = index_into(site_dir, site_dir / OUTPUT, skip, plan_parts(papers, part_size), run)
    return f"in {time.perf_counter() - started:.2f} s: {said}"
