"""The rule prefilter reads patterns with Python's private regular-expression parser (re._parser):
pinned by behaviour. If a Python release changes what that parser gives, the prefilter must still
only skip rules that cannot match, and a rule tried only where its first literal begins must find
what finditer finds: the suggestions with and without them are the same."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from generator.classify import prefilter, rules, suggest
from generator.corpus.store import load_corpus


def test_the_prefilter_changes_no_suggestion(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    corpus = load_corpus(ROOT / "corpus")
    texts = [(p.title, p.abstract) for p in corpus.sorted_papers()]
    every = [r for t in [*corpus.taxonomy.topics, *corpus.taxonomy.tags] for r in t.rules]
    assert any(rules.required_groups(r.pattern) for r in every), \
        "the parser gave no literal for any rule: the prefilter no longer filters"
    assert sum(prefilter.match_starts(r.pattern) is not None for r in every) > len(every) / 2, \
        "the parser gave no first literal for most rules: each is tried at every character again"
    filtered = [suggest.brief(suggest.suggest(corpus.taxonomy, t, a)) for t, a in texts]
    monkeypatch.setattr(rules, "required_groups", lambda pattern: ())
    monkeypatch.setattr(prefilter, "match_starts", lambda pattern: None)
    plain = [suggest.brief(suggest.suggest(corpus.taxonomy, t, a)) for t, a in texts]
    assert filtered == plain


class Counted:
    """A pattern that counts where it is tried."""

    def __init__(self, source: str, flags: int = re.IGNORECASE) -> None:
        self.compiled = re.compile(source, flags)
        self.pattern, self.flags = source, flags
        self.tried: list[int] = []

    def match(self, text: str, at: int) -> re.Match[str] | None:
        self.tried.append(at)
        return self.compiled.match(text, at)

    def finditer(self, text: str):  # type: ignore[no-untyped-def]
        self.tried.append(-1)
        return self.compiled.finditer(text)


@pytest.mark.parametrize(("source", "flags", "text", "found"), [
    # a word boundary and a look-behind see the characters before the place tried
    (r"\b(?:KV cache|paged attention)s?\b", re.I, "A KV caches, xKV cache and Paged Attention",
     ["KV caches", "Paged Attention"]),
    (r"(?<!based )\bon CPUs?\b", re.I, "based on CPU, on CPUs", ["on CPUs"]),
    # overlapping places: the next match is looked for from the end of the last
    (r"aa", re.I, "aaaaa", ["aa", "aa"]),
    # case-sensitive: the lower-cased text only says where it may match
    (r"\bZeRO\b", 0, "zero-shot ZeRO and ZERO", ["ZeRO"]),
    # the letters re.IGNORECASE matches to ASCII ones
    (r"\bserving\b", re.I, "Efficient ſerving", ["ſerving"]),
    # what may come first: an optional part or what follows it, a class of few characters, a digit
    (r"\b(?:GPU |fused )?kernels?\b", re.I, "GPU kernels, a kernel and fused Kernels",
     ["GPU kernels", "kernel", "fused Kernels"]),
    (r"\b(?:[1-4]-bits?|INT[1-4])\b", re.I, "3-bit and int4 and 8-bit", ["3-bit", "int4"]),
    (r"\b\d+(?:\.\d+)?\s?[x×]\s?faster\b", re.I, "is 2.5× faster, ٣x faster", ["2.5× faster", "٣x faster"]),
])
def test_a_rule_is_tried_only_where_its_first_literal_begins(source, flags, text, found) -> None:  # type: ignore[no-untyped-def]
    text += " Nothing more to see here." * 6  # as long as an abstract is, beside its places (CROWDED)
    pattern = Counted(source, flags)
    presence = prefilter.Presence(text)
    assert prefilter.matches(pattern, text, presence) == found  # type: ignore[arg-type]
    assert [m.group(0) for m in pattern.compiled.finditer(text)] == found
    starts = prefilter.match_starts(pattern)  # type: ignore[arg-type]
    assert starts and -1 not in pattern.tried
    assert all(any(presence.text.startswith(s, at) if isinstance(s, str) else s.match(presence.text, at)
                   for s in starts) for at in pattern.tried)


def test_a_class_or_an_optional_part_is_followed_by_what_follows_it() -> None:
    """A rule is tried where `smoe` begins, not at every s of the text."""
    def starts(source: str) -> set[str]:
        return set(prefilter.match_starts(re.compile(source, re.I)) or ())  # type: ignore[arg-type]

    assert starts(r"(?<![-/])\b(?:S|Q)?MoEs?\b") == {"smoe", "qmoe", "moe"}
    assert starts(r"\bW[1-4]A\d+") == {"w1a", "w2a", "w3a", "w4a"}
    assert starts(r"\bKV[- ]?caches?\b") == {"kv-cache", "kv cache", "kvcache"}
    assert starts(r"(?:ab)*c") == {"ab", "c"}  # a repeated part is not followed by what follows it
    assert starts("x" * 40) == {"x" * (prefilter.LONGEST + 1)}


def test_a_pattern_of_many_optional_parts_is_read_in_bounded_steps() -> None:
    """Each optional part doubles the ways a match may begin (300 of them: 2**300 before a bound);
    past STEPS the rule is scanned whole, as finditer scans it, and its matches are the same."""
    pattern = re.compile("(?:a)?" * 300 + "b")
    assert prefilter.match_starts(pattern) is None
    assert prefilter.matches(pattern, "xaab", prefilter.Presence("xaab")) == ["aab"]


def test_a_rule_without_a_first_literal_is_scanned_whole() -> None:
    pattern = Counted(r"\b\w+x faster\b|\bmany GPUs\b")
    found = prefilter.matches(pattern, "3x faster on many GPUs", prefilter.Presence(""))  # type: ignore[arg-type]
    assert found == ["3x faster", "many GPUs"]
    assert pattern.tried == [-1]
    # nor one that may begin at most places of the text: finditer's own scan costs less there
    text = "The KV cache of LLM serving on GPU and TPU clusters, in HBM and DRAM."
    pattern = Counted(r"\b[A-Z]{2,}\b", 0)
    found = prefilter.matches(pattern, text, prefilter.Presence(text))  # type: ignore[arg-type]
    assert found == ["KV", "LLM", "GPU", "TPU", "HBM", "DRAM"]
    assert pattern.tried == [-1]


def test_the_lexicon_finds_every_literal_a_text_holds() -> None:
    """One pass of the trie finds what looking up each literal finds: a literal inside a longer
    one, overlapping places, characters a regular expression reads as its own."""
    words = ["gpu", "gpus", "multi-gpu", "aa", "c++", "(kv)", "flop/s", "a ", "1", "x", "xy"]
    lexicon = prefilter.Lexicon(words)
    for text in ["multi-gpus on 1 gpu", "aaa", "c++ and (kv) caches at 3 flop/s, x", "", "nothing here"]:
        assert lexicon.present(text) == {w for w in words if w in text}, text
    long = "a" * 1500  # a rule may be 2,000 characters: its literal is looked up when asked
    presence = prefilter.Presence(f"x {long} y", prefilter.Lexicon([long, "y"]))
    assert presence.present == {"y"} and presence.holds((frozenset({long}), frozenset({"y"})))
    assert not presence.holds((frozenset({long + "b"}),))
    corpus = load_corpus(ROOT / "corpus")
    taxonomy_words = rules.lexicon(corpus.taxonomy).words
    assert len(taxonomy_words) > 1000
    for paper in corpus.sorted_papers():
        text = prefilter.Presence(paper.abstract).text
        assert rules.lexicon(corpus.taxonomy).present(text) == {w for w in taxonomy_words if w in text}
