"""YAML as the corpus uses it.

YAML is loaded safely (no Python objects), with libyaml's C parser when it is installed, and
with scalars kept as text (an arXiv id such as 2104.07850 never turns into a number). Aliases
are refused, and so is a key given twice. Files are written in one canonical form,
so load -> write gives the same bytes, with libyaml's C emitter when it is installed: eight
times faster than PyYAML's, and the same bytes (checked on 9,000 real paper files).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from .errors import CorpusError
from .text import shorten

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class TextLoader(_BaseLoader):  # type: ignore[misc]
    """Safe loader that resolves only null, booleans and integers; everything else stays text."""


TextLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag.rsplit(":", 1)[-1] in ("null", "bool", "int")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


_STR, _INT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int"
_SCALARS = {f"tag:yaml.org,2002:{kind}" for kind in ("null", "bool", "int", "float", "binary", "timestamp")}
_COLLECTIONS = (None, "!", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map")
TOO_LONG_NUMBER = "a number of more than 100 digits"
_HUGE = 10**100
_LONGEST_INT = 400  # characters: room for 100 digits with signs, separators and a prefix
ALIAS = "an alias (*name) repeats the value anchored here; corpus files allow no aliases: write the value out"
# What the values built from a text may take: COST times its size, plus SLACK for a small file's
# few values (an empty list is 56 bytes of Python written in 2 characters).
COST, SLACK = 10, 2**16
MAX_DEPTH = 1000
# The most items a list of a corpus file may hold (a listing's entries: real max 9,109). Counted
# as the list is read: 2.8 million null entries (8 MiB) were read whole, 26 s, before a count
# refused them.
MAX_LIST = 200_000


def build(loader: Any, longest: int = MAX_LIST) -> Any:
    """The value of the next node of loader's events and all it holds, built from the parser's
    events with no tree of nodes between (nodes and their marks cost 17 times the size of a real
    listing, and up to 220 times for crafted input). The values may take at most COST times the
    text they are built from, plus SLACK: past that the file is refused at the line reached, so no
    file costs more than about ten times its size. Also refused at their line: an alias (it repeats
    its anchor's value unwritten: 21 lines of aliases of aliases stand for billions of items), a key
    given twice or that is a list or mapping, a tag on a list or mapping (`!!set`, `!!python/...`),
    a list of more than `longest` items."""
    start = loader.peek_event().start_mark.index
    anchors: dict[Any, Any] = {}
    stack: list[Any] = []  # the lists and mappings being built, innermost last
    keys: list[Any] = []  # for each of them, the key that waits for its value (_NO_KEY: none)
    spent = 0
    while True:
        event = loader.get_event()
        if isinstance(event, yaml.AliasEvent):
            raise _error(ALIAS, anchors.get(event.anchor, event.start_mark), _Refused)
        if getattr(event, "anchor", None) is not None:  # a node (not an end) given a name
            anchors[event.anchor] = event.start_mark
        if stack and len(stack[-1]) == longest and isinstance(stack[-1], list) and isinstance(
                event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):  # refused where its item starts
            raise _error(f"a list of more than {longest:,} items, the most a list of this file may hold; "
                         f"not read", event.start_mark, _Refused)
        if isinstance(event, yaml.ScalarEvent):
            value = _scalar(loader, event)
        elif isinstance(event, yaml.CollectionStartEvent):
            if event.tag not in _COLLECTIONS:
                raise _error(f"could not determine a constructor for the tag {event.tag!r}", event.start_mark)
            if len(stack) == MAX_DEPTH:  # as libyaml; PyYAML's own parser has no limit
                raise _error("nested too deeply", event.start_mark)
            stack.append([] if isinstance(event, yaml.SequenceStartEvent) else {})
            keys.append(_NO_KEY)
            continue
        else:  # the end of the innermost list or mapping
            keys.pop()
            value = stack.pop()
        top = stack[-1] if stack else None
        if isinstance(top, dict) and keys[-1] is _NO_KEY:
            if not isinstance(value, (str, int, bool, type(None))):
                raise _error("a key must be text", event.start_mark)
            if value in top:
                raise _error(f"the key {shorten(value)} appears twice", event.start_mark)
            # Keys repeat in every entry of a list: one copy of each is kept and counted.
            keys[-1] = sys.intern(value) if isinstance(value, str) else value
            spent += 0 if keys[-1] is not value else sys.getsizeof(value)
        else:
            spent += sys.getsizeof(value)
            if top is None:
                return value
            if isinstance(top, list):
                top.append(value)
            else:
                top[keys[-1]], keys[-1] = value, _NO_KEY
        if spent > COST * (event.end_mark.index - start) + SLACK:
            raise _error(f"too many small values: they would take more than {COST} times the file's size "
                         f"in memory; not read", event.start_mark, _Refused)


_NO_KEY = object()


class _Refused(yaml.MarkedYAMLError):
    """Well-formed YAML refused for what it holds (see `build`): its own words, not "malformed"."""


def _error(problem: str, mark: Any, kind: type[yaml.MarkedYAMLError] = yaml.constructor.ConstructorError,
           ) -> yaml.MarkedYAMLError:
    return kind(None, None, problem, mark)


def _scalar(loader: Any, event: yaml.ScalarEvent) -> Any:
    """A scalar's value: text, but null, booleans and integers (TextLoader's resolvers) and what
    an explicit tag of a scalar kind makes it (`!!float 1.5`). A value its tag cannot be (`!!float
    abc`, `!!timestamp 2024-02-30`) is a malformed-YAML error at its line, and so is an integer of
    more than 100 digits, which no corpus field holds: past 4,300 Python reads none, and one it
    reads (`0xfff...`) no message could print. One written in more than _LONGEST_INT characters is
    refused unbuilt: PyYAML builds a base-60 one (`1:1:1:...`) in time squared in its length."""
    tag = event.tag
    if tag is None or tag == "!":
        tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag == _STR:
        return event.value
    if tag == _INT and len(event.value) > _LONGEST_INT:
        raise _error(TOO_LONG_NUMBER, event.start_mark)
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)  # type: ignore[arg-type]
    try:
        value = loader.yaml_constructors[tag if tag in _SCALARS else None](loader, node)
    except (ValueError, KeyError) as exc:  # KeyError: `!!bool abc`
        problem = TOO_LONG_NUMBER if "digits" in str(exc) else f"not a valid {tag.rsplit(':', 1)[-1]}"
        raise _error(problem, event.start_mark) from None
    if type(value) is int and not -_HUGE < value < _HUGE:
        raise _error(TOO_LONG_NUMBER, event.start_mark)
    return value


class CanonicalDumper(_BaseDumper):  # type: ignore[misc]
    """Long one-line texts are folded (`>-`) so they stay readable and diff well."""


def _represent_str(dumper: Any, value: str) -> yaml.ScalarNode:
    if len(value) > 72 and "\n" not in value and _folds_safely(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=">")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _folds_safely(value: str) -> bool:
    out = yaml.dump({"v": value}, Dumper=_PlainDumper, default_style=">", width=WIDTH, allow_unicode=True)
    try:
        return bool(yaml.load(out, Loader=TextLoader)["v"] == value)
    except yaml.YAMLError:
        return False


class _PlainDumper(_BaseDumper):  # type: ignore[misc]
    pass


CanonicalDumper.add_representer(str, _represent_str)
WIDTH = 88


def dump_yaml(data: Any) -> str:
    return yaml.dump(
        data, Dumper=CanonicalDumper, sort_keys=False, allow_unicode=True, width=WIDTH,
        default_flow_style=False, indent=2,
    )


def load_yaml(text: str, path: str, longest: int = MAX_LIST) -> Any:
    """The one document of text (None for none), built by `build` (no list of more than
    `longest` items)."""
    loader = TextLoader(text)
    try:
        with yaml_errors(path, text):
            loader.get_event()  # the stream's start
            if loader.check_event(yaml.StreamEndEvent):
                return None
            loader.get_event()  # the document's start
            value = build(loader, longest)
            loader.get_event()  # the document's end
            if not loader.check_event(yaml.StreamEndEvent):
                raise yaml.composer.ComposerError(None, None, "a second document after the first",
                                                  loader.peek_event().start_mark)
            return value
    finally:
        loader.dispose()


# A hand-written `title: KV: a cache` or `title: {{ x }} kernels`: a plain value of text that YAML
# reads as markup (a second `: `, a `{{`, a reserved first character). A value that opens a list
# or a mapping (`[`, `{`) is left to the parser's words: quoting would make it text.
# The parser's words ("mapping values are not allowed here") do not say that quotes fix it.
_PLAIN_FIELD = re.compile(r"\s*(?:- )?([A-Za-z_][\w-]*):[ \t]+([^'\"\s].*)")


def _quote_hint(text: str, line: int) -> tuple[str | None, str]:
    """The field of a line whose plain value YAML misreads, and how to write it (or None, "")."""
    lines = text.splitlines()
    match = _PLAIN_FIELD.fullmatch(lines[line]) if 0 <= line < len(lines) else None
    if match is None:
        return None, ""
    key, value = match.groups()
    if ": " not in value and not value.startswith("{{") and value[0] not in "@`%":
        return None, ""
    quoted = value.replace("'", "''")
    return key, f"; put the value in quotes: {key}: '{quoted if len(quoted) <= 60 else quoted[:57] + '...'}'"


@contextlib.contextmanager
def yaml_errors(path: str, text: str = "") -> Iterator[None]:
    """PyYAML's errors as one CorpusError at the line and column."""
    try:
        yield
    except _Refused as exc:
        mark: Any = exc.problem_mark
        raise CorpusError(path, str(exc.problem), line=mark.line + 1, column=mark.column + 1) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "malformed YAML").split())
        if exc.context and exc.context_mark and exc.problem:
            start = exc.context_mark
            problem = (f"{' '.join(exc.context.split())} that starts at line {start.line + 1}, "
                       f"column {start.column + 1}: {problem}")
        key, hint = _quote_hint(text, mark.line) if mark else (None, "")
        raise CorpusError(
            path, f"malformed YAML: {problem}{hint}", field=key,
            line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise CorpusError(path, f"malformed YAML: {' '.join(str(exc).split())}") from None


# The largest corpus file read: the largest real one, the listing of the 9,109 real papers, is
# 1.4 MB. A paper's file, at most 12.5 KB among the real ones, may hold no more than
# MAX_PAPER_BYTES, 80 times that: a file no paper fills (its fields are bounded, corpus/model.py)
# is refused before it is parsed, which would take up to ten times its size (`build`).
MAX_FILE_BYTES = 64 * 2**20
MAX_PAPER_BYTES = 2**20
LINK = "is a symbolic link; not read (corpus files must be plain files: a link may point out of the corpus)"
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)  # where the system has them


class NotPlain(Exception):
    """What is at a path is not a plain file (a folder, a FIFO, a device)."""


def plain_file(path: Path) -> BinaryIO:
    """The plain file at path, open for reading, never through a link. OSError where it cannot
    be opened (a link among them: the caller tells it by os.path.islink), NotPlain for anything
    but a plain file: a FIFO would wait forever, /dev/zero never ends."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW)
    fh = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        fh.close()
        raise NotPlain(path)
    return fh


def plain_bytes(path: Path, limit: int) -> bytes:
    """At most limit + 1 bytes of the plain file at path (one more than allowed shows it is too
    long); OSError or NotPlain as plain_file."""
    with plain_file(path) as fh:
        return _read_at_most(fh, limit)


def _read_at_most(fh: BinaryIO, limit: int) -> bytes:
    """At most limit + 1 bytes of an open file, read as far as its size and then on to the
    limit if it grew since (never more than the limit in memory). `read(limit + 1)` allocates
    its 64 MiB at once, for a file of a few bytes."""
    size = os.fstat(fh.fileno()).st_size
    data = fh.read(min(size, limit) + 1)
    if len(data) > size:
        data += fh.read(limit + 1 - len(data))
    return data


def open_plain(path: Path, shown: str, limit: int = MAX_FILE_BYTES) -> BinaryIO:
    """plain_file, with what stops it as one line, and a file over limit refused unread."""
    try:
        fh = plain_file(path)
    except NotPlain:
        raise CorpusError(shown, "is not a plain file; not read") from None
    except OSError as exc:
        if os.path.islink(path):
            raise CorpusError(shown, LINK) from None
        raise CorpusError(shown, f"cannot read: {exc.strerror}") from None
    size = os.fstat(fh.fileno()).st_size
    if size > limit:
        fh.close()
        raise too_big(shown, size, limit)
    return fh


def too_big(shown: str, size: int, limit: int) -> CorpusError:
    what = "a paper's file" if limit == MAX_PAPER_BYTES else "a corpus file"
    return CorpusError(shown, f"the file is {size:,} bytes, over {limit // 2**20} MiB, the most {what} may "
                              f"hold; not read")


def read_text(path: Path, shown: str, limit: int = MAX_FILE_BYTES) -> str:
    """A corpus file's text. A link is refused unread (it may point out of the corpus, at
    /etc/shadow), and so is anything but a plain file (opening a FIFO would wait forever), and
    a file over limit."""
    with open_plain(path, shown, limit) as fh:
        data = _read_at_most(fh, limit)
    if len(data) > limit:
        raise too_big(shown, len(data), limit)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(shown, f"not valid UTF-8 (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
