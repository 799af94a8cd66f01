"""`survey review` (issue 29): the curator's queue, its order, its decisions and its terminal.

Each test runs on a small corpus of its own (conftest.review_corpus: two papers whose topics a
person reviewed, six the model suggested), in process; the terminal itself once through a pty,
and the exit codes once in a subprocess.
"""

from __future__ import annotations

import csv
import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import HOSTILE_SLUG, REVIEWED, ROOT, SUGGESTED, review_corpus, snapshot, survey

from generator.classify.review import Pending, queue, review_order
from generator.cli.main import main
from generator.cli.review import Session, Terminal
from generator.core.text import printable
from generator.corpus.store import load_corpus

WAITING = [*SUGGESTED, HOSTILE_SLUG]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return review_corpus(tmp_path)


def listed(corpus: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["review", "--list", "--corpus", str(corpus), *args]) == 0
    return capsys.readouterr().out.splitlines()


def paper(corpus: Path, slug: str) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((corpus / "papers" / f"{slug}.yaml").read_text(encoding="utf-8"))


# --- the order --------------------------------------------------------------------------------


def test_review_order_puts_the_most_expected_wrong_topics_first_and_ties_by_slug() -> None:
    pending = [Pending("b-sure", {"x": 0.99, "y": 0.01}), Pending("c-torn", {"x": 0.5, "y": 0.5}),
               Pending("a-tie", {"x": 0.6, "y": 0.0}), Pending("d-tie", {"x": 0.4, "y": 1.0}),
               Pending("e-none", {})]
    assert [p.slug for p in review_order(pending)] == ["c-torn", "a-tie", "d-tie", "b-sure", "e-none"]
    assert review_order(pending)[0].expected_wrong == pytest.approx(1.0)


def test_the_queue_is_every_paper_whose_topics_no_person_confirmed(corpus: Path) -> None:
    pending = queue(load_corpus(corpus))
    assert sorted(p.slug for p in pending) == sorted(WAITING)
    wrong = [p.expected_wrong for p in pending]
    assert wrong == sorted(wrong, reverse=True) and wrong[0] > wrong[-1]


# --- --list and --topic ------------------------------------------------------------------------


def test_list_prints_the_queue_one_paper_a_line_slug_first_in_order(
        corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = listed(corpus, capsys=capsys)
    assert [line.split()[0] for line in lines] == [p.slug for p in queue(load_corpus(corpus))]
    first = lines[0]  # the paper the model is least sure of: parallelism 0.98 and serving 0.54
    assert first.startswith(
        "accelerating-feedforward-computation-via-parallel-nonlinear  0.49 expected wrong: ")
    assert "parallelism 0.98 (has it)" in first and "serving 0.54 (has it)" in first
    assert re.search(r"kernels 0\.\d\d$", first)


def test_topic_narrows_the_queue_to_papers_that_have_it_or_may_have_missed_it(
        corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    everything = [line.split()[0] for line in listed(corpus, capsys=capsys)]
    kernels = [line.split()[0] for line in listed(corpus, "--topic", "kernels", capsys=capsys)]
    assert kernels == ["analyzing-modern-nvidia-gpu-cores"]
    serving = [line.split()[0] for line in listed(corpus, "--topic", "serving", capsys=capsys)]
    assert serving == ["accelerating-feedforward-computation-via-parallel-nonlinear"]  # serving 0.54
    assert len(everything) == len(WAITING)
    assert main(["review", "--list", "--topic", "gpus", "--corpus", str(corpus)]) == 1
    assert capsys.readouterr().err == ("survey review: --topic: unknown topic 'gpus'; the topics are "
                                       "parallelism, quantization, serving, kernels\n")
    assert main(["review", "--apply", "d.yaml", "--topic", "kernels", "--corpus", str(corpus)]) == 1
    assert capsys.readouterr().err == ("survey review: --topic narrows the queue; --apply applies every "
                                       "decision of its file\n")


# --- --apply ----------------------------------------------------------------------------------


def test_apply_yaml_writes_each_decision_as_curated_topics_and_takes_it_out_of_the_queue(
        corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slug = "accelerating-feedforward-computation-via-parallel-nonlinear"
    decisions = corpus.parent / "decisions.yaml"
    decisions.write_text(f"- slug: {slug}\n  topics: [serving, parallelism]\n"
                         f"- slug: {HOSTILE_SLUG}\n  topics: []\n", encoding="utf-8")
    assert main(["review", "--apply", str(decisions), "--corpus", str(corpus)]) == 0
    assert capsys.readouterr().out == "survey review: 2 decision(s) applied, 2 file(s) written\n"
    decided = paper(corpus, slug)
    assert decided["topics"] == ["parallelism", "serving"]  # in the taxonomy's order
    assert "topics" in decided["curated"] and "confidence" not in decided
    hostile = paper(corpus, HOSTILE_SLUG)
    assert hostile["topics"] == [] and hostile["curated"] == ["topics"]
    left = [line.split()[0] for line in listed(corpus, capsys=capsys)]
    assert sorted(left) == sorted(set(WAITING) - {slug, HOSTILE_SLUG})
    assert main(["check", "--corpus", str(corpus)]) == 0


def test_apply_csv_takes_an_edited_export(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The export's CSV, edited in a spreadsheet: its topics cell holds one id a line, and its
    other columns are ignored. Spaces, commas or semicolons part ids too."""
    assert main(["export", "--format", "csv", "--corpus", str(corpus)]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    slug = "accelerating-feedforward-computation-via-parallel-nonlinear"
    kept = [row for row in rows[1:] if row[0] == slug]
    assert kept[0][4] == "parallelism\nserving"  # its topics, as the model suggested: one a line
    made = ["a-unified-sequence-parallelism-approach-for-long-context", "", "", "", "parallelism; serving"]
    buf = io.StringIO()
    csv.writer(buf).writerows([rows[0], kept[0], [], made + [""] * (len(rows[0]) - len(made))])
    decisions = corpus.parent / "decisions.csv"
    decisions.write_text(buf.getvalue(), encoding="utf-8")
    assert main(["review", "--apply", str(decisions), "--corpus", str(corpus)]) == 0
    assert paper(corpus, slug)["topics"] == ["parallelism", "serving"]
    assert "topics" in paper(corpus, slug)["curated"]
    assert paper(corpus, "a-unified-sequence-parallelism-approach-for-long-context")["topics"] == [
        "parallelism", "serving"]


BAD_DECISIONS = [
    ("d.yaml", "- slug: no-such-paper\n  topics: []\n",
     "d.yaml:1: entry no-such-paper: field 'slug': no paper with this slug in the corpus"),
    ("d.yaml", "- slug: analyzing-modern-nvidia-gpu-cores\n  topics: [kernels, gpus]\n",
     "d.yaml:1: entry analyzing-modern-nvidia-gpu-cores: field 'topics': unknown topic 'gpus'; the topics "
     "are parallelism, quantization, serving, kernels"),
    ("d.yaml", "- slug: analyzing-modern-nvidia-gpu-cores\n  topics: []\n"
               "- slug: analyzing-modern-nvidia-gpu-cores\n  topics: [kernels]\n",
     "d.yaml:3: entry analyzing-modern-nvidia-gpu-cores: field 'slug': decided twice (also #1)"),
    ("d.yaml", "- slug: analyzing-modern-nvidia-gpu-cores\n",
     "d.yaml:1: entry analyzing-modern-nvidia-gpu-cores: field 'topics': is required (write [] for none of "
     "the topics)"),
    ("d.yaml", "- slug: analyzing-modern-nvidia-gpu-cores\n  topics: []\n  topic: [kernels]\n",
     "d.yaml:1: entry analyzing-modern-nvidia-gpu-cores: field 'topic': unknown field; a decision has slug "
     "and topics"),
    ("d.yaml", "slug: x\n", "d.yaml:1: must be a list of decisions, each {slug: SLUG, topics: [TOPIC, ...]}"),
    ("d.yaml", "", "d.yaml: holds no decision"),
    ("d.csv", "slug,topic\nx,kernels\n", "d.csv:1: the first row names the columns, and needs topics"),
    ("d.csv", "slug,topics\nanalyzing-modern-nvidia-gpu-cores,kernels\nno-such-paper,kernels\n",
     "d.csv:3: entry no-such-paper: field 'slug': no paper with this slug in the corpus"),
    ("d.txt", "x", "d.txt: decisions are read from a .yaml, .yml or .csv file"),
]


@pytest.mark.parametrize(("name", "text", "error"), BAD_DECISIONS)
def test_apply_refuses_a_bad_file_in_one_line_and_writes_nothing(
        corpus: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        name: str, text: str, error: str) -> None:
    """The first problem, naming the file, the entry and the field; no decision is applied,
    not even the good ones before it."""
    monkeypatch.chdir(corpus.parent)
    Path(name).write_text(text, encoding="utf-8")
    before = snapshot(corpus)
    assert main(["review", "--apply", name, "--corpus", str(corpus)]) == 1
    assert capsys.readouterr().err == f"survey review: {error}\n"
    assert snapshot(corpus) == before


# --- the terminal -----------------------------------------------------------------------------


class Keys:
    """Key presses for a Session, and everything it showed."""

    def __init__(self, keys: str) -> None:
        self.keys = list(keys)
        self.out = io.StringIO()
        self.opened: list[str] = []

    def terminal(self, width: int = 72) -> Terminal:
        def key() -> str:
            assert self.keys, "the session asked for more keys than the test gave"
            return self.keys.pop(0)

        def opened(url: str) -> bool:
            self.opened.append(url)
            return True
        return Terminal(key, self.out, lambda: width, opened)


def session(corpus: Path, keys: Keys, width: int = 72) -> tuple[list[str], object]:
    """Run a sitting over the queue; returns the slugs it was over and what it says at the end."""
    from generator.cli.review import _recorder

    loaded = load_corpus(corpus)
    slugs = [p.slug for p in queue(loaded)]
    return slugs, Session(loaded, slugs, keys.terminal(width), _recorder(loaded)).run()


def test_single_keys_toggle_accept_skip_open_and_quit(corpus: Path) -> None:
    keys = Keys("x2" + "a" + "s" + "o4" + "a" + "q")
    slugs, done = session(corpus, keys)
    first, second, third = slugs[:3]
    shown = keys.out.getvalue()
    # the first paper, toggled: quantization added to what the model suggested, then accepted
    assert paper(corpus, first)["topics"] == ["parallelism", "quantization", "serving"]
    assert "topics" in paper(corpus, first)["curated"] and "confidence" not in paper(corpus, first)
    assert "topics" not in paper(corpus, second).get("curated", [])  # skipped: unchanged
    # it has no link: the arXiv search for its title
    assert third == "analyzing-modern-nvidia-gpu-cores" and not load_corpus(corpus).papers[third].links
    link = "https://arxiv.org/search/?searchtype=title&query=Analyzing+Modern+NVIDIA+GPU+cores"
    assert keys.opened == [link]
    assert "topics" in paper(corpus, third)["curated"]
    assert paper(corpus, third)["topics"] == []  # kernels, its one topic, toggled off (key 4)
    assert str(done) and done.decided == 2 and done.skipped == 1 and done.left == len(slugs) - 3  # type: ignore[attr-defined]
    assert "not a key of review ('x')" in shown
    assert f"opened {link}" in shown
    # each paper's screen: title, abstract wrapped to the width, each topic's confidence and reasons
    assert "survey review: paper 1 of 6 · 0.49 topics expected wrong · " + first in shown
    assert "\nAccelerating Feedforward Computation via Parallel Nonlinear Equation\nSolving\n" in shown
    assert all(len(line) <= 72 for line in shown.replace("\x1b[H\x1b[2J", "").splitlines()
               if not line.startswith(("survey review:", "Topics", "a accept", "not a key", "opened")))
    assert re.search(r"  1 \[x\] Parallelism +0\.98\n +[+-]\d\.\d\d  ", shown)
    assert re.search(r"  2 \[ \] Quantization +0\.01\n", shown)
    assert "  2 [x] Quantization" in shown  # after the toggle


def test_a_new_sitting_resumes_at_the_first_paper_still_waiting_and_skipped_papers_come_back(
        corpus: Path) -> None:
    slugs, _ = session(corpus, Keys("asq"))
    again, done = session(corpus, Keys("q"))
    assert again == slugs[1:]  # the decided paper never again; the skipped one first, in its place
    assert done.decided == 0 and done.left == len(again)  # type: ignore[attr-defined]


def test_corpus_text_reaches_the_terminal_as_written(corpus: Path) -> None:
    keys = Keys("q")
    loaded = load_corpus(corpus)
    Session(loaded, [HOSTILE_SLUG], keys.terminal(), lambda s, t: None).run()
    shown = keys.out.getvalue()
    assert "Quantization <b>*trick*</b> {{ x }}" in shown
    # the escapes are the session's own (clearing the screen), none from the corpus
    assert set(re.findall(r"\x1b\[[0-9;]*[A-Za-z]", shown)) == {"\x1b[H", "\x1b[2J"}
    assert printable("a\x1b[31mred\x07\u2028\u00a0") == "a\\x1b[31mred\\x07\\u2028\u00a0"


def test_review_on_a_real_terminal_decides_with_single_keys(corpus: Path) -> None:
    """Through a pty: no Enter, no echo, the terminal as it was afterwards."""
    import termios

    first = queue(load_corpus(corpus))[0].slug

    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    process = subprocess.Popen([sys.executable, "-m", "generator", "review", "--corpus", str(corpus)],
                               stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env={**os.environ,
                               "COLUMNS": "80", "LINES": "40"})
    seen = ""
    try:
        seen = _until(master, "survey review: paper 1 of 6", seen)
        os.write(master, b"a")
        seen = _until(master, "survey review: paper 2 of 6", seen)
        os.write(master, b"q")
        seen = _until(master, "left in the queue", seen)
        assert process.wait(timeout=60) == 0
        assert termios.tcgetattr(slave) == before  # echo and line editing back on
    finally:
        process.kill()
        os.close(slave)
        os.close(master)
    assert "survey review: 1 decided, 0 skipped (they come back next time), 5 left in the queue" in seen
    assert "topics" in paper(corpus, first)["curated"]
    assert "Traceback" not in seen


def _until(master: int, text: str, seen: str, timeout: float = 60) -> str:
    end = time.monotonic() + timeout
    while text not in seen:
        left = end - time.monotonic()
        assert left > 0, f"waited {timeout} s for {text!r}; the terminal showed:\n{seen[-2000:]}"
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            seen += os.read(master, 65536).decode("utf-8", "replace")
    return seen


def test_review_exits_with_one_line_and_no_traceback(corpus: Path, tmp_path: Path) -> None:
    """Not on a terminal, and a bad decisions file: exit 1, one line on stderr, nothing written."""
    result = survey("review", "--corpus", str(corpus), input="")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("survey review: not on a terminal: --list prints the queue, --apply FILE "
                             "applies decisions\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- slug: analyzing-modern-nvidia-gpu-cores\n  topics: nope\n", encoding="utf-8")
    before = snapshot(corpus)
    result = survey("review", "--apply", str(bad), "--corpus", str(corpus))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "field 'topics': unknown topic 'nope'" in result.stderr
    assert snapshot(corpus) == before
    assert set(REVIEWED).isdisjoint(survey("review", "--list", "--corpus", str(corpus)).stdout.split())


def test_without_a_topic_model_the_queue_is_in_slug_order(
        corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (corpus / "topic_model.yaml").unlink()
    lines = listed(corpus, capsys=capsys)
    assert [line.split()[0] for line in lines] == sorted(WAITING)
    assert lines[:2] == [
        "a-unified-sequence-parallelism-approach-for-long-context  no topic model; topics: parallelism",
        "accelerating-feedforward-computation-via-parallel-nonlinear  no topic model; topics: parallelism, "
        "serving"]


def test_a_terminal_with_nothing_waiting_is_told_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for stream in (sys.stdin, sys.stdout):
        monkeypatch.setattr(stream, "isatty", lambda: True)
    assert main(["review", "--corpus", str(ROOT / "corpus")]) == 0  # every real paper is reviewed
    assert capsys.readouterr().out == ("survey review: no paper is waiting: a person has reviewed the "
                                       "topics of every paper\n")
