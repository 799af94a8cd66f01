"""A rejected paper stays out (issue 37, measured): a feed imported, papers rejected through each
path a curator has (a key in `survey review`, `survey review SLUG`, a CSV and a YAML decisions
file), then the same feed imported again, as the same file and as another file holding the same
papers (matched by arXiv id, title or abstract), with and without --on-topic: they stay out and
nothing else changes. `survey add`, `--take` and `enrich` skip them or refuse them, and bring
one back only with --force.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import yaml
from conftest import ROOT, hf_feed, hf_item, make_corpus, paper_data, snapshot, survey
from test_review_screen import Keys

from generator.cli.review import Sitting

TOPICS = [  # on topic: no gate leaves them out, so only their rejection can
    ("Pipeline-Parallel Training of {name} across GPU Clusters",
     "We split the layers of {name}, a large language model, across {n} GPUs as pipeline stages and "
     "schedule micro-batches to shrink the pipeline bubble of distributed training. {extra}"),
    ("Continuous Batching with a Paged KV Cache for Serving {name}",
     "We present a serving system for {name}, a large language model, that batches inference requests "
     "continuously and pages the KV cache, raising throughput {n}x at the same latency. {extra}"),
]
NAMES = ["Falcon", "Heron", "Osprey", "Kestrel", "Plover", "Curlew", "Dunlin", "Avocet", "Godwit", "Merlin"]
EXTRA = ["Scheduling follows the arrival order of jobs in a shared cluster.",
         "Checkpoints are written asynchronously to remote object storage.",
         "Profiles from production traces guide every placement decision.",
         "An analytic cost model predicts memory use before launch.",
         "Mixed workloads of chat and code completion are studied.",
         "Gradients are compressed with error feedback between stages.",
         "Speculative decoding drafts tokens with a smaller companion model.",
         "Failures of single machines are tolerated by replaying micro-batches.",
         "The design adapts to heterogeneous accelerators of two vendors.",
         "Energy per token is measured with on-board power sensors."]


def item(i: int, arxiv: str | None = None, title: str | None = None) -> dict:  # type: ignore[type-arg]
    t, s = TOPICS[i % 2]
    return hf_item(arxiv or f"2604.{i:05d}", title or t.format(name=NAMES[i]),
                   s.format(name=NAMES[i], n=i + 2, extra=EXTRA[i]), [f"Author {i}"],
                   f"2026-04-{i + 1:02d}T00:00:00.000Z")


def papers(corpus: Path) -> set[str]:
    return {p.stem for p in (corpus / "papers").glob("*.yaml")}


def test_rejected_papers_stay_out_of_every_later_import(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    items = [item(i) for i in range(8)]
    first = hf_feed(tmp_path / "daily.json", *items)
    assert survey("import", first, "--corpus", str(corpus)).returncode == 0
    slugs = sorted(papers(corpus))
    assert len(slugs) == 8
    a, b, c, d = slugs[:4]
    # each path a curator rejects by
    (tmp_path / "d.csv").write_text(f"slug,topics,reason\n{a},reject,a duplicate study\n", encoding="utf-8")
    assert survey("review", "--apply", str(tmp_path / "d.csv"), "--corpus", str(corpus)).returncode == 0
    (tmp_path / "d.yaml").write_text(f"- slug: {b}\n  topics: reject\n", encoding="utf-8")
    assert survey("review", "--apply", str(tmp_path / "d.yaml"), "--corpus", str(corpus)).returncode == 0
    queue = Sitting(corpus).slugs
    keys = Keys([*("s" * queue.index(c)), "r", "\r", "q"])  # in the queue: skip to it, reject it
    Sitting(corpus).session(keys.terminal()).run()
    Sitting(corpus, [d]).session(Keys(["r", "\r", "x"]).terminal()).run()  # survey review SLUG
    entries = yaml.safe_load((corpus / "rejected.yaml").read_text(encoding="utf-8"))
    number = {e["slug"]: int(e["arxiv"].split(".")[1]) for e in entries}  # each one's feed item
    rejected = set(number)
    assert rejected == {a, b, c, d} and papers(corpus) == set(slugs) - rejected
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    after = snapshot(corpus)

    again = survey("import", first, "--corpus", str(corpus))  # the same file: recorded, skipped whole
    assert again.returncode == 0 and snapshot(corpus) == after
    # the same papers in other files: one found by its arXiv id, one by its title (a new id), one
    # by its abstract (another title, in a bibliography without arXiv ids), plus a new paper:
    # only the new paper comes in
    other = [item(i) for i in range(8) if i not in number.values()]
    other += [item(number[a]), item(number[b], arxiv="2605.00001"), item(number[d]), item(9)]
    abstract = item(number[c])["paper"]["summary"]
    bib = tmp_path / "refs.bib"
    bib.write_text(f"@article{{k, title = {{Quite Another Title}}, author = {{Rae, Chris}},\n"
                   f"  year = {{2026}}, abstract = {{{abstract}}}}}\n", encoding="utf-8")
    for gate in ((), ("--on-topic",)):
        copy = tmp_path / f"copy{len(gate)}"
        shutil.copytree(corpus, copy)
        result = survey("import", hf_feed(tmp_path / f"other{len(gate)}.json", *other), str(bib), *gate,
                        "--left-out", str(tmp_path / "left.csv"), "--corpus", str(copy))
        assert result.returncode == 0, result.stderr
        file = os.path.relpath(copy / "rejected.yaml", ROOT)  # the corpus folder used (audit J5)
        assert f"rejected earlier: 4 papers, skipped ({file})" in result.stdout
        # each skip names the rejected entry that skipped it, and what matched
        skipped = f"{bib} entry k (line 1) 'Quite Another Title': as {c} of {file} (same abstract)"
        assert skipped in result.stdout
        assert "papers added: 1;" in result.stdout
        now = snapshot(copy)
        changed = {k for k in set(now) | set(after) if now.get(k) != after.get(k)}
        # the new paper and the feed's listing; the bibliography's one paper was rejected: no listing
        assert {k.split("/")[0] for k in changed} == {"papers", "listings"} and len(changed) == 2, changed
        assert not any(s in now[k].decode() for k in changed for s in rejected)
        if gate:
            assert not (tmp_path / "left.csv").exists()  # nothing left out: the rejected are not rows


def test_add_take_and_enrich_skip_a_rejected_paper_and_force_brings_it_back(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    items = [item(i) for i in range(3)]
    daily = hf_feed(tmp_path / "daily.json", *items)
    assert survey("import", daily, "--corpus", str(corpus)).returncode == 0
    slug = sorted(papers(corpus))[0]
    data = paper_data(corpus, slug)
    (tmp_path / "d.csv").write_text(f"slug,topics\n{slug},reject\n", encoding="utf-8")
    assert survey("review", "--apply", str(tmp_path / "d.csv"), "--corpus", str(corpus)).returncode == 0
    rejected = snapshot(corpus)
    add = ("add", "--title", data["title"], "--abstract", data["abstract"], "--corpus", str(corpus))
    refused = survey(*add)
    assert refused.returncode == 1 and snapshot(corpus) == rejected
    assert refused.stderr.startswith("survey add: this paper was rejected on ")
    assert f"as {slug}" in refused.stderr
    assert "--force adds it" in refused.stderr
    take = ("import", daily, "--take", data["arxiv"], "--corpus", str(corpus))
    refused = survey(*take)
    assert refused.returncode == 1 and snapshot(corpus) == rejected
    assert f"--take {data['arxiv']}: rejected on " in refused.stderr
    assert "--force takes it in" in refused.stderr
    enriched = survey("enrich", "--web", "none", "--from", daily, "--corpus", str(corpus))
    assert enriched.returncode == 0 and snapshot(corpus) == rejected
    file = os.path.relpath(corpus / "rejected.yaml", ROOT)
    assert f"rejected earlier: 1 record of rejected papers, skipped ({file})" in enriched.stdout
    back = survey(*add, "--force")
    assert back.returncode == 0, back.stderr
    assert "wrote " in back.stdout and "(back from the papers rejected on " in back.stdout
    assert slug in papers(corpus) and not (corpus / "rejected.yaml").exists()  # its one entry gone
    assert f"survey review {slug}" in back.stdout
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    assert slug in Sitting(corpus).slugs  # waiting for a person's review again


def test_one_rejected_entry_cannot_keep_a_feed_s_papers_out_unnamed(tmp_path: Path) -> None:
    """An entry whose other titles were 50 papers of a feed (never in the corpus) passed check,
    and the import skipped all 50 without naming it (audit J2)."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    titles = [item(i)["paper"]["title"] for i in range(5)]
    entry = {"slug": "zz-generic", "title": "Generic Title", "abstract": "A generic abstract.",
             "rejected": "2026-11-28"}
    (corpus / "rejected.yaml").write_text(yaml.safe_dump([{**entry, "alternate_titles": titles}]))
    result = survey("check", "--corpus", "corpus", cwd=tmp_path)
    assert result.stderr.splitlines()[0] == (
        "corpus/rejected.yaml: entry zz-generic: field 'alternate_titles': has 5 titles; a rejected paper "
        "is one paper, with at most 3 other titles (each keeps the paper of that title out of every import)")
    (corpus / "rejected.yaml").write_text(yaml.safe_dump([{**entry, "alternate_titles": titles[:3]}]))
    assert survey("check", "--corpus", "corpus", cwd=tmp_path).returncode == 0
    feed = hf_feed(tmp_path / "daily.json", *(item(i) for i in range(5)))
    result = survey("import", feed, "--corpus", "corpus", cwd=tmp_path)
    out = result.stdout
    assert "papers added: 2;" in out and "rejected earlier: 3 papers, skipped (corpus/rejected.yaml)" in out
    assert ("rejected earlier: the entry zz-generic of corpus/rejected.yaml kept 3 papers of this import "
            "out; an entry is one paper: if they are others, take their titles out of it") in out
