"""The text encoders and HTML compaction: fast paths that must give what the plain ones give."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from conftest import ROOT

from generator.corpus.export import bibtex
from generator.corpus.store import load_corpus
from generator.site.markup import _KEEP, _PRE, _TABLE, compact_html, dedent_html, md_text
from generator.site.render import Site
from generator.site.reuse import RenderCache


def _plain_md_text(text: str) -> str:
    """md_text's rule, one character at a time (markup's docstring)."""
    def alnum(c: str) -> bool:
        return c.isascii() and c.isalnum()

    out = []
    for i, c in enumerate(text):
        before, after = text[i - 1:i], text[i + 1:i + 2]
        if ord(c) not in _TABLE or c == ",":
            safe = True
        elif c.isdigit():
            safe = i > 0 and not (after.isascii() and after.isalpha())
        elif c == ".":
            safe = after == "" or after.isspace()
        elif c == "-":
            safe = alnum(before) and alnum(after)
        else:
            safe = False
        out.append(c if safe else _TABLE[ord(c)])
    return "".join(out)


def test_md_text_is_the_plain_rule_for_every_character():
    every = "".join(chr(c) for c in range(0x3000)) + "\ufeff\ufffd\U0001f600 a\u2066b\u202e"
    assert md_text(every) == _plain_md_text(every)
    rng = random.Random(5)
    pieces = ["1", "0", ".", "-", ",", "a", "Z", " ", "\n", "\u00e9", "\u2028", "st", "#", "*", "<"]
    for _ in range(20000):
        case = "".join(rng.choices(pieces, k=rng.randint(0, 12)))
        assert md_text(case) == _plain_md_text(case), case
    assert md_text("") == ""
    assert md_text("1st *x* <b>") == "&#x31;st &#x2A;x&#x2A; &#x3C;b&#x3E;"
    assert md_text("1. At 3.5, a large-scale run... ends.") == (
        "&#x31;. At 3&#x2E;5, a large-scale run&#x2E;&#x2E;. ends.")


def test_compact_html_is_the_plain_substitution_for_every_reference():
    def plain(match: re.Match[str]) -> str:  # a function per reference
        code = int(match.group(1), 16)
        return match.group(0) if code in _KEEP or code < 32 else chr(code)

    refs = "".join(f"&#x{c:X}; &#x{c:02X};&#x{c:x};&#{c};" for c in range(0x110))
    every = f"<p>{refs}&#x;&#x2C &#x12345;&amp;#x2C;{md_text(chr(0x202E) + 'a, b. 1 < 2')}</p>"
    assert compact_html(every) == re.sub(r"&#x([0-9A-F]{1,2});", plain, every)
    assert compact_html("") == ""
    assert compact_html(md_text("x, <y> & 'z'")) == "x, &#x3C;y&#x3E; &#x26; &#x27;z&#x27;"


def test_dedent_html_splits_where_the_lazy_pattern_did():
    lazy = re.compile(r"(<(pre|textarea|script)\b.*?</\2>)", re.S | re.I)
    cases = ["", "<", "<pre", "<pre>", "</pre>", "<pre></pre>", "<pre>a<b<</pre", "<pre>a</pre >b</pre>",
             "<PRE>x</pre>", "<pre>x</PRE>", "<Script>x</sCRIPT>", "<scripts>x</scripts>", "<pre-x>y</pre>",
             "<pre><pre>in</pre></pre>", "<textarea></pre></textarea>", "<script>'</pre>'</script>",
             "<pre>\n  <\n</pre>\n  a", "<pre>unclosed\n  <script>s</script>\n  x",
             "<\u017fcript>x</\u017fcript></script>", "<scr\u0131pt>x</script></scr\u0131pt>",
             "a\n \t\n<pre>\n  b\n</pre>\n  c\n"]
    rng = random.Random(3)
    pieces = ["<pre>", "</pre>", "<PRE ", "</Pre>", "<script>", "</script>", "<textarea>", "</TEXTAREA>",
              "</pre", "<pres>", "<", "/", ">", "pre", "\u017f", "x", " ", "\n  ", "\n\t\n"]
    cases += ["".join(rng.choices(pieces, k=rng.randint(1, 30))) for _ in range(20000)]
    for case in cases:
        assert _PRE.split(case) == lazy.split(case), case
    page = (ROOT / "templates" / "theme" / "main.html").read_text(encoding="utf-8")
    assert _PRE.split(page) == lazy.split(page)
    assert dedent_html("<p>\n    a</p>\n<pre>\n    b</pre>") == "<p>\na</p>\n<pre>\n    b</pre>"


def test_bib_files_are_the_same_with_entries_kept_from_an_earlier_build():
    corpus = load_corpus(ROOT / "corpus")
    cache = RenderCache()
    Site(corpus, ROOT / "templates", cache=cache).files()
    assert cache.bibtex
    # An entry is made again when its paper changes, or when its key does.
    cited = sorted(cache.bibtex)
    edited = corpus.papers[cited[0]]
    corpus.papers[edited.slug] = replace(edited, title=edited.title + " (revised)")
    year_of = corpus.papers[cited[1]]
    corpus.papers[year_of.slug] = replace(year_of, date="1999-01-01")
    again = Site(corpus, ROOT / "templates", cache=cache).files()
    fresh = Site(corpus, ROOT / "templates").files()
    assert {k: v for k, v in again.items() if k.endswith(".bib")} == {
        k: v for k, v in fresh.items() if k.endswith(".bib")}
    assert "(revised)" in again["exports/survey.bib"]
    assert all(entry == bibtex(corpus.papers[s], Site(corpus, ROOT / "templates").bib_keys[s])
               for s, (_, entry) in cache.bibtex.items())
