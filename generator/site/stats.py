"""Statistics of the corpus and their charts: inline SVG drawn at build time.

Every label is escaped for Markdown (`md_text`), like all corpus text.

The charts use `currentColor` and the theme's accent colour, so they read in light and dark
palettes and need no network or script to view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..corpus.model import Listing, Paper
from ..corpus.store import Corpus
from ..corpus.taxonomy import Tag, Topic
from .markup import md_text as escape
from .markup import trusted
from .timeline import chart, timeline


class Site(Protocol):
    """What the statistics read of a render.Site (a protocol, so that render may import this
    module and not the other way round)."""

    corpus: Corpus
    topics: list[Topic]
    papers: list[Paper]
    listings: list[Listing]
    by_topic: dict[str, list[Paper]]
    by_tag: dict[str, list[Paper]]

    def tags_by_count(self) -> list[Tag]: ...

    def topic_name(self, topic_id: str) -> str: ...


@dataclass(frozen=True)
class Bar:
    label: str
    value: int


def topic_overlaps(papers: list[Paper], topic_ids: list[str]) -> list[list[int]]:
    """Square matrix: papers holding both topics (the diagonal: papers holding the topic)."""
    index = {t: i for i, t in enumerate(topic_ids)}
    matrix = [[0] * len(topic_ids) for _ in topic_ids]
    for paper in papers:
        ids = [index[t] for t in paper.topics if t in index]
        for a in ids:
            for b in ids:
                matrix[a][b] += 1
    return matrix


def listing_sizes(listings: list[Listing]) -> list[Bar]:
    return [Bar(li.name, len(li.entries)) for li in listings]


def bar_chart(bars: list[Bar], *, title: str, width: int = 640) -> str:
    """A horizontal bar chart as one line of inline SVG (one line: a Markdown HTML block)."""
    row, label_w, pad = 26, 250, 8
    height = row * len(bars) + pad * 2
    top = max((b.value for b in bars), default=0) or 1
    scale = (width - label_w - 60) / top
    parts = [
        f'<svg class="survey-chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
        f'width="100%" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for i, bar in enumerate(bars):
        y = pad + i * row
        label = bar.label if len(bar.label) <= 38 else bar.label[:36] + "…"
        w = max(1.0, bar.value * scale)
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end" fill="currentColor" '
            f'font-size="13">{escape(label)}</text>'
            f'<rect x="{label_w}" y="{y + 4}" width="{w:.1f}" height="{row - 8}" rx="2" '
            f'class="survey-bar"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 17}" fill="currentColor" font-size="13">'
            f"{bar.value}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def heatmap(labels: list[str], matrix: list[list[int]], *, title: str) -> str:
    cell, label_w, top_h = 92, 120, 30
    n = len(labels)
    width, height = label_w + cell * n + 4, top_h + cell * n + 4
    peak = max((v for r in matrix for v in r), default=0) or 1
    parts = [
        f'<svg class="survey-chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" style="max-width:100%" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for j, label in enumerate(labels):
        parts.append(f'<text x="{label_w + j * cell + cell / 2}" y="{top_h - 10}" text-anchor="middle" '
                     f'fill="currentColor" font-size="12">{escape(label)}</text>')
    for i, label in enumerate(labels):
        y = top_h + i * cell
        parts.append(f'<text x="{label_w - 8}" y="{y + cell / 2 + 4}" text-anchor="end" '
                     f'fill="currentColor" font-size="12">{escape(label)}</text>')
        for j in range(n):
            value = matrix[i][j]
            opacity = 0.12 + 0.88 * value / peak
            parts.append(
                f'<rect x="{label_w + j * cell}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                f'class="survey-bar" fill-opacity="{opacity:.2f}"/>'
                f'<text x="{label_w + j * cell + cell / 2 - 1}" y="{y + cell / 2 + 4}" '
                f'text-anchor="middle" font-size="13" class="survey-cell">{value}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def statistics(site: Site) -> dict[str, Any]:
    """What the statistics page shows: counts and their charts."""
    topic_ids = [t.id for t in site.corpus.taxonomy.topics]
    per_topic = [Bar(t.name, len(site.by_topic[t.id])) for t in site.topics]
    tags = [Bar(t.name, len(site.by_tag[t.id])) for t in site.tags_by_count() if site.by_tag[t.id]]
    overlaps = topic_overlaps(site.papers, topic_ids)
    names = [site.topic_name(t) for t in topic_ids]
    over_time = timeline([(t.name, site.by_topic[t.id]) for t in site.topics])
    return {
        "rejected": len(site.corpus.rejected),  # counted; no page shows what they are
        "per_topic": per_topic,
        "per_listing": listing_sizes(site.listings),
        "tags": tags,
        "overlap_names": names,
        "overlaps": overlaps,
        "charts": {
            "timeline": trusted(chart(over_time)) if over_time else None,
            "topics": trusted(bar_chart(per_topic, title="Papers per topic")),
            "listings": trusted(bar_chart(listing_sizes(site.listings), title="Entries per listing")),
            "tags": trusted(bar_chart(tags[:15], title="The 15 most used tags")),
            "overlaps": trusted(heatmap(names, overlaps, title="Papers sharing two topics")),
        },
    }
