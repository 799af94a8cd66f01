"""The real corpus: Hugging Face's daily papers (../shared/real/), imported as a user would.

The repository's corpus (the seed papers) is copied into a temporary folder and the real file,
decompressed there, is imported into it with `survey import`: its time and peak memory, then
those of a second import of the same file (which must change no byte) and of `survey check`.
The corpus it gives is then measured as any other (`measure.measure_corpus`).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .launch import Measured
from .measure import measure_corpus
from .progress import say
from .snapshot import ROOT, SRC, subprocess_env

REAL_FILE = ROOT.parent / "shared" / "real" / "hf-daily-papers-2024-05-to-2026-08.json.gz"


def run(cmd: list[str], cwd: Path) -> dict[str, Any]:
    """One command in a fresh subprocess: wall time, its own peak RSS, its output."""
    t0 = time.perf_counter()
    run = Measured(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env())
    # Read the pipes only after it ends (the outputs here are a few KB, below the pipe buffer).
    code, peak_mb, _ = run.wait()
    seconds = time.perf_counter() - t0
    out, err = run.proc.stdout.read().decode(), run.proc.stderr.read().decode()  # type: ignore[union-attr]
    if code != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({code}):\n{out[-2000:]}{err[-2000:]}")
    return {"seconds": seconds, "peak_mb": peak_mb, "stdout": out}


def tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def measure_real(args: argparse.Namespace) -> dict[str, Any]:
    source = Path(args.real)
    work = Path(tempfile.mkdtemp(prefix="survey-bench-real-", dir=args.workdir))
    try:
        data = work / "daily-papers.json"
        with gzip.open(source) as src, data.open("wb") as dst:
            shutil.copyfileobj(src, dst)
        corpus = work / "corpus"
        shutil.copytree(SRC / "corpus", corpus)
        survey = [sys.executable, "-m", "generator"]
        say(f"[real] survey import {source.name} into a copy of the repository's corpus")
        first = run([*survey, "import", str(data), "--corpus", str(corpus)], work)
        summary = first["stdout"].splitlines()[0]
        say(f"[real] import: {first['seconds']:.1f} s, peak {first['peak_mb']:.0f} MB: {summary}")
        papers = sum(1 for _ in (corpus / "papers").glob("*.yaml"))
        facts = {"papers": papers, "source": source.name, "import_summary": summary}
        if args.only:  # no second import, no check: only what --only names
            return {"kind": "real", **measure_corpus(work, facts, args)}
        before = tree_digest(corpus)
        again = run([*survey, "import", str(data), "--corpus", str(corpus)], work)
        unchanged = tree_digest(corpus) == before
        say(f"[real] import again: {again['seconds']:.1f} s, peak {again['peak_mb']:.0f} MB, "
            f"{'no byte changed' if unchanged else 'FILES CHANGED'}")
        check = run([*survey, "check", "--corpus", str(corpus)], work)
        say(f"[real] check: {check['seconds']:.1f} s, peak {check['peak_mb']:.0f} MB")
        result = measure_corpus(work, facts, args)
        result.update(
            kind="real", import_s=first["seconds"], import_peak_mb=first["peak_mb"],
            reimport_s=again["seconds"], reimport_peak_mb=again["peak_mb"],
            reimport_unchanged=unchanged, check_cmd_s=check["seconds"],
            check_peak_mb=check["peak_mb"],
        )
        return result
    finally:
        if args.keep:
            say(f"[real] kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
