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
from pathlib import Path

from ..classify.derived import keep_written
from ..classify.model import GATE
from ..classify.suggest import Brief, Suggestion, suggest, suggest_all
from ..core.errors import SurveyError
from ..core.text import counted, first_sentence, match_key, shown_path, slugify
from ..corpus.model import Entry, Listing, Paper
from ..corpus.publish import waits
from ..corpus.rejected import REJECTED_FILE
from ..corpus.store import Corpus, listing_text, paper_text
from ..corpus.taxonomy import Taxonomy
from ..corpus.writes import write_files
from .codelinks import repository_url
from .dedupe import Index
from .listings import listing_day, listing_name, month_of
from .raw import RawEntry, Source
from .readers import read_source
from .rejects import Rejects, Taken, why
from .report import Report
from .scope import GATED_FORMATS, LeftOut


def new_paper(raw: RawEntry, taxonomy: Taxonomy, taken: Container[str], today: str
              ) -> tuple[Paper, Suggestion]:
    """A paper for an entry not yet in the corpus, with the suggested topics and tags."""
    suggestion = suggest(taxonomy, raw.title, raw.abstract)
    paper = _unclassified(raw, taken, today)
    paper.topics, paper.tags = suggestion.topic_ids, suggestion.tag_ids
    return paper, suggestion


def _unclassified(raw: RawEntry, taken: Container[str], today: str) -> Paper:
    links = dict(raw.links)
    code = None if "code" in links else repository_url(raw.abstract)
    if code is not None:  # the repository the abstract names: in the file, for a curator to see
        links["code"] = code
    return Paper(
        slug=slugify(raw.title, taken), title=raw.title, abstract=raw.abstract, arxiv=raw.arxiv,
        authors=list(raw.authors), et_al=raw.et_al, date=raw.date, links=links, added=today,
    )


class Importer:
    def __init__(self, corpus: Corpus, today: str, on_topic: bool = False,
                 take: frozenset[str] = frozenset(), force: bool = False) -> None:
        """on_topic: add a feed's new papers only if the model may give them a topic
        (sources/scope.py); take: the entries (arXiv ids) that pass that gate anyway, also from a
        feed imported before; force: a paper --take names that was rejected comes back (and out
        of the rejected file), where it is refused otherwise."""
        self.corpus = corpus
        self.today = today
        self.on_topic = on_topic
        self.take = take
        self.force = force
        self.rejects = Rejects(corpus.rejected)
        # A feed's new entries are classified before they are placed (the gate needs their
        # confidence); the papers they become keep that suggestion instead of a second one.
        self._screened: dict[int, Brief] = {}  # id(raw) -> its suggestion
        self._briefs: dict[str, Brief] = {}  # slug -> the suggestion of a screened new paper
        self.scored: list[tuple[str, str, Brief]] = []  # each added paper's text and suggestion
        self.papers = dict(corpus.papers)  # a paper is deep-copied here before it changes
        self.taken = Taken(self.papers, self.rejects)  # the slugs a new paper may not have
        self.changed: dict[str, Paper] = {}
        self.new_listings: dict[str, Listing] = {}
        self.report = Report()

    @functools.cached_property
    def index(self) -> Index:
        """Built when the first entry is placed: a file imported before costs no index."""
        return Index.of(self.corpus.papers, self.corpus.listings)

    def read_all(self, paths: Sequence[Path], progress: Callable[[int, int], None] | None = None,
                 strict: bool = False) -> list[Source]:
        """strict: an entry check's rules refuse refuses its file (else it is left out, reported)."""
        sources = []
        for i, path in enumerate(paths, 1):
            sources.append(read_source(path, strict=strict))
            if progress:
                progress(i, len(paths))
        return sources

    def run(self, sources: list[Source], name: str | None = None,
            progress: Callable[[int, int], None] | None = None,
            classifying: Callable[[int, int], None] | None = None) -> Report:
        if name and len(sources) > 1:
            raise SurveyError("--name names one listing: import listings one at a time to name them")
        total = sum(len(s.entries) for s in sources)
        done = 0
        known = {listing.sha256: listing.slug for listing in self.corpus.listings.values()}
        placed: dict[int, Entry | None] = {}  # id(raw) -> its entry in a listing (None: not imported)
        listings: list[tuple[Listing, Source]] = []
        gated: list[tuple[Source, set[int]]] = []
        for source in sources:
            self.report.read += len(source.entries) + len(source.refused)
            self.report.notes += source.notes
            if source.sha256 not in known:  # one imported before was reported then
                self.report.refused += [LeftOut.refused(r, source.path) for r in source.refused]
            if source.sha256 in known:
                taken = [raw for raw in source.entries if _key(raw) in self.take]
                if taken:  # entries taken in from a feed imported before: add them to its listing
                    extra = [self._place(raw, source) for raw in taken]
                    self._extend(known[source.sha256], [e for e in extra if e is not None])
                else:
                    self.report.already.append(f"{source.path} (listing {known[source.sha256]})")
                done += len(source.entries)
                continue
            out = self._screen(source, classifying) if self.on_topic else set()
            for raw in source.entries:
                if id(raw) not in out:  # an entry the gate would leave out is decided below
                    placed[id(raw)] = self._place(raw, source)
                done += 1
                if progress:
                    progress(done, total)
            # Every source is a listing, the record of where its papers came from; its entries
            # are set once every source is placed.
            listings.append((self._listing(source, placed, name), source))
            known[source.sha256] = listings[-1][0].slug
            gated.append((source, out))
        # An entry the gate would leave out that is the same paper as one placed (in the corpus,
        # or kept from any feed of this import) is merged into it whatever its score; the others
        # are left out, each a row of the report. Decided after every kept entry is placed, so the
        # order of the feeds does not matter.
        for source, out in gated:
            for raw in source.entries:
                if id(raw) in out:
                    if self.index.match(raw.title, raw.abstract, raw.arxiv):
                        placed[id(raw)] = self._place(raw, source)
                    else:
                        brief = self._screened[id(raw)]
                        best = brief.best or ("", 0.0)
                        self.report.left_out.append(LeftOut(_key(raw), raw.title, best[0], best[1],
                                                            source.path, brief.words,
                                                            first_sentence(raw.abstract)))
        for listing, source in listings:
            listing.entries = [e for raw in source.entries if (e := placed.get(id(raw))) is not None]
            if not listing.entries:  # nothing of a feed was kept: no listing of it
                del self.new_listings[listing.slug]
        unknown = sorted(self.take - {_key(raw) for source in sources for raw in source.entries})
        if unknown:
            raise SurveyError(f"--take {unknown[0]}: no entry of the files given has this id (an arXiv "
                              f"id, or the entry named in the report of papers left out)")
        self._classify(classifying)
        self.report.listings = self._listing_lines()
        self.report.updated = len(set(self.changed) - set(self.report.added))
        self.report.waiting = sum(not p.topics_reviewed for p in self.papers.values())
        self.report.off_site = sum(waits(p) for p in self.papers.values())
        return self.report

    def _listing_lines(self) -> list[str]:
        """Each listing to be written: recorded anew, or a recorded one that entries were taken into
        (counted from the listings themselves, after the gate has dropped what it left out)."""
        lines = []
        for slug, listing in self.new_listings.items():
            before = self.corpus.listings.get(slug)
            if before is None:
                lines.append(f"{slug} ({counted(len(listing.entries), 'entry', 'entries')})")
            else:
                taken = len(listing.entries) - len(before.entries)
                lines.append(f"{slug} ({counted(taken, 'entry', 'entries')} taken in)")
        return lines

    def _screen(self, source: Source, progress: Callable[[int, int], None] | None) -> set[int]:
        """The gate of --on-topic, for a feed (a listing or bibliography imports whole): the new
        entries (by id) to leave out, those whose best topic the model gives less than GATE and
        that --take does not name. Each new entry is classified here, once, before any is placed:
        an entry left out never becomes a paper, so nothing is unwound afterwards."""
        if source.format not in GATED_FORMATS:
            return set()
        fresh = [raw for raw in source.entries  # a rejected paper is placed: skipped, or taken
                 if raw.abstract and not self.index.match(raw.title, raw.abstract, raw.arxiv)
                 and not self.rejects.match(raw.title, raw.abstract, raw.arxiv)]
        if progress:
            progress(0, len(fresh))
        briefs = suggest_all(self.corpus.taxonomy, [(raw.title, raw.abstract) for raw in fresh])
        if progress:
            progress(len(fresh), len(fresh))
        out = set()
        for raw, brief in zip(fresh, briefs, strict=True):
            self._screened[id(raw)] = brief
            best = brief.best[1] if brief.best and brief.scores else 0.0  # rules alone: a topic or not
            if not brief.topic_ids and best < GATE and _key(raw) not in self.take:
                out.add(id(raw))
        return out

    def _extend(self, slug: str, entries: list[Entry]) -> None:
        listing = self.new_listings.get(slug) or copy.deepcopy(self.corpus.listings[slug])
        new = [e for e in entries if e not in listing.entries]
        if not new:  # taken in before: nothing to add
            return
        listing.entries = [*listing.entries, *new]
        self.new_listings[slug] = listing

    def _classify(self, progress: Callable[[int, int], None] | None) -> None:
        """Topics and tags for the added papers, all at once: on every core for thousands (those
        the gate screened keep the suggestion it made)."""
        added = [self.papers[slug] for slug in self.report.added]
        todo = [p for p in added if p.slug not in self._briefs]
        if todo and progress:
            progress(0, len(todo))
        fresh = suggest_all(self.corpus.taxonomy, [(p.title, p.abstract) for p in todo]) if todo else []
        computed = dict(zip([p.slug for p in todo], fresh, strict=True))
        for paper in added:
            brief = self._briefs.get(paper.slug) or computed[paper.slug]
            paper.topics, paper.tags = list(brief.topic_ids), list(brief.tag_ids)
            self.scored.append((paper.title, paper.abstract, brief))
            self.report.unsure += bool(brief.uncertain)
        if todo and progress:
            progress(len(todo), len(todo))

    def write(self) -> list[str]:
        papers = sorted(self.changed.values(), key=lambda p: p.slug)
        texts = [paper_text(p) for p in papers]
        files = [(p.file, text) for p, text in zip(papers, texts, strict=True)]
        files += [(li.file, listing_text(li)) for li in sorted(self.new_listings.values(),
                                                               key=lambda li: li.slug)]
        self.report.written = write_files(self.corpus, [*files, *self.rejects.files()])
        keep_written(self.corpus, zip(papers, texts, strict=True), self.scored)  # the queue's, not in git
        return self.report.written

    def _editable(self, slug: str) -> Paper:
        if slug not in self.changed:
            self.changed[slug] = self.papers[slug] = copy.deepcopy(self.papers[slug])
        return self.changed[slug]

    def _place(self, raw: RawEntry, source: Source) -> Entry | None:
        label = f"{source.path} entry {raw.label}"
        # A bibliography's entries are works its author tells apart: under another title, an
        # abstract alike is a possible duplicate (below), never a merge.
        found = self.index.match(raw.title, raw.abstract, raw.arxiv, abstracts=source.format != "bibtex")
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
            self.report.merged.append((label, found.slug, found.how))
            if match_key(raw.title) not in self.index.by_title:
                self.index.add_title(raw.title, found.slug)
            return self._entry(found.slug, raw)
        gone, how = self.rejects.find(raw.title, raw.abstract, raw.arxiv) or (None, "")
        if gone is not None:
            if _key(raw) not in self.take:
                self.report.rejected.append((label, gone.slug, how))
                self.report.rejected_file = shown_path(self.corpus.root / REJECTED_FILE)
                return None
            if not self.force:
                raise SurveyError(f"--take {_key(raw)}: {why(gone)}, as {gone.slug}: not in this survey's "
                                  f"scope; --force takes it in and out of the rejected papers")
            self.rejects.bring_back(gone)
            self.report.back.append(f"{gone.slug} ({why(gone)})")
        maybes = [f"{label}: may be the same paper as {maybe.slug} ({maybe.why})"
                  for maybe in self.index.possible(raw.title, raw.abstract)]
        if not raw.abstract:
            self.report.review += maybes
            self.report.no_abstract.append(label + (f" (arXiv {raw.arxiv})" if raw.arxiv else ""))
            return None
        paper = _unclassified(raw, self.taken, self.today)  # classified with the others in run()
        if gone is not None and gone.slug not in self.papers:
            paper.slug = gone.slug  # back under the address it had
        # Named once: a later import finds the paper itself (its id, its title), so the curator
        # acts on the line now or never (the summary says how), and no "distinct" is recorded.
        self.report.review += [f"{line}; added as {paper.slug}" for line in maybes]
        self.report.maybe_added += len(maybes)
        if _key(raw) in self.take:
            self.report.taken.append((paper.slug, shown_path(self.corpus.root / paper.file)))
            self.report.corpus = shown_path(self.corpus.root)
        if id(raw) in self._screened:
            self._briefs[paper.slug] = self._screened[id(raw)]
        self.papers[paper.slug] = paper
        self.changed[paper.slug] = paper
        self.index.add(paper)
        self.report.added.append(paper.slug)
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
        found = dict(raw.links)
        if "code" not in found and "code" not in paper.links:  # a repository its abstract names
            code = repository_url(paper.abstract) or repository_url(raw.abstract)
            if code is not None:
                found["code"] = code
        for kind, url in found.items():
            if kind not in paper.links and "links" not in paper.curated:
                updates.setdefault("links", dict(paper.links))[kind] = url  # type: ignore[index]
        return updates

    def _entry(self, slug: str, raw: RawEntry) -> Entry:
        paper = self.papers[slug]
        return Entry(paper=slug, title=raw.title,
                     abstract=None if raw.abstract in ("", paper.abstract) else raw.abstract)

    def _listing(self, source: Source, placed: dict[int, Entry | None], name: str | None) -> Listing:
        """The listing of a source whose entries are placed: its date with the year (from its
        papers' months where the source shows none), and a name a reader knows it by."""
        months = []
        for raw in source.entries:
            entry = placed.get(id(raw))
            paper = self.papers[entry.paper] if entry is not None else None
            month = month_of(raw.date, raw.arxiv) or (month_of(paper.date, paper.arxiv) if paper else None)
            if month is not None:
                months.append(month)
        shown = source.date
        if source.format == "hf-json":  # a day's papers: the day they share (a dump of many has none)
            days = {raw.date for raw in source.entries}
            shown = days.pop() if len(days) == 1 else None
        day = listing_day(shown, months, self.today)
        name = name or listing_name(source, day, self.today)
        taken = set(self.corpus.listings) | set(self.new_listings)
        listing = Listing(
            slug=slugify(name, taken), name=name, entries=[], source=source.format,
            origin=source.origin, sha256=source.sha256, date=day, imported=self.today, url=source.url,
            description=source.title,
        )
        self.new_listings[listing.slug] = listing
        return listing


def _key(raw: RawEntry) -> str:
    """How the scope report and --take name an entry: its arXiv id, else its label."""
    return raw.arxiv or raw.label
