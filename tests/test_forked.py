"""The render process: `mkdocs build` renders the pages in a forked second process and streams
them to MkDocs (generator/core/forked.py, StreamedFile in the adapter)."""

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
from conftest import ROOT, make_project, plugin_option

from generator.core.errors import SurveyError
from generator.core.forked import Forked
from generator.corpus import store
from generator.corpus.check import check_corpus
from generator.site.render import Site

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")


def describe(key: str, exc: BaseException) -> str:
    return f"{key}: {type(exc).__name__}: {exc}"


def fail(message: str) -> str:
    raise SurveyError(message)


def die() -> str:
    os.kill(os.getpid(), signal.SIGKILL)
    return "never"


@needs_fork
def test_results_come_whole_in_any_order_they_are_taken() -> None:
    big = "ß<kernel> {{ x }} $ |\n" * 400_000  # some 9 MB: far beyond a pipe's buffer
    jobs = [("a.md", lambda: "first"), ("b.md", lambda: big), ("c.md", lambda: "")]
    stream = Forked(jobs, describe)
    try:
        assert stream.take("c.md") == ""
        assert stream.take("a.md") == "first"
        assert stream.take("b.md") == big
        with pytest.raises(SurveyError, match=r"made no a\.md"):
            stream.take("a.md")  # handed over once, then forgotten
        stream.finish()
    finally:
        stream.close()
    assert stream._status == 0


@needs_fork
def test_posted_items_are_done_in_the_child_in_order_before_finish_returns(tmp_path: Path) -> None:
    done = tmp_path / "done.txt"

    def after(item: str) -> None:
        with done.open("a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()} {item}\n")

    stream = Forked([("a.md", lambda: "x")], describe, after=after)
    try:
        for item in ("one", "zwei ü", "three"):
            stream.post(item)  # before the jobs are taken: they wait in the pipe
        assert stream.take("a.md") == "x"
        stream.finish()
    finally:
        stream.close()
    assert done.read_text(encoding="utf-8").splitlines() == [
        f"{stream.pid} one", f"{stream.pid} zwei ü", f"{stream.pid} three"]
    assert stream._status == 0


@needs_fork
def test_a_failing_item_fails_finish_with_its_one_line() -> None:
    def after(item: str) -> None:
        raise OSError(f"cannot rewrite {item}")

    stream = Forked([], describe, after=after)
    try:
        stream.post("site/a/index.html")
        with pytest.raises(SurveyError, match=r"^site/a/index\.html: OSError: cannot rewrite"):
            stream.finish()
    finally:
        stream.close()
    assert stream._status == 1


@needs_fork
def test_a_failing_job_is_reported_as_its_one_line_and_what_came_before_stays() -> None:
    jobs = [("a.md", lambda: "fine"), ("b.md", lambda: fail("corpus/x.yaml: field 'title': empty")),
            ("c.md", lambda: "never")]
    stream = Forked(jobs, describe)
    try:
        for key in ("b.md", "c.md"):
            with pytest.raises(SurveyError) as caught:
                stream.take(key)
            assert str(caught.value) == "b.md: SurveyError: corpus/x.yaml: field 'title': empty"
        assert stream.take("a.md") == "fine"
    finally:
        stream.close()
    assert stream._status == 1


@needs_fork
def test_a_child_that_dies_is_reported_not_waited_for() -> None:
    stream = Forked([("a.md", lambda: "fine"), ("b.md", die)], describe)
    try:
        with pytest.raises(SurveyError, match=r"ended before it made b\.md \(killed by signal 9\)"):
            stream.take("b.md")
        assert stream.take("a.md") == "fine"
    finally:
        stream.close()


@needs_fork
def test_close_stops_a_child_still_at_work() -> None:
    stream = Forked([("slow.md", lambda: time.sleep(600) or "late")], describe)
    started = time.monotonic()
    stream.close()
    assert time.monotonic() - started < 30
    assert stream._status == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):
        os.kill(stream.pid, 0)


@needs_fork
@pytest.mark.slow
def test_the_build_renders_in_a_second_process_on_two_cores(tmp_path: Path) -> None:
    """What a build with the render process writes is checked against one without it by
    test_site.py's test_two_builds_are_byte_identical; here, that the build does fork."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the build renders in its own process")
    project = make_project(tmp_path)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--verbose"],
                            cwd=project, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    found = re.search(r"survey: rendering (\d+) pages and files in a second process", result.stderr)
    assert found, result.stderr
    corpus, problems = check_corpus(project / "corpus")
    assert not problems
    site = Site(corpus, project / "templates")
    assert int(found.group(1)) == len(site.page_jobs()) + len(site.file_jobs())
    plugin_option(project, "render_process: false")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--verbose"],
                            cwd=project, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    assert "in a second process" not in result.stderr


@needs_fork
def test_a_corpus_parsed_in_two_processes_is_the_one_parsed_in_one(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """load_corpus(processes=2), as the build runs it: the same records in the same order, and
    the same problems, whichever half of the files they are in."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus", corpus)
    papers = sorted((corpus / "papers").glob("*.yaml"))
    first, last = papers[0], papers[-1]
    first.write_text(first.read_text(encoding="utf-8").replace("title:", "title: [", 1), encoding="utf-8")
    last.write_text(last.read_text(encoding="utf-8").replace("slug:", "slug: other-", 1), encoding="utf-8")
    one_corpus, one_problems = check_corpus(corpus)
    monkeypatch.setattr(store, "SPLIT_MIN", 0)
    forks: list[int] = []
    real_fork = os.fork

    def counted_fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted_fork)
    two_corpus, two_problems = check_corpus(corpus, processes=2)
    assert len(forks) == 2  # papers/ and listings/
    assert list(two_corpus.papers) == list(one_corpus.papers)
    assert two_corpus.papers == one_corpus.papers and two_corpus.listings == one_corpus.listings
    assert [str(p) for p in two_problems] == [str(p) for p in one_problems]
    assert [type(p) for p in two_problems] == [type(p) for p in one_problems]
    assert first.name in str(one_problems[0]) and last.stem in " ".join(map(str, one_problems))


@needs_fork
def test_the_plugin_renders_apart_only_in_a_build_without_other_threads() -> None:
    import threading

    from generator.adapter.mkdocs_plugin import SurveyPlugin

    plugin = SurveyPlugin()
    errors, _ = plugin.load_config({})
    assert not errors
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    plugin.on_startup(command="build", dirty=False)
    assert plugin._render_apart() == (cores >= 2 and threading.active_count() == 1)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not plugin._render_apart()
    finally:
        stop.set()
        other.join()
    plugin.config["render_process"] = False
    assert not plugin._render_apart()
    plugin.config["render_process"] = True
    plugin.on_startup(command="serve", dirty=False)
    try:
        assert not plugin._render_apart()
    finally:
        plugin.on_shutdown()
