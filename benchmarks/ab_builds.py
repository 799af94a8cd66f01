"""A/B site builds: source trees (generator/, templates/, docs/, mkdocs.yml) build corpora in
turn, one fresh `mkdocs build --strict` process each, alternating; reported per source tree and
corpus: the median CPU time of the build (its process and its children, Pagefind's included, by
os.wait4) and the bytes of a paper page (the mean of site/papers/*/index.html).

    python benchmarks/ab_builds.py --src /tmp/main-src --src . --corpus CORPUS --runs 3
    python benchmarks/ab_builds.py --src /tmp/main-src --src . --math 40 --runs 3

--corpus: a corpus folder, for each source tree to build (the real site: the repository's corpus
with ../shared/real's daily papers imported into it, as benchmarks/bench.py --real does).
--math N: the tests' small corpus (tests/conftest.py make_corpus "small") with N papers added
whose abstracts are 10,000 characters of math and whose titles are 150 formulas (audit T14's four
kinds, a paper in turn: `$a$` repeated, long sums, unmatched braces, matrices; and prose with a
formula every 70 characters; --kind KIND for one alone), and the same corpus with N papers of
plain text of the same lengths: the ratio of the two builds is what math costs.
A source tree is a checkout or an export (`git archive main generator templates docs mkdocs.yml |
tar -x -C /tmp/main-src`); it is copied when the run starts, so edits meanwhile do not count.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from survey_bench.launch import Measured  # noqa: E402

SOURCES = ("generator", "templates", "docs", "mkdocs.yml")
KINDS = ("repeated", "sum", "braces", "matrix", "prose")


def math_text(kind: str, n: int, length: int) -> str:
    """A text of `length` characters of one kind of math, its first words its own (no two papers
    are duplicates): audit T14's four, and prose with a formula every 70 characters."""
    head = f"Paper {n} of kind {kind}: "
    body = {"repeated": "$a$", "sum": "$" + "x^2+" * 60 + "x$", "braces": "$x^2" + "}" * 200 + "$",
            "matrix": r"$\begin{matrix}" + r"a & b \\ " * 20 + r"\end{matrix}$",
            "prose": r"the cost of a batch grows as $O(n^2)$ for $b_i$ items in total,"}[kind]
    while len(body) < length:
        body += " " + body
    return head + body[:length - len(head)].rstrip()


def plain_text(kind: str, n: int, length: int) -> str:
    head = f"Paper {n} of kind {kind}: "
    body = " ".join(f"word{i % 97}" for i in range(length))
    return head + body[:length - len(head)].rstrip()


def math_corpora(work: Path, papers: int, kind_of: str | None) -> dict[str, Path]:
    from conftest import make_corpus

    from generator.corpus.model import Paper
    from generator.corpus.store import paper_text

    made = {}
    for name, text in (("math", math_text), ("plain", plain_text)):
        corpus = make_corpus(work / f"corpus-{name}", "small")
        for n in range(papers):
            kind = KINDS[n % len(KINDS)] if kind_of is None else kind_of
            title = f"Paper {n}: " + " ".join(["$x^2$" if name == "math" else "word"] * 150)
            paper = Paper(slug=f"{name}-{n}", title=title, abstract=text(kind, n, 10_000), topics=["kernels"],
                          date="2025-01-02", added="2026-11-28")
            (corpus / "papers" / f"{name}-{n}.yaml").write_text(paper_text(paper), encoding="utf-8")
        made[name] = corpus
    return made


def copy(src: Path, dest: Path, names: tuple[str, ...]) -> Path:
    dest.mkdir(parents=True)
    for rel in names:
        if (src / rel).is_dir():
            shutil.copytree(src / rel, dest / rel, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src / rel, dest / rel)
    return dest


def project(work: Path, src: Path, corpus: Path, name: str) -> Path:
    folder = copy(src, work / name, SOURCES[1:])
    shutil.copytree(corpus, folder / "corpus")
    return folder


def build(src: Path, folder: Path) -> tuple[float, float, float]:
    """One build: its CPU seconds, its wall seconds and the mean bytes of its paper pages."""
    site = folder / "site"
    shutil.rmtree(site, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(src), "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    run = Measured([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir", str(site)],
                   cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    code, _, cpu = run.wait()
    wall = time.perf_counter() - start
    if code != 0:
        err = run.proc.stderr.read().decode()  # type: ignore[union-attr]
        raise SystemExit(f"ab_builds: the build in {folder} failed:\n{err[-3000:]}")
    pages = list((site / "papers").glob("*/index.html"))
    return cpu, wall, sum(p.stat().st_size for p in pages) / max(1, len(pages))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", action="append", required=True, type=Path,
                        help="a source tree (one or more)")
    parser.add_argument("--corpus", type=Path, help="the corpus each source tree builds")
    parser.add_argument("--math", type=int, metavar="N", help="N math papers against N plain ones")
    parser.add_argument("--kind", choices=KINDS, help="with --math: every paper of this kind")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    if (args.corpus is None) == (args.math is None):
        parser.error("give --corpus or --math")
    work = Path(tempfile.mkdtemp(prefix="survey-ab-", dir=args.workdir))
    try:
        corpora = {"corpus": args.corpus} if args.corpus else math_corpora(work, args.math, args.kind)
        trees = [(str(src), copy(src, work / f"src-{i}", SOURCES)) for i, src in enumerate(args.src)]
        runs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        folders = {(s, c): project(work, tree, corpus, f"p-{i}-{c}")
                   for i, (s, tree) in enumerate(trees) for c, corpus in corpora.items()}
        for r in range(args.runs):
            for (s, tree) in trees:
                for c in corpora:
                    runs.setdefault((s, c), []).append(build(tree, folders[s, c]))
                    cpu, wall, size = runs[s, c][-1]
                    print(f"run {r + 1}: {s} {c}: {cpu:.1f} s CPU, {wall:.1f} s, {size:,.0f} bytes a "
                          "paper page", flush=True)
        print()
        for (s, c), xs in runs.items():
            cpus = [x[0] for x in xs]
            print(f"{s} {c}: median {statistics.median(cpus):.2f} s CPU ({min(cpus):.2f} to "
                  f"{max(cpus):.2f}), {statistics.median(x[1] for x in xs):.2f} s, "
                  f"{xs[-1][2]:,.0f} bytes a paper page")
        if args.math:
            for s, _ in trees:
                cpu, wall = ([statistics.median(x[i] for x in runs[s, c]) for c in ("math", "plain")]
                             for i in (0, 1))
                print(f"{s}: math / plain: CPU {cpu[0] / cpu[1]:.2f}, wall {wall[0] / wall[1]:.2f}")
        else:
            base = statistics.median(x[0] for x in runs[trees[0][0], "corpus"])
            for s, _ in trees[1:]:
                other = statistics.median(x[0] for x in runs[s, "corpus"])
                size0, size1 = runs[trees[0][0], "corpus"][-1][2], runs[s, "corpus"][-1][2]
                print(f"{s} / {trees[0][0]}: CPU {other / base:.3f}, page bytes {size1 / size0:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
