"""A/B timings of the generator's remaining clever parts, each against its plain version, stage by
stage and alternating (A, B, A, B, ...), in this process. Each prints the medians, the spread and
the pairwise gain; the figures quoted at each mechanism's entry point come from here.

    python benchmarks/ab_stages.py related CORPUS [--pairs 7]   # scipy's private kernel vs a @ b
    python benchmarks/ab_stages.py freeze CORPUS [--pairs 7]    # serve: a full collection, frozen or not
    python benchmarks/ab_stages.py markdown CORPUS [--pairs 5]  # md_text vs every ASCII sign a reference
    python benchmarks/ab_stages.py prefilter CORPUS [--pairs 5] # classify: the rule prefilter or none

CORPUS is a corpus folder (a scratch copy with the real papers imported, or bench.py --keep's).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator.corpus.store import CorpusCache, load_corpus  # noqa: E402
from generator.site.render import Site  # noqa: E402
from generator.site.reuse import RenderCache  # noqa: E402


def alternate(pairs: int, a: Callable[[], float], b: Callable[[], float]) -> None:
    """Run a and b in turn (each returns the seconds it measured) and report."""
    runs: dict[str, list[float]] = {"A": [], "B": []}
    for _ in range(pairs):
        for name, fn in (("A", a), ("B", b)):
            gc.collect()
            runs[name].append(fn())
    for name, xs in runs.items():
        print(f"{name}: median {statistics.median(xs):.3f} s, {min(xs):.3f} to {max(xs):.3f}: "
              + " ".join(f"{x:.3f}" for x in xs))
    gains = [b - a for a, b in zip(runs["A"], runs["B"], strict=True)]
    gain = statistics.median(gains)
    print(f"pairwise gain B - A: median {gain:.3f} s ({min(gains):.3f} to {max(gains):.3f}), "
          f"{100 * gain / statistics.median(runs['B']):.1f}% of B")


def cpu(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def related(corpus_dir: Path, pairs: int) -> None:
    """A: related papers with scipy's private csr_matmat; B: with the public `a @ b`."""
    from generator.site import related as module

    papers = load_corpus(corpus_dir).sorted_papers()
    kernel = module._matmat

    def run(k: object) -> float:
        module._matmat = k
        return cpu(lambda: module.related_papers(papers))

    alternate(pairs, lambda: run(kernel), lambda: run(None))
    module._matmat = kernel


def freeze(corpus_dir: Path, pairs: int) -> None:
    """A: a full collection with serve's caches of a built site frozen (collect_garbage); B: not."""
    cache = RenderCache()
    site = Site(load_corpus(corpus_dir, cache=CorpusCache()), ROOT / "templates", cache=cache)
    held = (site.pages(), site.files())

    def run(frozen: bool) -> float:
        gc.unfreeze()
        gc.collect()
        if frozen:
            gc.freeze()
        return cpu(gc.collect)

    alternate(pairs, lambda: run(True), lambda: run(False))
    gc.unfreeze()
    del held


def markdown(corpus_dir: Path, pairs: int) -> None:
    """Python-Markdown (the site's extensions) over every generated page, A: with md_text's
    escaping, B: with every ASCII sign a character reference (the escaping before issue 24).
    Checks first that both give the same HTML once compact_html has run."""
    import markdown as md_lib
    from mkdocs.utils import meta

    from generator.site import markup, stats

    corpus = load_corpus(corpus_dir)
    new = markup.md_text

    def pages(escape: Callable[[str], str]) -> dict[str, str]:
        markup.md_text = stats.escape = escape
        try:
            rendered = Site(corpus, ROOT / "templates").pages()
        finally:
            markup.md_text = stats.escape = new
        return {path: meta.get_data(text)[0] for path, text in rendered.items()}

    a, b = pages(new), pages(lambda text: text.translate(markup._TABLE))
    md = md_lib.Markdown(extensions=["toc", "tables", "attr_list", "sane_lists"],
                         extension_configs={"toc": {"permalink": True}})

    def convert(source: dict[str, str]) -> dict[str, str]:
        out = {}
        for path, text in source.items():
            md.reset()
            out[path] = markup.compact_html(md.convert(text))
        return out

    html_a, html_b = convert(a), convert(b)
    differ = [path for path, html in html_a.items() if html != html_b[path]]
    print(f"{len(a)} pages; HTML differs on {len(differ)} {differ[:3]}; Markdown "
          f"{sum(map(len, a.values())):,} against {sum(map(len, b.values())):,} characters")
    alternate(pairs, lambda: cpu(lambda: convert(a)), lambda: cpu(lambda: convert(b)))


def prefilter(corpus_dir: Path, pairs: int, papers: int = 1000) -> None:
    """`suggest` on the first 1,000 papers, A: with the rule prefilter, B: every rule scanned."""
    from generator.classify import rules, suggest

    corpus = load_corpus(corpus_dir)
    texts = [(p.title, p.abstract) for p in corpus.sorted_papers()[:papers]]
    groups = rules.required_groups

    def run(prefiltered: bool) -> float:
        rules.required_groups = groups if prefiltered else (lambda pattern: ())
        return cpu(lambda: [suggest.suggest(corpus.taxonomy, t, a) for t, a in texts])

    alternate(pairs, lambda: run(True), lambda: run(False))
    rules.required_groups = groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["related", "freeze", "markdown", "prefilter"])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--pairs", type=int, default=7)
    args = parser.parse_args()
    run = {"related": related, "freeze": freeze, "markdown": markdown, "prefilter": prefilter}
    run[args.what](args.corpus, args.pairs)


if __name__ == "__main__":
    main()
