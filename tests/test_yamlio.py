"""core.yamlio: the fast construction of a loaded document gives what PyYAML's constructor gives."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from conftest import ROOT

from generator.core.errors import CorpusError
from generator.core.yamlio import TextLoader, load_yaml


class _PyYamlLoader(TextLoader):
    """The same loader, with PyYAML's own construction of every node."""

    construct_document = yaml.constructor.BaseConstructor.construct_document


def _reference(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_PyYamlLoader)
    except Exception as exc:  # a list as a key is a TypeError, in both
        return type(exc), str(exc)


def _loaded(text: str) -> Any:
    try:
        return yaml.load(text, Loader=TextLoader)
    except Exception as exc:  # a list as a key is a TypeError, in both
        return type(exc), str(exc)


DOCUMENTS = [
    "", "a", "- 1\n- x", "a: 1\nb: yes\nc: null\nd: ~\ne: 2021-01-01\nf: 1.5\ng: 0x1F\nh: 1_000\ni: '3'",
    "a: 1\na: 2", "a:\n  b: 1\n  b: 2", "1: x\n'1': y", "1: x\n01: y", "true: x\nyes: y", "? [a]\n: 1",
    "a: &x [1, 2]\nb: *x", "a: &x {k: v}\nb: *x", "&a [*a]", "&a {x: *a}", "a: &s text\nb: *s",
    "<<: {a: 1}\nb: 2", "!!merge <<: {a: 1}\nb: 2", "a: !!int abc\na: 2", "a: !!binary aGVsbG8=",
    "a: !!set {x, y}", "a: !!omap [x: 1]", "=: 3", "!!value =: 3", "a: !!str 12", "!!map {a: 1}",
    "a: [1, {b: [c, d: e]}]", "a: !custom x", "{a: 1, a: 1}", "a: !!float 1", "[a, b]: 1",
    "null: 1\n~: 2", "a: !!timestamp 2001-12-14", "key: 'v'\nkey2: \"w\\u2028\"\n",
    "a: " + "[" * 300 + "]" * 300, "- - - x",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_the_fast_construction_is_pyyamls(text: str) -> None:
    assert repr(_loaded(text)) == repr(_reference(text))


def test_an_alias_is_still_one_object_and_a_duplicate_key_still_named() -> None:
    data = yaml.load("a: &x [1]\nb: *x", Loader=TextLoader)
    assert data["a"] is data["b"]
    with pytest.raises(CorpusError, match="the key 'b' appears twice") as info:
        load_yaml("a: 1\nb: 2\nb: 3\n", "p.yaml")
    assert info.value.line == 3


def test_every_seed_corpus_file_loads_as_pyyaml_loads_it() -> None:
    for path in sorted((ROOT / "corpus").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        loaded, reference = _loaded(text), _reference(text)
        assert loaded == reference and repr(loaded) == repr(reference), path
