"""Draw the sample of real papers that tests/data/topic_labels.yaml labels.

Reproducible: `python tests/data/topic_sample.py ../shared/real/hf-daily-papers-*.json.gz OUT.jsonl [MODEL]`
(the last part only with `model` and in a checkout of commit 97ab715, see below).
Two parts, both ordered by a hash of the arXiv id so the draw is random but fixed:
- `random`: the first 420 papers by hash, whatever they are about (most fit no topic);
- `enriched`: the next 300 papers by hash among those whose title or abstract has a broad
  systems word (GPU, parallel, distributed, quantiz-, inference, serving, kernel, ...), so each
  topic has enough positive examples. The word list is deliberately wider than any topic rule
  and was fixed before any paper was read.
- `targeted`: for each topic in turn, the next 90 papers by hash whose *title* has a word of
  that topic (TOPIC_WORDS), so that every topic has enough on-topic papers to learn from and to
  measure with. Drawn after the first two parts were labelled, when they proved to hold only
  3 quantization and 7 kernels papers.
- `abstract`: then, for each topic in turn, the next 75 papers by hash whose *abstract* has a
  stricter word of that topic (ABSTRACT_WORDS), drawn when the first three parts still held
  few kernels and parallelism papers.
- `more-TOPIC` (issue 23, relabelling under the version-2 boundaries): the next papers by hash
  whose title or abstract has a word of MORE_WORDS, up to MORE_N, for the topics still short of
  80 positive examples (the quantization and kernels pools ran dry at 29 and 18);
- `more-broad`: then the next 200 by hash with a broad hardware or efficiency word (BROAD_WORDS);
- `seed`: every paper of corpus/papers/, keyed by slug (texts from the corpus);
- `more-model`: then every remaining real paper to which the topic model trained on the tune split
  of the parts above gives a topic a confidence of 0.1 or more: the papers near the model's
  boundaries, where it learns most. That model is the code, corpus/taxonomy.yaml and
  corpus/topic_model.yaml of commit 97ab715: run the script in a checkout of that commit with a
  third argument, `model`, to draw this part.
Real papers that are also in the seed listings are left out of the real parts.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
from pathlib import Path

import yaml

RANDOM_N = 420
ENRICHED_N = 300
SYSTEMS_WORDS = re.compile(
    r"\b(?:GPUs?|TPUs?|CUDA|Triton|kernels?|parallel\w*|distributed|cluster|quanti[sz]\w*|"
    r"low-bit|\d-bit|FP8|INT[48]|inference|serving|latency|throughput|KV[- ]cache|"
    r"speculative|accelerat\w+|hardware|memory|FLOPs|efficien\w+|compression|sparsity|"
    r"pruning|on-device|edge devices?)\b",
    re.IGNORECASE,
)


TARGETED_N = 90
TOPIC_WORDS = {
    "parallelism": r"parallel\w*|distributed|multi-GPU|multi-node|cluster|sharded|sharding|"
                   r"communication|pipeline|decentrali[sz]ed|federated|scal\w+ (?:training|to \d)",
    "quantization": r"quanti[sz]\w*|low-bit|\d-bit|\d\.\d+-bit|FP[48]|INT[248]|binar\w+|ternary|"
                    r"precision|bit-?width",
    "serving": r"serving|inference|KV[- ]?cache|speculative|decoding|latency|throughput|on-device|"
               r"edge|accelerat\w+|efficient (?:LLM|generation)",
    "kernels": r"kernels?|CUDA|Triton|GPUs?|GEMM|FlashAttention|hardware|accelerators?|compiler|"
               r"TPU|FPGA|tensor cores?|sparse attention",
}

ABSTRACT_N = 75
ABSTRACT_WORDS = {
    "parallelism": r"data parallel\w*|tensor parallel\w*|pipeline parallel\w*|expert parallel\w*|"
                   r"multi-GPU|multi-node|all-reduce|distributed training|GPU clusters?|sharding",
    "quantization": r"quanti[sz]\w+|low-bit|[248]-bit|FP8|FP4|INT4|INT8|mixed[- ]precision",
    "serving": r"serving|throughput|KV[- ]?cache|speculative decoding|time-to-first-token|"
               r"inference (?:latency|cost|speed)",
    "kernels": r"CUDA|Triton|kernels?|GEMM|tensor cores?|FlashAttention|memory bandwidth|"
               r"hardware utili[sz]ation|FPGA|ASIC",
}


MORE_N = {"parallelism": 160, "quantization": 90, "kernels": 80}
MORE_WORDS = {
    "parallelism": r"data parallel\w*|tensor parallel\w*|pipeline parallel\w*|expert parallel\w*|"
                   r"sequence parallel\w*|context parallel\w*|model parallel\w*|multi-GPU|multi-node|"
                   r"all-reduce|all-to-all|collective communication|"
                   r"distributed (?:training|inference|system\w*)|"
                   r"GPU clusters?|sharding|sharded|Megatron|DeepSpeed|FSDP|ZeRO|stragglers?|"
                   r"thousands of GPUs|parallel (?:computing|algorithm\w*|programming|code)",
    "quantization": r"quanti[sz]\w+|low-bit|[1-8]-bit|\d\.\d+-bit|FP8|FP4|INT4|INT8|MXFP\w*|NVFP4|NF4|"
                    r"mixed[- ]precision|low[- ]precision|binari[sz]\w+|ternary|QLoRA",
    "kernels": r"kernels?|CUDA|Triton|GEMM|FlashAttention|tensor cores?|FPGA|ASIC|accelerator design|"
               r"hardware accelerat\w+|compiler\w*|TVM|MLIR|autotun\w+|processing-in-memory|"
               r"in-memory computing|roofline|microbenchmark\w*|systolic|NPUs?|TPUs?|CUTLASS|"
               r"memory bandwidth|hardware utili[sz]ation",
}
BROAD_N = 200
BROAD_WORDS = (r"GPUs?|hardware|chips?|accelerat\w+|silicon|memory[- ]efficient|efficient inference|"
               r"inference (?:speed|latency|efficiency)|bits?|precision|compress\w+|on-device|edge devices?|"
               r"FLOPs|throughput|speed-?ups?|latency")


def key(arxiv_id: str) -> str:
    return hashlib.sha256(("topic-sample:" + arxiv_id).encode()).hexdigest()


def seed_titles() -> set[str]:
    root = Path(__file__).resolve().parents[2] / "corpus" / "papers"
    return {norm(yaml.safe_load(path.read_text(encoding="utf-8"))["title"]) for path in root.glob("*.yaml")}


def norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def main(src: str, out: str, model: str | None = None) -> None:
    with gzip.open(src) as fh:
        items = json.load(fh)
    seeds = seed_titles()
    papers = []
    for item in items:
        p = item["paper"]
        title = " ".join(p["title"].split())
        if norm(title) in seeds:
            continue
        papers.append({"id": p["id"], "title": title, "abstract": " ".join(p["summary"].split())})
    papers.sort(key=lambda p: key(p["id"]))
    chosen = [dict(p, part="random") for p in papers[:RANDOM_N]]
    rest = [p for p in papers[RANDOM_N:] if SYSTEMS_WORDS.search(p["title"] + " " + p["abstract"])]
    chosen += [dict(p, part="enriched") for p in rest[:ENRICHED_N]]
    taken = {p["id"] for p in chosen}
    for part, field, table, n in (("targeted", "title", TOPIC_WORDS, TARGETED_N),
                                  ("abstract", "abstract", ABSTRACT_WORDS, ABSTRACT_N)):
        for topic, words in table.items():
            pattern = re.compile(r"\b(?:" + words + r")\b", re.IGNORECASE)
            pool = [p for p in papers if p["id"] not in taken and pattern.search(p[field])]
            for p in pool[:n]:
                chosen.append(dict(p, part=f"{part}-{topic}"))
                taken.add(p["id"])
    for part, table, counts in (("more", MORE_WORDS, MORE_N),
                                ("more", {"broad": BROAD_WORDS}, {"broad": BROAD_N})):
        for topic, words in table.items():
            pattern = re.compile(r"\b(?:" + words + r")\b", re.IGNORECASE)
            pool = [p for p in papers
                    if p["id"] not in taken and pattern.search(p["title"] + " " + p["abstract"])]
            for p in pool[:counts[topic]]:
                chosen.append(dict(p, part=f"{part}-{topic}"))
                taken.add(p["id"])
    root = Path(__file__).resolve().parents[2] / "corpus" / "papers"
    for path in sorted(root.glob("*.yaml")):
        seed = yaml.safe_load(path.read_text(encoding="utf-8"))
        chosen.append({"slug": seed["slug"], "title": " ".join(seed["title"].split()),
                       "abstract": " ".join(seed["abstract"].split()), "part": "seed"})
    if model:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
        from generator.classify.suggest import suggest
        from generator.corpus.taxonomy import Taxonomy

        taxonomy = Taxonomy.load(Path(__file__).resolve().parents[2] / "corpus" / "taxonomy.yaml", "taxonomy")
        for p in papers:
            verdicts = suggest(taxonomy, p["title"], p["abstract"]).topics if p["id"] not in taken else ()
            if any(v.confidence >= 0.1 for v in verdicts):
                chosen.append(dict(p, part="more-model"))
    with open(out, "w", encoding="utf-8") as fh:
        for p in chosen:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    print(f"{len(chosen)} papers -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
