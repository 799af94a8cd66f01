"""`survey enrich`: fill in the arXiv id, authors, date and links of papers that lack them.

Where from: daily-papers JSON files given with --from (read like `survey import` reads them),
then, per paper, arXiv's API searched by title, Semantic Scholar's title match and OpenAlex's
search. A record found there is the paper only when
- its normalised title equals one of the paper's titles (and, when both have an abstract, the
  abstracts are not plainly of two different works), or
- its title is close and the abstracts say it is the same work.
Anything less certain is listed for a person and never written. Only empty fields are filled;
a field named in `curated` is never touched; each fill is recorded under `enriched` with its
source and the day it was fetched.

Every web answer is kept in a cache folder; with --offline only the cache is read, so a run can
be repeated without the network and gives the same files.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import SourceError, SurveyError
from ..core.text import match_key, shingles
from ..core.yamlio import load_yaml
from ..corpus.check import duplicate_problems
from ..corpus.model import ARXIV_RE, URL_RE, Enriched, Paper
from ..corpus.store import Corpus, paper_text
from ..corpus.writes import write_files
from .dedupe import Index
from .intake import read_bytes
from .readers import FORMATS, RawEntry, parse_source

ARXIV_API = "https://export.arxiv.org/api/query"
S2_API = "https://api.semanticscholar.org/graph/v1"
OPENALEX_API = "https://api.openalex.org"
TIMEOUT = 30
USER_AGENT = "survey-enrich (ml-systems-survey; https://github.com/)"

# A close title: at least this alike (difflib ratio of the normalised titles)...
CLOSE_TITLE = 0.85
# ...and abstracts sharing at least this share of their word 3-grams (dedupe's "same abstract").
SAME_ABSTRACT = 0.5
# An exact title whose abstract shares less than this is another work with the same title.
OTHER_WORK = 0.1
FIELDS = ("arxiv", "authors", "date")


@dataclass
class Record:
    """What one source says about one work."""

    source: str
    fetched: str
    title: str
    abstract: str | None = None
    arxiv: str | None = None
    authors: list[str] = field(default_factory=list)
    date: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    ref: str = ""  # how a person finds it again: an id or a URL

    def shown(self) -> str:
        return f"{self.source}: {self.title!r}" + (f" ({self.ref})" if self.ref else "")


@dataclass
class Report:
    lacking: int = 0
    enriched: dict[str, list[str]] = field(default_factory=dict)  # source -> slugs
    review: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    not_looked_up: list[str] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    unasked: int = 0  # papers no source could be asked about (unreachable, or not in the cache)

    def summary(self) -> str:
        total = len({s for slugs in self.enriched.values() for s in slugs})
        by = "; ".join(f"{src}: {len(slugs)}" for src, slugs in sorted(self.enriched.items()))
        lines = [f"papers lacking an arXiv id, authors or a date: {self.lacking}; enriched: {total}"
                 + (f" ({by})" if by else "")
                 + f"; for review: {len(self.review)}; not found: {len(self.not_found)}"
                 + (f"; not asked: {self.unasked}" if self.unasked else "")
                 + (f"; not looked up: {len(self.not_looked_up)}" if self.not_looked_up else "")]
        lines += [f"unreachable: {u}" for u in self.unreachable]
        lines += [f"review: {r}" for r in self.review]
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


def lacking(paper: Paper) -> list[str]:
    """The fields enrich may still fill on this paper."""
    return [name for name in FIELDS if not getattr(paper, name) and name not in paper.curated]


# --- is this record the paper? ------------------------------------------------------------


def _overlap(a: str, b: str) -> float:
    x, y = shingles(a), shingles(b)
    return len(x & y) / len(x | y) if x and y else 0.0


def judge(paper: Paper, record: Record) -> tuple[str, str] | None:
    """("accept", how), ("review", why), or None when the record is plainly another paper."""
    key = match_key(record.title)
    if not key:
        return None
    titles = [match_key(t) for t in paper.titles]
    same_abstract = _overlap(paper.abstract, record.abstract) if record.abstract else None
    if key in titles:
        if same_abstract is not None and same_abstract < OTHER_WORK:
            return "review", (f"same title, but the abstracts share only {same_abstract:.0%} of "
                              f"their wording")
        return "accept", "same title"
    alike = max(difflib.SequenceMatcher(None, key, t).ratio() for t in titles)
    if alike >= CLOSE_TITLE:
        if same_abstract is not None and same_abstract >= SAME_ABSTRACT:
            return "accept", f"titles {alike:.0%} alike, abstracts {same_abstract:.0%} alike"
        why = ("no abstract to confirm it" if same_abstract is None
               else f"abstracts only {same_abstract:.0%} alike")
        return "review", f"titles {alike:.0%} alike, {why}"
    if same_abstract is not None and same_abstract >= SAME_ABSTRACT:
        return "review", f"abstracts {same_abstract:.0%} alike under another title"
    return None


# --- what a record adds ---------------------------------------------------------------------


def additions(paper: Paper, record: Record, arxiv_taken: dict[str, str]) -> dict[str, Any]:
    """The fields this record fills on this paper: empty ones only, never curated ones."""
    out: dict[str, Any] = {}
    if (record.arxiv and not paper.arxiv and "arxiv" not in paper.curated
            and arxiv_taken.get(record.arxiv, paper.slug) == paper.slug):
        out["arxiv"] = record.arxiv
    if record.authors and not paper.authors and "authors" not in paper.curated \
            and len(set(record.authors)) == len(record.authors):
        out["authors"] = list(record.authors)
    if record.date and not paper.date and "date" not in paper.curated:
        out["date"] = record.date
    if "links" not in paper.curated:
        for kind, url in sorted(record.links.items()):
            if kind in paper.links or not URL_RE.match(url):
                continue
            if kind == "pdf" and (paper.arxiv or "arxiv" in out):
                continue  # the arXiv id gives the PDF link already
            out[f"links.{kind}"] = url
    return out


def apply(paper: Paper, record: Record, found: dict[str, Any]) -> Paper:
    updated = copy.deepcopy(paper)
    for name, value in found.items():
        if name.startswith("links."):
            updated.links[name.split(".", 1)[1]] = value
        else:
            setattr(updated, name, value)
    updated.enriched.append(Enriched(source=record.source, fetched=record.fetched, fields=list(found)))
    return updated


# --- the web, through a cache ---------------------------------------------------------------


class Unreachable(SurveyError):
    pass


class Web:
    """GET with a cache folder: one JSON file per URL, holding the body and the day fetched."""

    def __init__(self, cache: Path, today: str, *, offline: bool = False, delay: float = 0.0) -> None:
        self.cache, self.today, self.offline, self.delay = cache, today, offline, delay
        self._last: dict[str, float] = {}
        self.fetches = 0  # requests that went to the network

    def _file(self, url: str) -> Path:
        return self.cache / f"{hashlib.sha256(url.encode()).hexdigest()[:32]}.json"

    def get(self, url: str, headers: dict[str, str] | None = None) -> tuple[str, str] | None:
        """(body, day fetched), or None when offline and not cached."""
        path = self._file(url)
        if path.is_file():
            kept = json.loads(path.read_text(encoding="utf-8"))
            return str(kept["body"]), str(kept["fetched"])
        if self.offline:
            return None
        host = urllib.parse.urlsplit(url).netloc
        wait = self._last.get(host, 0.0) + self.delay - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **(headers or {})})
        self.fetches += 1
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                body = response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise Unreachable(f"{host} answered {exc.code} {exc.reason}") from None
            body = ""  # "no such record" is an answer, and is kept
        except (TimeoutError, urllib.error.URLError, OSError, UnicodeDecodeError) as exc:
            raise Unreachable(f"cannot reach {host} ({getattr(exc, 'reason', exc)})") from None
        finally:
            self._last[host] = time.monotonic()
        self.cache.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"url": url, "fetched": self.today, "body": body}, ensure_ascii=False),
                        encoding="utf-8")
        return body, self.today


# --- the sources ----------------------------------------------------------------------------


def _words(title: str) -> str:
    return " ".join(re.findall(r"\w+", title))


def _version_free(arxiv: str | None) -> str | None:
    if not arxiv:
        return None
    bare = re.sub(r"v\d+$", "", arxiv.strip())
    return bare if ARXIV_RE.match(bare) else None


def _day(value: Any) -> str | None:
    if isinstance(value, str) and re.match(r"^\d{4}(-\d{2}(-\d{2})?)?$", value[:10].rstrip("-")):
        return value[:10]
    if isinstance(value, int) and 1900 < value < 2200:
        return str(value)
    return None


class ArxivSearch:
    name = "arXiv API"

    def __init__(self, web: Web) -> None:
        self.web, self.base = web, os.environ.get("SURVEY_ARXIV_API", ARXIV_API)

    def url(self, paper: Paper) -> str:
        query = urllib.parse.quote(f'ti:"{_words(paper.title)}"')
        return f"{self.base}?search_query={query}&start=0&max_results=5"

    def records(self, body: str, fetched: str) -> list[Record]:
        if "<entry" not in body:  # no result (an error comes as an entry, and is reported)
            return []
        source = parse_source(body.encode("utf-8"), f"{self.name} answer")
        return [Record(source=self.name, fetched=fetched, title=e.title, abstract=e.abstract,
                       arxiv=e.arxiv, authors=e.authors, date=e.date, ref=f"arXiv {e.arxiv}")
                for e in source.entries]


class SemanticScholar:
    name = "Semantic Scholar"
    FIELDS = "title,abstract,authors,year,publicationDate,externalIds,openAccessPdf"

    def __init__(self, web: Web) -> None:
        self.web, self.base = web, os.environ.get("SURVEY_S2_API", S2_API)
        key = os.environ.get("SEMANTIC_SCHOLAR_API_KEY")  # optional: a higher rate limit
        self.headers = {"x-api-key": key} if key else {}

    def url(self, paper: Paper) -> str:
        query = urllib.parse.quote(_words(paper.title))
        return f"{self.base}/paper/search/match?query={query}&fields={self.FIELDS}"

    def records(self, body: str, fetched: str) -> list[Record]:
        data = json.loads(body) if body.strip() else {}
        out = []
        for item in data.get("data") or []:
            ids = item.get("externalIds") or {}
            pdf = (item.get("openAccessPdf") or {}).get("url")
            out.append(Record(
                source=self.name, fetched=fetched, title=str(item.get("title") or ""),
                abstract=item.get("abstract") or None, arxiv=_version_free(ids.get("ArXiv")),
                authors=[str(a.get("name")).strip() for a in item.get("authors") or [] if a.get("name")],
                date=_day(item.get("publicationDate")) or _day(item.get("year")),
                links={"pdf": pdf} if isinstance(pdf, str) and pdf else {},
                ref=f"S2 {item.get('paperId')}"))
        return out


class OpenAlex:
    name = "OpenAlex"

    def __init__(self, web: Web) -> None:
        self.web, self.base = web, os.environ.get("SURVEY_OPENALEX_API", OPENALEX_API)

    def url(self, paper: Paper) -> str:
        query = urllib.parse.quote(_words(paper.title).replace(",", " "))
        contact = os.environ.get("SURVEY_CONTACT_EMAIL")  # optional: OpenAlex's "polite pool"
        mail = f"&mailto={urllib.parse.quote(contact)}" if contact else ""
        return f"{self.base}/works?filter=title.search:{query}&per-page=5{mail}"

    def records(self, body: str, fetched: str) -> list[Record]:
        data = json.loads(body) if body.strip() else {}
        out = []
        for item in data.get("results") or []:
            arxiv = None
            for loc in item.get("locations") or []:
                m = re.search(r"arxiv\.org/abs/([^\s?#]+)", str((loc or {}).get("landing_page_url") or ""))
                if m:
                    arxiv = _version_free(m.group(1))
                    break
            pdf = ((item.get("best_oa_location") or {}).get("pdf_url")
                   or (item.get("primary_location") or {}).get("pdf_url"))
            title = item.get("title") or item.get("display_name") or ""
            out.append(Record(
                source=self.name, fetched=fetched, title=str(title),
                abstract=_inverted(item.get("abstract_inverted_index")), arxiv=arxiv,
                authors=[str(a["author"]["display_name"]).strip() for a in item.get("authorships") or []
                         if (a.get("author") or {}).get("display_name")],
                date=_day(item.get("publication_date")) or _day(item.get("publication_year")),
                links={"pdf": pdf} if isinstance(pdf, str) and pdf else {}, ref=str(item.get("id") or "")))
        return out


def _inverted(index: Any) -> str | None:
    """OpenAlex keeps an abstract as {word: [positions]}: put the words back in order."""
    if not isinstance(index, dict) or not index:
        return None
    at = {pos: word for word, positions in index.items() for pos in positions}
    return " ".join(at[i] for i in sorted(at))


WEB_SOURCES: dict[str, Callable[[Web], Any]] = {
    "arxiv": ArxivSearch, "s2": SemanticScholar, "openalex": OpenAlex,
}


def file_records(path: Path, today: str) -> list[Record]:
    """Every paper of a daily-papers JSON file (or any file `survey import` reads)."""
    source = parse_source(read_bytes(path, str(path)), str(path))
    label = "HF daily papers JSON" if source.format == "hf-json" else FORMATS[source.format]
    name = f"{label} {path.name}"
    return [_from_entry(e, name, today) for e in source.entries]


def _from_entry(e: RawEntry, name: str, today: str) -> Record:
    return Record(source=name, fetched=today, title=e.title, abstract=e.abstract, arxiv=e.arxiv,
                  authors=list(e.authors), date=e.date, links=dict(e.links),
                  ref=f"arXiv {e.arxiv}" if e.arxiv else f"entry {e.position}")


# --- the run --------------------------------------------------------------------------------


class Enricher:
    def __init__(self, corpus: Corpus, web: Web | None, sources: Iterable[str]) -> None:
        self.corpus = corpus
        self.papers = dict(corpus.papers)
        self.changed: dict[str, Paper] = {}
        self.arxiv_taken = {p.arxiv: p.slug for p in corpus.papers.values() if p.arxiv}
        self.web = web
        self.sources = [WEB_SOURCES[s](web) for s in sources] if web else []
        self.report = Report()
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
        kind, how = verdict
        if kind == "review":
            if (paper.slug, record.ref) not in self._reviewed:
                self._reviewed.add((paper.slug, record.ref))
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
