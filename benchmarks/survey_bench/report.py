"""The table, the targets and their verdicts."""

from __future__ import annotations

from typing import Any

from .review import review_targets

# Targets (docs/benchmark.md): checked when the sizes they name were measured.
TARGET_RATIO = 1.10          # full build / floor build, at 1k and at 10k papers
TARGET_SCALING = 11.0        # full build time at 10k / at 1k
TARGET_FLAT = 0.10           # site bytes per paper: max / min - 1 over the sizes measured
TARGET_KB_PER_PAPER = 30.0   # site KB per paper
TARGET_PEAK_MB = 500.0       # peak memory of the full build at 10k papers
# Issue 11, at 10k papers (synthetic) and on the real corpus:
TARGET_RATIO_10K = 1.05      # full build / floor build
TARGET_PEAK_OVER_FLOOR = 50.0  # MB of peak memory over the floor build's
TARGET_IMPORT_S = 60.0       # `survey import` of the real file
TARGET_IMPORT_MB = 300.0
TARGET_SERVE_S = 5.0         # one paper edited under `mkdocs serve --dirty`
TARGET_SERVE_SEED_S = 1.0    # the same at the seed corpus's size (313 papers)
SEED_SIZE = 313
TARGET_PAGE_KB = 300         # the largest HTML page at 10k papers
TARGET_FIRST_S = 1.0         # home page opened -> first search result, Chromium on loopback, 10k
TARGET_FETCHED_KB = 1024     # bytes fetched for that first result, 10k


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------

# The table: heading, key in a row of results, format. A column no row has is left out, so a
# measurement that runs only on request (a browser, a real corpus) adds its columns here.
COLUMNS = (
    ("corpus", "kind", "{}"),
    ("papers", "size", "{:d}"),
    ("import s", "import_s", "{:.1f}"),
    ("import MB", "import_peak_mb", "{:.0f}"),
    ("import again s", "reimport_s", "{:.1f}"),
    ("survey check s", "check_cmd_s", "{:.1f}"),
    ("load s", "load_s", "{:.2f}"),
    ("review waiting", "review_waiting", "{:,}"),
    ("review first s", "review_first_s", "{:.2f}"),
    ("review list s", "review_list_s", "{:.2f}"),
    ("review cold s", "review_cold_s", "{:.2f}"),
    ("check s", "check_s", "{:.2f}"),
    ("dedupe s", "dedupe_s", "{:.2f}"),
    ("classify s", "classify_s", "{:.2f}"),
    ("related s", "related_s", "{:.2f}"),
    ("render s", "render_s", "{:.2f}"),
    ("full s", "full_s", "{:.2f}"),
    ("floor s", "floor_s", "{:.2f}"),
    ("full/floor", "ratio", "{:.3f}"),
    ("full/floor CPU", "ratio_cpu", "{:.3f}"),
    ("full/floor without index", "ratio_without_index", "{:.3f}"),
    ("peak MB full", "full_peak_mb", "{:.0f}"),
    ("peak MB floor", "floor_peak_mb", "{:.0f}"),
    ("peak MB floor Pagefind", "floor_index_peak_mb", "{:.0f}"),
    ("serve edit s", "serve_rebuild_s", "{:.2f}"),
    ("serve index s", "serve_index_s", "{:.1f}"),
    ("KB/paper", "kb_per_paper", "{:.1f}"),
    ("search KB/paper", "search_kb_per_paper", "{:.2f}"),
    ("index s", "search_index_s", "{:.1f}"),
    ("floor index s", "floor_search_index_s", "{:.1f}"),
    ("largest page KB", "largest_page_kb", "{:.0f}"),
    ("first result s", "first_result_s", "{:.2f}"),
    ("fetched KB", "fetched_kb", "{:.0f}"),
)


def table(results: list[dict[str, Any]]) -> str:
    columns = [c for c in COLUMNS if any(r.get(c[1]) is not None for r in results)]
    head = [c[0] for c in columns]
    rows = [[fmt.format(r[key]) if r.get(key) is not None else "-" for _, key, fmt in columns]
            for r in results]
    lines = ["| " + " | ".join(head) + " |",
             "| " + " | ".join("---:" for _ in head) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def targets(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by = {r["size"]: r for r in results if r.get("kind", "synthetic") == "synthetic"}
    out = []

    def add(name: str, value: str, holds: bool | None) -> None:
        out.append({"target": name, "measured": value,
                     "holds": holds, "verdict": {True: "holds", False: "FAILS", None: "not measured"}[holds]})

    for n in (1000, 10000):
        r = by.get(n) if "ratio" in by.get(n, {}) else None  # no floor built: not measured
        add(f"full build within {TARGET_RATIO:.2f}x of the floor at {n} papers",
            f"{r['ratio']:.3f} (CPU time: {r['ratio_cpu']:.3f})" if r else "-",
            r["ratio"] <= TARGET_RATIO if r else None)
    if 1000 in by and 10000 in by and "full_cpu_s" in by[1000] and "full_cpu_s" in by[10000]:
        scaling = by[10000]["full_s"] / by[1000]["full_s"]
        cpu = by[10000]["full_cpu_s"] / by[1000]["full_cpu_s"]
        add(f"full build time 10k / 1k at most {TARGET_SCALING:g}",
            f"{scaling:.2f} (CPU time: {cpu:.2f})", scaling <= TARGET_SCALING)
    else:
        add(f"full build time 10k / 1k at most {TARGET_SCALING:g}", "-", None)
    synthetic = [r for r in by.values() if "kb_per_paper" in r]  # not with --only serve
    kbs = [r["kb_per_paper"] for r in synthetic]
    if len(kbs) >= 2:
        spread = max(kbs) / min(kbs) - 1
        content = [r["kb_per_paper_without_assets"] for r in synthetic]
        add(f"site bytes per paper flat within {TARGET_FLAT:.0%} over the sizes",
            f"{spread:.1%} ({min(kbs):.1f}-{max(kbs):.1f} KB; without the theme's fixed assets "
            f"{max(content) / min(content) - 1:.1%})", spread <= TARGET_FLAT)
    else:
        add(f"site bytes per paper flat within {TARGET_FLAT:.0%} over the sizes", "-", None)
    add(f"site bytes per paper at most {TARGET_KB_PER_PAPER:g} KB",
        f"max {max(kbs):.1f} KB" if kbs else "-", max(kbs) <= TARGET_KB_PER_PAPER if kbs else None)
    r = by.get(10000) if "full_peak_mb" in by.get(10000, {}) else None
    add(f"peak memory of the full build under {TARGET_PEAK_MB:g} MB at 10k papers",
        f"{r['full_peak_mb']:.0f} MB" if r else "-", r["full_peak_mb"] < TARGET_PEAK_MB if r else None)
    real = next((r for r in results if r.get("kind") == "real"), None)
    for name, measured in (("10k synthetic papers", by.get(10000)), ("the real corpus", real)):
        row = measured if measured and "ratio" in measured else None
        add(f"full build within {TARGET_RATIO_10K:.2f}x of the floor on {name}",
            f"{row['ratio']:.3f}" if row else "-", row["ratio"] <= TARGET_RATIO_10K if row else None)
        over = row["full_peak_mb"] - row["floor_peak_mb"] if row else 0.0
        add(f"peak memory of the full build within the floor + {TARGET_PEAK_OVER_FLOOR:g} MB on {name}",
            f"+{over:.0f} MB" if row else "-", over <= TARGET_PEAK_OVER_FLOOR if row else None)
        row = measured
        add(f"one paper edited under serve --dirty rebuilt within {TARGET_SERVE_S:g} s on {name}",
            f"{row['serve_rebuild_s']:.2f} s" if row and "serve_rebuild_s" in row else "-",
            row["serve_rebuild_s"] <= TARGET_SERVE_S if row and "serve_rebuild_s" in row else None)
    row = by.get(SEED_SIZE)
    add(f"one paper edited under serve --dirty rebuilt within {TARGET_SERVE_SEED_S:g} s at the seed "
        f"size ({SEED_SIZE} papers)",
        f"{row['serve_rebuild_s']:.2f} s" if row and "serve_rebuild_s" in row else "-",
        row["serve_rebuild_s"] <= TARGET_SERVE_SEED_S if row and "serve_rebuild_s" in row else None)
    real = real if real and "reimport_unchanged" in real else None
    add(f"import of the real file under {TARGET_IMPORT_S:g} s and {TARGET_IMPORT_MB:g} MB",
        f"{real['import_s']:.1f} s, {real['import_peak_mb']:.0f} MB" if real else "-",
        real["import_s"] < TARGET_IMPORT_S and real["import_peak_mb"] < TARGET_IMPORT_MB if real else None)
    add("a second import of the real file changes no byte",
        ("no byte changed" if real["reimport_unchanged"] else "files changed") if real else "-",
        bool(real["reimport_unchanged"]) if real else None)
    for target, value, verdict in review_targets(results):  # issue 35: the curator's queue
        add(target, value, verdict)
    # Issue 12: a reader's search and the largest page, at 10k and (synthetic) 100k papers.
    r, big = by.get(10000), by.get(100000)
    add(f"largest page under {TARGET_PAGE_KB:g} KB at 10k papers",
        f"{r['largest_page_kb']:.0f} KB" if r and "largest_page_kb" in r else "-",
        r["largest_page_kb"] < TARGET_PAGE_KB if r and "largest_page_kb" in r else None)
    timed = r is not None and "first_result_s" in r
    add(f"first result within {TARGET_FIRST_S:g} s of opening the home page at 10k papers",
        f"{r['first_result_s']:.2f} s" if timed else "-",
        r["first_result_s"] <= TARGET_FIRST_S if timed else None)
    add(f"under {TARGET_FETCHED_KB:g} KB fetched for that first result at 10k papers",
        f"{r['fetched_kb']:.0f} KB" if timed else "-", r["fetched_kb"] < TARGET_FETCHED_KB if timed else None)
    if timed and big is not None and "first_result_s" in big:
        for key, what in (("first_result_s", "first result time"), ("fetched_kb", "bytes fetched"),
                          ("largest_page_kb", "largest page")):
            add(f"{what} at 100k within twice the 10k figure",
                f"{big[key]:.2f} vs {r[key]:.2f}", big[key] <= 2 * r[key])
    else:
        add("search and pages at 100k within twice the 10k figures", "-", None)
    return out
