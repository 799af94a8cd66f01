"""The benchmark's own parts: its synthetic corpus is valid and the same every time."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import ROOT, snapshot

from generator.corpus.check import check_corpus

sys.path.insert(0, str(ROOT / "benchmarks"))

from survey_bench.report import table
from survey_bench.synthetic import synthesise


def test_synthetic_corpus_is_valid_and_seeded(tmp_path):
    facts = synthesise(tmp_path / "a" / "corpus", 60, seed=7, listings=3)
    synthesise(tmp_path / "b" / "corpus", 60, seed=7, listings=3)
    synthesise(tmp_path / "c" / "corpus", 60, seed=8, listings=3)
    assert facts["papers"] == 60 and facts["listings"] == 3
    corpus, problems = check_corpus(tmp_path / "a" / "corpus")
    assert [str(p) for p in problems] == []
    assert len(corpus.papers) == 60
    a, b, c = (snapshot(tmp_path / x / "corpus") for x in "abc")
    assert a == b
    assert a != c


def test_table_leaves_out_columns_no_row_has():
    row = {"size": 1000, "full_s": 9.5, "floor_s": 8.25, "ratio": 9.5 / 8.25}
    lines = table([row, {**row, "size": 3000, "render_s": 1.5}]).splitlines()
    assert lines[0] == "| papers | render s | full s | floor s | full/floor |"
    assert lines[2] == "| 1000 | - | 9.50 | 8.25 | 1.152 |"
    assert lines[3] == "| 3000 | 1.50 | 9.50 | 8.25 | 1.152 |"


def test_a_measured_command_reports_its_own_peak_memory():
    """A child of a large process reports that process's peak (Linux keeps it across fork and
    exec); through the launcher it reports its own. Compared only with what this test touches
    and with this process's own peak, never with figures of a machine."""
    import os
    import resource
    import subprocess

    from survey_bench.launch import Measured

    ballast = bytearray(400 * 1024 * 1024)  # this process now holds 400 MB more
    ballast[:: 4096] = b"x" * len(ballast[:: 4096])
    own_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    small = [sys.executable, "-c", "pass"]
    big = [sys.executable, "-c", "b = bytearray(250 * 2**20); b[::4096] = b'x' * len(b[::4096])"]
    code, small_mb, _ = Measured(small, stdout=subprocess.DEVNULL).wait()
    assert code == 0 and small_mb < own_mb - 400
    code, big_mb, cpu = Measured(big).wait()
    assert code == 0 and cpu > 0
    assert big_mb - small_mb >= 250 * 0.97 and big_mb < own_mb  # its own 250 MB, not this peak
    assert Measured([sys.executable, "-c", "raise SystemExit(3)"]).wait()[0] == 3
    proc = subprocess.Popen(small)
    _, _, usage = os.wait4(proc.pid, 0)
    assert usage.ru_maxrss / 1024 >= own_mb  # what a plain wait4 reports: this peak
    del ballast


def test_a_measured_command_counts_a_second_process_running_beside_it():
    """A command with a child beside it (a build and its Pagefind): the peak counts the two
    processes' memory at once, not the larger one's alone (which is all wait4 gives). Both
    stay alive until the test has seen them, so no sampling interval decides the result."""
    import subprocess
    import time

    from survey_bench.launch import Measured, tree_pss_mb

    script = ("import os, sys\n"
              "a = bytearray(200 * 2**20); a[::4096] = b'x' * len(a[::4096])\n"
              "if os.fork() == 0:\n"
              "    b = bytearray(250 * 2**20); b[::4096] = b'x' * len(b[::4096])\n"
              "    print('child', flush=True); sys.stdin.read(); os._exit(0)\n"
              "print('parent', flush=True); sys.stdin.read(); os.wait()\n")
    run = Measured([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert run.proc.stdout is not None and run.proc.stdin is not None
    assert sorted(run.proc.stdout.readline().strip() for _ in range(2)) == [b"child", b"parent"]
    both = 0.97 * (200 + 250)  # the parent's 200 MB are shared with the child: counted once
    assert tree_pss_mb(run.proc.pid, itself=False) >= both
    deadline = time.monotonic() + 60
    while run.tree_peak_mb < both and time.monotonic() < deadline:
        time.sleep(0.1)
    run.proc.stdin.close()
    code, peak_mb, _ = run.wait()
    assert code == 0 and peak_mb >= both


@pytest.mark.slow
def test_the_floor_has_the_same_search_index_step(tmp_path):
    """The floor is MkDocs without the plugin, then the plugin's own Pagefind run on its site:
    both sites have a search index, and the floor's time and memory count it."""
    from survey_bench.builds import floor_build, make_projects, mkdocs_build

    synthesise(tmp_path / "corpus", 30, seed=3, listings=2)
    full, floor = make_projects(tmp_path, tmp_path / "corpus")
    b = floor_build(floor, tmp_path / "site-floor", tmp_path / "floor.log")
    assert (tmp_path / "site-floor" / "pagefind" / "pagefind-entry.json").is_file()
    assert b["search_index_s"] is not None and b["search_index_s"] > 0
    assert b["seconds"] > b["mkdocs_s"] > 0 and b["cpu_s"] > b["mkdocs_cpu_s"]
    assert b["peak_mb"] == max(b["mkdocs_peak_mb"], b["index_peak_mb"])
    f = mkdocs_build(full, tmp_path / "site-full", tmp_path / "full.log")
    assert f["search_index_s"] is not None
    def pages(site: str) -> set[Path]:
        return {p.relative_to(tmp_path / site) for p in (tmp_path / site).rglob("*.html")}

    assert pages("site-full") == pages("site-floor")
    indexed = [json.loads(p.read_text())["languages"]["en"]["page_count"]
               for p in (tmp_path / "site-full" / "pagefind" / "pagefind-entry.json",
                         tmp_path / "site-floor" / "pagefind" / "pagefind-entry.json")]
    assert indexed[0] == indexed[1] > 30
