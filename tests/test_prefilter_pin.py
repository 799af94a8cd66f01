"""The rule prefilter reads patterns with Python's private regular-expression parser (re._parser):
pinned by behaviour. If a Python release changes what that parser gives, the prefilter must still
only skip rules that cannot match: the suggestions with and without it are the same."""

from __future__ import annotations

from conftest import ROOT

from generator.classify import rules, suggest
from generator.corpus.store import load_corpus


def test_the_prefilter_changes_no_suggestion(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    corpus = load_corpus(ROOT / "corpus")
    texts = [(p.title, p.abstract) for p in corpus.sorted_papers()]
    assert any(rules.required_groups(r.pattern) for t in corpus.taxonomy.topics for r in t.rules), \
        "the parser gave no literal for any rule: the prefilter no longer filters"
    filtered = [suggest.brief(suggest.suggest(corpus.taxonomy, t, a)) for t, a in texts]
    monkeypatch.setattr(rules, "required_groups", lambda pattern: ())
    plain = [suggest.brief(suggest.suggest(corpus.taxonomy, t, a)) for t, a in texts]
    assert filtered == plain
