#!/usr/bin/env python3
"""Benchmark of the survey site generator on synthetic corpora of N papers.

For each size N it writes a valid synthetic corpus (seeded, so every run writes the same files)
into a temporary folder and measures:

- the generator alone, per stage, in this process: load (`load_corpus`), check (the problems
  `check_corpus` adds to a loaded corpus: vocabulary, duplicates, listings), dedupe (the import
  path's `dedupe.Index`: built over the corpus, then `match` and `possible` for every paper),
  classify (`classify.suggest` on every paper) and render (`Site(corpus, templates).pages()`);
- the full `mkdocs build` of the site (mkdocs.yml, docs/ and templates/ copied from the
  repository around the synthetic corpus), and the floor: a bare `mkdocs build` of the same
  generated Markdown (`survey build --out`) with the survey plugin removed from an otherwise
  identical mkdocs.yml, the generated navigation written out in `nav` and the paper and tag
  pages kept out of it with `not_in_nav`. Full and floor builds alternate, each in a fresh
  subprocess; the medians are reported, with each build's own peak resident memory (read with
  os.wait4 for that one child, so earlier builds do not leak into it);
- site bytes per paper (the whole site folder of the full build / N) and search-index bytes
  per paper (site/search/search_index.json / N).

    python benchmarks/bench.py --sizes 1000 3000 10000 --runs 3 --json out.json
    python benchmarks/bench.py --quick          # 1000 papers, one build of each: a smoke test

See docs/benchmark.md for the targets and the last measured table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import hashlib
import inspect
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# What a measurement depends on. It is copied once when the benchmark starts, and every stage and
# every build uses that copy (the builds through PYTHONPATH, which wins over the editable
# install), so edits to the working tree during a long run cannot mix two versions in one table.
SOURCES = ("generator", "templates", "docs", "mkdocs.yml", "corpus/taxonomy.yaml")


def snapshot_sources(dest: Path) -> Path:
    for rel in SOURCES:
        src, dst = ROOT / rel, dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dst)
    return dest


SRC = (snapshot_sources(Path(tempfile.mkdtemp(prefix="survey-bench-src-")))
       if __name__ == "__main__" else ROOT)
sys.path.insert(0, str(SRC))

import yaml  # noqa: E402

from generator.classify.suggest import suggest  # noqa: E402
from generator.core.text import match_key, slugify  # noqa: E402
from generator.corpus.check import (  # noqa: E402
    check_corpus,
    duplicate_problems,
    listing_problems,
    vocabulary_problems,
)
from generator.corpus.model import Entry, Listing, Paper  # noqa: E402
from generator.corpus.store import listing_text, load_corpus, paper_text  # noqa: E402
from generator.corpus.taxonomy import Taxonomy  # noqa: E402
from generator.site.render import NavItem, Site  # noqa: E402
from generator.sources.dedupe import Index  # noqa: E402

# Targets (docs/benchmark.md): checked when the sizes they name were measured.
TARGET_RATIO = 1.10          # full build / floor build, at 1k and at 10k papers
TARGET_SCALING = 11.0        # full build time at 10k / at 1k
TARGET_FLAT = 0.10           # site bytes per paper: max / min - 1 over the sizes measured
TARGET_KB_PER_PAPER = 30.0   # site KB per paper
TARGET_PEAK_MB = 500.0       # peak memory of the full build at 10k papers

# --------------------------------------------------------------------------------------------
# The synthetic corpus
# --------------------------------------------------------------------------------------------

def _words(text: str) -> list[str]:
    return text.split()


FILLER = _words("""
a an the of for and or in on to with by from via at as is are we our its into using this that
these which while both each all such than more most less fewer new novel existing prior recent
current standard typical state-of-the-art approach method methods technique techniques system
systems framework frameworks design designs algorithm algorithms analysis study results result
performance efficiency throughput latency memory compute computation communication bandwidth
hardware software accelerator accelerators device devices model models layer layers network
networks workload workloads task tasks data dataset datasets training inference evaluation
experiments experimental show shows demonstrate demonstrates achieve achieves achieving improve
improves improving reduce reduces reducing increase increases enable enables enabling propose
proposes present presents introduce introduces outperform outperforms compared baseline baselines
significant significantly substantial substantially consistent consistently practical scalable
efficient effective robust simple general flexible lightweight adaptive dynamic static automatic
optimal optimized optimization optimizations cost costs overhead overheads speedup speedups
accuracy quality scale scaling large small long short high low higher lower end-to-end real-world
production open-source benchmark benchmarks suite problem problems challenge challenges key idea
insight insights observation observations however moreover furthermore specifically finally
first second third then thus therefore because although despite under over across between
within without per up to parameters tokens sequence sequences batch batches size sizes step
steps stage stages phase phases runtime runtimes implementation implementations kernel operator
operators graph graphs tensor tensors matrix matrices vector vectors attention transformer
transformers language vision multimodal generative autoregressive decoder encoder weights
activations gradients optimizer states checkpoint cluster clusters node nodes GPU GPUs CPU CPUs
TPU memory-bound compute-bound utilization scheduling schedule allocation placement partition
partitioning strategy strategies search space cost model profiling trace traces analysis
""")

TITLE_WORDS = _words("""
Efficient Scalable Fast Practical Adaptive Dynamic Automatic Unified Flexible Lightweight
Towards Accelerating Rethinking Understanding Optimizing Scaling Training Serving Inference
Large Language Models Transformers Deep Learning Neural Networks Systems System Framework
Memory Communication Computation Hardware Accelerators GPUs Clusters Heterogeneous Distributed
Parallel Sparse Low-Precision High-Throughput Low-Latency Long-Context Multi-GPU Edge Mobile
for with via on in of and at Beyond Without Through Across Under Using Aware Guided Free Driven
""")

SYSTEM_SYLLABLES = _words("Flex Pipe Zero Mega Tera Hydra Orca Vortex Quant Spec Turbo Lumen Helix "
                    "Atlas Nova Swift Tile Fuse Shard Mesh Ring Star Deep Hyper Kilo Nimbus")

# Phrases that make the taxonomy's rules fire, per tag id and per topic id.
TAG_PHRASES: dict[str, tuple[str, ...]] = {
    "data-parallelism": ("data parallelism", "data-parallel training"),
    "tensor-parallelism": ("tensor parallelism", "intra-layer parallelism"),
    "pipeline-parallelism": ("pipeline parallelism", "pipeline bubbles"),
    "sequence-parallelism": ("sequence parallelism", "ring attention"),
    "zero-sharding": ("ZeRO", "fully sharded data parallel", "sharded optimizer states"),
    "mixture-of-experts": ("mixture-of-experts", "MoE layers"),
    "offloading": ("offloading", "CPU offloading of optimizer states"),
    "collective-communication": ("all-reduce", "NCCL", "all-to-all communication"),
    "mpi-openmp": ("MPI", "OpenMP"),
    "fp8": ("FP8", "FP8 training"),
    "low-bit": ("4-bit", "INT4 weights", "ternary weights"),
    "int8": ("INT8", "8-bit"),
    "mixed-precision": ("mixed precision", "BF16"),
    "lora": ("LoRA", "low-rank adaptation"),
    "kv-cache": ("KV cache", "KV-cache compression"),
    "speculative-decoding": ("speculative decoding", "a small draft model"),
    "flashattention": ("FlashAttention", "FlashAttention-2"),
    "cuda": ("CUDA", "CUDA graphs"),
    "triton": ("Triton", "Triton kernels"),
    "gemm": ("GEMM", "matrix multiplication"),
    "tensor-cores": ("tensor cores",),
    "gpu-microbenchmarking": ("microbenchmarks", "the microarchitecture"),
    "long-context": ("long context", "context window", "128K tokens"),
    "cpu-inference": ("CPU inference", "on CPUs"),
    "edge-inference": ("edge devices", "mobile phones", "on-device"),
    "fpga": ("FPGA", "FPGAs"),
    "compilers": ("compiler", "MLIR", "tensor programs"),
    "benchmarks": ("we introduce a new benchmark", "benchmark suite"),
    "surveys": ("this survey", "a comprehensive survey"),
    "llm-code-generation": ("code generation", "program synthesis"),
    "hpc": ("HPC", "supercomputers"),
    "heterogeneous-clusters": ("heterogeneous GPUs", "heterogeneous clusters"),
    "scheduling": ("request scheduling", "continuous batching"),
    "sparsity": ("sparsity", "pruning", "sparse attention"),
    "memory-efficiency": ("memory footprint", "activation checkpointing"),
    "fine-tuning": ("fine-tuning",),
    "training-efficiency": ("training efficiency", "training throughput"),
    "scaling-laws": ("scaling laws",),
    "neural-architecture-search": ("neural architecture search",),
    "neural-graphics": ("neural radiance fields", "Gaussian splatting"),
    "diffusion-models": ("diffusion models", "text-to-image"),
    "graph-neural-networks": ("graph neural networks", "GNNs"),
    "energy-efficiency": ("energy efficiency", "power consumption"),
}
TOPIC_PHRASES: dict[str, tuple[str, ...]] = {
    "parallelism": ("distributed training", "tensor parallelism", "all-reduce", "GPU clusters",
                    "parallel training", "pipeline parallelism"),
    "quantization": ("quantization", "post-training quantization", "low-bit", "mixed precision",
                     "quantized weights"),
    "serving": ("LLM serving", "inference latency", "KV cache", "requests", "serving throughput",
                "continuous batching"),
    "kernels": ("CUDA kernels", "GEMM", "tensor cores", "kernel fusion", "shared memory"),
}
FIRST_NAMES = _words("Wei Jing Alex Maria Ahmed Priya Lukas Sofia Kenji Chen Olga Ravi Sara Tom Yuki "
               "Ana Omar Lena Ivan Mei Jonas Fatima Diego Hana Noah Zara Leo Ines Arjun Nora")
LAST_NAMES = _words("Zhang Wang Li Smith Garcia Kumar Müller Rossi Tanaka Kim Novak Silva Cohen Ivanova "
              "Nguyen Patel Schmidt Lopez Chen Sato Brown Costa Dubois Yilmaz Haddad Berg")
MONTHS = _words("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec")


class Synth:
    def __init__(self, n: int, seed: int, taxonomy: Taxonomy) -> None:
        self.n = n
        self.rng = random.Random(f"{seed}:{n}")
        self.topic_ids = [t.id for t in taxonomy.topics]
        self.tag_ids = [t.id for t in taxonomy.tags]

    def number(self) -> str:
        r = self.rng
        return r.choice((
            f"{r.uniform(1.1, 9.9):.1f}x", f"{r.randint(5, 95)}%", f"{r.choice((8, 16, 64, 256, 1024))} GPUs",
            f"up to {r.choice((7, 13, 70, 175, 405))}B parameters", f"{r.randint(2, 40)} ms",
        ))

    def sentence(self, phrases: list[str]) -> str:
        r = self.rng
        words = [r.choice(FILLER) for _ in range(r.randint(10, 22))]
        for _ in range(r.choice((0, 1, 1, 2))):
            if phrases:
                words.insert(r.randrange(len(words) + 1), phrases.pop())
        if r.random() < 0.35:
            words.insert(r.randrange(len(words) + 1), self.number())
        if r.random() < 0.3:
            words.insert(r.randrange(1, len(words)), ",")
        if r.random() < 0.1:
            words.append(f"(e.g., {r.choice(FILLER)} and {r.choice(FILLER)})")
        text = " ".join(words).replace(" ,", ",")
        return text[0].upper() + text[1:] + "."

    def abstract(self, phrases: list[str]) -> str:
        r = self.rng
        target = r.randint(1300, 1700)
        pool = list(phrases)
        r.shuffle(pool)
        out: list[str] = []
        length = 0
        while length < target:
            s = self.sentence(pool)
            out.append(s)
            length += len(s) + 1
        return " ".join(out)

    def title(self, phrases: list[str]) -> str:
        r = self.rng
        words: list[str] = []
        if phrases and r.random() < 0.7:
            words += r.choice(phrases).split()
        want = r.randint(6, 15)
        system = r.random() < 0.45
        if system:
            want -= 1
        while len(words) < want:
            words.insert(r.randrange(len(words) + 1), r.choice(TITLE_WORDS))
        words = words[:want]
        text = " ".join(words)
        if system:
            name = "".join(r.sample(SYSTEM_SYLLABLES, 2))
            text = f"{name}: {text}"
        return text[0].upper() + text[1:]

    def papers(self) -> list[Paper]:
        r = self.rng
        papers: list[Paper] = []
        taken_slugs: set[str] = set()
        taken_titles: set[str] = set()
        arxiv_numbers = r.sample(range(10000, 99999), self.n)
        tag_weights = [1.0 / (1 + i % 12) for i in range(len(self.tag_ids))]  # some tags common
        for i in range(self.n):
            k = r.choices((0, 1, 2), weights=(10, 75, 15))[0]
            topics = sorted(r.sample(self.topic_ids, k), key=self.topic_ids.index)
            tags: list[str] = []
            while len(tags) < r.randint(2, 4):
                t = r.choices(self.tag_ids, weights=tag_weights)[0]
                if t not in tags:
                    tags.append(t)
            tags.sort(key=self.tag_ids.index)
            phrases = [p for t in topics for p in r.sample(TOPIC_PHRASES.get(t, ()),
                                                           min(3, len(TOPIC_PHRASES.get(t, ()))))]
            phrases += [r.choice(TAG_PHRASES[t]) for t in tags if t in TAG_PHRASES]
            title = self.title(phrases)
            while match_key(title) in taken_titles:
                title = f"{title} {r.choice(TITLE_WORDS)}"
            taken_titles.add(match_key(title))
            slug = slugify(title, taken_slugs)
            taken_slugs.add(slug)
            year, month = r.randint(2017, 2025), r.randint(1, 12)
            links: dict[str, str] = {}
            if r.random() < 0.3:
                links["code"] = f"https://github.com/{r.choice(LAST_NAMES).lower()}-lab/{slug[:30]}"
            if r.random() < 0.05:
                links["project"] = f"https://{slug[:20]}.github.io/"
            papers.append(Paper(
                slug=slug,
                title=title,
                abstract=self.abstract(phrases),
                topics=topics,
                tags=tags,
                arxiv=(f"{year % 100:02d}{month:02d}.{arxiv_numbers[i]:05d}"
                       if r.random() < 0.85 else None),
                authors=list(dict.fromkeys(f"{r.choice(FIRST_NAMES)} {r.choice(LAST_NAMES)}"
                                           for _ in range(r.randint(2, 8)))) if r.random() < 0.9 else [],
                date=f"{year}-{month:02d}" if r.random() < 0.9 else None,
                links=links,
                added=f"2025-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
                curated=["topics"] if r.random() < 0.3 else [],
            ))
        # A few near-duplicate abstracts: a revised abstract of another paper, ~8% of words changed.
        for _ in range(max(3, self.n // 200)):
            a, b = r.sample(range(self.n), 2)
            words = papers[a].abstract.split(" ")
            for j in r.sample(range(len(words)), len(words) // 12):
                words[j] = r.choice(FILLER)
            papers[b].abstract = " ".join(words)
        return papers

    def listings(self, papers: list[Paper], count: int) -> list[Listing]:
        r = self.rng
        members: list[list[str]] = [[] for _ in range(count)]
        for p in papers:
            if r.random() < 0.01:
                continue  # added directly, in no listing
            homes = [r.randrange(count)]
            if r.random() < 0.10:  # ~10% of papers in two or more listings
                others = [i for i in range(count) if i != homes[0]]
                homes += r.sample(others, min(count - 1, r.choice((1, 1, 2))))
            for h in homes:
                members[h].append(p.slug)
        by_slug = {p.slug: p for p in papers}
        out = []
        for i, slugs in enumerate(members):
            r.shuffle(slugs)
            entries = []
            for s in slugs:
                title = by_slug[s].title
                if r.random() < 0.02:
                    title = title.upper()  # the listing showed it in another form
                entries.append(Entry(paper=s, title=title))
            month = MONTHS[i % 12]
            name = (f"Synthetic listing {i + 1}: {r.choice(TITLE_WORDS)} {r.choice(TITLE_WORDS)} "
                    f"(HF Papers, {month} {i % 28 + 1})")
            out.append(Listing(
                slug=slugify(name), name=name, entries=entries, source="hf-text",
                origin=f"{i:03d}_synthetic.txt",
                sha256=hashlib.sha256(f"{self.n}:{i}".encode()).hexdigest(),
                date=f"{month} {i % 28 + 1}",
            ))
        return out


def synthesise(corpus: Path, n: int, seed: int, listings: int) -> dict[str, Any]:
    """Write a synthetic corpus of n papers; return a few facts about it."""
    (corpus / "papers").mkdir(parents=True)
    (corpus / "listings").mkdir()
    shutil.copy(SRC / "corpus" / "taxonomy.yaml", corpus / "taxonomy.yaml")
    taxonomy = Taxonomy.load(corpus / "taxonomy.yaml", "taxonomy.yaml")
    synth = Synth(n, seed, taxonomy)
    papers = synth.papers()
    lists = synth.listings(papers, listings)
    for p in papers:
        (corpus / p.file).write_text(paper_text(p), encoding="utf-8")
    for li in lists:
        (corpus / li.file).write_text(listing_text(li), encoding="utf-8")
    held: dict[str, int] = {}
    for li in lists:
        for e in li.entries:
            held[e.paper] = held.get(e.paper, 0) + 1
    return {
        "papers": n,
        "listings": len(lists),
        "papers_in_2plus_listings": sum(1 for v in held.values() if v >= 2),
        "mean_abstract_chars": round(statistics.mean(len(p.abstract) for p in papers)),
        "corpus_bytes": _tree_bytes(corpus),
    }


# --------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------

def _tree_bytes(folder: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            total += os.path.getsize(os.path.join(dirpath, name))
    return total


def _timed(fn: Callable[[], Any], runs: int) -> tuple[float, list[float], Any]:
    times = []
    value = None
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, value


def generator_stages(corpus_dir: Path, templates: Path, runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {}

    med, times, corpus = _timed(lambda: load_corpus(corpus_dir), runs)
    out["load_s"], out["load_runs"] = med, times

    _, problems = check_corpus(corpus_dir)
    if problems:
        shown = "\n".join(str(p) for p in problems[:10])
        raise SystemExit(f"bench: the synthetic corpus is not valid ({len(problems)} problems):\n{shown}")

    def check() -> int:
        return len(vocabulary_problems(corpus) + duplicate_problems(corpus) + listing_problems(corpus))

    out["check_s"], out["check_runs"], _ = _timed(check, runs)

    def dedupe() -> int:
        index = Index.of(corpus.papers, corpus.listings)
        found = 0
        for p in corpus.sorted_papers():
            index.match(p.title, p.abstract, p.arxiv)
            found += len(index.possible(p.title, p.abstract, exclude=p.slug))
        return found

    out["dedupe_s"], out["dedupe_runs"], out["possible_duplicates"] = _timed(dedupe, runs)

    def classify() -> int:
        return sum(len(suggest(corpus.taxonomy, p.title, p.abstract).tag_ids)
                   for p in corpus.sorted_papers())

    out["classify_s"], out["classify_runs"], _ = _timed(classify, runs)

    try:  # related papers (TF-IDF), computed when a Site is made; absent from older generators
        from generator.site import related
    except ImportError:
        out["related_s"], out["related_runs"] = 0.0, []
    else:
        out["related_s"], out["related_runs"], _ = _timed(
            lambda: related.related_papers(corpus.sorted_papers()), runs)

    # What the plugin's on_files does after check_corpus: make the Site, render every page,
    # make the other files (feeds, exports) where the generator has them.
    parts: dict[str, list[float]] = {"site_init": [], "pages": [], "files": []}

    def render() -> tuple[dict[str, str], dict[str, str]]:
        t0 = time.perf_counter()
        site = make_site(corpus, templates)
        t1 = time.perf_counter()
        pages = site.pages()
        t2 = time.perf_counter()
        others = site.files() if hasattr(site, "files") else {}
        t3 = time.perf_counter()
        parts["site_init"].append(t1 - t0)
        parts["pages"].append(t2 - t1)
        parts["files"].append(t3 - t2)
        return pages, others

    out["render_s"], out["render_runs"], (pages, others) = _timed(render, runs)
    for name, times in parts.items():
        out[f"render_{name}_s"] = statistics.median(times)
    out["pages"] = len(pages)
    out["markdown_bytes"] = sum(len(v.encode()) for v in pages.values())
    out["other_files"] = len(others)
    out["other_files_bytes"] = sum(len(v.encode()) for v in others.values())
    return out


SITE_URL = (yaml.safe_load((SRC / "mkdocs.yml").read_text(encoding="utf-8")) or {}).get("site_url") or ""


def make_site(corpus: Any, templates: Path) -> Site:
    """A Site as the plugin makes it (with the site URL where the generator takes one)."""
    if "site_url" in inspect.signature(Site).parameters:
        return Site(corpus, templates, site_url=SITE_URL)  # type: ignore[call-arg]
    return Site(corpus, templates)


def _nav_data(items: list[NavItem], configured: Any) -> list[Any]:
    """The nav the plugin gives MkDocs: the generated items, then mkdocs.yml's own `nav`."""
    def convert(item: NavItem) -> Any:
        if item.path is None:
            return {item.title: [convert(c) for c in item.children]}
        return {item.title: item.path}

    return [convert(i) for i in items if i.path is not None or i.children] + list(configured or [])


def _env() -> dict[str, str]:
    """The environment of every subprocess: the snapshot's generator first on the path."""
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "NO_MKDOCS_2_WARNING": "1"}


def make_projects(work: Path, corpus_dir: Path) -> tuple[Path, Path]:
    """The full project (the repository's site sources around the corpus) and the floor one."""
    full = work / "full"
    full.mkdir()
    shutil.copy(SRC / "mkdocs.yml", full / "mkdocs.yml")
    shutil.copytree(SRC / "docs", full / "docs")
    shutil.copytree(SRC / "templates", full / "templates")
    shutil.move(str(corpus_dir), full / "corpus")

    floor = work / "floor"
    floor.mkdir()
    shutil.copytree(SRC / "docs", floor / "docs")
    # templates/ too: the theme's custom_dir (templates/theme) must be the same in both builds.
    shutil.copytree(SRC / "templates", floor / "templates")
    config = yaml.safe_load((SRC / "mkdocs.yml").read_text(encoding="utf-8"))
    cmd = [sys.executable, "-m", "generator", "build", "--out", str(floor / "docs"),
           "--corpus", str(full / "corpus"), "--templates", str(full / "templates")]
    build_help = subprocess.run([sys.executable, "-m", "generator", "build", "--help"],
                                capture_output=True, text=True, cwd=SRC, env=_env()).stdout
    if "--site-url" in build_help and config.get("site_url"):
        cmd += ["--site-url", config["site_url"]]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=full, env=_env())
    if result.returncode != 0:
        raise SystemExit(f"bench: survey build failed:\n{result.stdout}{result.stderr}")
    config["plugins"] = [p for p in config["plugins"]
                         if not (p == "survey" or (isinstance(p, dict) and "survey" in p))]
    site = make_site(load_corpus(full / "corpus"), full / "templates")
    config["nav"] = _nav_data(site.nav(), config.get("nav"))
    # The plugin marks papers/* and tags/* (but not tags/index.md) as not in the nav.
    config["not_in_nav"] = "papers/\ntags/*.md\n!tags/index.md\n"
    (floor / "mkdocs.yml").write_text(
        yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=10**9), encoding="utf-8")
    return full, floor


def mkdocs_build(project: Path, site: Path, log: Path) -> dict[str, Any]:
    """One `mkdocs build` in a fresh subprocess: wall time, its own peak RSS, warnings."""
    if site.exists():
        shutil.rmtree(site)
    env = _env()
    cmd = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)]
    load_before = os.getloadavg()[0]  # other work on the machine shows here
    with open(log, "w", encoding="utf-8") as fh:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=project, stdout=fh, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(encoding="utf-8", errors="replace")
    if proc.returncode != 0:
        raise SystemExit(f"bench: mkdocs build failed in {project}:\n{text[-4000:]}")
    warnings = [line for line in text.splitlines() if line.startswith("WARNING")]
    return {"seconds": seconds, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024, "load_before": load_before, "warnings": warnings}


def measure_size(n: int, args: argparse.Namespace) -> dict[str, Any]:
    runs = args.runs
    work = Path(tempfile.mkdtemp(prefix=f"survey-bench-{n}-", dir=args.workdir))
    try:
        _say(f"[{n}] writing the synthetic corpus in {work}")
        t0 = time.perf_counter()
        facts = synthesise(work / "corpus", n, args.seed, args.listings)
        facts["synthesis_s"] = round(time.perf_counter() - t0, 2)
        _say(f"[{n}] {facts}")

        _say(f"[{n}] generator stages, {runs} run(s) each")
        stages = generator_stages(work / "corpus", SRC / "templates", runs)
        _say(f"[{n}] " + ", ".join(f"{k[:-2]} {stages[k]:.2f} s" for k in
                                  ("load_s", "check_s", "dedupe_s", "classify_s", "related_s",
                                   "render_s", "render_site_init_s", "render_pages_s",
                                   "render_files_s")))

        full, floor = make_projects(work, work / "corpus")
        builds: dict[str, list[dict[str, Any]]] = {"full": [], "floor": []}
        for i in range(runs):
            for kind, project in (("full", full), ("floor", floor)):
                b = mkdocs_build(project, work / f"site-{kind}", work / f"{kind}-{i}.log")
                builds[kind].append(b)
                _say(f"[{n}] {kind} build {i + 1}/{runs}: {b['seconds']:.2f} s "
                     f"({b['cpu_s']:.2f} s CPU), "
                     f"peak {b['peak_mb']:.0f} MB, {len(b['warnings'])} warning line(s)")
        for kind in builds:
            if builds[kind][-1]["warnings"]:
                _say(f"[{n}] {kind} build warnings: " + " | ".join(builds[kind][-1]["warnings"][:5]))

        site_full, site_floor = work / "site-full", work / "site-floor"
        site_bytes = _tree_bytes(site_full)
        theme_bytes = _tree_bytes(site_full / "assets")  # the theme's CSS, JS and fonts: fixed
        search_bytes = (site_full / "search" / "search_index.json").stat().st_size
        html_full = sum(1 for _ in site_full.rglob("*.html"))
        html_floor = sum(1 for _ in site_floor.rglob("*.html"))
        if html_full != html_floor:
            _say(f"[{n}] NOTE: the full site has {html_full} HTML pages, the floor {html_floor}")
        full_s = statistics.median(b["seconds"] for b in builds["full"])
        floor_s = statistics.median(b["seconds"] for b in builds["floor"])
        full_cpu = statistics.median(b["cpu_s"] for b in builds["full"])
        floor_cpu = statistics.median(b["cpu_s"] for b in builds["floor"])
        return {
            "size": n,
            "corpus": facts,
            **{k: v for k, v in stages.items()},
            "full_s": full_s,
            "floor_s": floor_s,
            "ratio": full_s / floor_s,
            "full_runs": [b["seconds"] for b in builds["full"]],
            "floor_runs": [b["seconds"] for b in builds["floor"]],
            "full_cpu_s": full_cpu,
            "floor_cpu_s": floor_cpu,
            "ratio_cpu": full_cpu / floor_cpu,
            "load_before_builds": [round(b["load_before"], 2) for k in builds for b in builds[k]],
            "full_cpu_runs": [b["cpu_s"] for b in builds["full"]],
            "floor_cpu_runs": [b["cpu_s"] for b in builds["floor"]],
            "full_peak_mb": max(b["peak_mb"] for b in builds["full"]),
            "floor_peak_mb": max(b["peak_mb"] for b in builds["floor"]),
            "site_bytes": site_bytes,
            "site_bytes_floor": _tree_bytes(site_floor),
            "html_pages": html_full,
            "kb_per_paper": site_bytes / n / 1024,
            "assets_bytes": theme_bytes,
            "site_breakdown": {e.name: (_tree_bytes(e) if e.is_dir() else e.stat().st_size)
                               for e in sorted(site_full.iterdir())},
            "kb_per_paper_without_assets": (site_bytes - theme_bytes) / n / 1024,
            "search_bytes": search_bytes,
            "search_kb_per_paper": search_bytes / n / 1024,
            "build_warnings": builds["full"][-1]["warnings"],
        }
    finally:
        if args.keep:
            _say(f"[{n}] kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------

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
    head = [c[0] for c in COLUMNS]
    rows = [[fmt.format(r[key]) for _, key, fmt in COLUMNS] for r in results]
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


def _git_state() -> dict[str, Any]:
    """The commit measured, and whether the measured sources differed from it."""
    def git(*cmd: str) -> str:
        done = subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    changed = git("status", "--porcelain", "--", *SOURCES)
    return {"commit": git("rev-parse", "HEAD") or "unknown", "dirty": bool(changed),
            "changed": changed.splitlines()}


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000], metavar="N",
                        help="corpus sizes in papers (default: 1000 3000 10000)")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of each generator stage and of each build (default: 3)")
    parser.add_argument("--quick", action="store_true",
                        help="1000 papers, one run of each: a smoke test for CI")
    parser.add_argument("--listings", type=int, default=8,
                        help="listings the papers are spread over (default: 8)")
    parser.add_argument("--seed", type=int, default=20251122, help="random seed (default: 20251122)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON here")
    parser.add_argument("--workdir", metavar="DIR", help="where the temporary folders go")
    parser.add_argument("--keep", action="store_true", help="keep each size's temporary folder")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.runs = [1000], 1
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.listings < 2:
        parser.error("--listings must be at least 2")

    command = "python benchmarks/bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    started = _dt.datetime.now(_dt.UTC)
    source = _git_state()
    _say(f"measuring {source['commit'][:12]}{' with uncommitted changes' if source['dirty'] else ''} "
         f"(sources copied to {SRC})")
    try:
        results = [measure_size(n, args) for n in args.sizes]
    finally:
        if SRC != ROOT and not args.keep:
            shutil.rmtree(SRC, ignore_errors=True)
    verdicts = targets(results)

    print(table(results))
    print()
    for v in verdicts:
        print(f"- {v['target']}: {v['measured']}: {v['verdict']}")

    if args.json:
        import material
        import mkdocs

        report = {
            "command": command,
            "started": started.isoformat(timespec="seconds"),
            "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "source": source,
            "machine": {"python": platform.python_version(), "platform": platform.platform(),
                        "cpus": os.cpu_count(), "mkdocs": mkdocs.__version__,
                        "material": getattr(material, "__version__", "?")},
            "settings": {"sizes": args.sizes, "runs": args.runs, "listings": args.listings,
                         "seed": args.seed},
            "results": results,
            "targets": verdicts,
            "table": table(results),
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
