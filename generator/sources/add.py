"""`survey add`: one new paper file, from options, standard input, arXiv, or a Hugging Face page.

A duplicate is refused (naming the file it duplicates); the new file is validated exactly as
`survey check` validates the corpus before anything is written.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from ..core.errors import SurveyError
from ..core.settings import read_settings
from ..core.text import shown_path, squash
from ..corpus.fields import ARXIV_ID, is_arxiv, strip_version
from ..corpus.model import CURATABLE, Paper
from ..corpus.publish import waits
from ..corpus.store import load_corpus, paper_text
from ..corpus.writes import validate, write_files
from .dedupe import Index
from .importer import new_paper
from .raw import RawEntry
from .readers import check_entry, read_source
from .rejects import Rejects, Taken, why
from .report import review_command

ARXIV_API = "https://export.arxiv.org/api/query"
TIMEOUT = 20


def _stdin_entry() -> RawEntry:
    if sys.stdin.isatty():
        raise SurveyError("give --title and --abstract, --arxiv ID, --hf URL, or paste the title "
                          "and the abstract on standard input")
    text = sys.stdin.read().replace("\r\n", "\n").lstrip("\ufeff")
    lines = text.strip().split("\n")
    title, abstract = squash(lines[0]) if lines else "", squash(" ".join(lines[1:]))
    if not title:
        raise SurveyError("standard input: field 'title': the first line must be the title")
    if not abstract:
        raise SurveyError(f"standard input: entry {title!r}: field 'abstract': is missing "
                          f"(the lines after the title)")
    return RawEntry(title=title, abstract=abstract, position=1)


def _fetch(url: str, what: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except urllib.error.HTTPError as exc:
        raise SurveyError(f"{what}: the server answered {exc.code} {exc.reason} for {url}") from None
    except (TimeoutError, urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SurveyError(f"{what}: cannot reach {url} ({reason}); this needs the network: "
                           f"give --title and --abstract instead") from None


def _from_source(data: bytes, name: str) -> RawEntry:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "page"
        path.write_bytes(data)
        source = read_source(path, name)
    if len(source.entries) != 1:
        raise SurveyError(f"{name}: holds {len(source.entries)} papers; `survey add` takes one "
                          f"(use `survey import` for listings)")
    return source.entries[0]


def _arxiv_entry(arxiv: str) -> RawEntry:
    arxiv = strip_version(arxiv)
    if not is_arxiv(arxiv):
        raise SurveyError(f"--arxiv: {arxiv!r} is not an arXiv id like 2104.07857")
    base = os.environ.get("SURVEY_ARXIV_API", ARXIV_API)
    url = f"{base}?id_list={arxiv}&max_results=1"
    entry = _from_source(_fetch(url, "arXiv API"), f"arXiv API response for {arxiv}")
    if entry.arxiv != arxiv:
        raise SurveyError(f"arXiv API: asked for {arxiv}, got {entry.arxiv}")
    return entry


def _hf_entry(where: str) -> RawEntry:
    if re.match(r"^https?://", where):
        if not re.match(rf"^https://huggingface\.co/papers/{ARXIV_ID}(?:v\d+)?/?$", where):
            raise SurveyError(f"--hf: {where!r} is not a Hugging Face paper page URL "
                              f"(https://huggingface.co/papers/ID)")
        return _from_source(_fetch(where, "Hugging Face"), where)
    path = Path(where)
    if not path.is_file():
        raise SurveyError(f"--hf: {where}: no such file")
    return _from_source(path.read_bytes(), where)


def run_add(args: argparse.Namespace, today: str) -> int:
    corpus = load_corpus(args.corpus)
    if args.title or args.abstract:
        if not (args.title and args.abstract):
            raise SurveyError("give both --title and --abstract")
        raw = RawEntry(title=squash(args.title), abstract=squash(args.abstract), position=1,
                       arxiv=strip_version(args.arxiv) if args.arxiv else None)
    elif args.arxiv:
        raw = _arxiv_entry(args.arxiv)
    elif args.hf:
        raw = _hf_entry(args.hf)
    else:
        raw = _stdin_entry()
    raw.authors = args.author or raw.authors
    raw.date = args.date or raw.date
    for kind in ("code", "project"):
        if getattr(args, kind):
            raw.links[kind] = getattr(args, kind)
    check_entry(raw, "the command line" if args.title or args.arxiv or args.hf else "standard input")

    index = Index.of(corpus.papers, corpus.listings)
    found = index.match(raw.title, raw.abstract, raw.arxiv)
    if found:
        existing = shown_path(corpus.root / "papers" / f"{found.slug}.yaml")
        shares = "nearly the same abstract" if found.how == "same abstract" else f"same {found.how}"
        raise SurveyError(f"this paper is already in the corpus as {existing} ({shares}); "
                          f"edit that file instead")
    rejects = Rejects(corpus.rejected)
    gone = rejects.match(raw.title, raw.abstract, raw.arxiv)
    if gone is not None and not args.force:
        raise SurveyError(f"this paper was {why(gone)}, as {gone.slug} (corpus/rejected.yaml): not in "
                          f"this survey's scope; --force adds it and takes it out of the rejected papers")
    if gone is not None:
        rejects.bring_back(gone)
    paper, suggestion = new_paper(raw, corpus.taxonomy, Taken(corpus.papers, rejects), today)
    if gone is not None:
        paper.slug = gone.slug  # back under the address it had
    curated: list[str] = []
    if args.topic is not None:
        paper.topics, curated = list(dict.fromkeys(args.topic)), [*curated, "topics"]
    if args.tag is not None:
        paper.tags, curated = list(dict.fromkeys(args.tag)), [*curated, "tags"]
    paper.curated = [c for c in CURATABLE if c in curated]

    path = shown_path(corpus.root / paper.file)
    Paper.from_dict(paper.to_dict(), path)  # what no YAML file could hold (a lone surrogate) is refused
    text = paper_text(paper)
    files = [(paper.file, text), *rejects.files()]
    if args.dry_run:  # checked as `survey check` will read it, as every write is
        validate(corpus, files)
    else:
        write_files(corpus, files)
    for maybe in index.possible(raw.title, raw.abstract):
        print(f"review: may be the same paper as {maybe.slug} ({maybe.why})", file=sys.stderr)
    if args.dry_run:
        sys.stdout.write(text)
        return 0
    print(f"wrote {path}" + (f" (back from the papers {why(gone)})" if gone is not None else ""))
    settings = read_settings()
    # A paper the model places in no topic and no person reviewed is not on the site until a
    # person decides it (corpus/publish.py): its page's addresses hold once it is reviewed.
    off_site = waits(paper) and not settings.publish_waiting
    how = " (yours)" if "topics" in paper.curated else f" (suggested; see survey explain {paper.slug})"
    if off_site:
        print(f"topics: none suggested (see survey explain {paper.slug}): the paper is not on the site "
              f"until a person reviews it")
    else:
        print(f"topics: {', '.join(paper.topics) or '(none: listed under Other)'}{how}")
    if "topics" not in paper.curated and suggestion.uncertain:
        unsure = ", ".join(f"{v.id} {v.confidence:.2f}" for v in suggestion.uncertain)
        print(f"review: the model is unsure of {unsure}; read the abstract and fix `topics` if needed")
    print(f"tags: {', '.join(paper.tags) or '(none)'}")
    # The published address, and where `mkdocs serve` shows the page now, the next step a
    # contributor takes (MkDocs's default address, under site_url's path).
    url, once = settings.url, " (once reviewed)" if off_site else ""
    print(f"page{once}: {url}{paper.path}")
    local = f"http://127.0.0.1:8000{urllib.parse.urlsplit(url).path or '/'}{paper.path}"
    print(f"preview{once}: {local} (mkdocs serve --dirty)")
    if "topics" not in paper.curated:
        print(f"decide its topics now: {review_command(paper.slug, shown_path(corpus.root))}")
    return 0
