"""`survey fetch`: the survey's new papers from arXiv's API, written as one Atom file that the
import then takes in with `--on-topic` (cli/fetch.py runs both).

What is asked is the survey's own query, kept with the corpus in `corpus/fetch.yaml`
(`read_query`): the papers of its arXiv categories whose title or abstract says one of its
words, submitted from a day on (the newest date of a paper in the corpus, or --since) to today,
newest first. No state is kept: the corpus's newest date is where the last run's papers end, and
an entry already in the corpus (by its arXiv id) is not written, so a run with nothing new
writes nothing. arXiv's API terms (https://info.arxiv.org/help/api/tou.html): one request every
3 seconds, a User-Agent naming the survey and a contact address, results in pages (start,
max_results); and a bound on the pages of one run, said when reached.
"""

from __future__ import annotations

import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import CorpusError, SourceError, SurveyError
from ..core.text import bad_character, shorten, squash
from ..core.yamlio import load_yaml, read_text
from ..corpus.fields import strip_version
from ..corpus.model import Paper

SETTINGS = "fetch.yaml"  # in the corpus folder
ARXIV_API = "https://export.arxiv.org/api/query"
DELAY = 3.0  # seconds between two requests, as arXiv asks
TIMEOUT = 60
MAX_ANSWER = 32 * 2**20  # one page of 100 entries is about 250 KB
ATOM = "http://www.w3.org/2005/Atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
ARXIV = "http://arxiv.org/schemas/atom"
# The written feed keeps arXiv's own prefixes (ElementTree would write ns0:, ns1:).
for _prefix, _uri in (("", ATOM), ("arxiv", ARXIV), ("opensearch", OPENSEARCH)):
    ET.register_namespace(_prefix, _uri)

_CATEGORY = re.compile(r"[a-z][a-z-]*(?:\.[A-Za-z][A-Za-z-]*)?\Z")
_CONTACT = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+\Z")
_FIELDS = {"categories", "words", "contact", "pages", "page_size"}


@dataclass(frozen=True)
class Query:
    categories: tuple[str, ...]
    words: tuple[str, ...]
    contact: str
    pages: int = 10  # the most pages one run asks for
    page_size: int = 100  # entries a page (max_results)

    def search(self, since: str, until: str) -> str:
        """arXiv's search_query: a category, a word in the title or abstract, the days."""
        cats = " OR ".join(f"cat:{c}" for c in self.categories)
        words = " OR ".join(f'ti:"{w}" OR abs:"{w}"' for w in self.words)
        days = f"submittedDate:[{since.replace('-', '')}0000 TO {until.replace('-', '')}2359]"
        return f"({cats}) AND ({words}) AND {days}"

    def url(self, base: str, since: str, until: str, start: int) -> str:
        query = urllib.parse.urlencode({
            "search_query": self.search(since, until), "sortBy": "submittedDate", "sortOrder": "descending",
            "start": start, "max_results": self.page_size})
        return f"{base}?{query}"


def read_query(corpus: Path) -> Query:
    """The query of corpus/fetch.yaml, or one line naming the file and the field that is wrong.
    The contact address may come from SURVEY_CONTACT_EMAIL instead (a repository variable, which
    a fork sets without a commit)."""
    path = corpus / SETTINGS
    shown = str(path)
    if not path.exists():
        raise SurveyError(f"{shown}: no such file: write the survey's arXiv query there (categories, "
                          f"words, contact; docs/contributing.md, 'New papers from arXiv')")
    data = load_yaml(read_text(path, shown, 2**20), shown)
    if not isinstance(data, dict):
        raise CorpusError(shown, "must be a mapping of categories, words and contact")
    unknown = sorted(set(map(str, data)) - _FIELDS)
    if unknown:
        raise CorpusError(shown, f"unknown field; the fields are {', '.join(sorted(_FIELDS))}",
                          field=unknown[0])
    categories = _texts(data, "categories", shown, lambda c: None if _CATEGORY.match(c) else
                        "is not an arXiv category such as cs.DC or stat.ML")
    words = _texts(data, "words", shown, lambda w: "may not hold a double quote" if '"' in w else None)
    contact = data.get("contact") or os.environ.get("SURVEY_CONTACT_EMAIL", "")
    if not isinstance(contact, str) or not _CONTACT.match(contact.strip()) or bad_character(contact):
        raise CorpusError(shown, f"{shorten(contact)} is not an e-mail address: arXiv's API asks for one it "
                                 f"may write to about this survey's requests (or set SURVEY_CONTACT_EMAIL)",
                          field="contact")
    pages, size = (_number(data, name, shown, default, most) for name, default, most in
                   (("pages", 10, 100), ("page_size", 100, 2000)))
    return Query(tuple(categories), tuple(words), contact.strip(), pages, size)


def _texts(data: dict[str, Any], name: str, shown: str, problem: Callable[[str], str | None]) -> list[str]:
    value = data.get(name)
    if not isinstance(value, list) or not value or len(value) > 200:
        raise CorpusError(shown, "must be a list of 1 to 200 texts", field=name)
    out = []
    for i, item in enumerate(value):
        text = squash(item) if isinstance(item, str) else ""
        why = ("must be non-empty text of at most 100 characters" if not text or len(text) > 100
               else bad_character(text) or problem(text))
        if why:
            raise CorpusError(shown, f"{shorten(item)} {why}", field=f"{name}[{i}]")
        out.append(text)
    return out


def _number(data: dict[str, Any], name: str, shown: str, default: int, most: int) -> int:
    value = data.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
        raise CorpusError(shown, f"must be a whole number from 1 to {most}", field=name)
    return value


def newest_day(papers: Iterable[Paper]) -> str | None:
    """The newest date of a paper, as a day: a month or a year alone counts from its first day,
    so that a paper of that month is asked for again rather than missed."""
    days = [(p.date + "-01-01"[len(p.date) - 4:]) for p in papers if p.date]
    return max(days, default=None)


@dataclass
class Fetched:
    entries: list[ET.Element] = field(default_factory=list)  # the new ones, newest first
    total: int = 0  # what arXiv holds of the query
    read: int = 0  # entries read from its pages
    known: int = 0  # of those, papers already in the corpus
    pages: int = 0
    more: bool = False  # the run ended before the end of the query's papers
    oldest: str = ""  # the day the last entry read was submitted (they come newest first)
    urls: list[str] = field(default_factory=list)


class Client:
    """GET with arXiv's manners: its User-Agent names the contact, requests DELAY seconds apart."""

    def __init__(self, contact: str, delay: float = DELAY) -> None:
        self.agent = f"survey-fetch (a literature survey's new papers; mailto:{contact})"
        self.delay = delay
        self._last: float | None = None

    def get(self, url: str) -> bytes:
        host = urllib.parse.urlsplit(url).netloc
        if self._last is not None:
            time.sleep(max(0.0, self._last + self.delay - time.monotonic()))
        request = urllib.request.Request(url, headers={"User-Agent": self.agent})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                body: bytes = response.read(MAX_ANSWER + 1)
        except urllib.error.HTTPError as exc:
            raise SurveyError(f"{host} answered {exc.code} {exc.reason}; nothing written: run it again "
                              f"later") from None
        except (TimeoutError, urllib.error.URLError, OSError) as exc:
            raise SurveyError(f"cannot reach {host} ({getattr(exc, 'reason', exc)}); nothing "
                              f"written") from None
        finally:
            self._last = time.monotonic()
        if len(body) > MAX_ANSWER:
            raise SurveyError(f"{host} answered over {MAX_ANSWER // 2**20} MiB for one page; not read")
        return body


def fetch(query: Query, since: str, until: str, known: set[str], client: Client,
          base: str | None = None, progress: Callable[[int, int], None] | None = None) -> Fetched:
    """The query's entries from since to until, page after page, but those whose arXiv id is in
    `known`, until the last page or the bound on pages (progress: pages read of those to read)."""
    base = base or os.environ.get("SURVEY_ARXIV_API", ARXIV_API)
    out = Fetched()
    seen: set[str] = set()  # a paper submitted while we page repeats one on the next page
    start = 0
    while out.pages < query.pages:
        url = query.url(base, since, until, start)
        out.urls.append(url)
        entries, out.total = _page(client.get(url), f"arXiv's answer, page {out.pages + 1} (start={start})")
        out.pages += 1
        for entry in entries:
            out.oldest = (entry.findtext(f"{{{ATOM}}}published") or "").strip()[:10] or out.oldest
            arxiv = _arxiv_id(entry)
            if arxiv in known:
                out.known += 1
            elif arxiv not in seen:
                out.entries.append(entry)
            seen.add(arxiv)
        out.read += len(entries)
        start += len(entries)
        if progress:
            progress(out.pages, max(out.pages, min(query.pages, -(-out.total // query.page_size))))
        # A page short of max_results is the last; an empty one may be arXiv's hiccup before the
        # end (its API sometimes answers so): the next run asks again, from the same day.
        if len(entries) < query.page_size or start >= out.total:
            break
    out.more = start < out.total  # the bound, or a page short before the count (arXiv's hiccup)
    if progress:  # done, whatever the first page's count foretold
        progress(out.pages, out.pages)
    return out


def _page(body: bytes, shown: str) -> tuple[list[ET.Element], int]:
    if b"<!DOCTYPE" in body or b"<!ENTITY" in body:
        raise SourceError(shown, "Atom with a DOCTYPE or entities is refused")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise SourceError(shown, f"malformed XML: {exc}") from None
    if root.tag != f"{{{ATOM}}}feed":
        raise SourceError(shown, "not an Atom feed")
    entries = root.findall(f"{{{ATOM}}}entry")
    for entry in entries:
        if "/api/errors" in (entry.findtext(f"{{{ATOM}}}id") or ""):
            raise SourceError(shown, f"the arXiv API answered with an error: "
                                     f"{squash(entry.findtext(f'{{{ATOM}}}summary') or '')[:300]}")
    total = (root.findtext(f"{{{OPENSEARCH}}}totalResults") or "").strip()
    return entries, int(total) if total.isdigit() and len(total) < 10 else len(entries)


def _arxiv_id(entry: ET.Element) -> str:
    found = re.search(r"arxiv\.org/abs/(.+?)\s*$", entry.findtext(f"{{{ATOM}}}id") or "")
    return strip_version(found.group(1)) if found else ""


def atom_text(fetched: Fetched, title: str) -> str:
    """The new entries as one arXiv Atom feed, as the API wrote them, under the query's first
    page as its address; the same answers give the same bytes."""
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = title
    ET.SubElement(feed, f"{{{ATOM}}}link", {"href": fetched.urls[0], "rel": "self",
                                             "type": "application/atom+xml"})
    for entry in fetched.entries:
        entry.tail = "\n"
        feed.append(entry)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"
