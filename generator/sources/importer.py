"""Importing source files into the corpus: match each entry, merge or add, record listings.

Nothing is written until every source has been read and every entry placed; then each file is
replaced atomically. Fields a person curates (title, abstract, topics, tags, links) of a paper
already in the corpus are never changed: a merge only adds provenance, alternate titles and
empty optional fields (arXiv id, authors, date) that the paper's `curated` does not name.

An entry without an abstract (most of a BibTeX bibliography's) merges into the paper it is like
any other; it never becomes a paper of its own, since `survey check` requires an abstract: it
is reported, with how to add it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..classify.suggest import Suggestion, review_line, suggest, suggest_all
from ..core.errors import SurveyError
from ..core.text import match_key, slugify
from ..corpus.model import Entry, Listing, Paper
from ..corpus.store import Corpus, listing_text, paper_text
from ..corpus.taxonomy import Taxonomy
from ..corpus.writes import write_files
from .dedupe import Index
from .entries import RawEntry, Source
from .readers import FORMATS, read_source
from .scope import GATED_FORMATS, LeftOut


@dataclass
class Report:
    read: int = 0
    added: list[str] = field(default_factory=list)
    merged: list[tuple[str, str, str]] = field(default_factory=list)  # entry, slug, how
    review: list[str] = field(default_factory=list)
    listings: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)  # sources imported before, skipped whole
    written: list[str] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)  # review lines: added papers a person should read
    left_out: list[LeftOut] = field(default_factory=list)  # feed papers with no topic (--on-topic)
    no_abstract: list[str] = field(default_factory=list)  # entries not imported: no abstract
    notes: list[str] = field(default_factory=list)  # what the readers read differently

    def summary(self) -> str:
        lines = [
            f"entries read: {self.read}; papers added: {len(self.added)}; merged into existing "
            f"papers: {len(self.merged)}; possible duplicates to review: {len(self.review)}",
        ]
        if self.no_abstract:
            n = len(self.no_abstract)
            lines.append(f"not imported: {n} {'entry' if n == 1 else 'entries'} without an abstract, which "
                         f"`survey check` requires of a paper; give the entry an `abstract` field, or "
                         f"`survey add --arxiv ID` where it has one")
        lines += [f"listing recorded: {s}" for s in self.listings]
        lines += [f"note: {s}" for s in self.notes]
        lines += [f"already imported, unchanged: {s}" for s in self.already]
        lines += [f"review: {line}" for line in self.review]
        lines += [f"no abstract: {line}" for line in self.no_abstract]
        if self.left_out:
            lines.append(f"left out, no topic (--on-topic): {len(self.left_out)} papers of the feeds")
        if self.uncertain:
            lines += self.uncertain
            lines.append(f"topics to review: {len(self.uncertain)} of the {len(self.added)} papers added "
                         f"have a topic the model is unsure of (listed above; `survey check --review` "
                         f"lists them again)")
        lines.append(f"files written: {len(self.written)}")
        return "\n".join(lines)


def new_paper(raw: RawEntry, taxonomy: Taxonomy, taken: Container[str], today: str
              ) -> tuple[Paper, Suggestion]:
    """A paper for an entry not yet in the corpus, with the suggested topics and tags."""
    suggestion = suggest(taxonomy, raw.title, raw.abstract)
    paper = _unclassified(raw, taken, today)
    paper.topics, paper.tags = suggestion.topic_ids, suggestion.tag_ids
    paper.confidence = suggestion.confidence
    return paper, suggestion


def _unclassified(raw: RawEntry, taken: Container[str], today: str) -> Paper:
    return Paper(
        slug=slugify(raw.title, taken), title=raw.title, abstract=raw.abstract, arxiv=raw.arxiv,
        authors=list(raw.authors), et_al=raw.et_al, date=raw.date, links=dict(raw.links), added=today,
    )


class Importer:
    def __init__(self, corpus: Corpus, today: str, on_topic: bool = False,
                 take: frozenset[str] = frozenset()) -> None:
        """on_topic: add a feed's new papers only if they get a topic (sources/scope.py); take: the
        entries (arXiv ids) that pass that gate anyway, also from a feed imported before."""
        self.corpus = corpus
        self.today = today
        self.on_topic = on_topic
        self.take = take
        self._gated: dict[str, tuple[str, str]] = {}  # slug -> (entry key, feed path) of a gated new paper
        self._best: dict[str, tuple[str, float] | None] = {}
        self._review: dict[str, str] = {}  # slug -> review line, in the order the papers were added
        # review lines and the papers they speak of: the gate drops a line with any of its papers
        self._about: list[tuple[tuple[str, ...], str]] = []
        # entries of a feed merged into a new paper of a feed: left out with it if the gate drops it
        self._followers: list[tuple[str, LeftOut]] = []
        self.papers = dict(corpus.papers)  # a paper is deep-copied here before it changes
        self.changed: dict[str, Paper] = {}
        self.new_listings: dict[str, Listing] = {}
        self.report = Report()

    @functools.cached_property
    def index(self) -> Index:
        """Built when the first entry is placed: a file imported before costs no index."""
        return Index.of(self.corpus.papers, self.corpus.listings)

    def read_all(self, paths: Sequence[Path], progress: Callable[[int, int], None] | None = None
                 ) -> list[Source]:
        sources = []
        for i, path in enumerate(paths, 1):
            sources.append(read_source(path))
            if progress:
                progress(i, len(paths))
        return sources

    def run(self, sources: list[Source], name: str | None = None,
            progress: Callable[[int, int], None] | None = None,
            classifying: Callable[[int, int], None] | None = None) -> Report:
        if name and sum(s.is_listing for s in sources) > 1:
            raise SurveyError("--name names one listing: import listings one at a time to name them")
        total = sum(len(s.entries) for s in sources)
        done = 0
        known = {listing.sha256: listing.slug for listing in self.corpus.listings.values()}
        for source in sources:
            self.report.read += len(source.entries)
            self.report.notes += source.notes
            if source.is_listing and source.sha256 in known:
                taken = [raw for raw in source.entries if _key(raw) in self.take]
                if taken:  # entries taken in from a feed imported before: add them to its listing
                    placed = [self._place(raw, source) for raw in taken]
                    self._extend(known[source.sha256], [e for e in placed if e is not None])
                else:
                    self.report.already.append(f"{source.path} (listing {known[source.sha256]})")
                done += len(source.entries)
                continue
            entries = []
            for raw in source.entries:
                entry = self._place(raw, source)
                if entry is not None:
                    entries.append(entry)
                done += 1
                if progress:
                    progress(done, total)
            if source.is_listing:
                listing = self._listing(source, entries, name)
                known[source.sha256] = listing.slug
        unknown = sorted(self.take - {_key(raw) for source in sources for raw in source.entries})
        if unknown:
            raise SurveyError(f"--take {unknown[0]}: no entry of the files given has this id (an arXiv "
                              f"id, or the entry named in the report of papers left out)")
        self._classify(classifying)
        if self.on_topic:
            self._gate()
        self.report.listings = self._listing_lines()
        return self.report

    def _listing_lines(self) -> list[str]:
        """Each listing to be written: recorded anew, or a recorded one that entries were taken into
        (counted from the listings themselves, after the gate has dropped what it left out)."""
        lines = []
        for slug, listing in self.new_listings.items():
            before = self.corpus.listings.get(slug)
            if before is None:
                lines.append(f"{slug} ({len(listing.entries)} entries)")
            else:
                lines.append(f"{slug} ({len(listing.entries) - len(before.entries)} entries taken in)")
        return lines

    def _gate(self) -> None:
        """Leave out the feeds' new papers that got no topic, and their entries in new listings."""
        taken_via = {slug for slug, follower in self._followers if follower.key in self.take}
        dropped = set()
        for slug, (key, path) in sorted(self._gated.items()):
            paper = self.papers[slug]
            if paper.topics or key in self.take or slug in taken_via:
                continue
            dropped.add(slug)
            best = self._best.get(slug) or ("", 0.0)
            self.report.left_out.append(LeftOut(key, paper.title, best[0], best[1], path))
            del self.papers[slug], self.changed[slug]
        if not dropped:
            return
        rows = {(row.key, row.source) for row in self.report.left_out}
        for slug, follower in self._followers:
            if slug in dropped and (follower.key, follower.source) not in rows:
                best = self._best.get(slug) or ("", 0.0)
                self.report.left_out.append(LeftOut(follower.key, follower.title, best[0], best[1],
                                                    follower.source))
                rows.add((follower.key, follower.source))
        self.report.added = [s for s in self.report.added if s not in dropped]
        self.report.merged = [m for m in self.report.merged if m[1] not in dropped]
        self.report.uncertain = [line for slug, line in self._review.items() if slug not in dropped]
        gone = {line for slugs, line in self._about if dropped.intersection(slugs)}
        self.report.review = [line for line in self.report.review if line not in gone]
        for slug, listing in list(self.new_listings.items()):
            listing.entries = [e for e in listing.entries if e.paper not in dropped]
            if not listing.entries and slug not in self.corpus.listings:  # nothing of it is on topic
                del self.new_listings[slug]

    def _extend(self, slug: str, entries: list[Entry]) -> None:
        listing = self.new_listings.get(slug) or copy.deepcopy(self.corpus.listings[slug])
        new = [e for e in entries if e not in listing.entries]
        if not new:  # taken in before: nothing to add
            return
        listing.entries = [*listing.entries, *new]
        self.new_listings[slug] = listing

    def _classify(self, progress: Callable[[int, int], None] | None) -> None:
        """Topics and tags for the added papers, all at once: on every core for thousands."""
        added = [self.papers[slug] for slug in self.report.added]
        if not added:
            return
        if progress:
            progress(0, len(added))
        briefs = suggest_all(self.corpus.taxonomy, [(p.title, p.abstract) for p in added])
        for paper, brief in zip(added, briefs, strict=True):
            paper.topics, paper.tags = list(brief.topic_ids), list(brief.tag_ids)
            paper.confidence = brief.confidence
            self._best[paper.slug] = brief.best
            if brief.uncertain:
                self._review[paper.slug] = review_line(paper.file, paper.topics, brief.uncertain)
        self.report.uncertain = list(self._review.values())
        if progress:
            progress(len(added), len(added))

    def write(self) -> list[str]:
        files = [(p.file, paper_text(p)) for p in sorted(self.changed.values(), key=lambda p: p.slug)]
        files += [(li.file, listing_text(li)) for li in sorted(self.new_listings.values(),
                                                               key=lambda li: li.slug)]
        self.report.written = write_files(self.corpus, files)
        return self.report.written

    def _editable(self, slug: str) -> Paper:
        if slug not in self.changed:
            self.changed[slug] = self.papers[slug] = copy.deepcopy(self.papers[slug])
        return self.changed[slug]

    def _place(self, raw: RawEntry, source: Source) -> Entry | None:
        label = f"{source.path} entry {raw.label}"
        found = self.index.match(raw.title, raw.abstract, raw.arxiv)
        if found and source.format not in GATED_FORMATS:
            self._gated.pop(found.slug, None)  # a curated listing wants it: never left out
        if found:
            paper = self.papers[found.slug]
            updates = self._merge_updates(paper, raw)
            if updates:
                target = self._editable(found.slug)
                for key, value in updates.items():
                    setattr(target, key, value)
                self.index.add(target)
            if raw.arxiv and paper.arxiv and raw.arxiv != paper.arxiv:
                line = (f"{label}: same paper as {found.slug} by {found.how}, but arXiv {raw.arxiv} "
                        f"differs from {paper.arxiv}")
                self.report.review.append(line)
                self._about.append(((found.slug,), line))
            if found.slug in self._gated:  # a new paper of a feed, which the gate may leave out
                self._followers.append((found.slug, LeftOut(_key(raw), raw.title, "", 0.0, source.path)))
            self.report.merged.append((label, found.slug, found.how))
            if match_key(raw.title) not in self.index.by_title:
                self.index.add_title(raw.title, found.slug)
            return self._entry(found.slug, raw)
        maybes = [(maybe.slug, f"{label}: may be the same paper as {maybe.slug} ({maybe.why})")
                  for maybe in self.index.possible(raw.title, raw.abstract)]
        self.report.review += [line for _, line in maybes]
        if not raw.abstract:
            self.report.no_abstract.append(label + (f" (arXiv {raw.arxiv})" if raw.arxiv else ""))
            self._about += [((other,), line) for other, line in maybes]
            return None
        paper = _unclassified(raw, self.papers, self.today)  # classified with the others in run()
        self._about += [((paper.slug, other), line) for other, line in maybes]
        self.papers[paper.slug] = paper
        self.changed[paper.slug] = paper
        self.index.add(paper)
        self.report.added.append(paper.slug)
        if source.format in GATED_FORMATS:
            self._gated[paper.slug] = (_key(raw), source.path)
        return self._entry(paper.slug, raw)

    def _merge_updates(self, paper: Paper, raw: RawEntry) -> dict[str, object]:
        updates: dict[str, object] = {}
        key = match_key(raw.title)
        if key not in self.index.by_title and all(match_key(t) != key for t in paper.titles):
            updates["alternate_titles"] = [*paper.alternate_titles, raw.title]
        curated = paper.curated
        if raw.arxiv and not paper.arxiv and raw.arxiv not in self.index.by_arxiv and "arxiv" not in curated:
            updates["arxiv"] = raw.arxiv
        if raw.authors and not paper.authors and "authors" not in curated:
            updates["authors"] = list(raw.authors)
            if raw.et_al:
                updates["et_al"] = True
        if raw.date and not paper.date and "date" not in curated:
            updates["date"] = raw.date
        for kind, url in raw.links.items():
            if kind not in paper.links and "links" not in paper.curated:
                updates.setdefault("links", dict(paper.links))[kind] = url  # type: ignore[index]
        return updates

    def _entry(self, slug: str, raw: RawEntry) -> Entry:
        paper = self.papers[slug]
        return Entry(paper=slug, title=raw.title,
                     abstract=None if raw.abstract in ("", paper.abstract) else raw.abstract)

    def _listing(self, source: Source, entries: list[Entry], name: str | None) -> Listing:
        label = FORMATS[source.format].split(" (")[0]
        name = name or (f"{label}, {source.date}" if source.date else f"{label}: {Path(source.path).stem}")
        taken = set(self.corpus.listings) | set(self.new_listings)
        listing = Listing(
            slug=slugify(name, taken), name=name, entries=entries, source=source.format,
            origin=source.origin, sha256=source.sha256, date=source.date,
        )
        self.new_listings[listing.slug] = listing
        return listing


def _key(raw: RawEntry) -> str:
    """How the scope report and --take name an entry: its arXiv id, else its label."""
    return raw.arxiv or raw.label
