"""Files of records read one record at a time, in bounded memory: a YAML list (`yaml_items`)
or a CSV table (`csv_rows`). Built whole, a 16 MiB list of `survey review --apply` decisions took
2.0 GB (YAML) and 1.1 GB (CSV) before its first record was checked; read here, a record is
checked as it is read and the file costs about its own size.
"""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterator
from typing import Any, BinaryIO

import yaml

from .errors import CorpusError
from .yamlio import TextLoader, build, yaml_errors


def yaml_items(stream: BinaryIO, path: str, shape: str) -> Iterator[tuple[int, Any]]:
    """Each item of the YAML list in stream and its line, read and built one at a time: the
    list is never held whole (built at once, a 16 MiB file took 2.0 GB). Refused as load_yaml
    refuses (an alias, a key twice, a huge number); an empty document is no item,
    and any other document than a list is refused with `shape` (what the list must be)."""
    loader = TextLoader(stream)
    try:
        with yaml_errors(path):
            loader.get_event()  # the stream's start
            if loader.check_event(yaml.StreamEndEvent):
                return
            loader.get_event()  # the document's start
            first = loader.peek_event()
            if isinstance(first, yaml.ScalarEvent) and first.tag is None and loader.resolve(
                    yaml.ScalarNode, first.value, first.implicit) == "tag:yaml.org,2002:null":
                return
            if not isinstance(first, yaml.SequenceStartEvent):
                raise CorpusError(path, shape, line=first.start_mark.line + 1)
            loader.get_event()
            while not loader.check_event(yaml.SequenceEndEvent):
                yield loader.peek_event().start_mark.line + 1, build(loader)
            loader.get_event(), loader.get_event()  # the list's end, the document's end
            if not loader.check_event(yaml.StreamEndEvent):
                raise CorpusError(path, "malformed YAML: a second document after the list",
                                  line=loader.peek_event().start_mark.line + 1)
    finally:
        loader.dispose()


# A CSV row of survey export --format csv holds at most some 20,000 characters (an abstract of
# 10,000, authors); no row of a decisions file is near this many.
MAX_ROW = 2**20


def csv_rows(stream: BinaryIO, path: str) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """The first row of a CSV file (the columns' names), and then each later row with its line,
    read a row at a time (a row over MAX_ROW characters is refused, so one never costs more)."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    taken = 0

    def lines() -> Iterator[str]:
        nonlocal taken
        while line := text.readline(MAX_ROW + 1):
            taken += len(line)
            if taken > MAX_ROW:
                raise CorpusError(path, f"a row of more than {MAX_ROW:,} characters: not a table of "
                                        f"decisions; not read", line=reader.line_num + 1)
            yield line

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        nonlocal taken
        with _unreadable(path, reader):
            for row in reader:
                taken = 0
                yield reader.line_num, row

    reader = csv.DictReader(lines())
    with _unreadable(path, reader):
        header = list(reader.fieldnames or [])
    taken = 0
    return header, rows()


@contextlib.contextmanager
def _unreadable(path: str, reader: csv.DictReader[str]) -> Iterator[None]:
    try:
        yield
    except csv.Error as exc:
        raise CorpusError(path, f"not CSV: {exc}", line=reader.line_num) from None
    except UnicodeDecodeError:
        raise CorpusError(path, "not valid UTF-8", line=reader.line_num + 1) from None
