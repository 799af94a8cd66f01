"""The machine-readable views of the corpus: JSON (one object per paper) and CSV."""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from ..core.tex import math_text, tex_parts
from .model import LINK_KINDS, Paper
from .store import Corpus

# List cells hold one item per line: no title, tag or name can contain a line break.
SEP = "\n"

CSV_COLUMNS = (
    "slug", "url", "title", "abstract", "topics", "tags", "listings", "alternate_titles",
    "arxiv", "authors", "date", "added", *(f"link_{k}" for k in LINK_KINDS),
    "reviewed", "et_al",  # last, so that the columns before keep their places
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
            # false: the topics are the model's suggestion, which no person has reviewed yet
            "reviewed": paper.topics_reviewed,
            **({"confidence": dict(paper.confidence)}
               if paper.confidence and not paper.topics_reviewed else {}),
            "tags": list(paper.tags),
            "listings": [
                {"slug": li.slug, "name": li.name, "position": pos}
                for li, pos in listings_of.get(paper.slug, [])
            ],
            "alternate_titles": list(paper.alternate_titles),
        }
        for name in ("arxiv", "authors", "et_al", "date", "added"):
            value = getattr(paper, name)
            if value:
                rec[name] = value
        links = {k: paper.link(k) for k in LINK_KINDS if paper.link(k)}
        if links:
            rec["links"] = links
        out.append(rec)
    return out


# What serve keeps between builds: slug -> (record, its JSON item, its CSV line).
Memo = dict[str, tuple[dict[str, Any], str, str]]


def to_json(corpus: Corpus) -> str:
    return json.dumps(records(corpus), ensure_ascii=False, indent=2) + "\n"


def to_csv(corpus: Corpus) -> str:
    return _csv_head() + "".join(_csv_line(rec) for rec in records(corpus))


def exports(corpus: Corpus, memo: Memo) -> tuple[str, str]:
    """`to_json` and `to_csv` at once, writing again only the records that are not in `memo`
    (kept between the builds of `mkdocs serve`): the same text, faster."""
    recs = records(corpus)
    fresh: Memo = {}
    for rec in recs:
        hit = memo.get(rec["slug"])
        fresh[rec["slug"]] = (hit if hit is not None and hit[0] == rec
                              else (rec, _json_item(rec), _csv_line(rec)))
    memo.clear()
    memo.update(fresh)
    items = [memo[rec["slug"]] for rec in recs]
    json_text = "[\n" + ",\n".join(item[1] for item in items) + "\n]\n" if recs else "[]\n"
    return json_text, _csv_head() + "".join(item[2] for item in items)


def _json_item(rec: dict[str, Any]) -> str:
    """One record as json.dumps(..., indent=2) writes it inside the array (no string holds a
    raw line break: JSON escapes them)."""
    return "  " + json.dumps(rec, ensure_ascii=False, indent=2).replace("\n", "\n  ")


def _csv_head() -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(CSV_COLUMNS)
    return buf.getvalue()


# A spreadsheet reads a cell that starts with = + - @ (or a tab or a carriage return) as a
# formula: `=HYPERLINK(...)` in a title would become a link, `=cmd|...` a command. Such a cell
# is written with a ' before it, as OWASP advises, and so is a cell that starts with ' itself:
# a program reading the CSV removes one leading ' from a cell that has one and has the text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def csv_cell(text: str) -> str:
    return "'" + text if text.startswith(_FORMULA_START) else text


def _csv_line(rec: dict[str, Any]) -> str:
    buf = io.StringIO()
    links = rec.get("links", {})
    csv.writer(buf, lineterminator="\n").writerow([csv_cell(cell) for cell in (
        rec["slug"], rec["url"], rec["title"], rec["abstract"],
        SEP.join(rec["topics"]), SEP.join(rec["tags"]),
        SEP.join(f"{li['slug']}#{li['position']}" for li in rec["listings"]),
        SEP.join(rec["alternate_titles"]), rec.get("arxiv", ""),
        SEP.join(rec.get("authors", [])), rec.get("date", ""), rec.get("added", ""),
        *(links.get(k, "") for k in LINK_KINDS), "true" if rec["reviewed"] else "false",
        "true" if rec.get("et_al") else "",
    )])
    return buf.getvalue()


_BIBTEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%",
                   "$": r"\$", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}


_BIBTEX_TABLE = str.maketrans(_BIBTEX_SPECIAL)


# LaTeX typesets `--` as a dash and two quote marks as a curly quote: an empty group between
# them keeps every character as the corpus has it (the BibTeX reader reads the file back exactly).
_BIBTEX_LIGATURE = re.compile(r"([-`'])(?=\1)")


def _bibtex_text(text: str) -> str:
    return _BIBTEX_LIGATURE.sub(r"\1{}", text.translate(_BIBTEX_TABLE))


def _bibtex_title(title: str) -> str:
    """A title for a .bib file: its text as a page shows it (`2.4\\times` is 2.4×, not the
    letters \\times), every character kept by escapes; its math as the TeX it is, where its braces
    pair (a brace of its own would end the field)."""
    out = []
    for part in tex_parts(title):
        if part.math and _balanced(part.text):
            out.append(f"${part.text}$")
        else:
            out.append(_bibtex_text(math_text(part.text) if part.math else part.text))
    return "".join(out)


def _balanced(tex: str) -> bool:
    depth = 0
    for char in re.sub(r"\\.", "", tex):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0 and "$" not in tex.replace("\\$", "")


def citation_year(paper: Paper) -> str | None:
    """The year to cite: the paper's date, else the year its arXiv id was given."""
    if paper.year:
        return paper.year
    if not paper.arxiv:
        return None
    match = re.match(r"^(?:[a-z.-]+/)?(\d\d)(\d\d)", paper.arxiv, re.IGNORECASE)
    if not match:
        return None
    yy = int(match.group(1))
    return str(1900 + yy if yy >= 91 else 2000 + yy)


def citable(paper: Paper) -> bool:
    """Enough to cite: a title (always there) and a year or an arXiv id."""
    return bool(paper.year or paper.arxiv)


def _base_key(paper: Paper) -> str:
    first = paper.authors[0].split()[-1] if paper.authors else ""
    word = next((w for w in paper.slug.split("-") if len(w) > 3), paper.slug.split("-")[0])
    key = f"{first}{citation_year(paper) or ''}{word}"
    return "".join(c for c in unicodedata.normalize("NFKD", key) if c.isascii() and c.isalnum()).lower()


def bibtex_keys(papers: Iterable[Paper]) -> dict[str, str]:
    """A citation key for every citable paper, unique across the survey: `rajbhandari2021zero`,
    and `...a`, `...b` in slug order when two papers would share one."""
    groups: dict[str, list[str]] = {}
    for paper in sorted((p for p in papers if citable(p)), key=lambda p: p.slug):
        groups.setdefault(_base_key(paper), []).append(paper.slug)
    keys = {}
    for base, slugs in groups.items():
        if len(slugs) == 1:
            keys[slugs[0]] = base
        else:
            keys.update({slug: base + _suffix(i) for i, slug in enumerate(slugs)})
    return keys


def _suffix(i: int) -> str:
    return chr(ord("a") + i) if i < 26 else _suffix(i // 26 - 1) + chr(ord("a") + i % 26)


def _bibtex_name(name: str) -> str:
    text = _bibtex_text(name)
    return "{" + text + "}" if re.search(r"\band\b", name, re.IGNORECASE) else text


def bibtex(paper: Paper, key: str | None = None) -> str | None:
    """An arXiv-style @misc entry, when the paper has a year or an arXiv id."""
    if not citable(paper):
        return None
    fields = [("title", "{" + _bibtex_title(paper.title) + "}")]
    if paper.authors:
        fields.append(("author", " and ".join([*map(_bibtex_name, paper.authors),
                                               *(["others"] if paper.et_al else [])])))
    year = citation_year(paper)
    if year:
        fields.append(("year", year))
    if paper.arxiv:
        fields += [("eprint", paper.arxiv), ("archivePrefix", "arXiv")]
    url = paper.link("paper")
    if url:
        fields.append(("url", _bibtex_text(url)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{key or _base_key(paper)},\n{body}\n}}"


def bib_file(papers: Iterable[Paper], title: str, entry: Callable[[Paper], str | None]) -> str:
    """One .bib file: a comment naming what it holds, then the entries of the citable papers.

    `entry` gives a paper's entry, or None when it cannot be cited (a site makes each entry
    once, and cites it in several files).
    """
    papers = list(papers)
    entries = [e for e in map(entry, papers) if e is not None]
    title = title.replace("@", " at ")  # an @ outside an entry would start one
    head = f"% {title}: {len(entries)} of {len(papers)} papers have enough metadata to cite.\n"
    return head + "".join(f"\n{e}\n" for e in entries)
