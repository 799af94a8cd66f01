"""`survey review`: the curator's queue of papers whose topics no person has confirmed.

On a terminal, one paper at a time (cli/screen.py), decided with single keys and written at
once; `survey review SLUG...` decides those papers now. Without a terminal, `--list` prints the
queue and `--apply FILE` applies decisions made elsewhere. The queue and its order are
classify/review.py's; this module reads the corpus for them and writes the decisions.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import SurveyError
from ..core.settings import today
from ..core.text import shown_path
from ..corpus.model import Paper
from ..corpus.store import Corpus
from ..corpus.taxonomy import Taxonomy

if TYPE_CHECKING:
    from ..classify.why import Why
    from .screen import Session
    from .terminal import Terminal


def review_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("slugs", nargs="*", metavar="SLUG",
                   help="review these papers now, in this order (reviewed or not), instead of the queue")
    p.add_argument("--topic", metavar="ID", help="only the papers that have this topic or that the "
                                                  "model may have missed it on (its confidence 0.25 "
                                                  "to 0.5: scored again, a few seconds)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--list", action="store_true",
                     help="print the queue, one paper a line (slug first), instead of asking")
    how.add_argument("--apply", metavar="FILE",
                     help="apply decisions from a YAML list of {slug, topics} or a CSV file with "
                          "slug and topics columns (ids, none or reject; docs/topic-boundaries.md), "
                          "all or none; a row that is the paper as it is changes nothing")
    p.add_argument("--dry-run", action="store_true", help="with --apply: print each decision, write nothing")
    p.add_argument("--force", action="store_true",
                   help="with --apply: also change papers whose topics a person reviewed")


def cmd_review(args: argparse.Namespace) -> int:
    if args.apply:
        if args.topic or args.slugs:
            raise SurveyError("--topic and SLUG choose papers to review; --apply applies every decision "
                              "of its file")
        return _apply(args)
    if args.dry_run or args.force:
        raise SurveyError(f"{'--dry-run' if args.dry_run else '--force'} goes with --apply FILE")
    if args.slugs and args.topic:
        raise SurveyError("give SLUGs or --topic, not both")
    sitting = Sitting(Path(args.corpus), args.slugs, args.topic)
    if not args.list and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise SurveyError("not on a terminal: --list prints the queue, --apply FILE applies decisions")
    if args.list:
        print_queue(sitting)
        return 0
    if not sitting.slugs:
        print("survey review: no paper is waiting: a person has reviewed the topics of every paper"
              + (f" on or near {args.topic}" if args.topic else ""))
        return 0
    from .terminal import KeyReader, Terminal

    with KeyReader() as keys:
        def key() -> str:
            sitting.book.start()  # the first paper is on screen: read the rest while the curator reads
            return keys()

        done = sitting.session(Terminal(key)).run()
    print(done.summary())
    if done.decided or done.rejected:  # the model learns from them only when retrained
        from ..classify.training import refresh_advice

        advice = refresh_advice(sitting.book.corpus(), sitting.book.taxonomy)
        if advice:
            print(advice)
    return 0


class Sitting:
    """The papers of one `survey review`: SLUGs as given (each must be a paper of the corpus),
    else the queue (classify/review.py), from the derived cache (classify/derived.py)."""

    def __init__(self, root: Path, slugs: Sequence[str] = (), topic: str | None = None) -> None:
        from ..classify.derived import for_queue
        from ..core.progress import Progress

        self.root, self.given, self.topic = root, bool(slugs), topic
        self.missed: dict[str, float] = {}  # --topic: its confidence where the model may have missed it
        if not root.is_dir():
            raise SurveyError(f"{shown_path(root)}: no corpus folder here (--corpus DIR names it)")
        # Scoring happens only for what no command has scored with this model (a fresh clone, a
        # model trained since): a terminal says what it waits for.
        scoring = Progress("survey review: scoring the waiting papers with this model")  # fits in 80 columns
        glances, self.scores, self.topics = for_queue(root, lambda: self.book.taxonomy, scoring)
        self.glances = {g.slug: g for g in glances}
        if slugs:
            for slug in slugs:
                if slug not in self.glances:
                    raise SurveyError(_no_paper(slug, root, sorted(self.glances)))
            self.slugs = list(dict.fromkeys(slugs))
        else:
            from ..classify.review import missed_topic, queue

            ids = [t for t, _ in self.topics]
            self.slugs = [p.slug for p in queue(glances, self.scores, ids, topic)]
            if topic is not None:
                self.missed = missed_topic(glances, self.scores, topic)

    @functools.cached_property
    def book(self) -> Book:
        return Book(self.root, _taxonomy(self.root), today())

    def session(self, term: Terminal) -> Session:
        from .screen import Reviewed, Session

        reviewed = sum(g.reviewed for g in self.glances.values())
        return Session(self.book, self.slugs, term, Reviewed(reviewed, len(self.glances)), self.topics,
                       waiting_only=not self.given, topic=self.topic)


def print_queue(sitting: Sitting) -> None:
    """--list: a paper a line, slug first, then what the model suggested (with --topic, the
    topic it may have missed) and the title (its TeX read as a page shows it: `$\\times$` is
    ×); the count on stderr, so that a pipe reads only the papers."""
    from ..core.tex import tex_text
    from .terminal import Terminal, cells, cut

    # A line is 120-220 columns: on a terminal it wrapped and ran into the next, so there each
    # line is cut to the width (the slug kept whole: a curator copies it); a pipe or a file gets
    # the whole line, as a script reads it.
    term = Terminal(key=str) if sys.stdout.isatty() else None  # its width and escaping; no key read
    width = max(term.size()[0] - 1, 30) if term else 0  # never the last column: a terminal may wrap there
    slugs, topic = sitting.slugs, sitting.topic
    for slug in slugs:
        g, scores = sitting.glances[slug], sitting.scores.get(slug, {})
        said = ", ".join(f"{t} {scores[t]:.2f}" if t in scores else t for t in g.topics)
        if slug in sitting.missed:
            said = (f"{said}; " if said else "") + f"may have missed {topic} ({sitting.missed[slug]:.2f})"
        rest = f"{said or 'no topic'}  {tex_text(g.title)}"
        if term:
            room = width - cells(slug) - 2
            rest = cut(term.shown(rest), room) if room > 1 else ""
        print(f"{slug}  {rest}" if rest else slug)
    print(f"survey review: {len(slugs):,} paper{'s' * (len(slugs) != 1)} wait for a person's review"
          + (f", on or near {topic}" if topic else ""), file=sys.stderr)


def _taxonomy(root: Path) -> Taxonomy:
    from ..corpus.lock import CorpusLock

    path = root / "taxonomy.yaml"
    with CorpusLock(root, shared=True):
        return Taxonomy.load(path, shown_path(path))


def _no_paper(slug: str, root: Path, known: list[str]) -> str:
    from ..corpus.rejected import read_rejected

    gone = next((r for r in read_rejected(root) if r.slug == slug), None)
    if gone:
        return (f"{slug}: rejected on {gone.rejected}, so no longer in the corpus; `survey add --force` "
                f"or `survey import FEED --take ID --force` brings it back")
    close = difflib.get_close_matches(slug, known, n=1)
    return f"{slug}: no paper with this slug in the corpus" + (f"; did you mean {close[0]}?" if close else "")


def _gone(slug: str, root: Path) -> str:
    """Why a paper on screen has no file any more: another sitting or command took it out."""
    from ..corpus.rejected import read_rejected

    gone = next((r for r in read_rejected(root) if r.slug == slug), None)
    if gone:
        reason = f": {gone.reason}" if gone.reason else ""
        return (f"{slug}: rejected meanwhile by another sitting or command ({gone.rejected}{reason}); "
                f"nothing written")
    return f"{slug}: its file was removed meanwhile by another command; nothing written"


def _apply(args: argparse.Namespace) -> int:
    """--apply FILE: every decision of the file, or none (each problem of the file said first)."""
    from ..corpus.decisions import decision_files, read_plan
    from ..corpus.rejected import rejection_files
    from ..corpus.store import load_corpus
    from ..corpus.writes import write_files

    corpus = load_corpus(args.corpus)
    path = Path(args.apply)
    plan = read_plan(path, corpus, force=args.force)
    if plan.problems:
        print(plan.refusal(shown_path(path)), file=sys.stderr)
        return 1
    for decision in plan.decisions:  # all of them for a dry run, else those changing a person's
        if args.dry_run or decision.was_reviewed:
            print(decision)
    if args.dry_run:
        print(f"survey review: {plan.summary(None)}")
        return 0
    decided = [(d.slug, list(d.topics)) for d in plan.decisions if d.topics is not None]
    rejected = [(d.slug, d.reason) for d in plan.decisions if d.topics is None]
    files: list[tuple[str, str | None]] = [*decision_files(corpus, decided)]
    if rejected:
        files += rejection_files(corpus, rejected, today())
    written = write_files(corpus, files)
    print(f"survey review: {plan.summary(len(written))}")
    return 0


# --- what a sitting reads and writes ------------------------------------------------------------

@dataclass(frozen=True)
class Written:
    """A decision as written: each file it changed, before and after (None: no file), so that
    it can be undone."""

    before: list[tuple[str, str | None]]
    after: list[tuple[str, str | None]]


class Book:
    """The corpus as a sitting reads and writes it. The paper on screen is read from its file
    when shown; the whole corpus, which every write is checked against (corpus/writes.py), is
    read in the background while the curator reads the first paper (4.5 s at 10,000 papers:
    the queue itself opens from the derived cache, corpus/derived.py, in a fraction of that)."""

    def __init__(self, root: Path, taxonomy: Taxonomy, today: str) -> None:
        self.root, self.taxonomy, self.today = root, taxonomy, today
        self.listed: dict[str, list[tuple[str, int]]] | None = None  # read with the first paper
        self._corpus: Corpus | None = None
        self._failed: SurveyError | None = None
        self._loading = threading.Thread(target=self._load, daemon=True)

    def start(self) -> None:
        """Read the whole corpus in the background, once."""
        if self._loading.ident is None:
            self._loading.start()

    def _load(self) -> None:
        from ..corpus.store import load_corpus

        try:
            self._corpus = load_corpus(self.root)
        except SurveyError as exc:
            self._failed = exc

    def corpus(self) -> Corpus:
        self.start()
        self._loading.join()
        if self._failed is not None:
            raise self._failed
        assert self._corpus is not None
        return self._corpus

    def paper(self, slug: str) -> Paper:
        from ..corpus.store import read_record

        path = self.root / "papers" / f"{slug}.yaml"
        if not path.exists():
            raise FileNotFoundError(path)
        paper: Paper = read_record(path, Paper, shown_path(path))
        return paper

    def why(self, paper: Paper) -> list[Why]:
        from ..classify.why import why

        return why(self.taxonomy, paper.title, paper.abstract)

    def sources(self, slug: str) -> list[str]:
        """Each listing that holds the paper, and its place there."""
        from ..corpus.store import listing_places

        if self.listed is None:
            self.listed = listing_places(self.root)
        return [f"{name} (#{pos})" for name, pos in self.listed.get(slug, [])]

    def decide(self, slug: str, topics: list[str]) -> Written:
        from ..corpus.decisions import decision_files

        return self._write(slug, lambda corpus: list(decision_files(corpus, [(slug, topics)])))

    def reject(self, slug: str, reason: str | None) -> Written:
        from ..corpus.rejected import rejection_files

        return self._write(slug, lambda corpus: rejection_files(corpus, [(slug, reason)], self.today))

    def undo(self, done: object) -> None:
        assert isinstance(done, Written)
        self._commit(done.after, done.before, what="undo")

    def _write(self, slug: str, files: Callable[[Corpus], Sequence[tuple[str, str | None]]]) -> Written:
        from ..corpus.journal import writing

        corpus = self.corpus()
        with writing(self.root):
            # The paper as its file is now: another command may have changed it since, or taken it out.
            if not (self.root / "papers" / f"{slug}.yaml").exists():
                raise SurveyError(_gone(slug, self.root))
            corpus.papers[slug] = self.paper(slug)
            after = list(files(corpus))
            before = [(rel, self._text(rel)) for rel, _ in after]
            self._commit(before, after)
        return Written(before, after)

    def _commit(self, expected: list[tuple[str, str | None]], files: list[tuple[str, str | None]],
                what: str = "") -> None:
        """Write `files`, where each is still as `expected` (an undo changes nothing that another
        command has changed since); the corpus read is kept up to date."""
        from ..corpus.journal import writing
        from ..corpus.writes import with_files, write_files

        with writing(self.root):
            for rel, text in expected:
                if what and self._text(rel) != text:
                    raise SurveyError(f"{shown_path(self.root / rel)} has changed since; nothing undone")
            corpus = self.corpus()
            write_files(corpus, files)
            self._corpus = with_files(corpus, files)
            if any(rel.startswith("listings/") for rel, _ in files):  # a rejection, or its undo
                self.listed = None

    def _text(self, rel: str) -> str | None:
        from ..corpus.journal import read_plain

        data = read_plain(self.root / rel)  # as every read of a write path: no link followed, no FIFO
        return None if data is None else data.decode("utf-8")
