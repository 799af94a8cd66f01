"""`survey fetch`: ask arXiv for the survey's new papers (sources/fetch.py), write them as one
Atom file and import it with `--on-topic`; `--report FILE` writes what a pull request says of it
(.github/workflows/fetch.yml), titled "N new papers: M in a topic, K for review".

The network is asked before the corpus is locked (a run of ten pages takes half a minute, and a
reader such as `mkdocs serve` would wait on the lock); the import then locks it as `survey
import` does. A run that adds no paper writes nothing: no feed, no report, no corpus file.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import tempfile
from pathlib import Path

from ..core.errors import SurveyError
from ..core.progress import Progress
from ..core.settings import today
from ..core.tex import tex_text
from ..core.text import printable
from ..corpus.model import Paper
from ..sources.report import Report
from ..sources.scope import LeftOut

MOST_ROWS = 200  # of the left-out list in a pull request's description (GitHub takes 65,536 characters)


def fetch_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--since", metavar="YYYY-MM-DD",
                   help="papers submitted from this day on (default: the newest date of a paper in the "
                        "corpus)")
    p.add_argument("--until", metavar="YYYY-MM-DD",
                   help="papers submitted up to this day (default: today); with --since, the days a run "
                        "that stopped at its bound on pages left")
    p.add_argument("--out", metavar="FILE",
                   help="where the feed of new papers is written (default: arxiv-SINCE-to-TODAY.atom.xml)")
    p.add_argument("--left-out", metavar="FILE",
                   help="where the papers left out are listed (default: left-out-FEED.csv)")
    p.add_argument("--report", metavar="FILE",
                   help="also write what was done as Markdown (for a pull request)")
    p.add_argument("--delay", type=float, default=3.0, metavar="SECONDS",
                   help="pause between two requests (default: %(default)s, as arXiv asks)")
    p.add_argument("--dry-run", action="store_true",
                   help="ask arXiv and report what would change, write nothing")


def cmd_fetch(args: argparse.Namespace) -> int:
    from ..corpus.fields import is_date
    from ..corpus.journal import writing
    from ..corpus.store import load_corpus
    from ..sources.fetch import Client, atom_text, fetch, newest_day, read_query
    from ..sources.importer import Importer
    from ..sources.readers import read_source
    from ..sources.scope import report_csv, report_path
    from .outputs import output_path, write_output

    root, day = Path(args.corpus), today()
    query = read_query(root)
    for name in ("since", "until"):
        if getattr(args, name) is not None and not is_date(getattr(args, name), day=True):
            raise SurveyError(f"--{name} {getattr(args, name)!r}: not a day; use YYYY-MM-DD")
    corpus = load_corpus(root)
    since = args.since or newest_day(corpus.papers.values())
    if since is None:
        raise SurveyError("no paper of the corpus has a date to fetch from: give --since YYYY-MM-DD")
    until = min(args.until or day, day)
    since = min(since, until)
    out = Path(args.out or f"arxiv-{since}-to-{until}.atom.xml")
    left = Path(args.left_out) if args.left_out else report_path([str(out)])
    paths = [output_path(str(p), what, corpus=args.corpus) for p, what in
             ((out, "the feed"), (left, "the report of papers left out"),
              *(((Path(args.report), "a fetch report"),) if args.report else ()))]
    known = {p.arxiv for p in corpus.papers.values() if p.arxiv}
    fetched = fetch(query, since, until, known, Client(query.contact, args.delay),
                    progress=Progress("asking arXiv, pages"))
    # Newest first: what the bound left are the oldest days, which the next run (from the newest
    # paper on) would not ask for again.
    stopped = (f"stopped at the bound of {query.pages} pages (`pages` in {root / 'fetch.yaml'})"
               if fetched.pages == query.pages else "arXiv's pages ended before its count")
    more = "" if not fetched.more else (
        f"; {stopped}: `survey fetch --since {since} --until {fetched.oldest or until}` asks for the older "
        f"ones")
    asked = (f"arXiv: {fetched.total:,} papers of the survey's query submitted from {since} to {until}; "
             f"{fetched.read:,} read in {fetched.pages} page{'s' * (fetched.pages != 1)}, {fetched.known:,} "
             f"already in the corpus{more}")
    print(asked)
    if not fetched.entries:
        print("nothing new: nothing written")
        return 0
    text = atom_text(fetched, f"New arXiv papers of the survey's query, {since} to {until}")
    lock: contextlib.AbstractContextManager[list[str]] = (
        writing(root) if not args.dry_run else contextlib.nullcontext([]))
    with tempfile.TemporaryDirectory() as tmp, lock as notes:
        for note in notes:
            print(f"survey fetch: {note}")
        feed = Path(tmp) / out.name  # read as the file it will be: its name in every line and listing
        feed.write_text(text, encoding="utf-8")
        importer = Importer(load_corpus(root), day, on_topic=True)
        report = importer.run([read_source(feed, str(out), strict=False)], name=f"arXiv, {since} to {until}",
                              progress=Progress("importing"),
                              classifying=Progress("classifying the papers added"))
        if not report.added:
            print(report.summary(None))
            print("nothing new in the survey's topics: nothing written")
            return 0
        if not args.dry_run:
            write_output(paths[0], text, "the feed")
            if report.left_out or report.refused:
                write_output(paths[1], report_csv([*report.refused, *report.left_out], args.corpus),
                             "the report of papers left out")
            importer.write()
    print(report.summary(None if args.dry_run else str(paths[1])))
    if args.report and not args.dry_run:  # last: that it is there tells the workflow to propose it
        write_output(paths[2], markdown(report, importer.papers, asked, paths[1].name), "the fetch report")
    return 0


def title(report: Report, papers: dict[str, Paper]) -> str:
    """The pull request's title: papers added, those with a suggested topic, those without (kept
    by --on-topic as likely enough, for a person to decide)."""
    added = len(report.added)
    topical = sum(bool(papers[slug].topics) for slug in report.added)
    return (f"{added} new paper{'s' * (added != 1)}: {topical} in a topic, {added - topical} for review")


def _block(lines: list[str]) -> list[str]:
    """Corpus text as a pull request shows it: in a fenced block, where nothing in a title renders
    (no markup, no link, no @mention), each unsafe character escaped."""
    return ["````text", *(printable(line) for line in lines), "````"]


def markdown(report: Report, papers: dict[str, Paper], asked: str, left_out_file: str) -> str:
    """What a pull request of the run says: its title, the papers added, the import's summary
    and the papers left out, refused first, then most likely first (the first MOST_ROWS)."""
    added = []
    for slug in report.added:
        paper = papers[slug]
        topics = ", ".join(paper.topics) or "no topic: for review"
        added.append(f"{paper.arxiv or slug:<11} {tex_text(paper.title)} ({topics})")
    left: list[LeftOut] = [*report.refused, *sorted(report.left_out, key=lambda i: (-i.confidence, i.key))]
    # Confidences cut to three decimals, as in the left-out CSV (0.0796 is under the gate, not 0.080).
    rows = [f"{i.key:<11} refused: {i.why}" if i.why else
            f"{i.key:<11} {i.best_topic} {math.floor(i.confidence * 1000) / 1000:.3f}  {tex_text(i.title)}"
            for i in left[:MOST_ROWS]]
    if len(left) > MOST_ROWS:
        rows.append(f"... and {len(left) - MOST_ROWS:,} more: {left_out_file}, kept with the run, lists "
                    f"every one")
    out = [f"## {title(report, papers)}", "",
           f"`survey fetch` asked arXiv's API for the survey's query (`corpus/fetch.yaml`) and imported the "
           f"new papers with `--on-topic`: {len(report.added):,} are added here, each waiting in `survey "
           f"review` for a person to decide its topics, and {len(left):,} were left out.", "",
           "### Papers added", "", *_block(added), "",
           "### What the run said", "", *_block([asked, *report.summary(left_out_file).splitlines()]), ""]
    if left:
        out += [f"### Left out: {len(left):,}", "",
                "Refused by the corpus's rules, or no topic likely (the best topic and its confidence). "
                "To take one in: `survey add --arxiv ID`.", "", *_block(rows), ""]
    return "\n".join(out)
