"""`survey review`'s sitting: one paper a screen, decided with single keys (cli/terminal.py).

The screen fits the terminal (80x24 and up, measured at each key): the header (where the
sitting is, and how much of the survey a person has reviewed), the title, the authors and the
topics with their keys always show; the date, arXiv id, where the paper came from and its tags
next; the abstract gets the lines left, and `m` shows all of it. Under each topic, the words of
the paper that point to it (classify/why.py). Every text a file brings is escaped (core/output.py)
before it is measured, so that a line's width is what the terminal shows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote_plus

from ..classify.model import REVIEW_HIGH, REVIEW_LOW
from ..classify.why import Why
from ..core.errors import SurveyError
from ..core.tex import tex_text
from ..core.text import printable
from ..corpus.model import Paper
from .terminal import RESIZED, Terminal, cells, cut, typing, wrap


class Desk(Protocol):
    """What the session reads and writes through (cli/review.py's `Book`; a test's own)."""

    def paper(self, slug: str) -> Paper: ...
    def why(self, paper: Paper) -> list[Why]: ...
    def sources(self, slug: str) -> list[str]: ...
    def decide(self, slug: str, topics: list[str]) -> object: ...
    def reject(self, slug: str, reason: str | None) -> object: ...
    def undo(self, done: object) -> None: ...


@dataclass
class Reviewed:
    """How much of the survey a person has reviewed: shown in the header, kept up to date."""

    reviewed: int
    papers: int


HELP = """Keys of survey review

  a      accept: the paper gets the topics marked [x], as a person's decision
  1-{n}    mark or unmark a topic
  r      reject: the paper leaves the survey (its file goes, recorded in
         rejected.yaml with your reason) and later imports skip it
  s      skip: decide it later (a skipped paper comes back next time)
  u      undo your last decision of this sitting
  m      read all of the abstract
  o      open the paper's page in a browser
  ?      this help
  q      quit (Ctrl-C too)

Each decision is written when you make it. A topic the model gives at least
0.95 is "sure", one between 0.25 and 0.95 "unsure". A rejected paper comes
back with `survey add --force` or `survey import FEED --take ID --force`."""
KEYS = "a accept  r reject  1-{n} mark  s skip  u undo  m more  o open  ? help  q quit"
QUIT = ("q", "\x04", "\x03")


@dataclass
class Done:
    decided: int = 0
    rejected: int = 0
    skipped: int = 0
    left: int = 0
    queue: bool = True  # the queue's papers, not those named on the command line

    def summary(self) -> str:
        done = f"survey review: {self.decided} decided, {self.rejected} rejected, {self.skipped} skipped"
        if not self.queue:
            return f"{done}; {self.left} of the papers named not decided"
        return f"{done} (they come back next time), {self.left} left in the queue"


class Session:
    """One sitting: each paper shown until it is decided, rejected or skipped, or the curator
    quits; `u` takes back the sitting's decisions, last first, and shows that paper again."""

    def __init__(self, desk: Desk, slugs: list[str], term: Terminal, tally: Reviewed,
                 topics: list[tuple[str, str]], waiting_only: bool = True, topic: str | None = None) -> None:
        self.desk, self.slugs, self.term, self.tally = desk, slugs, term, tally
        self.topics = topics[:9]  # (id, name), one digit each
        self.waiting_only = waiting_only  # the queue: a paper reviewed meanwhile is passed over
        self.on = f" on or near {topic}" if topic else ""  # --topic: the header says which
        self.outcome: dict[int, str] = {}  # index -> "decided", "rejected" or "skipped"
        self.history: list[tuple[int, object, bool]] = []  # (index, what undoes it, was reviewed)

    def run(self) -> Done:
        i, note, undone = 0, "", False
        while i < len(self.slugs):
            try:
                paper: Paper | None = self.desk.paper(self.slugs[i])
            except FileNotFoundError:  # rejected or removed since the queue was read
                paper = None
            if paper is None or (self.waiting_only and paper.topics_reviewed and not undone):
                self.outcome[i] = "gone"  # decided meanwhile (another sitting, a hand edit)
                i += 1
                continue
            try:
                answer = self._one(paper, i, note)
            except KeyboardInterrupt:
                answer = "quit"
            if answer == "quit":
                break
            if answer == "undo":
                i, note, undone = self._undo()
                continue
            self.outcome[i] = answer
            note, undone = _after(answer, paper), False
            i = next((j for j in range(i + 1, len(self.slugs)) if j not in self.outcome), len(self.slugs))
            if i == len(self.slugs) and self.history and self._last(note):
                i, note, undone = self._undo()
        self.term.show([])
        return self._done()

    def _done(self) -> Done:
        counts = list(self.outcome.values())
        return Done(counts.count("decided"), counts.count("rejected"), counts.count("skipped"),
                    len(self.slugs) - len(counts) + counts.count("skipped"), self.waiting_only)

    def _last(self, note: str) -> bool:
        """At the end of the papers: whether the curator takes back the last decision (u)."""
        key = RESIZED
        while key == RESIZED:
            width = self._width()
            lines = ["survey review: that was the last paper of this sitting", "",
                     *wrap(self.term.shown(note), width), *wrap(self._done().summary(), width), "",
                     "u: undo your last decision · any other key: end".replace(" · ", self.term.dot())]
            self.term.show(lines)
            try:
                key = self.term.key()
            except KeyboardInterrupt:
                return False
        return key[:1] == "u"

    def _undo(self) -> tuple[int, str, bool]:
        i, token, was_reviewed = self.history.pop()
        self.desk.undo(token)
        kind = self.outcome.pop(i)
        if kind == "rejected":
            self.tally.papers += 1
        if not was_reviewed:
            self.tally.reviewed -= kind == "decided"
        else:
            self.tally.reviewed += kind == "rejected"
        return i, f"undone: your {'rejection' if kind == 'rejected' else 'decision'} of this paper", True

    def _one(self, paper: Paper, i: int, note: str) -> str:
        whys = {w.id: w for w in self.desk.why(paper)}
        sources = self.desk.sources(paper.slug)
        chosen = [t for t, _ in self.topics if t in paper.topics]
        while True:
            lines, bold = self._screen(paper, whys, sources, chosen, i, note)
            self.term.show(lines, bold)
            key = self.term.key()
            if key == RESIZED:
                continue  # drawn again at its new size, the note kept
            note = ""
            first = key[:1]
            if first in QUIT:
                return "quit"
            if first == "s":
                return "skipped"
            if first == "u":
                if self.history:
                    return "undo"
                note = "nothing to undo: no decision yet in this sitting"
            elif first in ("a", "r"):
                # the prompt takes the place of a one-line note, whatever note was shown
                reason = self._reason(functools.partial(self._screen, paper, whys, sources, chosen, i, "-")) \
                    if first == "r" else None
                if first == "r" and reason is None:
                    note = "not rejected"
                    continue
                try:
                    token = (self.desk.decide(paper.slug, chosen) if first == "a"
                             else self.desk.reject(paper.slug, reason))
                except SurveyError as exc:  # said on the screen; the paper stays
                    note = str(exc)
                    continue
                self.history.append((i, token, paper.topics_reviewed))
                if first == "a":
                    self.tally.reviewed += not paper.topics_reviewed
                    return "decided"
                self.tally.papers -= 1
                self.tally.reviewed -= paper.topics_reviewed
                return "rejected"
            elif first.isdigit() and 1 <= int(first) <= len(self.topics):
                topic = self.topics[int(first) - 1][0]
                chosen = [t for t, _ in self.topics if (t in chosen) != (t == topic)]
            elif first == "m":
                self._pages([*self._title(paper), "", *wrap(self.term.shown(tex_text(paper.abstract)),
                                                             self._width())])
            elif first == "?":
                self._pages(HELP.format(n=len(self.topics)).split("\n"))
            elif first == "o":
                url = (paper.link("paper") or paper.link("pdf") or "https://arxiv.org/search/?searchtype=title&query="
                       + quote_plus(tex_text(paper.title)))
                opened = self.term.open(url)
                note = f"{'opened' if opened else 'could not open a browser for'} {url}"
            else:
                note = f"not a key of review ({printable(repr(key))}); ? shows the keys"


    def _reason(self, screen: Callable[[], tuple[list[str], int]]) -> str | None:
        """The reason typed for a rejection (may be empty), or None when cancelled (Esc, Ctrl-C),
        asked on the last line of the paper's screen (drawn again when the terminal is resized)."""
        typed = ""
        ask = "Reject it? A reason (Enter rejects, Esc keeps it): "
        while True:
            width = self._width()
            prompt = ask + typed if cells(ask + typed) <= width else "Why? " + typed[-(width - 6):]
            self.term.show([*screen()[0][:-1], self.term.shown(prompt)])
            try:
                key = self.term.key()
            except KeyboardInterrupt:
                return None
            if key == RESIZED:
                continue
            typed, end = typing(typed, key)
            typed = typed[:300]
            if end:
                return " ".join(typed.split()) if end == "\r" else None

    def _pages(self, lines: list[str]) -> None:
        """Lines a screen at a time: space for the next, any other key back to the paper."""
        start = 0
        while True:
            page = max(self.term.size()[1] - 1, 3)
            more = start + page < len(lines)
            hint = "space: more · any other key: back" if more else "any key: back to the paper"
            self.term.show([*(cut(line, self._width()) for line in lines[start:start + page]),
                            hint.replace(" · ", self.term.dot())])
            key = self.term.key()
            if key == RESIZED:
                continue
            if key[:1] != " " or not more:
                return
            start += page

    def _width(self) -> int:
        return max(self.term.size()[0] - 1, 30)  # never the last column: a terminal may wrap there

    def _title(self, paper: Paper) -> list[str]:
        return wrap(self.term.shown(tex_text(paper.title)), self._width())

    def _screen(self, paper: Paper, whys: dict[str, Why], sources: list[str], chosen: list[str], i: int,
                note: str) -> tuple[list[str], int]:
        """The lines of a paper's screen, fitted to the terminal, and how many title lines."""
        width, (_, rows) = self._width(), self.term.size()
        shown, dot = self.term.shown, self.term.dot()
        p = self.tally
        heads = [dot.join([f"survey review: paper {i + 1} of {len(self.slugs)}{self.on}",
                           f"{p.reviewed:,} of {p.papers:,}{said}"])
                 for said in (" papers reviewed by a person", " papers reviewed", " reviewed")]
        head = cut(next((h for h in heads if cells(h) <= width), heads[-1]), width)
        title = self._title(paper)
        title = title[:2] + ([cut(" ".join(title[2:]), width)] if len(title) > 2 else [])
        authors = _authors(paper, width, shown)
        topics, reasons = self._topics(paper, whys, chosen, width)
        keys = cut(KEYS.format(n=len(self.topics)), width)
        said = wrap(shown(note), width)  # a link to open by hand may be long: up to three lines
        tail = [keys, *said[:2], *([cut(" ".join(said[2:]), width)] if len(said) > 2 else [])]
        fixed = 1 + len(title) + 1 + len(topics) + len(tail)
        room = rows - fixed  # for what may go: the paper's facts, reasons, blank lines, the abstract
        facts = _facts(paper, sources, width, shown, dot)[:max(0, room - 3)]
        room -= len(facts)
        kept: dict[int, str] = {}
        for n, line in reasons:
            if room - len(kept) > 4:  # the abstract keeps a few lines
                kept[n] = line
        room -= len(kept)
        blanks = room > 5
        room -= 2 * blanks
        text = wrap(shown(tex_text(paper.abstract)), width)
        if len(text) > room:
            hidden = len(text) - max(room - 1, 0)
            more = f"… m: all of the abstract ({hidden} more line{'s' * (hidden > 1)})"
            text = [*text[:max(room - 1, 0)], more]
        body = [head, *title, authors, *facts, *([""] if blanks else []), *text, *([""] if blanks else [])]
        for n, line in enumerate(topics):
            body.append(line)
            if n in kept:
                body.append(kept[n])
        return [*body, *tail][:max(rows, 1)], len(title)

    def _topics(self, paper: Paper, whys: dict[str, Why], chosen: list[str], width: int
                ) -> tuple[list[str], list[tuple[int, str]]]:
        """A line a topic (its key, mark, name, and what the model says) and, for the topics that
        matter, a line of the paper's words for it, those of the marked and likelier topics first
        (a short terminal keeps only the first)."""
        lines, reasons = [], []
        name_width = max(len(name) for _, name in self.topics)
        # With nothing marked or likely, the likeliest topic's words still say why it is not.
        likeliest = max(whys.values(), key=lambda w: w.confidence or 0.0, default=None)
        for n, (topic, name) in enumerate(self.topics):
            w = whys.get(topic)
            mark = "x" if topic in chosen else " "
            lines.append(cut(f" {n + 1} [{mark}] {self.term.shown(name):<{name_width}}  {_said(w)}".rstrip(),
                             width))
            if w is None or not (topic in chosen or w.suggested or (w.confidence or 0) > REVIEW_LOW
                                 or (w is likeliest and not chosen)):
                continue
            shown = self.term.shown
            against = _fit("; against: ", [shown(a) for a in w.against[:3]], width // 3)
            head, words = f"       words that point to {shown(name)}: ", [shown(t) for t in w.toward]
            toward = _fit(head, words, width - cells(against))
            if words and not toward:  # the words for a topic go first: those against it make room
                against, toward = "", _fit(head, words, width) or head + words[0]
            toward = toward or f"       no word of the paper points to {shown(name)}"
            likely = (topic in chosen, w.suggested, w.confidence or 0.0)
            reasons.append((likely, n, cut(toward + against, width)))
        reasons.sort(key=lambda r: (r[0], -r[1]), reverse=True)
        return lines, [(n, line) for _, n, line in reasons]


def _after(answer: str, paper: Paper) -> str:
    """What the next screen says of the decision just made."""
    if answer == "skipped":
        return "skipped the last paper: it comes back next time"
    what = "rejected" if answer == "rejected" else "decided"
    return f"{what} (u undoes it): {tex_text(paper.title)}"


def _said(w: Why | None) -> str:
    """What the model says of a topic: suggested or not, and whether it is unsure."""
    if w is None:
        return ""
    if w.confidence is None:
        return "the rules suggest it" if w.suggested else ""
    unsure = ", unsure" if REVIEW_LOW < w.confidence < REVIEW_HIGH else ""
    return f"{'suggested' if w.suggested else 'not suggested'}{unsure} ({w.confidence:.2f})"


def _fit(head: str, words: list[str], width: int) -> str:
    """head and as many whole words as fit in width, apart by commas ('' with none)."""
    line = ""
    for word in words:
        longer = f"{line}, {word}" if line else head + word
        if cells(longer) > width:
            break
        line = longer
    return line


def _authors(paper: Paper, width: int, shown: Callable[[str], str]) -> str:
    """As many authors as fit on one line, then how many more."""
    names = [shown(a) for a in paper.authors]
    if not names:
        return "no authors given"
    more = len(names) - 1 + paper.et_al
    for k in range(len(names), 0, -1):
        rest = len(names) - k + paper.et_al
        line = "by " + ", ".join(names[:k]) + (f" and {rest} more" if rest else "")
        if cells(line) <= width:
            return line
    return cut(f"by {names[0]} and {more} more", width)


def _facts(paper: Paper, sources: list[str], width: int, shown: Callable[[str], str], dot: str) -> list[str]:
    """The paper's date, arXiv id, whether a person reviewed its topics (`survey review SLUG`
    shows reviewed papers too: their marks are that person's), where it came from and its
    tags: a line or two, then tags."""
    parts = [paper.date or "no date", f"arXiv {paper.arxiv}" if paper.arxiv else "no arXiv id"]
    if paper.topics_reviewed:
        parts.append("topics reviewed by a person")
    parts.append("from " + "; ".join(shown(s) for s in sources) if sources else "in no listing")
    if paper.added:
        parts.append(f"added {paper.added}")
    first = wrap(dot.join(parts), width)
    facts = first[:1] + ([cut(" ".join(first[1:]), width)] if len(first) > 1 else [])
    tags = cut("tags: " + (", ".join(paper.tags) if paper.tags else "none"), width)
    return [*facts, tags]
