"""What `survey import` says when it is done: a few lines of counts, the lines a person acts on
(possible duplicates, entries without an abstract, notes), and one pointer to `survey review`.

The papers added are not listed one by one (an arXiv feed printed 453 `review:` lines): every
paper whose topics no person has confirmed waits in `survey review`, which shows them least
sure first, and the summary says how many wait there, the same number `survey review --list`
counts.
"""

from __future__ import annotations

import shlex
from collections import Counter
from dataclasses import dataclass, field

from ..core.text import counted, first_few
from .scope import LeftOut

_HOW = {"arxiv": "same arXiv id", "title": "same title", "abstract": "same abstract",
        "same abstract": "nearly the same abstract"}


def _rejected_lines(skipped: list[tuple[str, str, str]], file: str) -> list[str]:
    """The entries skipped as rejected earlier, each with the rejected entry that skipped it; and
    each rejected entry that skipped more than one paper, which is one paper's: one entry may
    hold the titles of any papers, and keep them all out unnamed (audit J2)."""
    lines = [f"rejected earlier: {counted(len(skipped), 'paper')}, skipped ({file})"]
    lines += first_few([f"rejected earlier: {label}: as {slug} of {file} ({_HOW.get(how, how)})"
                        for label, slug, how in skipped],
                       lambda left: f"rejected earlier: and {left:,} more papers")
    kept_out = Counter(slug for _, slug, _ in skipped)
    lines += [f"rejected earlier: the entry {slug} of {file} kept {n:,} papers of this import out; an entry "
              f"is one paper: if they are others, take their titles out of it"
              for slug, n in sorted(kept_out.items()) if n > 1]
    return lines


def review_command(slug: str, corpus: str) -> str:
    """The command that reviews one paper now, as it is typed here (corpus: its folder as shown)."""
    return f"survey review {slug}" + ("" if corpus == "corpus" else f" --corpus {shlex.quote(corpus)}")


@dataclass
class Report:
    read: int = 0
    added: list[str] = field(default_factory=list)
    merged: list[tuple[str, str, str]] = field(default_factory=list)  # entry, slug, how
    updated: int = 0  # papers already in the corpus that the merges gave a field they lacked
    review: list[str] = field(default_factory=list)
    listings: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)  # sources imported before, skipped whole
    written: list[str] = field(default_factory=list)
    unsure: int = 0  # papers added with a topic the model is unsure of
    left_out: list[LeftOut] = field(default_factory=list)  # feed papers with no topic (--on-topic)
    # entries a curator rejected before, skipped: (entry, the rejected entry's slug, what matched)
    rejected: list[tuple[str, str, str]] = field(default_factory=list)
    rejected_file: str = "corpus/rejected.yaml"  # as a command given here names it
    refused: list[LeftOut] = field(default_factory=list)  # entries check's rules refuse: left out
    back: list[str] = field(default_factory=list)  # rejected papers brought back (--take --force)
    taken: list[tuple[str, str]] = field(default_factory=list)  # (slug, file) of the papers --take added
    no_abstract: list[str] = field(default_factory=list)  # entries not imported: no abstract
    maybe_added: int = 0  # lines of `review` naming a paper added as a possible duplicate
    notes: list[str] = field(default_factory=list)  # what the readers read differently
    waiting: int = 0  # papers of the corpus whose topics no person has confirmed, once written
    off_site: int = 0  # of those, the ones the site leaves out until a person keeps them (corpus/publish.py)
    corpus: str = "corpus"  # the corpus folder, as a command given here names it

    def summary(self, left_out_file: str | None = None) -> str:
        """The lines to print; left_out_file: where --on-topic's report was written (None: not
        written, a dry run)."""
        lines = [f"entries read: {self.read}; papers added: {len(self.added)}; already in the corpus: "
                 f"{len(self.merged)}; possible duplicates to look at: {len(self.review)}"]
        if self.updated:  # "already in the corpus" alone changes nothing
            lines.append(f"papers already in the corpus given an arXiv id, authors, a date or a link they "
                         f"lacked: {self.updated:,}")
        if self.left_out:
            where = f": {left_out_file}, with the command that takes each in" if left_out_file else (
                " (not written: --dry-run)")
            lines.append(f"left out by --on-topic, no topic likely: {counted(len(self.left_out), 'paper')}"
                         + where)
        if self.refused:
            where = f": {left_out_file}" if left_out_file else " (not written: --dry-run)"
            lines.append(f"left out, as `survey check` would refuse them: "
                         f"{counted(len(self.refused), 'entry', 'entries')}{where}")
            lines += first_few([f"left out: {item.why}" for item in self.refused],
                               lambda left: f"left out: and {left:,} more entries")
        if self.rejected:
            lines += _rejected_lines(self.rejected, self.rejected_file)
        lines += [f"brought back from the rejected papers: {s}" for s in self.back]
        lines += [f"review: {line}" for line in self.review]
        if self.maybe_added:
            lines.append("review: a possible duplicate is named by the import that adds it, not again: if "
                         "it is the same paper, `survey review SLUG` then r rejects the one added (later "
                         "imports skip it); if not, nothing is to be done")
        if self.no_abstract:
            n = len(self.no_abstract)
            lines.append(f"not imported: {counted(n, 'entry', 'entries')} without an abstract, which `survey "
                         f"check` requires of a paper; give the entry an `abstract` field, or `survey add "
                         f"--arxiv ID` where it has one")
            lines += first_few([f"no abstract: {line}" for line in self.no_abstract],
                               lambda left: f"no abstract: and {left:,} more entries")
        lines += [f"listing recorded: {s}" for s in self.listings]
        lines += [f"note: {s}" for s in self.notes]
        lines += [f"already imported, unchanged: {s}" for s in self.already]
        lines.append(f"files written: {len(self.written):,}")
        lines += [f"taken in: {path}; decide its topics now: {review_command(slug, self.corpus)}"
                  for slug, path in self.taken]
        unsure = (f" (the model is unsure of a topic of {self.unsure:,} of the papers added)"
                  if self.unsure else "")
        wait = "waits" if self.waiting == 1 else "wait"
        one = self.off_site == 1
        off = (f"; {self.off_site:,} of them, with no topic suggested, {'is' if one else 'are'} not on "
               f"the site until a person reviews {'it' if one else 'them'}" if self.off_site else "")
        lines.append(f"{counted(self.waiting, 'paper')} {wait} in `survey review`{unsure}{off}")
        return "\n".join(lines)
