"""The machine-readable views of the corpus: JSON (one object per paper) and CSV."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from .corpus import Corpus
from .model import LINK_KINDS

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
