"""`survey review --apply FILE` (issue 35 item 1, issue 37 item 1): decisions from a YAML or CSV
file, all or none. A row that is the paper as it is decides nothing (an exported table applies
only its edits); a change to a reviewed paper needs --force; a blank topics cell, a column named
twice and every other problem of the file are said in one run; --dry-run writes nothing;
`reject` takes a paper out.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml
from conftest import HOSTILE_SLUG, REVIEWED, SUGGESTED, paper_data, snapshot, survey

from generator.corpus.store import load_corpus

FIRST = "accelerating-feedforward-computation-via-parallel-nonlinear"  # parallelism, serving: suggested
GPU = "analyzing-modern-nvidia-gpu-cores"  # kernels, suggested




def apply(corpus: Path, name: str, text: str, *options: str) -> tuple[int, str, str]:
    path = corpus.parent / name
    path.write_text(text, encoding="utf-8")
    result = survey("review", "--apply", str(path), "--corpus", str(corpus), *options, cwd=corpus.parent)
    return result.returncode, result.stdout, result.stderr


def waiting(corpus: Path) -> set[str]:
    return {p.slug for p in load_corpus(corpus).papers.values() if not p.topics_reviewed}


def export(corpus: Path) -> list[dict[str, str]]:
    result = survey("export", "--format", "csv", "--corpus", str(corpus))
    return list(csv.DictReader(io.StringIO(result.stdout)))


def table(rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def test_an_unedited_export_decides_nothing_and_an_edited_one_only_its_edits(review_corpus: Path) -> None:
    """An export applied as it is marks no paper reviewed."""
    rows = export(review_corpus)
    before = snapshot(review_corpus)
    code, out, _ = apply(review_corpus, "export.csv", table(rows))
    assert code == 0 and snapshot(review_corpus) == before
    assert out == ("survey review: 0 decisions applied; 0 files written\n"
                   "8 rows left alone: the paper as it is (the same topics, not marked reviewed); to "
                   "confirm suggested topics, mark the row reviewed true\n")
    edits = {FIRST: {"topics": "serving"}, GPU: {"reviewed": "true"}, HOSTILE_SLUG: {"topics": "none"}}
    for row in rows:
        row.update(edits.get(row["slug"], {}))
    code, out, _ = apply(review_corpus, "export.csv", table(rows))
    assert code == 0
    assert out.startswith("survey review: 3 decisions applied; 3 files written\n5 rows left alone")
    first, gpu, hostile = (paper_data(review_corpus, slug) for slug in (FIRST, GPU, HOSTILE_SLUG))
    assert first["topics"] == ["serving"] and "topics" in first["curated"]
    assert gpu["topics"] == ["kernels"] and "topics" in gpu["curated"]
    assert hostile["topics"] == [] and "confidence" not in hostile
    assert not {FIRST, GPU, HOSTILE_SLUG} & waiting(review_corpus) and len(waiting(review_corpus)) == 3
    assert survey("check", "--corpus", str(review_corpus)).returncode == 0


def test_yaml_decisions_are_written_as_curated_topics(review_corpus: Path) -> None:
    code, out, _ = apply(review_corpus, "d.yaml", f"- slug: {FIRST}\n  topics: [serving, parallelism]\n"
                                           f"  reviewed: true\n- slug: {HOSTILE_SLUG}\n  topics: []\n")
    assert (code, out) == (0, "survey review: 2 decisions applied; 2 files written\n")
    assert paper_data(review_corpus, FIRST)["topics"] == ["parallelism", "serving"]  # the taxonomy's order
    assert "confidence" not in paper_data(review_corpus, FIRST)
    hostile = paper_data(review_corpus, HOSTILE_SLUG)
    assert hostile["topics"] == [] and hostile["curated"] == ["topics"]


def test_a_reviewed_paper_changes_only_with_force_and_is_named(review_corpus: Path) -> None:
    text = f"slug,topics\n{REVIEWED[0]},kernels\n{FIRST},serving\n"
    before = snapshot(review_corpus)
    code, out, err = apply(review_corpus, "d.csv", text)
    assert code == 1 and snapshot(review_corpus) == before and out == ""
    assert err == (f"d.csv:2: entry {REVIEWED[0]}: field 'topics': a person reviewed this paper as "
                   f"parallelism; this row makes it kernels: --force changes a reviewed paper\n"
                   f"survey review: 1 problem in d.csv: nothing applied\n")
    code, out, err = apply(review_corpus, "d.csv", text, "--force")
    assert code == 0 and paper_data(review_corpus, REVIEWED[0])["topics"] == ["kernels"]
    assert out == (f"{REVIEWED[0]}: reviewed parallelism -> kernels\n"
                   f"survey review: 2 decisions applied (1 changing a person's review (--force)); 2 files "
                   f"written\n")


def test_dry_run_prints_each_decision_and_writes_nothing(review_corpus: Path) -> None:
    before = snapshot(review_corpus)
    code, out, _ = apply(review_corpus, "d.csv",
                         f"slug,topics,reason\n{FIRST},serving,\n{GPU},reject,not ML\n", "--dry-run")
    assert code == 0 and snapshot(review_corpus) == before
    assert out == (f"{FIRST}: suggested parallelism, serving -> serving\n{GPU}: rejected (not ML)\n"
                   f"survey review: 2 decisions to apply (1 rejected); nothing written (--dry-run)\n")


def test_reject_in_a_csv_or_yaml_file_takes_the_paper_out(review_corpus: Path) -> None:
    code, _, _ = apply(review_corpus, "d.csv", f"slug,topics,reason\n{GPU},reject,a GPU study\n")
    assert code == 0 and not (review_corpus / "papers" / f"{GPU}.yaml").exists()
    code, _, _ = apply(review_corpus, "d.yaml", f"- slug: {FIRST}\n  topics: reject\n")
    assert code == 0 and not (review_corpus / "papers" / f"{FIRST}.yaml").exists()
    entries = yaml.safe_load((review_corpus / "rejected.yaml").read_text(encoding="utf-8"))
    assert [(e["slug"], e.get("reason")) for e in entries] == [(FIRST, None), (GPU, "a GPU study")]
    assert survey("check", "--corpus", str(review_corpus)).returncode == 0
    code, _, err = apply(review_corpus, "d.csv", f"slug,topics\n{GPU},kernels\n")
    assert code == 1 and f"entry {GPU}: field 'slug': rejected on " in err
    # the same sheet applied again (the curator's loop: edit more rows, apply again): the rejection
    # is as it is, and the sheet's new row applies; `other` (the site's word) is none
    before = snapshot(review_corpus)
    code, out, err = apply(review_corpus, "d.csv", f"slug,topics,reason\n{GPU},reject,a GPU study\n"
                                             f"{HOSTILE_SLUG},Other\n")
    assert (code, err) == (0, "")
    assert out.startswith("survey review: 1 decision applied; 1 file written\n1 row left alone")
    assert paper_data(review_corpus, HOSTILE_SLUG)["topics"] == [] and snapshot(review_corpus) != before


def test_every_problem_of_the_file_is_said_in_one_run(review_corpus: Path) -> None:
    """A rejection's reason too: markup and a bidi override were refused at the write, one a run
    (audit A1)."""
    text = (f"slug,topics,reason\n{FIRST},serve,\n{GPU},,\nno-such-paper,kernels,\n{FIRST},kernels,\n"
            f"{HOSTILE_SLUG},none serving,\n{SUGGESTED[0]},reject,<b>bold</b>\n"
            f"{SUGGESTED[3]},reject,rtl \u202e\n")
    before = snapshot(review_corpus)
    code, out, err = apply(review_corpus, "d.csv", text)
    assert code == 1 and snapshot(review_corpus) == before and out == ""
    assert err.splitlines() == [
        f"d.csv:2: entry {FIRST}: field 'topics': unknown topic 'serve'; the topics are parallelism, "
        f"quantization, serving, kernels, or none, or reject",
        f"d.csv:3: entry {GPU}: field 'topics': is empty: write the topics, none for none of them, or reject",
        "d.csv:4: entry no-such-paper: field 'slug': no paper with this slug in the corpus",
        f"d.csv:5: entry {FIRST}: field 'slug': decided twice (also line 2)",
        f"d.csv:6: entry {HOSTILE_SLUG}: field 'topics': none stands alone, found 'none serving'",
        f"d.csv:7: entry {SUGGESTED[0]}: field 'reason': contains markup (an HTML tag, comment or "
        f"declaration); write it as plain text",
        f"d.csv:8: entry {SUGGESTED[3]}: field 'reason': contains U+202E (RIGHT-TO-LEFT OVERRIDE), an "
        f"invisible character that changes how the text around it shows",
        "survey review: 7 problems in d.csv: nothing applied"]



BAD_FILES = [
    ("d.csv", "slug,topics,slug\nx,kernels,y\n",
     "d.csv:1: the first row names the column 'slug' twice: which one holds the decisions?"),
    ("d.csv", "slug,topic\nx,kernels\n", "d.csv:1: the first row names the columns, and needs topics"),
    ("d.csv", "slug;topics\nx;kernels\n",
     "d.csv:1: the columns are apart by ';': save the table as comma-separated values"),
    ("d.yaml", "slug: x\n", "d.yaml:1: must be a list of decisions, each {slug: SLUG, topics: [TOPIC, ...]}"),
    ("d.yaml", "", "d.yaml: holds no decision"),
    ("d.txt", "x", "d.txt: decisions are read from a .yaml, .yml or .csv file"),
]


@pytest.mark.parametrize(("name", "text", "error"), BAD_FILES)
def test_a_file_that_is_no_list_of_decisions_is_refused_in_one_line(
        review_corpus: Path, name: str, text: str, error: str) -> None:
    before = snapshot(review_corpus)
    assert apply(review_corpus, name, text) == (1, "", f"survey review: {error}\n")
    assert snapshot(review_corpus) == before
