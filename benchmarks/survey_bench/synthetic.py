"""The synthetic corpus: seeded, valid, with the taxonomy's phrases so the rules fire."""

from __future__ import annotations

import hashlib
import random
import shutil
import statistics
from pathlib import Path
from typing import Any

from generator.core.text import match_key, slugify
from generator.corpus.model import Entry, Listing, Paper
from generator.corpus.store import listing_text, paper_text
from generator.corpus.taxonomy import Taxonomy

from .sizes import tree_bytes
from .snapshot import SRC

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
        # Five-digit arXiv numbers, distinct while there are enough of them (up to 89,999
        # papers: the same draws as always); beyond that drawn freely, and an id already
        # taken moves to the next free number.
        if self.n <= 99999 - 10000:
            arxiv_numbers = r.sample(range(10000, 99999), self.n)
        else:
            arxiv_numbers = [r.randrange(10000, 99999) for _ in range(self.n)]
        taken_arxiv: set[str] = set()
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
            abstract = self.abstract(phrases)
            arxiv = None
            if r.random() < 0.85:
                number = arxiv_numbers[i]
                arxiv = f"{year % 100:02d}{month:02d}.{number:05d}"
                while arxiv in taken_arxiv:
                    number = 10000 + (number - 10000 + 1) % 89999
                    arxiv = f"{year % 100:02d}{month:02d}.{number:05d}"
                taken_arxiv.add(arxiv)
            papers.append(Paper(
                slug=slug,
                title=title,
                abstract=abstract,
                topics=topics,
                tags=tags,
                arxiv=arxiv,
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
                    f"(HF Papers, {month} {i % 28 + 1}, 2025)")
            out.append(Listing(
                slug=slugify(name), name=name, entries=entries, source="hf-text",
                origin=f"{i:03d}_synthetic.txt",
                sha256=hashlib.sha256(f"{self.n}:{i}".encode()).hexdigest(),
                date=f"2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}", imported="2026-11-22",
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
        "corpus_bytes": tree_bytes(corpus),
    }
