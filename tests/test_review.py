"""`survey review` (issue 29): the curator's queue, its order, its decisions and its terminal.

Each test runs on a small corpus of its own (conftest.make_corpus's "review": two papers whose
topics a person reviewed, six the model suggested), in process; the terminal itself once through
a pty, and the exit codes once in a subprocess.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HOSTILE_SLUG, HOSTILE_TITLE, REVIEWED, ROOT, SUGGESTED, snapshot, survey

from generator.classify.derived import for_queue
from generator.classify.review import Pending, queue, review_order
from generator.cli.main import main
from generator.core.text import printable, shown_path
from generator.corpus.derived import Derived, glance_papers
from generator.corpus.store import load_corpus

WAITING = [*SUGGESTED, HOSTILE_SLUG]




def listed(corpus: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["review", "--list", "--corpus", str(corpus), *args]) == 0
    return capsys.readouterr().out.splitlines()


# --- the order --------------------------------------------------------------------------------


def test_review_order_puts_the_most_expected_wrong_topics_first_and_ties_by_slug() -> None:
    pending = [Pending("b-sure", {"x": 0.99, "y": 0.01}), Pending("c-torn", {"x": 0.5, "y": 0.5}),
               Pending("a-tie", {"x": 0.6, "y": 0.0}), Pending("d-tie", {"x": 0.4, "y": 1.0}),
               Pending("e-none", {})]
    assert [p.slug for p in review_order(pending)] == ["c-torn", "a-tie", "d-tie", "b-sure", "e-none"]
    assert review_order(pending)[0].expected_wrong == pytest.approx(1.0)


def test_the_order_does_not_hang_on_the_order_the_scores_come_in() -> None:
    """Freshly scored, a paper's scores come in the taxonomy's order; read back from the derived
    cache, in the alphabet's: the queue is the same (a sum taken in another order ended a bit
    apart, and rounded to 1.181 one time and 1.18 the next, on a synthetic paper)."""
    scores = {"parallelism": 0.3783, "quantization": 0.6689, "serving": 0.5511, "kernels": 0.0222}
    assert Pending("a", scores).expected_wrong == Pending("a", dict(sorted(scores.items()))).expected_wrong
    # 0.3783 + 0.3311 + 0.4489 + 0.0222: 1.1805 in decimals, a hair under it in binary
    assert Pending("a", scores).expected_wrong == 1.18


def waiting(corpus: Path, topic: str | None = None) -> list[Pending]:
    taxonomy = load_corpus(corpus).taxonomy
    glances, scores, _ = for_queue(corpus, lambda: taxonomy)
    return queue(glances, scores, taxonomy.topic_ids, topic)


def test_the_queue_is_every_paper_whose_topics_no_person_confirmed(review_corpus: Path) -> None:
    pending = waiting(review_corpus)
    assert sorted(p.slug for p in pending) == sorted(WAITING)
    wrong = [p.expected_wrong for p in pending]
    assert wrong == sorted(wrong, reverse=True) and wrong[0] > wrong[-1]


def test_the_queue_is_ordered_from_the_derived_cache_and_follows_the_model(
        review_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a command has scored the papers with this model, the queue opens from the cache: no
    paper is scored and neither the taxonomy nor the model is parsed (its numbers, here made by
    hand the most doubtful of all for one paper, are what order it). The cache is keyed by the
    model: another model's scores are never used, and the papers are scored again."""
    import json

    from generator.classify import suggest
    from generator.corpus.taxonomy import Taxonomy

    first = waiting(review_corpus)  # scored, and kept
    path = review_corpus / ".survey-cache.json"
    cache = json.loads(path.read_text(encoding="utf-8"))
    last = first[-1].slug
    text = next(g[4] for g in cache["papers"].values() if g[0] == last)
    cache["scores"][text] = {t: 0.5 for t in cache["scores"][text]}
    path.write_text(json.dumps(cache), encoding="utf-8")

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored or parsed again")

    with monkeypatch.context() as m:
        m.setattr(suggest, "suggest_all", refused)
        m.setattr(Taxonomy, "load", refused)
        glances, scores, topics = for_queue(review_corpus, refused)  # type: ignore[arg-type]
        assert queue(glances, scores, [t for t, _ in topics])[0].slug == last
    model = review_corpus / "topic_model.yaml"  # a curator edits a weight: another model
    model.write_text(re.sub(r"bias: (\S+)", lambda m: f"bias: {float(m[1]) + 1}", model.read_text(
        encoding="utf-8"), count=1), encoding="utf-8")
    taxonomy = load_corpus(review_corpus).taxonomy
    paper = load_corpus(review_corpus).papers[last]
    _, scores, _ = for_queue(review_corpus, lambda: taxonomy)
    assert scores[last] == {v.id: round(v.confidence, 4) for v in suggest.suggest(
        taxonomy, paper.title, paper.abstract).topics} != {t: 0.5 for t in scores[last]}


# --- --list and --topic ------------------------------------------------------------------------


def test_list_prints_the_queue_one_paper_a_line_slug_first_in_order(
        review_corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = listed(review_corpus, capsys=capsys)
    assert [line.split()[0] for line in lines] == [p.slug for p in waiting(review_corpus)]
    assert capsys.readouterr().err == ""
    assert main(["review", "--list", "--corpus", str(review_corpus)]) == 0
    assert capsys.readouterr().err == "survey review: 6 papers wait for a person's review\n"
    first = lines[0]  # the paper the model is least sure of: parallelism 0.98 and serving 0.54
    assert first == ("accelerating-feedforward-computation-via-parallel-nonlinear  parallelism 0.98, "
                     "serving 0.54  Accelerating Feedforward Computation via Parallel Nonlinear Equation "
                     "Solving")
    hostile = next(line for line in lines if line.startswith(HOSTILE_SLUG))
    assert hostile == f"{HOSTILE_SLUG}  quantization 1.00  {printable(HOSTILE_TITLE)}"
    assert any(line.split("  ")[1] == "no topic" for line in lines)


def test_list_into_a_closed_pipe_ends_quietly(review_corpus: Path) -> None:
    """`survey review --list | head -1` once head has gone: no traceback, nothing on stderr, the
    status a process killed by SIGPIPE has (the pipe is closed before the first line here)."""
    read, write = os.pipe()
    os.close(read)
    try:
        command = [sys.executable, "-m", "generator", "review", "--list", "--corpus", str(review_corpus)]
        result = subprocess.run(command, stdout=write, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (141, "")


def test_list_on_a_terminal_fits_each_line_to_its_width_and_keeps_the_slug_whole(review_corpus: Path) -> None:
    """On a terminal 80 columns wide (its own size, no COLUMNS) each line fits in 79 (a line as
    wide as the terminal may wrap), the title cut with …; piped, lines stay whole (the test
    above)."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    try:
        result = subprocess.run([sys.executable, "-m", "generator", "review", "--list", "--corpus",
                                 str(review_corpus)], stdout=slave, stderr=subprocess.PIPE, cwd=ROOT, env=env,
                                timeout=60)
        seen = b""
        while select.select([master], [], [], 0.5)[0]:
            seen += os.read(master, 65536)
    finally:
        os.close(master)
        os.close(slave)
    assert result.returncode == 0
    lines = seen.decode("utf-8").replace("\r\n", "\n").splitlines()
    assert [line.split("  ")[0] for line in lines] == [p.slug for p in waiting(review_corpus)]
    assert all(len(line) <= 79 for line in lines)
    assert lines[0] == "accelerating-feedforward-computation-via-parallel-nonlinear  parallelism 0.98,…"
    assert all(line.endswith("…") for line in lines)  # every title here is longer than its room


def test_topic_narrows_the_queue_to_papers_that_have_it_or_may_have_missed_it(
        review_corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    everything = [line.split()[0] for line in listed(review_corpus, capsys=capsys)]
    kernels = [line.split()[0] for line in listed(review_corpus, "--topic", "kernels", capsys=capsys)]
    assert kernels == ["analyzing-modern-nvidia-gpu-cores"]
    serving = [line.split()[0] for line in listed(review_corpus, "--topic", "serving", capsys=capsys)]
    assert serving == ["accelerating-feedforward-computation-via-parallel-nonlinear"]  # serving 0.54
    assert len(everything) == len(WAITING)
    assert main(["review", "--list", "--topic", "gpus", "--corpus", str(review_corpus)]) == 1
    assert capsys.readouterr().err == ("survey review: --topic: unknown topic 'gpus'; the topics are "
                                       "parallelism, quantization, serving, kernels\n")
    assert main(["review", "--apply", "d.yaml", "--topic", "kernels", "--corpus", str(review_corpus)]) == 1
    assert capsys.readouterr().err == ("survey review: --topic and SLUG choose papers to review; --apply "
                                       "applies every decision of its file\n")


def test_topic_finds_the_papers_the_model_may_have_missed_it_on(
        review_corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A paper the model gave kernels (0.60) and serving 0.33, parallelism 0.24: `--topic serving`
    finds it, though its file says nothing of serving; parallelism (under 0.25) does not. Its
    confidence in every topic is kept, so nothing is scored again for --topic."""
    from generator.classify.suggest import suggest
    from generator.corpus.model import Paper
    from generator.corpus.store import paper_text

    taxonomy = load_corpus(review_corpus).taxonomy
    near = Paper(slug="faster-attention", title="Faster attention on GPUs",
                 abstract="A fused kernel for attention.")
    s = suggest(taxonomy, near.title, near.abstract)
    near.topics = s.topic_ids
    scores = {v.id: round(v.confidence, 2) for v in s.topics}
    assert (near.topics, scores["kernels"], scores["serving"], scores["parallelism"]) == (
        ["kernels"], 0.6, 0.33, 0.24)
    (review_corpus / near.file).write_text(paper_text(near), encoding="utf-8")
    serving = listed(review_corpus, "--topic", "serving", capsys=capsys)
    assert [line.split()[0] for line in serving] == [
        "faster-attention", "accelerating-feedforward-computation-via-parallel-nonlinear"]
    assert serving[0] == ("faster-attention  kernels 0.60; may have missed serving (0.33)  Faster attention "
                          "on GPUs")
    assert capsys.readouterr().err == ""
    parallelism = [line.split()[0] for line in listed(review_corpus, "--topic", "parallelism", capsys=capsys)]
    assert "faster-attention" not in parallelism and len(parallelism) == 3


# --- exits, and corpora without a model or a waiting paper -------------------------------------


def test_review_exits_with_one_line_and_no_traceback(review_corpus: Path, tmp_path: Path) -> None:
    """Not on a terminal, and a bad decisions file: exit 1, one line on stderr, nothing written."""
    result = survey("review", "--corpus", str(review_corpus), input="")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("survey review: not on a terminal: --list prints the queue, --apply FILE "
                             "applies decisions\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- slug: analyzing-modern-nvidia-gpu-cores\n  topics: nope\n", encoding="utf-8")
    before = snapshot(review_corpus)
    result = survey("review", "--apply", str(bad), "--corpus", str(review_corpus))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "field 'topics': unknown topic 'nope'" in result.stderr.splitlines()[0]
    assert result.stderr.splitlines()[1:] == [
        f"survey review: 1 problem in {shown_path(bad)}: nothing applied"]
    assert snapshot(review_corpus) == before
    assert set(REVIEWED).isdisjoint(survey("review", "--list", "--corpus", str(review_corpus)).stdout.split())


def test_a_terminal_with_nothing_waiting_is_told_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for stream in (sys.stdin, sys.stdout):
        monkeypatch.setattr(stream, "isatty", lambda: True)
    assert main(["review", "--corpus", str(ROOT / "corpus")]) == 0  # every real paper is reviewed
    assert capsys.readouterr().out == ("survey review: no paper is waiting: a person has reviewed the "
                                       "topics of every paper\n")


def test_the_queue_reads_a_hand_written_file_as_check_does(review_corpus: Path) -> None:
    """The queue reads a paper file as `survey check` does (its glance is made from that reading,
    then kept by the file's digest): a file written by hand in another style (flow mappings, a
    quoted title whose second line reads like a key, the retired `confidence`) gives what the
    full read gives, and a file check refuses is refused in check's words."""
    path = review_corpus / "papers" / "hand-written.yaml"
    path.write_text('{slug: hand-written, title: "A Title\ncurated: [topics]", abstract: x,\n'
                    ' topics: [serving], confidence: {serving: "0.61"}, tags: []}\n', encoding="utf-8")
    full = load_corpus(review_corpus).papers["hand-written"]
    for read in (True, False):  # read, then from the cache
        derived = Derived.load(review_corpus)
        glance = next(g for g in glance_papers(review_corpus, derived) if g.slug == "hand-written")
        assert ("hand-written" in derived.read) == read
        assert (glance.title, glance.topics, glance.reviewed) == (
            full.title, tuple(full.topics), False) == ("A Title curated: [topics]", ("serving",), False)
        derived.save()
    path.write_text("slug: hand-written\ntitle: [not, text]\n", encoding="utf-8")
    result = survey("review", "--list", "--corpus", str(review_corpus))
    assert result.returncode == 1 and result.stderr.startswith("survey review: ") and "hand-written.yaml" in (
        result.stderr) and len(result.stderr.splitlines()) == 1
