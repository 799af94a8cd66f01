#!/usr/bin/env python3
"""Run the benchmark: `python benchmarks/bench.py --help`; the modules are in survey_bench/."""

from __future__ import annotations

import sys

from survey_bench import snapshot

if __name__ == "__main__":
    # Before anything imports the generator: measure a copy of the sources (see snapshot.py).
    snapshot.use_snapshot()

from survey_bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
