"""The table, the targets and their verdicts."""

from __future__ import annotations

from typing import Any

# Targets (docs/benchmark.md): checked when the sizes they name were measured.
TARGET_RATIO = 1.10          # full build / floor build, at 1k and at 10k papers
TARGET_SCALING = 11.0        # full build time at 10k / at 1k
TARGET_FLAT = 0.10           # site bytes per paper: max / min - 1 over the sizes measured
TARGET_KB_PER_PAPER = 30.0   # site KB per paper
TARGET_PEAK_MB = 500.0       # peak memory of the full build at 10k papers


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------

# The table: heading, key in a row of results, format. A column no row has is left out, so a
# measurement that runs only on request (a browser, a real corpus) adds its columns here.
COLUMNS = (
    ("papers", "size", "{:d}"),
    ("load s", "load_s", "{:.2f}"),
    ("check s", "check_s", "{:.2f}"),
    ("dedupe s", "dedupe_s", "{:.2f}"),
    ("classify s", "classify_s", "{:.2f}"),
    ("related s", "related_s", "{:.2f}"),
    ("render s", "render_s", "{:.2f}"),
    ("full s", "full_s", "{:.2f}"),
    ("floor s", "floor_s", "{:.2f}"),
    ("full/floor", "ratio", "{:.3f}"),
    ("full/floor CPU", "ratio_cpu", "{:.3f}"),
    ("peak MB full", "full_peak_mb", "{:.0f}"),
    ("peak MB floor", "floor_peak_mb", "{:.0f}"),
    ("KB/paper", "kb_per_paper", "{:.1f}"),
    ("search KB/paper", "search_kb_per_paper", "{:.2f}"),
)


def table(results: list[dict[str, Any]]) -> str:
    columns = [c for c in COLUMNS if any(c[1] in r for r in results)]
    head = [c[0] for c in columns]
    rows = [[fmt.format(r[key]) if key in r else "-" for _, key, fmt in columns] for r in results]
    lines = ["| " + " | ".join(head) + " |",
             "| " + " | ".join("---:" for _ in head) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def targets(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by = {r["size"]: r for r in results}
    out = []

    def add(name: str, value: str, holds: bool | None) -> None:
        out.append({"target": name, "measured": value,
                     "holds": holds, "verdict": {True: "holds", False: "FAILS", None: "not measured"}[holds]})

    for n in (1000, 10000):
        r = by.get(n)
        add(f"full build within {TARGET_RATIO:.2f}x of the floor at {n} papers",
            f"{r['ratio']:.3f} (CPU time: {r['ratio_cpu']:.3f})" if r else "-",
            r["ratio"] <= TARGET_RATIO if r else None)
    if 1000 in by and 10000 in by:
        scaling = by[10000]["full_s"] / by[1000]["full_s"]
        cpu = by[10000]["full_cpu_s"] / by[1000]["full_cpu_s"]
        add(f"full build time 10k / 1k at most {TARGET_SCALING:g}",
            f"{scaling:.2f} (CPU time: {cpu:.2f})", scaling <= TARGET_SCALING)
    else:
        add(f"full build time 10k / 1k at most {TARGET_SCALING:g}", "-", None)
    kbs = [r["kb_per_paper"] for r in results]
    if len(kbs) >= 2:
        spread = max(kbs) / min(kbs) - 1
        content = [r["kb_per_paper_without_assets"] for r in results]
        add(f"site bytes per paper flat within {TARGET_FLAT:.0%} over the sizes",
            f"{spread:.1%} ({min(kbs):.1f}-{max(kbs):.1f} KB; without the theme's fixed assets "
            f"{max(content) / min(content) - 1:.1%})", spread <= TARGET_FLAT)
    else:
        add(f"site bytes per paper flat within {TARGET_FLAT:.0%} over the sizes", "-", None)
    add(f"site bytes per paper at most {TARGET_KB_PER_PAPER:g} KB",
        f"max {max(kbs):.1f} KB", max(kbs) <= TARGET_KB_PER_PAPER)
    r = by.get(10000)
    add(f"peak memory of the full build under {TARGET_PEAK_MB:g} MB at 10k papers",
        f"{r['full_peak_mb']:.0f} MB" if r else "-", r["full_peak_mb"] < TARGET_PEAK_MB if r else None)
    return out
