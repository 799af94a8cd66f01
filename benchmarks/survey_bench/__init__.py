"""The scale benchmark, one module per thing it measures; `benchmarks/bench.py` runs it.

- snapshot: the copy of the sources a run measures (made before the generator is imported),
  the environment of every subprocess, the commit measured;
- synthetic: a seeded, valid synthetic corpus of N papers;
- stages: the generator alone, stage by stage, in this process;
- builds: the full `mkdocs build` against the floor (MkDocs without the plugin): time, CPU
  time and each build's own peak memory;
- sizes: bytes on disk: the site and its search index per paper;
- serve: one paper edited under `mkdocs serve --dirty`, the rebuild timed;
- real: the real corpus (../shared/real/), imported into a copy of the corpus, then measured;
- report: the table, the targets and their verdicts;
- measure: one corpus measured, whatever wrote it (`measure_corpus`), and a synthetic one
  (`measure_size`);
- cli: the command line.

To add a measurement, add a module. One that runs on the built sites (timings in a browser)
is a function `(Built, args) -> dict` listed in `measure.SITE_MEASUREMENTS`; one that measures
another corpus (the real one) writes it into a folder's `corpus/` and calls
`measure.measure_corpus`, from `cli.measure_all`. Options go in `cli.parse_args`, columns in
`report.COLUMNS`, and docs/benchmark.md says what each column means. No module imports one
that imports it (tests/test_layout.py): `measure` sits below both `cli` and `real`.
"""
