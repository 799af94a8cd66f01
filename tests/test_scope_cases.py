"""The scope gate where it meets merges, BibTeX, --take, --dry-run and failed reports: small feeds
on a copy of the seed corpus (cases found by a review of the merged features)."""

from __future__ import annotations

import csv
import shlex
from pathlib import Path

import yaml
from conftest import SEEDS, hf_feed, hf_item, make_corpus, snapshot, survey

# Off topic as a daily feed's papers are (ML, but none of the four topics): the gate leaves
# them out (best topic under GATE, as a bird-watching paper without ML words is not: a topic's
# bias alone gives 0.1 to a text with no word the model knows).
BIRDS = hf_item("2603.00001", "A Multilingual Benchmark for Question Answering about Bird Migration",
              "We introduce a benchmark of questions about bird migration in 40 languages and evaluate "
              "large language models on it; the best model answers 61% of the questions correctly.")
FISH = hf_item("2603.00003", "Reef Fish Counting from Underwater Video with a Vision Transformer",
             "We train a vision transformer to count coral reef fish in underwater video; it reaches the "
             "accuracy of expert divers on a new dataset of ten years of surveys.")
SERVING = hf_item("2603.00010", "PagedServe: Continuous Batching with Paged KV Cache for LLM Serving",
                "We present a serving system for large language model inference that batches requests "
                "continuously and manages the KV cache with paged memory, improving throughput by 3x over "
                "existing serving engines on GPUs at the same latency.")
TEXTILES = hf_item("2603.00011", "Dating Medieval Textile Ledgers with a Language Model",
                 "We fine-tune a language model to date medieval textile trade ledgers from Flanders and "
                 "Italy; it places 80% of the ledgers within a decade of the archivists.")


def _rows(path: Path) -> dict[str, dict[str, str]]:
    return {row["id"]: row for row in csv.DictReader(path.open(encoding="utf-8"))}


def test_an_entry_merged_into_a_left_out_paper_is_left_out_with_it(corpus: Path, tmp_path: Path) -> None:
    """Another feed's entry of the same paper (another arXiv id) is not 'merged' into a paper that is
    then left out: it is a row of the report too, and no review line names the dropped paper."""
    before = snapshot(corpus)
    same = hf_item("2603.00002", BIRDS["paper"]["title"], BIRDS["paper"]["summary"])
    report = tmp_path / "left.csv"
    result = survey("import", hf_feed(tmp_path / "a.json", BIRDS, FISH), hf_feed(tmp_path / "b.json", same),
                    "--on-topic", "--left-out", str(report), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "papers added: 0; already in the corpus: 0; possible duplicates to look at: 0" in (
        result.stdout)
    assert "a-multilingual" not in result.stdout
    assert set(_rows(report)) == {"2603.00001", "2603.00002", "2603.00003"}
    assert snapshot(corpus) == before


def test_taking_in_the_second_entry_keeps_the_paper_it_merged_into(corpus: Path, tmp_path: Path) -> None:
    same = hf_item("2603.00002", BIRDS["paper"]["title"], BIRDS["paper"]["summary"])
    result = survey("import", hf_feed(tmp_path / "a.json", BIRDS), hf_feed(tmp_path / "b.json", same),
                    "--on-topic", "--take", "2603.00002", "--left-out", str(tmp_path / "left.csv"),
                    "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "papers added: 1; already in the corpus: 1" in result.stdout
    assert (corpus / "papers" / "a-multilingual-benchmark-for-question-answering-about-bird.yaml").exists()
    assert not (tmp_path / "left.csv").exists()


def test_a_bibtex_entry_is_not_called_a_duplicate_of_a_left_out_paper(corpus: Path, tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{smith26,\n  title = {A Multilingual Benchmark for Question Answering about "
                   "Bird Migration, Revisited},\n"
                   "  author = {Smith, Alice},\n  year = {2026},\n}\n", encoding="utf-8")
    result = survey("import", hf_feed(tmp_path / "a.json", BIRDS, FISH), str(bib), "--on-topic",
                    "--left-out", str(tmp_path / "left.csv"), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "may be the same paper as a-multilingual" not in result.stdout
    assert "possible duplicates to look at: 0" in result.stdout


def test_taking_in_from_a_feed_imported_before_drops_its_row_from_the_report(
        corpus: Path, tmp_path: Path) -> None:
    """The feed's listing is recorded (one paper was on topic), so taking another in does not
    screen the feed again: the report the first import wrote loses that paper's row, and only it."""
    feed = hf_feed(tmp_path / "a.json", BIRDS, FISH, SERVING)
    gated = survey("import", feed, "--on-topic", "--corpus", str(corpus), cwd=tmp_path)
    assert gated.returncode == 0, gated.stderr
    assert set(_rows(tmp_path / "left-out-a.csv")) == {"2603.00001", "2603.00003"}
    command = _rows(tmp_path / "left-out-a.csv")["2603.00003"]["take it in with"]
    taken = survey(*shlex.split(command)[1:], cwd=tmp_path)
    assert taken.returncode == 0, taken.stderr
    assert "papers added: 1;" in taken.stdout
    assert set(_rows(tmp_path / "left-out-a.csv")) == {"2603.00001"}


def test_the_reports_take_command_adds_only_that_paper(corpus: Path, tmp_path: Path) -> None:
    """Nothing of the feed was on topic, so no listing of it was recorded: the report's command
    must still take in just the one paper, not the whole feed."""
    feed = hf_feed(tmp_path / "a.json", BIRDS, FISH)
    report = tmp_path / "left.csv"
    gated = survey("import", feed, "--on-topic", "--left-out", str(report), "--corpus", str(corpus))
    assert gated.returncode == 0, gated.stderr
    command = _rows(report)["2603.00003"]["take it in with"]
    assert command == f"survey import {feed} --on-topic --take 2603.00003 --corpus {corpus}"
    before = set(snapshot(corpus))
    # run exactly as written (its report goes to the default path, in the folder it runs in)
    result = survey(*shlex.split(command)[1:], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    added = {Path(p).name for p in set(snapshot(corpus)) - before}
    slug = "reef-fish-counting-from-underwater-video-with-a-vision"
    assert added == {f"{slug}.yaml", next(
        Path(p).name for p in set(snapshot(corpus)) - before if p.startswith("listings/"))}
    assert "papers added: 1;" in result.stdout
    assert (f"taken in: corpus/papers/{slug}.yaml; decide its topics now: survey review {slug}\n"
            in result.stdout)  # run where corpus/ is the corpus: no --corpus needed
    assert set(_rows(tmp_path / "left-out-a.csv")) == {"2603.00001"}


def test_taking_in_from_a_recorded_feed_reports_the_listing_it_extends(corpus: Path, tmp_path: Path) -> None:
    feed = hf_feed(tmp_path / "c.json", SERVING, TEXTILES)
    first = survey("import", feed, "--on-topic", "--left-out", str(tmp_path / "l1.csv"),
                   "--corpus", str(corpus))
    assert first.returncode == 0 and "(1 entry)" in first.stdout, first.stdout + first.stderr
    again = survey("import", feed, hf_feed(tmp_path / "a.json", BIRDS), "--on-topic", "--take", "2603.00011",
                   "--left-out", str(tmp_path / "l2.csv"), "--corpus", str(corpus))
    assert again.returncode == 0, again.stderr
    recorded = [line for line in again.stdout.splitlines() if line.startswith("listing recorded")]
    assert len(recorded) == 1 and recorded[0].endswith("(1 entry taken in)"), again.stdout
    third = survey("import", feed, "--on-topic", "--take", "2603.00011", "--corpus", str(corpus))
    assert third.returncode == 0, third.stderr
    assert "taken in" not in third.stdout and "files written: 0" in third.stdout, third.stdout


def test_take_of_an_id_no_file_has_fails_in_one_line(corpus: Path, tmp_path: Path) -> None:
    before = snapshot(corpus)
    result = survey("import", hf_feed(tmp_path / "a.json", BIRDS), "--on-topic", "--take", "2603.99999",
                    "--corpus", str(corpus))
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        "survey import: --take 2603.99999: no entry of the files given has this id (an arXiv id, or the "
        "entry named in the report of papers left out)"]
    assert snapshot(corpus) == before


def test_a_report_that_cannot_be_written_leaves_the_corpus_unchanged(corpus: Path, tmp_path: Path) -> None:
    """The report is written before the corpus: otherwise the left-out list would be lost, since
    a re-run finds the feed already imported."""
    before = snapshot(corpus)
    result = survey("import", hf_feed(tmp_path / "c.json", SERVING, TEXTILES), "--on-topic",
                    "--left-out", str(tmp_path / "missing" / "left.csv"), "--corpus", str(corpus))
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1 and "cannot write the report" in result.stderr
    assert snapshot(corpus) == before


def test_a_dry_run_does_not_name_a_report_it_did_not_write(corpus: Path, tmp_path: Path) -> None:
    result = survey("import", hf_feed(tmp_path / "a.json", BIRDS), "--on-topic", "--dry-run",
                    "--left-out", str(tmp_path / "left.csv"), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "(not written: --dry-run)" in result.stdout and not (tmp_path / "left.csv").exists()


def test_an_enrich_report_that_cannot_be_written_is_one_line(corpus: Path, tmp_path: Path) -> None:
    result = survey("enrich", "--from", hf_feed(tmp_path / "a.json", BIRDS), "--web", "none",
                    "--report", str(tmp_path / "missing" / "r.md"), "--corpus", str(corpus))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "cannot write the enrich report" in result.stderr


def test_a_curated_listing_imports_whole_under_the_gate(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(SEEDS[0]), "--on-topic", "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    listing = yaml.safe_load(next((corpus / "listings").glob("*.yaml")).read_text())
    papers = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8"))
              for p in (corpus / "papers").glob("*.yaml")}
    assert len(listing["entries"]) > 50 and {e["paper"] for e in listing["entries"]} == set(papers)
    assert any(not p["topics"] for p in papers.values())  # off-topic papers of the listing kept
    assert "left out" not in result.stdout


def test_the_left_out_report_shows_titles_and_sentences_as_a_page_would(corpus: Path, tmp_path: Path) -> None:
    """TeX in a feed's title or abstract reads as on a paper's page (`$\\sim$` is ~)."""
    fish = hf_item("2603.00004", r"Reef Fish Counting from \emph{Underwater} Video with a Vision Transformer",
                 r"We train a vision transformer to count $\sim$40 species of coral reef fish. It reaches "
                 "the accuracy of expert divers on a new dataset of ten years of surveys.")
    report = tmp_path / "left.csv"
    result = survey("import", hf_feed(tmp_path / "a.json", fish), "--on-topic", "--left-out", str(report),
                    "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    row = _rows(report)["2603.00004"]
    assert (row["title"], row["first sentence"]) == (
        "Reef Fish Counting from Underwater Video with a Vision Transformer",
        "We train a vision transformer to count ~40 species of coral reef fish.")
