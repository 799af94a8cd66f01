"""Writes are all or nothing (issue 24): `survey import`, `add`, `enrich`, `train` and a rejection,
killed at any point, leave the corpus as it was or, once `survey check` or the next writer has finished
them, as a finished run leaves it; what they write is checked by `survey check`'s rules first.

The kill points are deterministic: SURVEY_FAULT=count (generator/corpus/faults.py) names the
file operations of a write, and SURVEY_FAULT=kill-after=K kills the command with SIGKILL before
the operation K, so every kind of step of the write is hit; whether it had committed is read
from what it left (`.survey-write/manifest.json`). Timed kills (SIGKILL to the process group)
add the points before the write.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, counted, hf_feed, hf_item, snapshot, survey, survey_fork

from generator.core.errors import SurveyError
from generator.corpus.store import load_corpus

DAY = {"SOURCE_DATE_EPOCH": "1795000000"}  # 2026-11-18: the same `added` date in every run
KILLED = -signal.SIGKILL


def run(*args: str, fault: str | None = None, kill_after_s: float | None = None,
        kill_once: Path | None = None, then: float = 0.0) -> int:
    """A real survey command in a process (a kill takes one), its exit status: a fork of this one
    (conftest.survey_fork), killed by its fault or `then` seconds after the path kill_once appears;
    or, to be killed kill_after_s seconds after it starts, a new interpreter, whose start-up is
    among the times it may be killed at."""
    if kill_after_s is None:
        child = survey_fork(*args, env={**DAY, **({"SURVEY_FAULT": fault} if fault else {})})
        if kill_once is not None:
            while child.running() and not kill_once.exists():
                time.sleep(0.001)
            time.sleep(then)
            child.kill()
        return child.wait()
    proc = subprocess.Popen([sys.executable, "-m", "generator", *args], cwd=ROOT, env={**os.environ, **DAY},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=kill_after_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return proc.returncode


def records(files: dict[str, bytes]) -> dict[str, bytes]:
    """What a reader reads: everything but the writer's own .survey-* files."""
    return {k: v for k, v in files.items() if not k.startswith(".survey-")}


def copy(corpus: Path, to: Path) -> Path:
    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(corpus, to)
    return to


MERGED = 3  # papers of the small corpus the feed also holds: their files change


@pytest.fixture(scope="module")
def feed(small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A daily-papers feed of nine new papers and three of the small corpus (an arXiv id,
    authors and a date they lack): an import adds ten files (a listing too) and changes three.
    The guarantee does not depend on how many files a write holds, only that it holds new
    files and changed ones."""
    corpus = load_corpus(small)
    known = [p for p in corpus.sorted_papers() if not p.arxiv and not p.authors][:MERGED]
    assert len(known) == MERGED
    items = [hf_item(f"2401.{i:05d}", p.title, p.abstract, [f"Author {i}"], f"2024-01-0{i + 1}T00:00:00.000Z")
             for i, p in enumerate(known)]
    items += [hf_item(f"2402.{i:05d}", f"Pipeline-Parallel Training Schedule Number {i}",
                      f"We split the layers of a model over {i + 2} GPUs as pipeline stages and "
                      f"schedule micro-batches so that the bubble shrinks by {10 + i}%.", [f"Writer {i}"],
                      f"2024-02-0{i + 1}T00:00:00.000Z") for i in range(9)]
    return Path(hf_feed(tmp_path_factory.mktemp("feed") / "daily-papers.json", *items))


def warm(args: tuple[str, ...], start: Path, finished: dict[str, bytes], tmp: Path) -> None:
    """The write run in this process too writes the same files; and the forks that follow
    inherit what it imported and compiled (sklearn, the taxonomy's rules: 0.5 to 1.5 s each)."""
    here = copy(start, tmp / "here")
    result = survey(*args, "--corpus", str(here), env=DAY)
    assert result.returncode == 0 and snapshot(here) == finished, result.stderr


def points(steps: list[str]) -> list[int]:
    """Where to kill a write of these file operations: before one of each kind of operation,
    the middle one where there are several (the import's stagings and renames: a write half
    staged, half applied). The first and the last of a kind take the same path as the middle
    one (the first stage and apply are those of `add`'s one file, below)."""
    at = {name: [k for k, step in enumerate(steps) if step == name] for name in steps}
    return sorted(ks[len(ks) // 2] for ks in at.values())


def test_an_import_killed_at_any_point_is_applied_whole_or_not_at_all(
        small: Path, feed: Path, tmp_path: Path) -> None:
    before = snapshot(small)
    done = copy(small, tmp_path / "done")
    started = time.monotonic()
    result, steps = counted("import", str(feed), "--corpus", str(done), env=DAY)
    assert result.returncode == 0, result.stderr
    duration = time.monotonic() - started
    finished = snapshot(done)
    written = sorted(k for k, v in finished.items() if before.get(k) != v)
    changed = [k for k in written if k in before]
    assert len(changed) == MERGED and len(written) == MERGED + 10
    assert steps.count("stage") == steps.count("apply") == len(written)
    warm(("import", str(feed)), small, finished, tmp_path)
    outcomes: dict[str, int] = {"before": 0, "finished": 0}

    def after_kill(corpus: Path, label: str) -> str:
        committed = (corpus / ".survey-write" / "manifest.json").exists()
        if not committed:  # what a reader reads is the corpus before or after, nothing between
            assert records(snapshot(corpus)) in (records(before), records(finished)), label
        else:  # a half-applied corpus is refused by readers, in one line that says what to do
            built = survey("build", "--out", str(tmp_path / "out"), "--corpus", str(corpus))
            assert built.returncode == 1 and built.stderr.count("\n") == 1, (label, built.stderr)
            assert "interrupted half applied; `survey check` finishes it" in built.stderr, label
        checked = survey("check", "--corpus", str(corpus))
        assert checked.returncode == 0 and "all valid" in checked.stdout, (label, checked.stderr)
        now = snapshot(corpus)
        outcome = "before" if now == before else "finished" if now == finished else "neither"
        assert outcome != "neither", (label, sorted(set(now) ^ set(finished))[:5])
        assert outcome == "finished" or not committed, label
        assert survey("import", str(feed), "--corpus", str(corpus), env=DAY).returncode == 0, label
        assert snapshot(corpus) == finished, label
        outcomes[outcome] += 1
        return outcome

    middle = [k for k, step in enumerate(steps) if step == "apply"][len(written) // 2]
    for k in points(steps):
        corpus = copy(small, tmp_path / "killed")
        assert run("import", str(feed), "--corpus", str(corpus), fault=f"kill-after={k}") == KILLED
        if k == middle:  # and `survey check` killed while it finishes the write (after its lock and a rename)
            assert run("check", "--corpus", str(corpus), fault="kill-after=2") == KILLED
        outcome = after_kill(corpus, f"killed before {steps[k]} ({k})")
        assert outcome == ("finished" if k > steps.index("commit") else "before"), k
    assert outcomes["before"] and outcomes["finished"], outcomes
    # Kills at a time rather than an operation: during start-up and reading, and once the
    # write has begun (staged, committed or applied); each leaves the corpus before or after.
    for fraction in (0.5, 0.95):
        corpus = copy(small, tmp_path / "killed")
        run("import", str(feed), "--corpus", str(corpus), kill_after_s=duration * fraction)
        after_kill(corpus, f"killed at {fraction:.0%} of {duration:.1f} s")
    for then in (0.0, 0.05, 0.2):
        corpus = copy(small, tmp_path / "killed")
        run("import", str(feed), "--corpus", str(corpus), kill_once=corpus / ".survey-write", then=then)
        after_kill(corpus, f"killed {then} s into the write")


ADD = ("add", "--title", "Sharded Checkpoints at Scale", "--abstract",
       "We write model checkpoints in parallel shards.")


def one_write(command: str, small: Path, feed: Path, tmp: Path) -> tuple[Path, tuple[str, ...]]:
    """A copy of the small corpus, and the arguments of one write of `command` to it."""
    corpus = copy(small, tmp / "start")
    if command == "train":  # on a model the corpus's labelled papers change: it replaces the file
        labels = tmp / "labels.yaml"
        papers = [{"slug": p.slug, "topics": p.topics, "split": "tune"}
                  for p in load_corpus(corpus).sorted_papers()]
        labels.write_text(yaml.safe_dump({"papers": papers}))
        model = corpus / "topic_model.yaml"
        model.write_text(re.sub(r"bias: -?[\d.]+", "bias: -9.5", model.read_text(), count=1))
        return corpus, ("train", "--labels", str(labels))
    if command == "reject":  # the paper's file removed, two listings and rejected.yaml written
        slug = next(s for s, where in sorted(load_corpus(corpus).listings_of().items()) if len(where) > 1)
        (tmp / "reject.csv").write_text(f"slug,topics,reason\n{slug},reject,off topic\n")
        return corpus, ("review", "--apply", str(tmp / "reject.csv"), "--force")  # reviewed: --force
    return corpus, {"add": ADD, "enrich": ("enrich", "--web", "none", "--from", str(feed))}[command]


@pytest.mark.parametrize("command", ["add", "enrich", "train", "reject"])
def test_a_write_killed_at_each_kind_of_step_is_applied_whole_or_not_at_all(
        command: str, small: Path, feed: Path, tmp_path: Path) -> None:
    """Each writer's one write (a new file, changed ones, a replaced model, a removed paper),
    killed at every kind of file operation for `add` (and the import above); the other writers
    write through the same journal, so each is killed where its write turns: before its first
    staging, before the commit and before the first rename after it. Once it is in, no message
    says none of it was."""
    start, args = one_write(command, small, feed, tmp_path)
    before = snapshot(start)
    result, steps = counted(*args, "--corpus", str(copy(start, tmp_path / "done")), env=DAY)
    assert result.returncode == 0, result.stderr
    finished = snapshot(tmp_path / "done")
    assert finished != before
    warm(args, start, finished, tmp_path)
    turns = [steps.index(name) for name in ("stage", "commit", "apply")]
    for k in points(steps) if command == "add" else turns:
        corpus = copy(start, tmp_path / "killed")
        assert run(*args, "--corpus", str(corpus), fault=f"kill-after={k}") == KILLED
        checked = survey("check", "--corpus", str(corpus))
        assert checked.returncode == 0, (k, checked.stderr)
        assert snapshot(corpus) == (finished if k > steps.index("commit") else before), (k, steps[k])
        assert snapshot(corpus) == before or "none of it had been applied" not in checked.stdout, k


def test_every_write_is_checked_with_the_rules_of_survey_check(tmp_path: Path) -> None:
    from generator.corpus.writes import write_files

    corpus_dir = copy(ROOT / "corpus", tmp_path / "corpus")
    before = snapshot(corpus_dir)
    corpus = load_corpus(corpus_dir)
    some = corpus.sorted_papers()[0]
    copied = some.file.replace(some.slug, "a-copy")
    text = (corpus_dir / some.file).read_text(encoding="utf-8").replace(f"slug: {some.slug}", "slug: a-copy")
    cases = {
        "the schema": [("papers/x.yaml", "slug: x\ntitle: X\nabstract: A.\ntopics: [servng]\n")],
        "a known topic": [("papers/x.yaml", "slug: x\ntitle: X\nabstract: A.\ntopics: [servng]\ntags: []\n")],
        "no duplicate": [(copied, text)],
        "listings point at papers": [("listings/l.yaml", "slug: l\nname: L\nsource: text\norigin: o\n"
                                      "sha256: s\nentries:\n- paper: nowhere\n  title: T\n")],
        "the model's topics": [("topic_model.yaml", "topics:\n  cooking: {bias: 0, weights: {}}\n")],
        "a file of the corpus": [("notes.yaml", "a: b\n")],
    }
    expected = {
        "the schema": "field 'tags': is required",
        "a known topic": "unknown topic 'servng'",
        "no duplicate": "(same title); merge the two files",
        "listings point at papers": "points at 'nowhere', which is not in papers/",
        "the model's topics": "entry cooking: not a topic of the taxonomy",
        "a file of the corpus": "not a file of the corpus",
    }
    good = ("papers/fine.yaml", "slug: fine\ntitle: Fine\nabstract: A.\ntopics: []\ntags: []\n")
    for case, files in cases.items():
        with pytest.raises(SurveyError) as caught:
            write_files(corpus, [good, *files])
        assert str(caught.value).startswith("nothing written: ") and expected[case] in str(caught.value), case
        assert snapshot(corpus_dir) == before, case
    assert write_files(corpus, [good]) == ["papers/fine.yaml"]
    assert survey("check", "--corpus", str(corpus_dir)).returncode == 0


def test_a_leftover_staging_folder_is_never_read_and_is_discarded(small: Path, tmp_path: Path) -> None:
    corpus = copy(small, tmp_path / "corpus")
    before = snapshot(corpus)
    args = (*ADD, "--corpus", str(corpus))
    steps = counted(*ADD, "--corpus", str(copy(small, tmp_path / "counted")))[1]
    staged = steps.index("manifest.part")  # killed before it: staged, not committed
    assert run(*args, fault=f"kill-after={staged}") == KILLED
    assert (corpus / ".survey-write" / "files" / "papers").is_dir()
    assert load_corpus(corpus).papers.keys() == load_corpus(small).papers.keys()
    result = survey(*args)  # the next writer discards it, says so, and writes its own
    assert result.returncode == 0
    assert result.stderr.startswith("survey add: removed ")
    assert "the leftover of an interrupted write" in result.stderr
    assert "none of it had been applied" in result.stderr.splitlines()[0]
    assert {k for k in snapshot(corpus) if k not in before} == {"papers/sharded-checkpoints-at-scale.yaml"}
