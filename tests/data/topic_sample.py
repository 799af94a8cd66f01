"""Draw the sample of real papers that tests/data/topic_labels.yaml labels.

Reproducible: `python tests/data/topic_sample.py ../shared/real/hf-daily-papers-*.json.gz OUT.jsonl`.
Two parts, both ordered by a hash of the arXiv id so the draw is random but fixed:
- `random`: the first 420 papers by hash, whatever they are about (most fit no topic);
- `enriched`: the next 300 papers by hash among those whose title or abstract has a broad
  systems word (GPU, parallel, distributed, quantiz-, inference, serving, kernel, ...), so each
  topic has enough positive examples. The word list is deliberately wider than any topic rule
  and was fixed before any paper was read.
Papers that are also in the seed listings are left out: the seeds were tuned on.
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


def key(arxiv_id: str) -> str:
    return hashlib.sha256(("topic-sample:" + arxiv_id).encode()).hexdigest()


def seed_titles() -> set[str]:
    root = Path(__file__).resolve().parents[2] / "corpus" / "papers"
    return {norm(yaml.safe_load(path.read_text(encoding="utf-8"))["title"]) for path in root.glob("*.yaml")}


def norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def main(src: str, out: str) -> None:
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
    with open(out, "w", encoding="utf-8") as fh:
        for p in chosen:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    print(f"{len(chosen)} papers ({RANDOM_N} random, {ENRICHED_N} enriched) -> {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
