"""core.yamlio: what a corpus file's YAML may hold and what it reads as."""

from __future__ import annotations

import tracemalloc

import pytest

from generator.core.errors import CorpusError
from generator.core.yamlio import COST, SLACK, TextLoader, dump_yaml, load_yaml


def test_scalars_stay_text_but_null_booleans_and_whole_numbers() -> None:
    text = "a: 1\nb: yes\nc: null\nd: ~\ne: 2021-01-01\nf: 1.5\ng: '3'\nh: 2104.07850\ni: S* and *x*\n"
    assert load_yaml(text, "p.yaml") == {"a": 1, "b": True, "c": None, "d": None, "e": "2021-01-01",
                                         "f": "1.5", "g": "3", "h": "2104.07850", "i": "S* and *x*"}


@pytest.mark.parametrize("text", [
    "a: &x [1, 2]\nb: *x", "a: &x {k: v}\nb: *x", "a: &s text\nb: *s", "&a [*a]", "&a {x: *a}",
    "base: &b {a: 1}\nmore:\n  <<: *b\n  c: 2", "- &k key\n- {*k : v}",
])
def test_an_alias_is_refused_and_named_where_its_anchor_is(text: str) -> None:
    with pytest.raises(CorpusError, match=r"an alias \(\*name\) repeats the value anchored here") as info:
        load_yaml(text, "p.yaml")
    assert info.value.line is not None


def test_an_anchor_without_alias_is_only_a_name() -> None:
    assert load_yaml("a: &x [1]\nb: 2", "p.yaml") == {"a": [1], "b": 2}


@pytest.mark.parametrize(("text", "line", "message"), [
    ("a: 1\nb: 2\nb: 3\n", 3, "the key 'b' appears twice"),
    ("a: 1\n? [a, b]\n: 1\n", 2, "a key must be text"),
    ("a: !!python/object/apply:os.system ['true']\n", 1, "could not determine a constructor"),
])
def test_a_mapping_has_text_keys_each_once(text: str, line: int, message: str) -> None:
    with pytest.raises(CorpusError, match="malformed YAML") as info:
        load_yaml(text, "p.yaml")
    assert message in str(info.value) and info.value.line == line


@pytest.mark.parametrize(("value", "message"), [
    ("9" * 5000, "a number of more than 100 digits"),  # Python reads no int of over 4,300 digits
    ("0x" + "f" * 5000, "a number of more than 100 digits"),  # read, but no message could print it
    ("1:" * 3000 + "1", "a number of more than 100 digits"),  # YAML 1.1's base 60
    ("!!float abc", "not a valid float"), ("!!int abc", "not a valid int"),
    ("!!timestamp 2024-02-30", "not a valid timestamp"), ("!!bool abc", "not a valid bool"),
], ids=["5,000 digits", "hexadecimal", "base 60", "float", "int", "timestamp", "bool"])
def test_a_value_python_cannot_hold_or_print_is_one_line_at_its_line(value: str, message: str) -> None:
    """ValueError tracebacks before, from the committed file of a pull request: in `survey
    check`, and in the message naming a field such a number was given for."""
    with pytest.raises(CorpusError) as refused:
        load_yaml(f"title: T\nyear: {value}\n", "p.yaml")
    assert str(refused.value) == f"p.yaml:2:7: malformed YAML: {message}"
    assert load_yaml("n: " + "9" * 100, "p.yaml") == {"n": int("9" * 100)}


def test_long_texts_fold_and_read_back_the_same() -> None:
    data = {"title": "A " * 60 + "end", "abstract": "x: y # z " * 20 + "end", "authors": ["A B", "C*"]}
    text = dump_yaml(data)
    assert "title: >-\n" in text
    assert load_yaml(text, "p.yaml") == data


@pytest.mark.parametrize("value", ["1" + ":1" * 300_000, "!!int " + "1:" * 300_000 + "1", "0x" + "f" * 500])
def test_a_long_integer_is_refused_before_it_is_built(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built first and refused after, a base-60 integer took time squared in its length (a
    1.2 MB paper file held survey check for 159 s)."""
    built: list[object] = []
    monkeypatch.setitem(TextLoader.yaml_constructors, "tag:yaml.org,2002:int",
                        lambda loader, node: built.append(node) or 0)
    with pytest.raises(CorpusError, match="a number of more than 100 digits"):
        load_yaml(f"extra: {value}\n", "p.yaml")
    assert built == []


def test_a_file_costs_at_most_about_ten_times_its_size() -> None:
    """A listing of many short entries is read in under COST times its size (composed into nodes
    first, a real listing took 17 times its size); values denser than that (a list, a mapping or a
    text every few characters: 110 to 220 times) are refused as they are reached."""
    text = "entries:\n" + "".join(f"- paper: paper-{i}\n  title: Paper number {i}\n" for i in range(20_000))
    tracemalloc.start()
    try:
        assert len(load_yaml(text, "l.yaml")["entries"]) == 20_000
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < COST * len(text) + SLACK, peak / len(text)
    for dense in ("e: [" + "[]," * 99_999 + "]", "e:\n" + "- {}\n" * 99_999, "e: [" + "ab," * 99_999 + "]"):
        with pytest.raises(CorpusError, match=f"too many small values: they would take more than {COST} "):
            load_yaml(dense, "l.yaml")


def test_a_list_is_refused_at_the_item_past_the_most_a_file_holds() -> None:
    """Counted as it is read: 2.8 million null entries of a listing were read whole (26 s) before
    a count refused them (audit L4)."""
    assert load_yaml("entries:\n- a\n- b\n- c\n", "l.yaml", longest=3) == {"entries": ["a", "b", "c"]}
    with pytest.raises(CorpusError) as refused:
        load_yaml("entries:\n- \n- \n- \n- \n" + "- \n" * 1000, "l.yaml", longest=3)
    assert str(refused.value) == ("l.yaml:5:2: a list of more than 3 items, the most a list of this file "
                                  "may hold; not read")
