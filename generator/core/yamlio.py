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


def _no_duplicate_keys(loader: Any, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        mark = key_node.start_mark
        if not isinstance(key, (str, int, bool, type(None))):
            raise yaml.constructor.ConstructorError(None, None, "a key must be text", mark)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {shorten(key)} appears twice", mark
            )
        seen[key] = True
    return loader.construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


TextLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicate_keys)


def _construct_object(loader: Any, node: yaml.Node, deep: bool = False) -> Any:
    """PyYAML's, with a value its tag cannot be (`!!float abc`, `!!timestamp 2024-02-30`: a
    ValueError traceback before) given as a malformed-YAML error at the value's line, and so an
    integer of more than 100 digits, which no corpus field holds: past 4,300 Python reads none,
    and one it reads (`0xfff...`, `1:2:3:...`) it cannot print in a message. One written in more
    than _LONGEST_INT characters is refused before it is built: PyYAML builds a base-60 one
    (`1:1:1:...`) in time squared in its length (a 1.2 MB file held survey check 159 s)."""
    if node.tag == _INT and isinstance(node, yaml.ScalarNode) and len(node.value) > _LONGEST_INT:
        raise yaml.constructor.ConstructorError(None, None, TOO_LONG_NUMBER, node.start_mark)
    try:
        value = _BaseLoader.construct_object(loader, node, deep)
    except ValueError as exc:
        problem = (TOO_LONG_NUMBER if "digits" in str(exc)
                   else f"not a valid {node.tag.rsplit(':', 1)[-1]}")
        raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark) from None
    if type(value) is int and not -_HUGE < value < _HUGE:
        raise yaml.constructor.ConstructorError(None, None, TOO_LONG_NUMBER, node.start_mark)
    return value


TOO_LONG_NUMBER = "a number of more than 100 digits"
_HUGE = 10**100
_LONGEST_INT = 400  # characters: room for 100 digits with signs, separators and a prefix
_INT = "tag:yaml.org,2002:int"


TextLoader.construct_object = _construct_object


class _AliasError(yaml.MarkedYAMLError):
    """A document that uses an alias: refused (see `_refuse_aliases`)."""


def _refuse_aliases(node: yaml.Node) -> None:
    """Refuse a document in which a node is reached twice, which only an alias (`*name`) does.

    An alias repeats what its anchor holds without writing it again: 21 lines of aliases of
    aliases stand for billions of items, which validating, printing or rewriting the record
    would expand (33 s and 2.5 GB before this). No corpus file needs one, so none may have one.
    The walk goes over the composed nodes, each once: its time follows the file's size.
    """
    seen: set[int] = set()
    todo = [node]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            raise _AliasError(None, None, "an alias (*name) repeats the value anchored here; corpus "
                                          "files allow no aliases: write the value out",
                              node.start_mark)
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                todo += (key, value)


def _get_single_data(loader: Any) -> Any:
    """PyYAML's `get_single_data` (compose, then construct), with the aliases refused between."""
    node = loader.get_single_node()
    if node is None:
        return None
    _refuse_aliases(node)
    return loader.construct_document(node)


TextLoader.get_single_data = _get_single_data


class _StarlessLoader(TextLoader):
    """For a text without a `*`, which can hold no alias (one is written `*name`): no walk.
    Most corpus files; the walk would add a third to the time of loading them."""

    get_single_data = _BaseLoader.get_single_data


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


def load_yaml(text: str, path: str) -> Any:
    with _malformed(path, text):
        return yaml.load(text, Loader=TextLoader if "*" in text else _StarlessLoader)


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
def _malformed(path: str, text: str = "") -> Iterator[None]:
    """PyYAML's errors as one CorpusError at the line and column."""
    try:
        yield
    except _AliasError as exc:
        mark = exc.problem_mark
        raise CorpusError(path, str(exc.problem), line=mark.line + 1 if mark else None,
                          column=mark.column + 1 if mark else None) from None
    except RecursionError:  # PyYAML without libyaml nests in Python (libyaml stops at 1,000)
        raise CorpusError(path, "malformed YAML: nested too deeply") from None
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
# 1.4 MB. Parsing a file costs some 150 times its size (a 16 MiB paper file took 2.5 GB), so a
# paper's file, at most 12.5 KB among the real ones, may hold no more than MAX_PAPER_BYTES:
# 80 times that, and a parse of 150 MB at most.
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
        return fh.read(limit + 1)


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
        data = fh.read(limit + 1)  # never more than the limit in memory, if it grew since
    if len(data) > limit:
        raise too_big(shown, len(data), limit)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(shown, f"not valid UTF-8 (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
