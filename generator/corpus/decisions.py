"""A person's decisions on papers' topics: the files a decision changes (`decision_files`, for
corpus/writes.write_files; a rejection's are corpus/rejected.py's), and decisions made outside
the queue, from a file: `survey review --apply FILE`.

A decision sets the paper's topics and lists `topics` in its `curated` (the site then shows its
topics as reviewed, with no confidence).

A decisions file is a YAML list of `{slug, topics}` or a CSV table with `slug` and `topics`
columns (an edited `survey export --format csv` is one: its other columns are ignored), each with
an optional `reviewed` (true/false) and `reason` (for a rejection). The topics are topic ids apart by
spaces, commas, semicolons or lines, `none` (or `other`, as the site says) for none of the
topics, or `reject` to take the paper out of the survey (corpus/rejected.yaml); a `reject` row of
a paper rejected already is as it is.

What is a decision: a row whose topics differ from the paper's, a row marked reviewed true,
and a row that says `none` or `reject` (no export writes them: a person did). A row that is the
paper as it is (the same topics, not marked reviewed) is left alone, so an exported table
applies only what was edited in it, and a suggestion nobody read stays a suggestion. A blank
topics cell is refused where it would be a decision (does it mean none, or not decided?), and
so is a change to a paper a person has reviewed, unless `--force`. Every problem of the file is
found in one run; nothing is applied while there is one.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..core.errors import CorpusError, SurveyError
from ..core.records import csv_rows, yaml_items
from ..core.text import shorten, shown_path
from ..core.yamlio import open_plain
from .fields import text_problem
from .model import CURATABLE, Paper
from .rejected import MAX_REASON
from .store import Corpus, paper_text
from .taxonomy import Taxonomy

NONE, REJECT = "none", "reject"
_SPLIT = re.compile(r"[\s,;]+")
_YES, _NO = ("true", "yes", "1", "x"), ("false", "no", "0", "")
SHOWN_PROBLEMS = 100  # a file of a million bad rows is not a million lines on the terminal


def decided(paper: Paper, topics: Iterable[str], taxonomy: Taxonomy) -> Paper:
    """The paper with a person's decision on its topics (in the taxonomy's order)."""
    chosen = set(topics)
    new = copy.deepcopy(paper)
    new.topics = [t for t in taxonomy.topic_ids if t in chosen]
    new.curated = [c for c in CURATABLE if c in {*paper.curated, "topics"}]
    return new


def decision_files(corpus: Corpus, decisions: Sequence[tuple[str, list[str]]]) -> list[tuple[str, str]]:
    """The files that record these decisions, for corpus/writes.write_files."""
    return [(paper.file, paper_text(paper)) for paper in
            (decided(corpus.papers[slug], topics, corpus.taxonomy) for slug, topics in decisions)]


@dataclass(frozen=True)
class Decision:
    """What a row decides of a paper: its topics, or its rejection (topics None)."""

    slug: str
    topics: tuple[str, ...] | None
    before: tuple[str, ...]  # the paper's topics
    was_reviewed: bool  # a person had decided them
    reason: str | None = None

    def __str__(self) -> str:
        before = ", ".join(self.before) or NONE
        if self.topics is None:
            return f"{self.slug}: rejected" + (f" ({self.reason})" if self.reason else "")
        after = ", ".join(self.topics) or NONE
        if before == after:
            return f"{self.slug}: {after}, as suggested, reviewed"
        return f"{self.slug}: {'reviewed' if self.was_reviewed else 'suggested'} {before} -> {after}"


@dataclass
class Plan:
    """Every decision of a file, what it leaves alone, and its problems (none: it applies)."""

    decisions: list[Decision] = field(default_factory=list)
    as_they_are: int = 0  # rows that are the paper as it is: not decisions
    problems: list[CorpusError] = field(default_factory=list)  # at most SHOWN_PROBLEMS
    # Where reading stopped, at one problem more than are shown: a file of a million bad rows
    # is not read to its end to say so (a row costs some 10 us to check, 4 MiB of them 10 s).
    stopped: int | None = None

    def summary(self, written: int | None) -> str:
        """What was applied (written: how many files), or would be (None: a dry run)."""
        n = len(self.decisions)
        rejected = sum(d.topics is None for d in self.decisions)
        changed = sum(d.was_reviewed for d in self.decisions)
        line = f"{n:,} decision{'s' * (n != 1)} " + ("applied" if written is not None else "to apply")
        notes = [f"{rejected:,} rejected"] if rejected else []
        if changed:
            notes.append(f"{changed:,} changing a person's review (--force)")
        line += f" ({', '.join(notes)})" if notes else ""
        line += f"; {written:,} file{'s' * (written != 1)} written" if written is not None else (
            "; nothing written (--dry-run)")
        if self.as_they_are:
            line += (f"\n{self.as_they_are:,} row{'s' * (self.as_they_are != 1)} left alone: the paper as "
                     f"it is (the same topics, not marked reviewed); to confirm suggested topics, mark the "
                     f"row reviewed true")
        return line

    def refusal(self, shown: str) -> str:
        n = len(self.problems)
        lines = [str(p) for p in self.problems]
        if self.stopped is not None:
            lines.append(f"survey review: more than {n} problems in {shown} (read up to line "
                         f"{self.stopped}): nothing applied")
        else:
            lines.append(f"survey review: {n:,} problem{'s' * (n != 1)} in {shown}: nothing applied")
        return "\n".join(lines)


def read_plan(path: Path, corpus: Corpus, force: bool = False) -> Plan:
    """The plan of a decisions file, every row checked (core/records.py reads it a row at a
    time, in bounded memory). A file that cannot be read as a list of rows raises."""
    shown = shown_path(path)
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".csv"):
        raise SurveyError(f"{shown}: decisions are read from a .yaml, .yml or .csv file")
    plan = Plan()
    seen: dict[str, str] = {}
    rejected = {r.slug: r for r in corpus.rejected}
    rows = 0
    with open_plain(path, shown) as fh:
        for row in (_csv_rows if suffix == ".csv" else _yaml_rows)(fh, shown):
            rows += 1
            try:
                decision = _decide(row, corpus, seen, rejected, force)
            except CorpusError as exc:
                if len(plan.problems) == SHOWN_PROBLEMS:
                    plan.stopped = exc.line
                    break
                plan.problems.append(exc)
                continue
            if decision is None:
                plan.as_they_are += 1
            else:
                plan.decisions.append(decision)
    if not rows:
        raise CorpusError(shown, "holds no decision")
    return plan


@dataclass(frozen=True)
class Row:
    shown: str
    where: str  # "#3" (YAML) or "row 3" (CSV)
    line: int | None
    slug: Any
    topics: Any
    reviewed: Any = None
    reason: Any = None

    def fail(self, name: str, message: str, entry: str | None = None) -> CorpusError:
        return CorpusError(self.shown, message, entry=entry or self.where, field=name, line=self.line)


def _decide(row: Row, corpus: Corpus, seen: dict[str, str], rejected: dict[str, Any], force: bool
            ) -> Decision | None:
    """The row's decision, or None for a row that leaves the paper as it is."""
    slug = row.slug
    if not isinstance(slug, str) or not slug:
        raise row.fail("slug", f"must be a paper's slug, found {shorten(slug)}")
    paper = corpus.papers.get(slug)
    if paper is None and slug not in rejected:
        close = difflib.get_close_matches(slug, sorted(corpus.papers), n=1)
        raise row.fail("slug", "no paper with this slug in the corpus"
                               + (f"; did you mean {close[0]}?" if close else ""), slug)
    if slug in seen:
        raise row.fail("slug", f"decided twice (also {seen[slug]})", slug)
    seen[slug] = f"line {row.line}" if row.line else row.where
    if paper is None:  # rejected before: a `reject` row of a sheet applied again says it as it is
        if _topics(row, corpus.taxonomy.topic_ids, slug) == ("word", None):
            return None
        raise row.fail("slug", f"rejected on {rejected[slug].rejected}: no longer in the corpus "
                               f"(`survey add --force` or `survey import --take ID --force` brings it back)",
                       slug)
    marked = _reviewed(row, slug)
    kind, topics = _topics(row, corpus.taxonomy.topic_ids, slug)
    reason = _reason(row, slug, topics is None)
    before = tuple(t for t in corpus.taxonomy.topic_ids if t in paper.topics)
    if kind == "blank":  # as it is where the paper has no topic (and no one asks to confirm that)
        if before or (marked and not paper.topics_reviewed):
            raise row.fail("topics", f"is empty: write the topics, {NONE} for none of them, or {REJECT}",
                           slug)
        return None  # the paper has no topic, and the row leaves it so
    same = topics == before
    if same and (paper.topics_reviewed or (kind == "ids" and not marked)):
        return None  # the paper as it is, or as a person decided it already
    if paper.topics_reviewed and not force:
        said = REJECT if topics is None else ", ".join(topics) or NONE
        raise row.fail("topics", f"a person reviewed this paper as {', '.join(before) or NONE}; this "
                                 f"row makes it {said}: --force changes a reviewed paper", slug)
    return Decision(slug, topics, before, paper.topics_reviewed, reason)


def _topics(row: Row, known: list[str], slug: str) -> tuple[str, tuple[str, ...] | None]:
    """What the row's topics say: ("blank", ()) for an empty cell; ("word", ()) for none (or an
    empty YAML list), ("word", None) for reject; ("ids", topics in the taxonomy's order)."""
    value = row.topics
    if value is None or (isinstance(value, str) and not value.strip()):
        return "blank", ()
    if isinstance(value, str):  # a CSV cell, or a YAML text: ids apart by spaces, commas, ...
        value = [t for t in _SPLIT.split(value) if t]
    elif not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise row.fail("topics", f"must be topic ids, {NONE} or {REJECT}, found {shorten(row.topics)}", slug)
    if not value:
        return "word", ()
    # The site lists a paper of no topic under "Other": a curator may well write that.
    value = [NONE if t.lower() == "other" and "other" not in known else t for t in value]
    words = [t.lower() for t in value if t.lower() in (NONE, REJECT)]
    if words:
        if len(value) > 1:
            raise row.fail("topics", f"{words[0]} stands alone, found {shorten(row.topics)}", slug)
        return "word", (None if words[0] == REJECT else ())
    for t in value:
        if t not in known:
            raise row.fail("topics", f"unknown topic {shorten(t)}; the topics are {', '.join(known)}, or "
                                     f"{NONE}, or {REJECT}", slug)
    return "ids", tuple(t for t in known if t in value)


def _reviewed(row: Row, slug: str) -> bool:
    value = row.reviewed
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _YES + _NO:
        return value.strip().lower() in _YES
    raise row.fail("reviewed", f"must be true or false, found {shorten(value)}", slug)


def _reason(row: Row, slug: str, rejecting: bool) -> str | None:
    value = row.reason
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise row.fail("reason", f"must be text, found {shorten(value)}", slug)
    if not rejecting:
        raise row.fail("reason", f"is for a rejection: the topics say {shorten(row.topics)}", slug)
    text = " ".join(value.split())
    problem = text_problem(text, MAX_REASON, plain=True)  # as rejected.yaml holds it, named here with its row
    if problem:
        raise row.fail("reason", problem, slug)
    return text


_FIELDS = ("slug", "topics", "reviewed", "reason")


def _yaml_rows(fh: BinaryIO, shown: str) -> Iterator[Row]:
    shape = "must be a list of decisions, each {slug: SLUG, topics: [TOPIC, ...]}"
    for i, (line, item) in enumerate(yaml_items(fh, shown, shape)):
        where = f"#{i + 1}"
        if not isinstance(item, dict):
            raise CorpusError(shown, "must be a mapping {slug: SLUG, topics: [TOPIC, ...]}", entry=where,
                              line=line)
        label = item.get("slug") if isinstance(item.get("slug"), str) else where
        for key in sorted(map(str, item)):
            if key not in _FIELDS:
                raise CorpusError(shown, f"unknown field; a decision has {', '.join(_FIELDS)}", entry=label,
                                  field=key, line=line)
        if "topics" not in item:
            raise CorpusError(shown, f"is required (the topics, {NONE} for none of them, or {REJECT})",
                              entry=label, field="topics", line=line)
        yield Row(shown, where, line, item.get("slug"), item["topics"], item.get("reviewed"),
                  item.get("reason"))


def _csv_rows(fh: BinaryIO, shown: str) -> Iterator[Row]:
    header, rows = csv_rows(fh, shown)
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:
        raise CorpusError(shown, f"the first row names the column {twice[0]!r} twice: which one holds "
                                 f"the decisions?", line=1)
    missing = [name for name in ("slug", "topics") if name not in header]
    if missing and len(header) == 1 and ";" in header[0]:  # a spreadsheet saved in a locale of ';'
        raise CorpusError(shown, "the columns are apart by ';': save the table as comma-separated values",
                          line=1)
    if missing:
        raise CorpusError(shown, f"the first row names the columns, and needs {' and '.join(missing)}",
                          line=1)
    n = 0
    for line, row in rows:
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue  # a blank line of a spreadsheet
        n += 1
        cell = (row.get("topics") or "").strip()
        yield Row(shown, f"row {n}", line, (row.get("slug") or "").strip(), cell or None,
                  row.get("reviewed"), row.get("reason"))
