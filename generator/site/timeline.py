"""Papers per quarter, by topic: an inline SVG chart drawn at build time, with its table.

One row of bars per topic over the same quarters (small multiples: each row has its own scale,
written beside it, so that a small topic's months read as clearly as a large one's), then the
same counts as a table folded below it: the chart needs no script and no request, and the table
is its text alternative. A paper dated by its year only has no quarter; the chart says how many
such papers, and how many undated ones, it leaves out. Over more than MAX_QUARTERS quarters the
periods are years.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..corpus.model import Paper
from .markup import md_text as escape

MAX_QUARTERS = 40
# Each row's name and largest count are on a line above its bars, not beside them: the bars take
# the whole width, and on a phone (the chart drawn at 0.6 of its size) survey.css can set the
# text larger, up to 22 units (13 px), without it running into the bars or off the chart.
WIDTH, LABEL_H, GAP, AXIS_H = 600, 30, 10, 30


@dataclass(frozen=True)
class Timeline:
    periods: list[str]  # "2025 Q1", or "2025" when the periods are years
    rows: list[tuple[str, list[int]]]  # (series name, count per period)
    undated: int  # papers with no date, or dated by their year only when the periods are quarters
    earlier: int  # papers dated before the first period (the sparse start, see `timeline`)


# The chart starts where the dated papers do, leaving out the first EARLY share of them when
# they are years older than the rest (one 2019 paper in a corpus of 2025 ones drew six empty years).
EARLY = 0.01


NO_DATE = "no date"  # the year filter's value of a paper with no date (templates/theme/main.html)


def by_year(papers: list[Paper]) -> list[tuple[str, int]]:
    """How many papers of each year, newest first, then how many have no date (if any)."""
    counts: dict[str, int] = {}
    for paper in papers:
        year = paper.date[:4] if paper.date else NO_DATE
        counts[year] = counts.get(year, 0) + 1
    undated = counts.pop(NO_DATE, 0)
    return sorted(counts.items(), reverse=True) + ([(NO_DATE, undated)] if undated else [])


def _quarter(date: str) -> tuple[int, int]:
    return int(date[:4]), (int(date[5:7]) - 1) // 3 + 1


def timeline(series: list[tuple[str, list[Paper]]]) -> Timeline | None:
    """Counts per quarter (or year) of each series' papers; None when no paper has a month."""
    papers = {p.slug: p for _, group in series for p in group}
    months = sorted(p.date for p in papers.values() if p.date and len(p.date) >= 7)
    if not months:
        return None
    first, last = _quarter(months[int(len(months) * EARLY)]), _quarter(months[-1])
    span = (last[0] - first[0]) * 4 + last[1] - first[1] + 1
    if span > MAX_QUARTERS:  # years, from the first dated paper's (years are few)
        years = [int(p.date[:4]) for p in papers.values() if p.date]
        periods = [str(y) for y in range(min(years), max(years) + 1)]
        at: dict[object, int] = {p: i for i, p in enumerate(periods)}

        def key(date: str) -> object:
            return date[:4]
    else:
        keys = [(first[0] + (first[1] - 1 + i) // 4, (first[1] - 1 + i) % 4 + 1) for i in range(span)]
        periods = [f"{y} Q{q}" for y, q in keys]
        at = {k: i for i, k in enumerate(keys)}

        def key(date: str) -> object:
            return _quarter(date) if len(date) >= 7 else None
    rows, undated, earlier = [], set(), set()
    for name, group in series:
        counts = [0] * len(periods)
        for paper in group:
            slot = key(paper.date) if paper.date else None
            if slot is None:
                undated.add(paper.slug)
            elif slot not in at:
                earlier.add(paper.slug)
            else:
                counts[at[slot]] += 1
        rows.append((name, counts))
    return Timeline(periods, rows, len(undated), len(earlier))


def chart(data: Timeline, link: Callable[[str, str], str] | None = None) -> str:
    """The rows as one line of inline SVG (one line: a Markdown HTML block), then the table.
    `link(row name, year)`: where each year of a row leads (its papers of that year), as an
    attribute's text (escaped): the bars of the year, and its label under them, are a link there."""
    n = len(data.periods)
    title = "Papers per quarter" if " " in data.periods[0] else "Papers per year"
    bars_h = 44 if len(data.rows) == 1 else 30
    row_h = LABEL_H + bars_h + GAP
    height = row_h * len(data.rows) + AXIS_H
    step = WIDTH / n
    bar = max(1.0, step * 0.8)
    peak_at = max(range(n), key=lambda i: sum(c[i] for _, c in data.rows))
    summary = (f"{title}, {data.periods[0]} to {data.periods[-1]}; the most in {data.periods[peak_at]} "
               f"({sum(c[peak_at] for _, c in data.rows)})")
    out = [f'<svg class="survey-chart survey-timeline" role="img" aria-label="{escape(summary)}" '
           f'viewBox="0 0 {WIDTH} {height}" width="100%" xmlns="http://www.w3.org/2000/svg">'
           f"<title>{escape(summary)}</title>"]
    for r, (name, counts) in enumerate(data.rows):
        top, peak = r * row_h, max(counts) or 1
        base = top + LABEL_H + bars_h
        out.append(f'<text x="0" y="{top + 22}" fill="currentColor" font-size="13">{escape(name)}</text>'
                   f'<text x="{WIDTH}" y="{top + 22}" text-anchor="end" fill="currentColor" '
                   f'font-size="13">max {max(counts)}</text>'
                   f'<line x1="0" x2="{WIDTH}" y1="{base}" y2="{base}" class="survey-axis"/>')
        for i, count in enumerate(counts):
            if count:
                h = (bars_h - 2) * count / peak
                out.append(f'<rect x="{i * step:.1f}" y="{base - h:.1f}" width="{bar:.1f}" '
                           f'height="{h:.1f}" class="survey-bar"/>')
        if link is not None:
            # A year's whole height, over its bars: a bar on a phone is a few pixels wide.
            for year, first, span in _years(data.periods):
                if sum(counts[first:first + span]):
                    out.append(f'<a xlink:href="{link(name, year)}"><title>{escape(name)}, {year}</title>'
                               f'<rect x="{first * step:.1f}" y="{top + LABEL_H}" width="{span * step:.1f}" '
                               f'height="{bars_h}" class="survey-chart__year"/></a>')
    axis_y = len(data.rows) * row_h + 18
    # Under the bars: the first period ("2024 Q4"), then each year where its first quarter is
    # (every year when the periods are years), any label that would touch the one before (at
    # the phone's text size) or run off the chart's end left out.
    last_x = float("-inf")
    # A single row's years that have papers: the labels that link (an empty year leads nowhere).
    linked = {year for year, first, span in _years(data.periods) if sum(data.rows[0][1][first:first + span])}
    for i, period in enumerate(data.periods):
        year, _, quarter = period.partition(" ")
        label = period if i == 0 else year if quarter in ("", "Q1") else ""
        x = i * step
        wide = 13 * len(label)
        if label and x - last_x >= wide + 12 and x + wide <= WIDTH:
            text = (f'<text x="{x:.1f}" y="{axis_y}" fill="currentColor" font-size="13">'
                    f"{escape(label)}</text>")
            if link is not None and len(data.rows) == 1 and year in linked:
                text = f'<a xlink:href="{link(data.rows[0][0], year)}">{text}</a>'
            out.append(text)
            last_x = x
    out.append("</svg>")
    return "".join(out) + "\n\n" + _table(data, title)


def _years(periods: list[str]) -> list[tuple[str, int, int]]:
    """Each year of the periods: (year, index of its first period, how many periods it has)."""
    out: list[tuple[str, int, int]] = []
    for i, period in enumerate(periods):
        year = period[:4]
        if out and out[-1][0] == year:
            out[-1] = (year, out[-1][1], out[-1][2] + 1)
        else:
            out.append((year, i, 1))
    return out


def _table(data: Timeline, title: str) -> str:
    """The chart's numbers, folded: one row per period, one column per series."""
    head = "".join(f"<th>{escape(name)}</th>" for name, _ in data.rows)
    body = "".join(
        f"<tr><td>{escape(period)}</td>" + "".join(f"<td>{counts[i]}</td>" for _, counts in data.rows)
        + "</tr>" for i, period in enumerate(data.periods))
    notes = []
    if data.undated:
        kind = "no date, or only a year," if " " in data.periods[0] else "no date"
        notes.append(f"{data.undated} {'paper has' if data.undated == 1 else 'papers have'} {kind} "
                     f"and {'is' if data.undated == 1 else 'are'} not counted.")
    if data.earlier:
        notes.append(f"{data.earlier} {'paper is' if data.earlier == 1 else 'papers are'} dated before "
                     f"{data.periods[0]} and not counted.")
    note = f"<p>{escape(' '.join(notes))}</p>" if notes else ""
    return (f'<details class="survey-timeline-table"><summary>{escape(title)}: the numbers</summary>'
            f"{note}<table><thead><tr><th>Period</th>{head}</tr></thead><tbody>{body}</tbody></table></details>")
