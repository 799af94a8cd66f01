"""Index a built site again, in parts, as the build indexes a site of more than PART papers
(generator/site/search.py), without building the site again.

    python benchmarks/reindex_parts.py SITE_DIR [--part-size N]

The paper pages are papers/*/index.html and their dates the ones Pagefind sorts by (the page's
`data-pagefind-sort="date"`, "0000" for none), so the parts are those the build makes for the
same corpus. Everything else in SITE_DIR is left as it is, except pagefind/, which is written
again: on a copy of a kept site (`cp -al` is enough, the pages are only read) this stands in
for a build of the branch as long as the pages are the same (diff -rq two seed builds).
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from generator.site.search import LIST_FOLDERS, PART, build_index

DATE = re.compile(rb'data-pagefind-sort="date">([^<]*)<')


def paper_dates(site: Path) -> list[tuple[str, str | None]]:
    papers = []
    for page in sorted((site / "papers").glob("*/index.html")):
        match = DATE.search(page.read_bytes())
        if match is None:
            raise SystemExit(f"{page}: no data-pagefind-sort=\"date\"")
        date = match.group(1).decode()
        papers.append((page.relative_to(site).as_posix(), None if date == "0000" else date))
    return papers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--part-size", type=int, default=PART)
    args = parser.parse_args()
    started = time.perf_counter()
    papers = paper_dates(args.site)
    print(f"{len(papers)} paper pages and their dates read in {time.perf_counter() - started:.1f} s")
    print("search index written to pagefind/ " + build_index(args.site, LIST_FOLDERS, papers, args.part_size))


if __name__ == "__main__":
    main()
