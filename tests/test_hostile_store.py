"""The corpus folder under attack and under load (issue 25, items 3 and 4): links out of the
corpus, files that are not records, a read-only corpus, a full disk, and several writers at
once. Each case: one line naming the file, a non-zero exit, nothing changed or lost."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    FIXTURES,
    ROOT,
    Forked,
    counted,
    loopback,
    real_papers,
    snapshot,
    survey,
    survey_fork,
    survey_process,
)


@pytest.fixture()
def corpus(small: Path, tmp_path: Path) -> Path:
    """A copy of the session's small corpus (papers, listings, taxonomy, model): each case here
    is about one file, not how many there are beside it (the committed corpus's 313 papers made
    each command that reads them 0.1 to 0.5 s slower)."""
    return shutil.copytree(small, tmp_path / "corpus")


def everywhere(corpus: Path, tmp: Path, fifo: bool = False) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every command that reads the corpus: check, build, serve's check (with its cache),
    import and add. Where a file they might read by mistake is a FIFO (`fifo`: reading it would
    hang), each runs in a fork of this process (conftest.Forked), killed after 60 s; elsewhere in
    this one (`survey`)."""
    c = str(corpus)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return survey_fork(*args, capture=True).result(timeout=60) if fifo else survey(*args)

    return {
        "check": run("check", "--corpus", c),
        "build": run("build", "--out", str(tmp / "out"), "--corpus", c),
        "serve": Forked(lambda: serve_check(corpus, printed=True).returncode, capture=True).result(timeout=60)
        if fifo else serve_check(corpus),
        "import": run("import", str(FIXTURES / "daily_papers.json"), "--corpus", c),
        "add": run("add", "--title", "T", "--abstract", "A.", "--corpus", c),
    }


def serve_check(corpus: Path, printed: bool = False) -> subprocess.CompletedProcess[str]:
    """What `mkdocs serve` checks of the corpus (with its cache): its problems (`printed` too)."""
    from generator.corpus.check import check_corpus
    from generator.corpus.store import CorpusCache

    try:
        _, problems = check_corpus(corpus, cache=CorpusCache())
    except Exception as exc:
        problems = [exc]
    if printed:
        print(*problems, sep="\n", file=sys.stderr)
    return subprocess.CompletedProcess([], 1 if problems else 0, "", "".join(f"{p}\n" for p in problems))


def refused_everywhere(corpus: Path, tmp: Path, line: str, fifo: bool = False) -> None:
    before = snapshot(corpus)
    for name, result in everywhere(corpus, tmp, fifo).items():
        assert result.returncode == 1, (name, result.stdout, result.stderr)
        assert line in result.stderr.splitlines()[0], (name, result.stderr)
        assert "Traceback" not in result.stderr, name
    assert snapshot(corpus) == before


def shown(path: Path) -> str:
    return os.path.relpath(path, ROOT)


def test_a_paper_file_linked_out_of_the_corpus_is_refused_unread(corpus: Path, tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$secret-hash:19000:0:99999:7:::\n", encoding="utf-8")
    (corpus / "papers" / "x.yaml").symlink_to(secret)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it to read would wait forever for a writer
    (corpus / "papers" / "y.yaml").symlink_to(fifo)
    papers = corpus / "papers"
    refused_everywhere(corpus, tmp_path, f"{shown(papers / 'x.yaml')}: is a symbolic link; not read",
                       fifo=True)
    checked = survey("check", "--corpus", str(corpus))
    assert "secret-hash" not in checked.stderr + checked.stdout
    assert f"{shown(papers / 'y.yaml')}: is a symbolic link; not read" in checked.stderr


def test_a_papers_folder_linked_out_of_the_corpus_is_refused(corpus: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    (corpus / "papers").rename(outside)
    (corpus / "papers").symlink_to(outside)
    refused_everywhere(corpus, tmp_path, f"{shown(corpus / 'papers')}: is a symbolic link; not followed")


@pytest.mark.parametrize("name", ["taxonomy.yaml", "topic_model.yaml"])
def test_a_taxonomy_or_model_linked_out_of_the_corpus_is_refused_unread(
        corpus: Path, tmp_path: Path, name: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (corpus / name).unlink()
    (corpus / name).symlink_to(fifo)
    refused_everywhere(corpus, tmp_path, f"{shown(corpus / name)}: is a symbolic link; not read", fifo=True)


def test_a_yml_paper_file_is_refused_the_same_way_everywhere(corpus: Path, tmp_path: Path) -> None:
    paper = next((corpus / "papers").glob("*.yaml"))
    paper.rename(paper.with_suffix(".yml"))
    refused_everywhere(corpus, tmp_path, f"{shown(paper.with_suffix('.yml'))}: not a record file: papers/ "
                       f"holds only NAME.yaml files, so it is not read; rename it to {paper.name}")


def test_a_nested_folder_of_papers_is_refused_the_same_way_everywhere(corpus: Path, tmp_path: Path) -> None:
    nested = corpus / "papers" / "2024"
    nested.mkdir()
    next((corpus / "papers").glob("*.yaml")).rename(nested / "moved.yaml")
    refused_everywhere(corpus, tmp_path, f"{shown(nested)}: is a folder; papers/ holds only NAME.yaml "
                                         f"files (nested folders are not read): move it out")


def test_a_file_of_another_kind_in_listings_is_refused_the_same_way_everywhere(
        corpus: Path, tmp_path: Path) -> None:
    (corpus / "listings" / "README.md").write_text("# notes\n", encoding="utf-8")
    refused_everywhere(corpus, tmp_path, f"{shown(corpus / 'listings' / 'README.md')}: not a record file: "
                                         f"listings/ holds only NAME.yaml files, so it is not read")


def test_hidden_files_are_ignored_everywhere_and_named_by_check(corpus: Path, tmp_path: Path) -> None:
    hidden = [corpus / "papers" / ".DS_Store", corpus / "papers" / ".a-paper.yaml.swp",
              corpus / "listings" / ".draft.yaml"]
    for path in hidden:
        path.write_text("not: [valid\n", encoding="utf-8")
    results = everywhere(corpus, tmp_path)
    for name, result in results.items():
        assert result.returncode == 0, (name, result.stderr)
    assert [line for line in results["check"].stdout.splitlines() if "hidden" in line] == [
        f"survey check: {shown(p)}: a hidden file, not read" for p in sorted(hidden, key=lambda p: (
            p.parent.name != "papers", p.name))]


def unshared(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a shell script as root of a new user and mount namespace: its mounts (a read-only
    corpus, a tiny file system) are its own and vanish with it, and no privilege is needed."""
    if not shutil.which("unshare") or subprocess.run(["unshare", "-rm", "true"]).returncode != 0:
        pytest.skip("needs unshare -rm (user namespaces) to mount")
    return subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_a_read_only_corpus_is_one_line_and_nothing_changes(corpus: Path) -> None:
    before = snapshot(corpus)
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && '
              '"$2" -m generator add --title T --abstract A. --corpus "$1"; echo "add $?" >&2; '
              '"$2" -m generator import "$3" --corpus "$1"; echo "import $?" >&2')
    result = unshared(script, str(corpus), sys.executable, str(FIXTURES / "daily_papers.json"))
    lines = result.stderr.splitlines()
    for i, name in enumerate(("add", "import")):
        assert lines[2 * i] == (f"survey {name}: cannot write to {shown(corpus)}: Read-only file system; "
                                f"nothing in {shown(corpus)} changed")
        assert lines[2 * i + 1] == f"{name} 1"
    assert snapshot(corpus) == before


def test_a_full_disk_is_one_line_and_nothing_changes(tmp_path: Path) -> None:
    items = json.loads(gzip.decompress(real_papers().read_bytes()))[300:600]
    source = tmp_path / "daily-papers.json"
    source.write_text(json.dumps(items), encoding="utf-8")
    disk, after = tmp_path / "disk", tmp_path / "after"
    disk.mkdir()
    # room for the corpus (its files in pages of 4 KiB on tmpfs) and 60 more pages: the import's
    # 300 new papers fill it while they are staged
    size = sum(4096 * (1 + p.stat().st_size // 4096) for p in (ROOT / "corpus").rglob("*")) + 4096 * 60
    script = ('mount -t tmpfs -o size="$5" tmpfs "$1" && cp -r "$3/corpus" "$1/corpus" && '
              '"$2" -m generator import "$4" --corpus "$1/corpus"; echo "import $?" >&2; '
              'ls -A "$1/corpus" >&2; cp -r "$1/corpus" "$6"')
    result = unshared(script, str(disk), sys.executable, str(ROOT), str(source), str(size), str(after))
    lines = [line for line in result.stderr.splitlines() if not line.startswith(("reading", "importing",
                                                                                 "classifying"))]
    corpus = shown(disk / "corpus")
    assert lines[0] == (f"survey import: cannot write to {corpus}: No space left on device; "
                        f"nothing in {corpus} changed"), result.stderr
    assert [line for line in lines[1:] if line not in (".survey-lock", ".survey-cache.json")] == [
        "import 1", "fetch.yaml", "listings", "papers", "taxonomy.yaml", "topic_model.yaml"]
    assert snapshot(after) == snapshot(ROOT / "corpus")


def test_a_disk_full_at_the_commit_is_one_line_and_nothing_changes(corpus: Path, tmp_path: Path) -> None:
    before = snapshot(corpus)
    add = ("add", "--title", "T", "--abstract", "A.", "--corpus")
    at = counted(*add, str(shutil.copytree(corpus, tmp_path / "c")))[1].index("manifest.part")
    # a fault fails the process it is injected in: writing the manifest
    result = survey_process(*add, str(corpus), env={"SURVEY_FAULT": f"enospc-after={at}"})
    assert result.returncode == 1
    assert result.stderr == (f"survey add: cannot write to {shown(corpus)}: No space left on device; "
                             f"nothing in {shown(corpus)} changed\n")
    assert snapshot(corpus) == before


# --- one writer at a time ---------------------------------------------------------------------
class SlowArxiv:
    """A local arXiv API that answers only when told: `survey enrich` asking it holds the
    corpus's lock meanwhile, a real writer busy for as long as a test needs."""

    def __init__(self) -> None:
        self.asked, self.answer = threading.Event(), threading.Event()

    def __call__(self, path: str) -> tuple[int, str, bytes]:
        self.asked.set()
        self.answer.wait(60)
        return 200, "application/atom+xml", (FIXTURES / "arxiv_zero_infinity.xml").read_bytes()


@pytest.fixture()
def holder(corpus: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], SlowArxiv]]:
    (corpus / "papers" / "a-paper-to-enrich.yaml").write_text(
        "slug: a-paper-to-enrich\ntitle: A Paper to Enrich\nabstract: Its abstract.\ntopics: []\ntags: []\n",
        encoding="utf-8")
    api = SlowArxiv()
    with loopback(api) as base:
        proc = subprocess.Popen(
            [sys.executable, "-m", "generator", "enrich", "--web", "arxiv", "--delay", "0", "--paper",
             "a-paper-to-enrich", "--cache", str(tmp_path / "cache"), "--corpus", str(corpus)],
            cwd=ROOT, env={**os.environ, "SURVEY_ARXIV_API": f"{base}/api/query"}, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        assert api.asked.wait(60), "the enrich never asked"
        try:
            yield proc, api
        finally:
            api.answer.set()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def add(corpus: Path, title: str = "Sharded Checkpoints", wait: str | None = None
        ) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    result = survey("add", "--title", title, "--abstract", "We write checkpoints in shards.",
                    "--corpus", str(corpus), env={"SURVEY_LOCK_WAIT": wait} if wait else None)
    return result, time.monotonic() - started


def test_a_second_writer_waits_then_fails_in_one_line_naming_the_holder(
        corpus: Path, holder: tuple[subprocess.Popen[str], SlowArxiv]) -> None:
    proc, api = holder
    before = snapshot(corpus)
    result, took = add(corpus, wait="0.3")
    assert result.returncode == 1 and took >= 0.3  # it waited; how much longer is the machine's
    assert result.stderr.startswith(f"survey add: {shown(corpus)} is being changed by another survey "
                                    f"command: pid {proc.pid} (`survey enrich --web arxiv --delay 0 ")
    assert ", since 20" in result.stderr
    assert result.stderr.endswith("); waited 0.3 s: run this again when it has finished\n")
    assert snapshot(corpus) == before
    api.answer.set()
    assert proc.wait(60) == 0
    assert add(corpus)[0].returncode == 0


def test_a_child_of_a_killed_writer_does_not_keep_its_lock(corpus: Path) -> None:
    """A killed writer's lock does not block, not even when the classifying pool, forked while
    the lock is held, outlives it."""
    script = ("import os, sys, time\nfrom generator.corpus.lock import CorpusLock\n"
              "with CorpusLock(sys.argv[1]):\n    if os.fork() == 0:\n"
              "        os.write(1, b'child\\n')\n        time.sleep(120)\n        os._exit(0)\n"
              "    os.write(1, b'locked\\n')\n    time.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(corpus)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, start_new_session=True)
    try:  # the child runs its own code (and so has run its at-fork hook) before the parent is killed
        assert proc.stdout is not None
        assert {proc.stdout.readline(), proc.stdout.readline()} == {"locked\n", "child\n"}
        os.kill(proc.pid, signal.SIGKILL)  # the parent only: its child sleeps on
        proc.wait()
        result, _ = add(corpus, wait="0")  # no wait: a held lock would fail it at once
        assert result.returncode == 0, result.stderr
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def test_the_same_paper_added_four_times_at_once_is_added_once(corpus: Path) -> None:
    """Each waits for the writer before it and then reads what it wrote."""
    before = set((corpus / "papers").iterdir())
    procs = [survey_fork("add", "--title", "Sharded Checkpoints", "--abstract",
                         f"We write checkpoints in shards ({i}).", "--corpus", str(corpus),
                         env={"SURVEY_LOCK_WAIT": "300"}, capture=True)
             for i in range(4)]  # four processes, forks of this one (conftest.Forked)
    results = [(r.returncode, r.stderr) for r in (p.result(timeout=120) for p in procs)]
    assert sorted(code for code, _ in results) == [0, 1, 1, 1], results
    assert all("this paper is already in the corpus as" in err for code, err in results if code), results
    assert [p.name for p in set((corpus / "papers").iterdir()) - before] == ["sharded-checkpoints.yaml"]


def test_two_imports_at_once_lose_no_alternate_title_and_no_listing(corpus: Path, tmp_path: Path) -> None:
    items = json.loads(gzip.decompress(real_papers().read_bytes()))
    paper = next(i for i in items if i["paper"]["id"] == "2405.18047")  # 2BP, in the corpus
    sources = []
    for n, (version, more) in enumerate((("extended version", items[300:400]), ("journal version",
                                                                                  items[400:500]))):
        first = {**paper, "paper": {**paper["paper"], "title": f"{paper['paper']['title']} ({version})"}}
        sources.append(tmp_path / f"source-{n}.json")
        sources[-1].write_text(json.dumps([first, *more]), encoding="utf-8")
    procs = [survey_fork("import", str(s), "--name", "Shared name", "--corpus", str(corpus),
                         env={"SURVEY_LOCK_WAIT": "300"}, capture=True) for s in sources]
    for p in procs:
        result = p.result()
        assert result.returncode == 0, result.stderr
    text = (corpus / "papers" / "2bp-2-stage-backpropagation.yaml").read_text(encoding="utf-8")
    assert "(extended version)" in text and "(journal version)" in text
    assert {p.name for p in (corpus / "listings").glob("shared-name*")} == {"shared-name.yaml",
                                                                         "shared-name-2.yaml"}
    assert survey("check", "--corpus", str(corpus)).returncode == 0
