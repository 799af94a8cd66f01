"""The public metadata APIs `survey enrich` asks by title (arXiv, Semantic Scholar, OpenAlex),
through a cache folder: every answer is kept, and with --offline only the cache is read, so a run
can be repeated without the network and gives the same files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..corpus.fields import is_arxiv, is_date, strip_version
from ..corpus.model import Paper
from .metadata import Record
from .readers import parse_source

ARXIV_API = "https://export.arxiv.org/api/query"
S2_API = "https://api.semanticscholar.org/graph/v1"
OPENALEX_API = "https://api.openalex.org"
TIMEOUT = 30
USER_AGENT = "survey-enrich (ml-systems-survey; https://github.com/)"


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


def _words(title: str) -> str:
    return " ".join(re.findall(r"\w+", title))


def _version_free(arxiv: str | None) -> str | None:
    if not arxiv:
        return None
    bare = strip_version(arxiv)
    return bare if is_arxiv(bare) else None


def _day(value: Any) -> str | None:
    if isinstance(value, str) and is_date(value[:10].rstrip("-")):
        return value[:10].rstrip("-")
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
        source = parse_source(body.encode("utf-8"), f"{self.name} answer", strict=False)
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
