"""The scope gate of `survey import --on-topic`: a general feed adds only the papers the topic
model may give a topic (their best topic's confidence at least classify/model.py's GATE, well
under the 0.5 that suggests it: a missed paper is lost to the survey, a kept one costs a curator
one decision in `survey review`); the rest stay out of the corpus and are listed in a report.

A daily feed is mostly not about ML systems (of the 9,109 real papers of ../shared/real, about
370 get a topic and 850 pass the gate), so importing it whole would bury the survey's topics
under thousands of "Other" papers. Only feeds are gated: a curated listing (a Hugging Face
listing page or its text) and a BibTeX file are a person's choice and import whole, and a paper
already in the corpus is always merged. Nothing is lost silently: each paper left out is a row
of the report, with its best topic and confidence, the words that raised it, the abstract's
first sentence (to judge it without opening it) and the one command that takes it in (`--take ID`).
"""

from __future__ import annotations

import csv
import io
import math
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..core.tex import tex_text
from ..core.text import printable
from ..corpus.export import csv_cell  # a formula-like cell quoted, as in the exports
from .raw import Refused

GATED_FORMATS = frozenset({"hf-json", "arxiv-atom"})  # feeds; listings and bibliographies import whole


@dataclass(frozen=True)
class LeftOut:
    key: str  # the arXiv id, or the entry's label when it has none
    title: str
    best_topic: str
    confidence: float
    source: str  # the file it was read from
    words: tuple[str, ...] = ()  # what raised its best topic most: the words a person judges by
    first: str = ""  # the abstract's first sentence
    why: str = ""  # the rule of `survey check` the entry breaks (a Refused's line); "": no topic likely

    @classmethod
    def refused(cls, refused: Refused, source: str) -> LeftOut:
        return cls(refused.key, refused.title, "", 0.0, source, first=refused.first, why=str(refused.problem))


def report_path(sources: list[str]) -> Path:
    """The default report: left-out-STEM.csv in the current folder, named after the first feed."""
    stem = Path(sources[0]).name.split(".")[0] if sources else "import"
    return Path(f"left-out-{stem}.csv")


def report_csv(left_out: list[LeftOut], corpus: str, name: str | None = None) -> str:
    """The entries refused by check's rules first, in their files' order (few, and each a source
    to mend), then the gate's, most likely first, so the near misses a curator may want are at
    the top. Each of these has the command that takes it in: the import that took the feed, with
    --take, the same corpus (--corpus) and listing name (--name), so that run as written it
    takes the paper into this corpus."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "title", "best topic", "confidence", "words that scored", "first sentence",
                     "left out because", "take it in with"])
    gated = sorted((i for i in left_out if not i.why), key=lambda i: (-i.confidence, i.key))
    for item in [*(i for i in left_out if i.why), *gated]:
        if item.why:  # what check refuses is shown escaped (a bidi override, a zero-width space)
            writer.writerow([csv_cell(printable(item.key)), csv_cell(printable(item.title)), "", "", "",
                             csv_cell(printable(item.first)), csv_cell(printable(item.why)), ""])
            continue
        take = (f"survey import {shlex.quote(item.source)} --on-topic --take {shlex.quote(item.key)} "
                f"--corpus {shlex.quote(corpus)}" + (f" --name {shlex.quote(name)}" if name else ""))
        # Three decimals, cut rather than rounded: at two, a paper at 0.078 read 0.08, the gate it
        # fell under, and rounded 0.0796 would read 0.080.
        shown = f"{math.floor(item.confidence * 1000) / 1000:.3f}"
        # The title and sentence as the paper's page would show them (`2.5$\times$` reads 2.5×):
        # a curator judges hundreds of rows by them.
        writer.writerow([csv_cell(item.key), csv_cell(tex_text(item.title)), item.best_topic, shown,
                         csv_cell(", ".join(item.words)), csv_cell(tex_text(item.first)),
                         "no topic likely (--on-topic)", take])
    return out.getvalue()


def without_taken(text: str, keys: set[str]) -> str | None:
    """A report (report_csv's text) without the rows of the entries --take has taken in, or None
    when it has none of them or is not such a report. A feed imported before is not screened
    again (its listing is recorded), so its report is mended here rather than written anew."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or rows[0][:1] != ["id"] or rows[0][-1:] != ["take it in with"]:
        return None
    kept = [row for row in rows[1:] if row[:1] and row[0] not in keys]
    if len(kept) == len(rows) - 1:
        return None
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([rows[0], *kept])
    return out.getvalue()
