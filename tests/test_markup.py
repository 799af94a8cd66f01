"""The text encoders and HTML compaction: fast paths that must give what the plain ones give."""

from __future__ import annotations

from conftest import ROOT

from generator.corpus.export import bib_file, bibtex, bibtex_keys
from generator.corpus.store import load_corpus
from generator.site.markup import _TABLE, md_text


def test_md_text_is_the_translation_table_for_every_character():
    every = "".join(chr(c) for c in range(0x3000)) + "\ufeff\ufffd\U0001f600 a\u2066b\u202e"
    assert md_text(every) == every.translate(_TABLE)
    assert md_text("") == ""
    assert md_text("1st *x* <b>") == "&#x31;st &#x2A;x&#x2A; &#x3C;b&#x3E;"


def test_a_bib_file_is_the_same_with_entries_made_before():
    corpus = load_corpus(ROOT / "corpus")
    papers = corpus.sorted_papers()
    keys = bibtex_keys(papers)
    known: dict[str, str] = {}
    first = bib_file(papers[:50], keys, "a", known=known)
    assert first == bib_file(papers[:50], keys, "a")
    assert known and all(known[s] == bibtex(corpus.papers[s], keys[s]) for s in known)
    assert bib_file(papers, keys, "b", known=known) == bib_file(papers, keys, "b")
