"""What is left of an interrupted write, and the lock (issues 31, 36): a write is finished by
the next command whoever runs it, wherever; what it may do is bounded by its shape (the corpus's
own files, the bytes whose hashes its manifest holds, no link followed, devices and FIFOs never
read); what is shown of it is escaped; every refusal is one line saying what to do, and never
tells to remove a write that is half applied. And the lock's own failures: one line each,
nothing held after.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, counted, make_corpus, make_project, snapshot, survey_process

from generator.cli.main import main
from generator.core.errors import SurveyError
from generator.corpus import journal, lock
from generator.corpus.store import load_corpus
from generator.corpus.writes import write_files

PAPERS = ["2bp-2-stage-backpropagation", "rewrite-the-stars"]
NEW = "papers/sharded-checkpoints.yaml"
# Reviewed as none of the four topics: on the site (a paper no one reviewed with no topic waits
# for a curator, off it).
NEW_TEXT = ("slug: sharded-checkpoints\ntitle: Sharded Checkpoints\nabstract: We shard.\ntopics: []\n"
            "tags: []\ncurated:\n- topics\n")
ESCAPE = "\x1b[2K\x1b[1A\x1b[2K"


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    """Two papers and the taxonomy: the smallest corpus a write changes."""
    return make_corpus(tmp_path / "corpus", "papers", PAPERS)


def check(corpus: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check", "--corpus", str(corpus)])
    out = capsys.readouterr()
    return code, out.err + out.out


def interrupt(corpus: Path, monkeypatch: pytest.MonkeyPatch, files: list[tuple[str, str]] | None = None
              ) -> None:
    """A write stopped right after its commit point, as by a kill: staged, committed, not applied."""
    def stop(*args: object) -> None:
        raise OSError(errno.EIO, "stopped")

    with monkeypatch.context() as m:
        m.setattr(journal, "_apply", stop)
        m.setattr(sys, "argv", ["survey", "add"])
        with pytest.raises(SurveyError, match="a write stopped half applied"):
            write_files(load_corpus(corpus), files or [(NEW, NEW_TEXT)])
    assert (corpus / ".survey-write" / "manifest.json").is_file()


def refused(corpus: Path, capsys: pytest.CaptureFixture[str], outside: Path | None = None) -> str:
    """survey check refuses the staging folder in one line, and nothing changes."""
    before = snapshot(corpus)
    around = snapshot(outside) if outside else {}
    code, output = check(corpus, capsys)
    assert code == 1 and output.count("\n") == 1, output
    assert output.startswith(f"survey check: {os.path.relpath(corpus)}/.survey-write: "), output
    assert "remove it" in output, output
    assert "`survey check`" not in output and "\x1b" not in output
    assert snapshot(corpus) == before
    assert (snapshot(outside) if outside else {}) == around
    return output


def test_an_interrupted_write_is_finished(corpus: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    interrupt(corpus, monkeypatch)
    code, output = check(corpus, capsys)
    assert code == 0 and "finished the interrupted write of pid" in output, output
    assert (corpus / NEW).read_text(encoding="utf-8") == NEW_TEXT


def test_a_killed_write_is_finished_under_another_home(corpus: Path, tmp_path: Path) -> None:
    """Killed after its commit as one user (HOME, XDG_STATE_HOME), finished by the next command
    run as another, or with sudo, in a container, on another machine: the journal needs nothing
    but itself."""
    def survey(*args: str, home: str, fault: str = "") -> subprocess.CompletedProcess[str]:
        homes = {"HOME": str(tmp_path / home), "XDG_STATE_HOME": str(tmp_path / home / "state")}
        return survey_process(*args, "--corpus", str(corpus), env={**homes, "SURVEY_FAULT": fault})

    args = ("add", "--title", "Sharded Checkpoints", "--abstract", "We shard.")
    _, steps = counted(*args, "--corpus", str(shutil.copytree(corpus, tmp_path / "counted")))
    killed = survey(*args, home="one", fault=f"kill-after={steps.index('commit') + 1}")
    assert killed.returncode == -9 and (corpus / ".survey-write" / "manifest.json").is_file()
    checked = survey("check", home="another")
    assert checked.returncode == 0, checked.stderr
    assert "finished the interrupted write of pid" in checked.stdout
    assert (corpus / "papers" / "sharded-checkpoints.yaml").is_file()


def test_whoever_may_write_the_corpus_may_finish_its_interrupted_write(
        corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a write leaves (its folders, staged files, manifest) and the lock file take the
    corpus folder's permissions, whatever the writer's umask: another user of a group that
    shares the corpus may read the staged copies, rename them into place and remove the rest."""
    corpus.chmod(0o775)
    previous = os.umask(0o077)
    try:
        interrupt(corpus, monkeypatch)
    finally:
        os.umask(previous)
    staging = corpus / ".survey-write"
    modes = {str(p.relative_to(corpus)): stat.S_IMODE(p.stat().st_mode)
             for p in [staging, *staging.rglob("*"), corpus / ".survey-lock"]}
    assert modes == {".survey-write": 0o775, ".survey-write/files": 0o775,
                     ".survey-write/files/papers": 0o775, f".survey-write/files/{NEW}": 0o664,
                     ".survey-write/manifest.json": 0o664, ".survey-lock": 0o664}


def test_a_staged_copy_that_fails_its_hash_is_never_applied(corpus: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Not even when the target already holds the hash: the staged copy, whatever it holds, is
    never moved over the right file."""
    interrupt(corpus, monkeypatch)
    (corpus / NEW).write_text(NEW_TEXT, encoding="utf-8")
    (corpus / ".survey-write" / "files" / NEW).write_text("garbage: [not, what]\n", encoding="utf-8")
    output = refused(corpus, capsys)
    assert f"its staged copy of {NEW} is not what the write wrote" in output, output
    assert "none of it was applied" in output
    assert (corpus / NEW).read_text(encoding="utf-8") == NEW_TEXT


def test_a_half_applied_write_that_cannot_be_finished_is_never_called_removable(
        corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """One file renamed into place, the other's staged copy torn: what to do is restore the
    corpus, which removing the journal alone would leave half applied. A reader says the same
    as `survey check` will."""
    other = "papers/rewrite-the-stars.yaml"
    changed = (corpus / other).read_text(encoding="utf-8").replace("title: ", "title: Changed ", 1)
    interrupt(corpus, monkeypatch, [(NEW, NEW_TEXT), (other, changed)])
    os.replace(corpus / ".survey-write" / "files" / NEW, corpus / NEW)
    (corpus / ".survey-write" / "files" / other).write_text(changed[:40], encoding="utf-8")
    code, output = check(corpus, capsys)
    assert code == 1 and output.count("\n") == 1, output
    assert f"its staged copy of {other} is not what the write wrote" in output, output
    assert "1 of its 2 files were: the corpus is half applied. Restore them from git" in output, output
    assert main(["export", "--corpus", str(corpus)]) == 1
    assert capsys.readouterr().err.partition(": ")[2] == output.partition(": ")[2]


def test_a_failed_write_removes_no_staging_folder_it_did_not_make(corpus: Path) -> None:
    """Its rollback removes only what it made: not another's .survey-write/ (EEXIST)."""
    theirs = corpus / ".survey-write" / "files" / "papers" / "theirs.yaml"
    theirs.parent.mkdir(parents=True)
    theirs.write_text(NEW_TEXT, encoding="utf-8")
    with lock.CorpusLock(corpus), pytest.raises(SurveyError, match="File exists"):
        journal.commit(corpus, [(NEW, NEW_TEXT)])
    assert theirs.read_text(encoding="utf-8") == NEW_TEXT and not (corpus / NEW).exists()


def test_a_fifo_in_place_of_a_corpus_file_never_hangs_a_write(corpus: Path, tmp_path: Path) -> None:
    """`survey train` compared the model it wrote with the file in place through a plain read,
    which waits forever for a FIFO's writer, holding the corpus's lock."""
    labels = tmp_path / "labels.yaml"
    labels.write_text("papers:\n" + "".join(f"- {{slug: {s}, topics: [], split: tune}}\n" for s in PAPERS),
                      encoding="utf-8")
    (corpus / "topic_model.yaml").unlink()
    os.mkfifo(corpus / "topic_model.yaml")
    trained = survey_process("train", "--labels", str(labels), "--corpus", str(corpus), timeout=60)
    assert trained.returncode == 0, trained.stderr
    assert (corpus / "topic_model.yaml").is_file()


@pytest.mark.parametrize("manifest", [{"files": [1, "papers/x.yaml"]}, [], "x", {"files": {"a": 1}}],
                         ids=["entries not objects", "a list", "a string", "files a mapping"])
def test_a_malformed_manifest_is_refused_in_one_line(corpus: Path, capsys: pytest.CaptureFixture[str],
                                                     manifest: object) -> None:
    (corpus / ".survey-write").mkdir()
    (corpus / ".survey-write" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    refused(corpus, capsys)


def to_dev_zero(staging: Path, outside: Path) -> None:
    staged = next((staging / "files" / "papers").iterdir())
    staged.unlink()
    staged.symlink_to("/dev/zero")


def manifest_to_dev_zero(staging: Path, outside: Path) -> None:
    (staging / "manifest.json").unlink()
    (staging / "manifest.json").symlink_to("/dev/zero")


def manifest_a_fifo(staging: Path, outside: Path) -> None:
    (staging / "manifest.json").unlink()
    os.mkfifo(staging / "manifest.json")  # a read would wait for a writer forever


def to_a_file_outside(staging: Path, outside: Path) -> None:
    staged = next((staging / "files" / "papers").iterdir())
    (outside / staged.name).write_bytes(staged.read_bytes())  # the bytes the manifest names
    staged.unlink()
    staged.symlink_to(outside / staged.name)


def folder_outside(staging: Path, outside: Path) -> None:
    """The staged folder is a link to one outside: a rename from it moves an outside file in."""
    for staged in (staging / "files" / "papers").iterdir():
        staged.rename(outside / staged.name)
    (staging / "files" / "papers").rmdir()
    (staging / "files" / "papers").symlink_to(outside)


def target_folder_outside(staging: Path, outside: Path) -> None:
    """The corpus's papers/ folder is a link out of it: the rename would write there."""
    corpus = staging.parent
    shutil.copytree(corpus / "papers", outside / "papers")
    shutil.rmtree(corpus / "papers")
    (corpus / "papers").symlink_to(outside / "papers")


@pytest.mark.parametrize("tamper", [to_dev_zero, manifest_to_dev_zero, manifest_a_fifo, to_a_file_outside,
                                    folder_outside, target_folder_outside], ids=lambda f: f.__name__)
def test_no_link_is_followed_and_nothing_but_a_plain_file_read(
        corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tamper: Callable[[Path, Path], None]) -> None:
    """Even in a write survey committed: a link changed into it is refused, not followed."""
    interrupt(corpus, monkeypatch)
    outside = tmp_path / "outside"
    outside.mkdir()
    tamper(corpus / ".survey-write", outside)
    refused(corpus, capsys, outside)


IN_USE = ("is in use by another command: one reading it (survey check, mkdocs build or serve), or a "
          "writer starting; waited 0 s: run this again when it has finished")


@pytest.mark.parametrize(("text", "named"), [
    (json.dumps({"pid": 1, "command": ESCAPE + "done", "since": ESCAPE}),
     "is being changed by another survey command: pid 1 (`\\x1b[2K\\x1b[1A"),
    ("[" * 4000, IN_USE), ("\udcff", IN_USE)],
    ids=["terminal escapes", "nested 4,000 deep", "not UTF-8"])
def test_the_holder_a_waiting_writer_names_is_shown_in_one_line(
        corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str,
        named: str) -> None:
    """What the lock file says is anyone's text: shown escaped, or not at all."""
    with open(corpus / ".survey-lock", "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(text)
        fh.flush()
        fcntl.flock(fh, fcntl.LOCK_EX)  # held by another open file: as by another process
        monkeypatch.setenv("SURVEY_LOCK_WAIT", "0")
        assert main(["add", "--title", "T", "--abstract", "A.", "--corpus", str(corpus)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err, err
    assert named in err, err


def test_a_writer_waiting_on_a_reader_says_the_corpus_is_read(
        corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """It said "is being changed by another survey command", while nothing changed it."""
    monkeypatch.setenv("SURVEY_LOCK_WAIT", "0")
    with open(corpus / ".survey-lock", "ab") as fh:
        fcntl.flock(fh, fcntl.LOCK_SH)  # as survey check or mkdocs build holds it, in another process
        assert main(["add", "--title", "T", "--abstract", "A.", "--corpus", str(corpus)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("survey add: ") and err.endswith(f" {IN_USE}\n") and err.count("\n") == 1, err


# --- the lock ---------------------------------------------------------------------------------
def test_a_failed_write_of_the_holder_leaves_the_lock_free(corpus: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as m:
        m.setattr(os, "pwrite", full)
        with pytest.raises(SurveyError, match="No space left on device"), lock.CorpusLock(corpus):
            pass
    with lock.CorpusLock(corpus, wait=0):
        assert lock.held(corpus)


def test_a_file_system_without_locks_is_one_line(corpus: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def no_locks(fd: int, how: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))  # NFS without its lock daemon

    monkeypatch.setattr(fcntl, "flock", no_locks)
    assert main(["add", "--title", "T", "--abstract", "A.", "--corpus", str(corpus)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("survey add: cannot lock ") and "No locks available" in err
    assert not (corpus / "papers" / "t.yaml").exists()


def test_without_flock_nothing_is_written_unlocked(corpus: Path) -> None:
    """As on Windows: no lock, so no write (and no other writer's staging removed)."""
    script = ("import sys; sys.modules['fcntl'] = None\nfrom generator.cli.main import main\n"
              "sys.exit(main(sys.argv[1:]))")
    result = subprocess.run([sys.executable, "-c", script, "add", "--title", "T", "--abstract", "A.",
                             "--corpus", str(corpus)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "survey needs POSIX file locks (flock)" in result.stderr
    assert sorted(p.name for p in (corpus / "papers").iterdir()) == sorted(f"{s}.yaml" for s in PAPERS)


def waits_for(proc: subprocess.Popen[str], path: Path) -> None:
    """Return once the process has had the lock file `path` open for half a second: it takes
    the lock, which this process holds, so it waits; a reader that did not wait would have read
    the corpus by then (three files: 0.05 s). It had slept 2 s from the start (4 of the two
    tests' 5 s): Linux's /proc shows when it is there; elsewhere, that 2 s."""
    if not Path("/proc/self/fd").is_dir():
        time.sleep(2)
        return
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(OSError):  # a descriptor closed meanwhile
            if any(os.readlink(fd) == str(path) for fd in Path(f"/proc/{proc.pid}/fd").iterdir()):
                time.sleep(0.5)
                return
        time.sleep(0.01)
    pytest.fail(f"the reader never opened {path}")


@pytest.mark.parametrize("reader", ["check", "build"])
def test_a_reader_waits_for_a_writer_and_reads_the_corpus_after_it(corpus: Path, tmp_path: Path,
                                                                   reader: str) -> None:
    """A write half applied while the reader starts: a listing that names a paper not yet in (a
    build started during an import read it without its papers: a KeyError)."""
    project = make_project(tmp_path, corpus)
    corpus = project / "corpus"
    listing = ("slug: l\nname: L\nsource: text\norigin: o\nsha256: s\nentries:\n"
               "- paper: sharded-checkpoints\n  title: Sharded Checkpoints\n")
    command = (["-m", "generator", "check", "--corpus", str(corpus)] if reader == "check"
               else ["-m", "mkdocs", "build", "--strict"])
    with lock.CorpusLock(corpus):
        (corpus / "listings").mkdir()
        (corpus / "listings" / "l.yaml").write_text(listing, encoding="utf-8")
        started = subprocess.Popen([sys.executable, *command], cwd=project, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        waits_for(started, corpus / lock.LOCK)
        (corpus / NEW).write_text(NEW_TEXT, encoding="utf-8")
    out, err = started.communicate(timeout=300)
    assert started.returncode == 0, err
    if reader == "check":
        assert out.endswith("3 papers, 1 listings, 4 topics, 50 tags: all valid\n"), out
    else:
        assert (project / "site" / "papers" / "sharded-checkpoints" / "index.html").is_file()


def test_a_waiting_writer_is_not_starved_by_readers_that_keep_coming(corpus: Path) -> None:
    """Two readers whose shared locks overlap, each taking it again as soon as it lets go: never
    a moment without a reader. New readers queue behind a waiting writer."""
    loop = ("import sys, time; from generator.corpus.lock import CorpusLock\nprint('reading', flush=True)\n"
            "while True:\n    with CorpusLock(sys.argv[1], wait=60, shared=True):\n        time.sleep(0.4)")
    readers = []
    try:
        for _ in range(2):
            readers.append(subprocess.Popen([sys.executable, "-c", loop, str(corpus)], cwd=ROOT,
                                            stdout=subprocess.PIPE, text=True))
            assert readers[-1].stdout is not None and readers[-1].stdout.readline() == "reading\n"
            time.sleep(0.2)  # the second reader's lock overlaps the first's
        with lock.CorpusLock(corpus, wait=4):
            assert lock.held(corpus)
    finally:
        for reader in readers:
            reader.kill()
            reader.wait()

