"""`survey review`: the curator's queue of papers whose topics no person has confirmed.

On a terminal, one paper at a time, decided with single keys and written at once; without one,
`--list` prints the queue and `--apply FILE` applies decisions made elsewhere. The queue and
its order are classify/review.py's; this module is the terminal and the writes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..core.errors import SurveyError
from ..core.output import raw
from ..core.progress import Progress
from ..core.tex import tex_text
from ..core.text import printable
from ..corpus.store import Corpus

SHOWN_REASONS = 3  # the strongest reasons shown under a topic (`survey explain` shows 8)


def review_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--topic", metavar="ID", help="only the papers that have this topic or that the "
                                                  "model may have missed it on")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--list", action="store_true",
                     help="print the queue, one paper a line (slug first), instead of asking")
    how.add_argument("--apply", metavar="FILE",
                     help="apply decisions from a YAML list of {slug, topics} or a CSV file with "
                          "slug and topics columns, all or none")


def cmd_review(args: argparse.Namespace) -> int:
    from ..classify.review import queue
    from ..corpus.store import load_corpus

    if args.apply and args.topic:
        raise SurveyError("--topic narrows the queue; --apply applies every decision of its file")
    if args.apply:
        return _apply(args)
    corpus = load_corpus(args.corpus)
    if not args.list and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise SurveyError("not on a terminal: --list prints the queue, --apply FILE applies decisions")
    pending = queue(corpus, args.topic, Progress("reading the papers to review"))
    if not pending and not args.list:
        print("survey review: no paper is waiting: a person has reviewed the topics of every paper"
              + (f" on or near {args.topic}" if args.topic else ""))
        return 0
    if args.list:
        for item in pending:
            print(list_line(corpus, item.slug, item.scores))
        print(f"survey review: {len(pending)} paper(s) whose topics no person has confirmed"
              + (f", on or near {args.topic}" if args.topic else ""), file=sys.stderr)
        return 0
    record = _recorder(corpus)
    with KeyReader() as keys:
        done = Session(corpus, [p.slug for p in pending], Terminal(keys), record).run()
    print(done.summary())
    return 0


def list_line(corpus: Corpus, slug: str, scores: Mapping[str, float]) -> str:
    """A paper of the queue as --list prints it: the slug, then what the model thinks."""
    from ..classify.review import expected_wrong

    paper = corpus.papers[slug]
    if not scores:
        return f"{slug}  no topic model; topics: {', '.join(paper.topics) or 'none'}"
    said = ", ".join(f"{t} {scores[t]:.2f}" + (" (has it)" if t in paper.topics else "")
                     for t in corpus.taxonomy.topic_ids if t in scores)
    return f"{slug}  {expected_wrong(scores):.2f} expected wrong: {said}"


def _apply(args: argparse.Namespace) -> int:
    from ..classify.review import decision_files, read_decisions
    from ..corpus.store import load_corpus
    from ..corpus.writes import write_files

    corpus = load_corpus(args.corpus)
    decisions = read_decisions(Path(args.apply), corpus)
    written = write_files(corpus, decision_files(corpus, decisions))
    print(f"survey review: {len(decisions)} decision(s) applied, {len(written)} file(s) written")
    return 0


def _recorder(corpus: Corpus) -> Callable[[str, list[str]], None]:
    """Writes one decision: under the corpus's lock, on the paper as its file is now (another
    writer may have changed it since the queue was read), all or nothing."""
    from ..classify.review import decision_files
    from ..core.yamlio import load_yaml
    from ..corpus.journal import writing
    from ..corpus.model import Paper
    from ..corpus.store import read_record, shown_path
    from ..corpus.writes import write_files

    def record(slug: str, topics: list[str]) -> None:
        path = corpus.root / "papers" / f"{slug}.yaml"
        with writing(corpus.root):
            shown = shown_path(path)
            corpus.papers[slug] = read_record(path, Paper, shown)
            files = decision_files(corpus, [(slug, topics)])
            write_files(corpus, files)
            corpus.papers[slug] = Paper.from_dict(load_yaml(files[0][1], shown), shown)
    return record


# --- the terminal -------------------------------------------------------------------------------

class KeyReader:
    """Single key presses from the terminal, without Enter or echo, until closed."""

    def __enter__(self) -> Callable[[], str]:
        import termios
        import tty

        self.fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)  # keeps Ctrl-C a signal: it quits like q
        return self.key

    def key(self) -> str:
        data = os.read(self.fd, 32)  # an arrow key is several bytes at once: read them as one
        return data.decode("utf-8", "replace") if data else "\x04"

    def __exit__(self, *exc: object) -> None:
        import termios

        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)


@dataclass
class Terminal:
    """What the session needs of a terminal; a test gives its own keys and output."""

    key: Callable[[], str]
    out: TextIO = field(default_factory=lambda: sys.stdout)
    width: Callable[[], int] = lambda: shutil.get_terminal_size((80, 24)).columns
    open: Callable[[str], bool] = field(default_factory=lambda: _open_link)

    def show(self, text: str) -> None:
        """The screen cleared, then text (escaped, as all output: core/output.py)."""
        raw(self.out, CLEAR)  # the one control sequence review sends
        self.out.write(text)
        self.out.flush()


def _open_link(url: str) -> bool:
    import webbrowser

    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


@dataclass
class Done:
    decided: int = 0
    skipped: int = 0
    left: int = 0

    def summary(self) -> str:
        return (f"survey review: {self.decided} decided, {self.skipped} skipped (they come back next "
                f"time), {self.left} left in the queue")


HELP = "a accept · 1-{n} toggle a topic · s skip · o open the paper's link · q quit"
CLEAR = "\x1b[H\x1b[2J"


class Session:
    """One sitting of review: each paper shown until it is accepted, skipped or the curator quits."""

    def __init__(self, corpus: Corpus, slugs: list[str], term: Terminal,
                 record: Callable[[str, list[str]], None]) -> None:
        self.corpus, self.slugs, self.term, self.record = corpus, slugs, term, record
        self.topics = corpus.taxonomy.topics[:9]  # one digit each

    def run(self) -> Done:
        done = Done(left=len(self.slugs))
        for i, slug in enumerate(self.slugs):
            try:
                answer = self._one(slug, i)
            except KeyboardInterrupt:
                answer = "quit"
            if answer == "quit":
                break
            done.left -= 1
            if answer == "skip":
                done.skipped += 1
            else:
                done.decided += 1
        self.term.show("")
        return done

    def _one(self, slug: str, i: int) -> str:
        from ..classify.suggest import suggest

        paper = self.corpus.papers[slug]
        verdicts = {v.id: v for v in suggest(self.corpus.taxonomy, paper.title, paper.abstract).topics}
        chosen = [t.id for t in self.topics if t.id in paper.topics]
        note = ""
        while True:
            self.term.show(self._screen(paper, verdicts, chosen, i, note))
            key = self.term.key()[:1]
            note = ""
            if key in ("q", "\x04", "\x03"):
                return "quit"
            if key == "s":
                return "skip"
            if key == "a":
                self.record(slug, chosen)
                return "decided"
            if key.isdigit() and 1 <= int(key) <= len(self.topics):
                topic = self.topics[int(key) - 1].id
                chosen = [t.id for t in self.topics if (t.id in chosen) != (t.id == topic)]
            elif key == "o":
                url = paper.link("paper") or paper.link("pdf") or _search(paper.title)
                opened = self.term.open(url)
                note = f"{'opened' if opened else 'could not open a browser for'} {printable(url)}"
            else:
                note = f"not a key of review ({printable(repr(key))}): " + HELP.format(n=len(self.topics))

    def _screen(self, paper: Any, verdicts: dict[str, Any], chosen: list[str], i: int, note: str) -> str:
        from ..classify.model import REVIEW_LOW, TopicVerdict
        from ..classify.review import expected_wrong
        from ..classify.suggest import reasons

        width = max(40, self.term.width())
        model = {t: v for t, v in verdicts.items() if isinstance(v, TopicVerdict)}
        wrong = (f" · {expected_wrong({t: v.confidence for t, v in model.items()}):.2f} topics expected "
                 f"wrong" if model else "")
        lines = [f"survey review: paper {i + 1} of {len(self.slugs)}{wrong} · {paper.slug}", "",
                 *textwrap.wrap(printable(tex_text(paper.title)), width), "",
                 *textwrap.wrap(printable(tex_text(paper.abstract)), width), "",
                 "Topics ([x]: the paper has it when you accept), the model's confidence and reasons:"]
        for n, topic in enumerate(self.topics, 1):
            verdict = model.get(topic.id)
            mark = "x" if topic.id in chosen else " "
            conf = f"{verdict.confidence:.2f}" if verdict else ""
            lines.append(f"  {n} [{mark}] {printable(topic.name):<14} {conf}".rstrip())
            if verdict and (topic.id in chosen or verdict.confidence > REVIEW_LOW):
                lines += [_fit(" " * 10 + printable(r), width) for r in reasons(verdict, SHOWN_REASONS)]
        lines += ["", HELP.format(n=len(self.topics))]
        if note:
            lines.append(note)
        return "\n".join(lines) + "\n"


def _fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[:width - 1] + "…"


def _search(title: str) -> str:
    from urllib.parse import quote_plus

    return "https://arxiv.org/search/?searchtype=title&query=" + quote_plus(title)
