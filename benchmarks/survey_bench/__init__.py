"""The scale benchmark, one module per thing it measures; `benchmarks/bench.py` runs it."""
