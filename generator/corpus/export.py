"""The machine-readable views of the corpus: JSON (one object per paper) and CSV."""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from typing import Any

from .model import LINK_KINDS, Paper
from .store import Corpus

# List cells hold one item per line: no title, tag or name can contain a line break.
SEP = "\n"

CSV_COLUMNS = (
    "slug", "url", "title", "abstract", "topics", "tags", "listings", "alternate_titles",
    "arxiv", "authors", "date", "added", *(f"link_{k}" for k in LINK_KINDS),
)


def records(corpus: Corpus) -> list[dict[str, Any]]:
    listings_of = corpus.listings_of()
    out = []
    for paper in corpus.sorted_papers():
        rec: dict[str, Any] = {
            "slug": paper.slug,
            "url": paper.path,
            "title": paper.title,
            "abstract": paper.abstract,
            "topics": list(paper.topics),
            "tags": list(paper.tags),
            "listings": [
                {"slug": li.slug, "name": li.name, "position": pos}
                for li, pos in listings_of.get(paper.slug, [])
            ],
            "alternate_titles": list(paper.alternate_titles),
        }
        for name in ("arxiv", "authors", "date", "added"):
            value = getattr(paper, name)
            if value:
                rec[name] = value
        links = {k: paper.link(k) for k in LINK_KINDS if paper.link(k)}
        if links:
            rec["links"] = links
        out.append(rec)
    return out


def to_json(corpus: Corpus) -> str:
    return json.dumps(records(corpus), ensure_ascii=False, indent=2) + "\n"


def to_csv(corpus: Corpus) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rec in records(corpus):
        links = rec.get("links", {})
        writer.writerow([
            rec["slug"], rec["url"], rec["title"], rec["abstract"],
            SEP.join(rec["topics"]), SEP.join(rec["tags"]),
            SEP.join(f"{li['slug']}#{li['position']}" for li in rec["listings"]),
            SEP.join(rec["alternate_titles"]), rec.get("arxiv", ""),
            SEP.join(rec.get("authors", [])), rec.get("date", ""), rec.get("added", ""),
            *(links.get(k, "") for k in LINK_KINDS),
        ])
    return buf.getvalue()


_BIBTEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%",
                   "$": r"\$", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}


_BIBTEX_TABLE = str.maketrans(_BIBTEX_SPECIAL)


def _bibtex_text(text: str) -> str:
    return text.translate(_BIBTEX_TABLE)


def bibtex_key(paper: Paper) -> str:
    first = paper.authors[0].split()[-1] if paper.authors else "anon"
    word = next((w for w in paper.slug.split("-") if len(w) > 3), paper.slug.split("-")[0])
    key = f"{first}{paper.year or ''}{word}"
    return "".join(c for c in unicodedata.normalize("NFKD", key) if c.isascii() and c.isalnum()).lower()


def bibtex(paper: Paper) -> str | None:
    """An arXiv-style @misc entry, when the authors and the year are known."""
    if not paper.authors or not paper.year:
        return None
    fields = [
        ("title", "{" + _bibtex_text(paper.title) + "}"),
        ("author", " and ".join(_bibtex_text(a) for a in paper.authors)),
        ("year", paper.year),
    ]
    if paper.arxiv:
        fields += [("eprint", paper.arxiv), ("archivePrefix", "arXiv")]
    url = paper.link("paper")
    if url:
        fields.append(("url", url))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{bibtex_key(paper)},\n{body}\n}}"
