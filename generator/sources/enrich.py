"""`survey enrich`: fill in the arXiv id, authors, date and links of papers that lack them.

Where from: files given with --from (read like `survey import` reads them), then, per paper,
arXiv's API searched by title, Semantic Scholar's title match and OpenAlex's search
(`apis.py`). Whether a record found there is the paper, and what it may fill, is decided in
`metadata.py`; anything less certain is listed for a person and never written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import SourceError, SurveyError
from ..core.text import shown_path
from ..core.yamlio import load_yaml
from ..corpus.check import duplicate_problems
from ..corpus.model import Paper
from ..corpus.rejected import REJECTED_FILE
from ..corpus.store import Corpus, paper_text
from ..corpus.writes import write_files
from .apis import WEB_SOURCES, Unreachable, Web
from .dedupe import Index
from .metadata import Record, additions, apply, judge, lacking
from .raw import RawEntry
from .readers import FORMATS, read_source
from .rejects import Rejects

__all__ = ["WEB_SOURCES", "Enricher", "Report", "Web", "file_records"]  # what `survey enrich` calls


@dataclass
class Report:
    lacking: int = 0
    enriched: dict[str, list[str]] = field(default_factory=dict)  # source -> slugs
    review: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the files' readers left out
    not_found: list[str] = field(default_factory=list)
    not_looked_up: list[str] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    unasked: int = 0  # papers no source could be asked about (unreachable, or not in the cache)
    rejected: set[str] = field(default_factory=set)  # records of papers a curator rejected: skipped
    rejected_file: str = "corpus/rejected.yaml"  # as a command given here names it
    title_only: set[str] = field(default_factory=set)  # papers for review that --confirm may write
    confirmed: set[str] = field(default_factory=set)  # papers --confirm wrote

    def summary(self) -> str:
        total = len({s for slugs in self.enriched.values() for s in slugs})
        by = "; ".join(f"{src}: {len(slugs)}" for src, slugs in sorted(self.enriched.items()))
        lines = [f"papers lacking an arXiv id, authors or a date: {self.lacking}; enriched: {total}"
                 + (f" ({by})" if by else "")
                 + f"; for review: {len(self.review)}; not found: {len(self.not_found)}"
                 + (f"; not asked: {self.unasked}" if self.unasked else "")
                 + (f"; not looked up: {len(self.not_looked_up)}" if self.not_looked_up else "")]
        if self.rejected:
            n = len(self.rejected)
            lines.append(f"rejected earlier: {n} record{'s' * (n != 1)} of rejected papers, skipped "
                         f"({self.rejected_file})")
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"unreachable: {u}" for u in self.unreachable]
        lines += [f"review: {r}" for r in self.review]
        if self.confirmed:
            lines.append(f"confirmed by a person (--confirm), matched by the title alone: "
                         f"{len(self.confirmed)} paper{'s' * (len(self.confirmed) != 1)}")
        if self.title_only:
            n = len(self.title_only)
            lines.append(f"confirm: {n} of the papers for review match{'es' * (n == 1)} by the title alone "
                         f"and nothing disagrees; once you have checked {'them' if n > 1 else 'it'}, run "
                         f"this again with --confirm all, or --confirm SLUG... for those you checked")
        lines.append(f"files written: {len(self.written)}")
        return "\n".join(lines)

    def markdown(self) -> str:
        """The report for a pull request's description."""
        out = ["## Metadata found by `survey enrich`", "", "```", self.summary(), "```", ""]
        if self.review:
            out += ["### For a person to decide", "",
                    "Each of these may be the paper, but the match is not certain, so nothing was "
                    "written. Fill the fields by hand, or add them to `curated` to stop the question.",
                    ""]
            out += [f"- {line}" for line in self.review]
        return "\n".join(out) + "\n"


def file_records(path: Path, today: str, notes: list[str]) -> list[Record]:
    """Every paper of a daily-papers JSON file, a BibTeX bibliography or any file `survey import`
    reads (a BibTeX entry without an abstract gives its metadata all the same); what the reader
    left out (an entry check's rules refuse) or read differently goes to `notes`."""
    source = read_source(path, strict=False)
    notes += source.notes + [f"{r.problem}; entry skipped" for r in source.refused]
    label = "HF daily papers JSON" if source.format == "hf-json" else FORMATS[source.format]
    name = f"{label} {path.name}"
    return [_from_entry(e, name, today) for e in source.entries]


def _from_entry(e: RawEntry, name: str, today: str) -> Record:
    return Record(source=name, fetched=today, title=e.title, abstract=e.abstract, arxiv=e.arxiv,
                  authors=list(e.authors), et_al=e.et_al, date=e.date, links=dict(e.links),
                  ref=f"arXiv {e.arxiv}" if e.arxiv else f"entry {e.key}, line {e.line}" if e.key
                  else f"entry {e.position}")


# --- the run --------------------------------------------------------------------------------


class Enricher:
    def __init__(self, corpus: Corpus, web: Web | None, sources: Iterable[str],
                 confirm: Iterable[str] = ()) -> None:
        """confirm: the papers (slugs, or "all") whose match by the title alone a person has
        checked in a run before, which this one writes."""
        self.confirm = set(confirm)
        self.corpus = corpus
        self.papers = dict(corpus.papers)
        self.changed: dict[str, Paper] = {}
        self.arxiv_taken = {p.arxiv: p.slug for p in corpus.papers.values() if p.arxiv}
        self.web = web
        self.sources = [WEB_SOURCES[s](web) for s in sources] if web else []
        self.report = Report(rejected_file=shown_path(corpus.root / REJECTED_FILE))
        self.rejects = Rejects(corpus.rejected)
        self._reviewed: set[tuple[str, str]] = set()
        self.answered: set[str] = set()  # papers some source answered about (network or cache)
        self.asked: set[str] = set()  # papers a source was to be asked about

    def candidates(self, slugs: list[str] | None = None) -> list[Paper]:
        """The papers to enrich: those lacking a field (of `slugs`, when given)."""
        unknown = sorted(set(slugs or ()) - set(self.papers))
        if unknown:
            raise SurveyError(f"--paper: no paper with the slug {unknown[0]!r}")
        papers = [p for p in sorted(self.papers.values(), key=lambda p: p.slug)
                  if lacking(p) and (not slugs or p.slug in slugs)]
        self.report.lacking = len(papers)
        return papers

    def still_lacking(self, slug: str) -> bool:
        return bool(lacking(self.papers[slug]))

    def consider(self, paper: Paper, record: Record) -> bool:
        """Judge one record for one paper; write down what it adds. True when it was the paper."""
        verdict = judge(paper, record)
        if verdict is None:
            return False
        if self.rejects.match(record.title, record.abstract or "", record.arxiv) is not None:
            self.report.rejected.add(record.shown())  # it would make this paper a rejected one
            return False
        kind, how = verdict
        if kind == "title-only" and ("all" in self.confirm or paper.slug in self.confirm):
            kind = "accept"
            self.report.confirmed.add(paper.slug)
        if kind != "accept":
            if (paper.slug, record.ref) not in self._reviewed:
                self._reviewed.add((paper.slug, record.ref))
                if kind == "title-only":  # the command that writes it, on its own line
                    how += f"; once checked, --confirm {paper.slug} writes it"
                    self.report.title_only.add(paper.slug)
                self.report.review.append(f"{paper.file}: may be {record.shown()}: {how}")
            return False
        current = self.papers[paper.slug]
        found = additions(current, record, self.arxiv_taken)
        if record.arxiv and record.arxiv not in (current.arxiv, found.get("arxiv")) and \
                self.arxiv_taken.get(record.arxiv, paper.slug) != paper.slug:
            self.report.review.append(f"{paper.file}: {record.shown()} matches by {how}, but its "
                                      f"arXiv id is held by {self.arxiv_taken[record.arxiv]}")
        if record.authors and not current.authors and "authors" not in found \
                and "authors" not in current.curated:
            self.report.review.append(f"{paper.file}: {record.shown()} lists an author name twice; "
                                      f"authors not written")
        if found:
            updated = apply(current, record, found)
            self.papers[paper.slug] = self.changed[paper.slug] = updated
            if "arxiv" in found:
                self.arxiv_taken[found["arxiv"]] = paper.slug
            self.report.enriched.setdefault(record.source, []).append(paper.slug)
        return True

    def from_files(self, records: list[Record], papers: list[Paper]) -> None:
        """Match a file's records to the papers the way `survey import` does, then judge each."""
        index = Index.of({p.slug: p for p in papers}, {})
        for record in records:
            if self.rejects.match(record.title, record.abstract or "", record.arxiv) is not None:
                self.report.rejected.add(record.shown())
                continue
            match = index.match(record.title, record.abstract or "", record.arxiv)
            if match:
                self.consider(self.papers[match.slug], record)
                continue
            for maybe in index.possible(record.title, record.abstract or ""):
                self.consider(self.papers[maybe.slug], record)

    def from_web(self, papers: list[Paper], limit: int | None = None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        """Ask each source in turn while a paper lacks fields. `limit` bounds the papers that
        needed the network (answers in the cache are free), so runs move through the corpus."""
        down: set[str] = set()
        asked = 0
        for i, paper in enumerate(papers, 1):
            if self.web and limit is not None and asked >= limit:
                self.report.not_looked_up.append(f"{paper.slug} (--limit {limit} reached)")
                continue
            before = self.web.fetches if self.web else 0
            self._ask(paper, down)
            asked += bool(self.web and self.web.fetches > before)
            if progress:
                progress(i, len(papers))

    def _ask(self, paper: Paper, down: set[str]) -> None:
        for source in self.sources:
            if source.name in down or not lacking(self.papers[paper.slug]):
                continue
            url = source.url(paper)
            self.asked.add(paper.slug)
            try:
                got = source.web.get(url, getattr(source, "headers", None))
            except Unreachable as exc:
                down.add(source.name)
                self.report.unreachable.append(f"{source.name}: {exc}; skipped for the rest of this run")
                continue
            if got is None:
                self.report.not_looked_up.append(f"{paper.slug} ({source.name})")
                continue
            self.answered.add(paper.slug)
            try:
                records = source.records(*got)
            except (ValueError, SourceError, AttributeError, TypeError, RecursionError) as exc:
                self.report.review.append(f"{paper.file}: {source.name} answered something "
                                          f"unreadable for {url} ({exc})")
                continue
            if any(self.consider(self.papers[paper.slug], r) for r in records):
                break

    def finish(self, papers: list[Paper]) -> None:
        enriched = {s for slugs in self.report.enriched.values() for s in slugs}
        reviewed = {line.split(":", 1)[0] for line in self.report.review}
        # A paper no source could be asked about is not "not found": nobody looked.
        unasked = self.asked - self.answered
        self.report.unasked = len(unasked)
        self.report.not_found = [p.slug for p in papers if p.slug not in enriched
                                 and p.file not in reviewed and p.slug not in unasked]

    def unconfirmed(self) -> str | None:
        """Why a slug --confirm names was not written, when one was not: the person confirmed a
        match this run did not find (another file, a paper already filled, a typo)."""
        missing = sorted(self.confirm - self.report.confirmed - {"all"})
        if not missing:
            return None
        return (f"--confirm {missing[0]}: no record of this run matches this paper by its title alone "
                f"(see the review: lines); nothing written" + (f" ({len(missing) - 1} more such slugs)"
                                                               if len(missing) > 1 else ""))

    def nothing_reachable(self) -> str | None:
        """Why no source could be asked about any paper, when that is so: the run did not do
        what was asked of it."""
        if not self.asked or self.answered:
            return None
        why = "; ".join(self.report.unreachable) or (
            "--offline, and none of their answers is in the cache" if self.web and self.web.offline
            else "no answer")
        return (f"could not ask any source about the {len(self.asked)} papers lacking metadata ({why}); "
                f"nothing written: run it again online, or with --web none")

    def write(self) -> list[str]:
        """Validate every changed paper as `survey check` would, then write them."""
        files = []
        for slug in sorted(self.changed):
            paper = self.changed[slug]
            Paper.from_dict(paper.to_dict(), paper.file)  # first what no YAML file can hold
            text = paper_text(paper)
            Paper.from_dict(load_yaml(text, paper.file), paper.file)
            files.append((paper.file, text))
        trial = Corpus(root=self.corpus.root, taxonomy=self.corpus.taxonomy, papers=self.papers,
                       listings=self.corpus.listings)
        problems = [p for p in duplicate_problems(trial) if p.entry in self.changed]
        if problems:
            raise SurveyError(f"nothing written: {problems[0]}")
        self.report.written = write_files(self.corpus, files)
        return self.report.written
