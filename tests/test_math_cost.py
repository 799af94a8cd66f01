"""What math costs a build (issue 43, item 4; audit T14): Markdown does no more work for a page of
math than for a page of plain text of the same length, the pages are the same bytes with or
without the shortcut that makes it so, and a text's MathML is bounded. Work is counted (Python
calls while MkDocs renders the page), never timed; `python benchmarks/ab_builds.py --src . --math
40` measures whole builds."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, make_corpus

from generator.core.tex import tex_parts
from generator.corpus.model import Paper
from generator.corpus.store import load_corpus, paper_text
from generator.site.mathml import tex_markup
from generator.site.render import Site

MATH_ABSTRACT = ("Paper of kind repeated: " + " ".join(["$a$"] * 2_500))[:10_000].rstrip()
MATH_TITLE = "Paper: " + " ".join(["$x^2$"] * 150)
PLAIN_ABSTRACT = ("Paper of kind repeated: " + " ".join(f"w{i % 97}" for i in range(3_000)))[:10_000].rstrip()
PLAIN_TITLE = "Paper: " + " ".join(["word"] * 150)


def page_markdown(tmp: Path, title: str, abstract: str) -> str:
    """The paper page of a one-paper corpus, as the site writes it."""
    corpus = make_corpus(tmp / "corpus", "empty")
    (corpus / "papers").mkdir()
    paper = Paper(slug="p", title=title, abstract=abstract, topics=["kernels"], date="2025-01-02",
                  added="2026-11-28")
    (corpus / "papers" / "p.yaml").write_text(paper_text(paper), encoding="utf-8")
    return Site(load_corpus(corpus), ROOT / "templates").pages()["papers/p.md"]


def mkdocs_render(stash: bool = True) -> Callable[[str], str]:
    """A page's Markdown to HTML as `mkdocs build` makes it: the project's mkdocs.yml, its plugins'
    on_config (which adds the survey's Markdown extension) and MkDocs's own Page.render."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page

    config = load_config(str(ROOT / "mkdocs.yml"))
    config.plugins.on_startup(command="build", dirty=False)
    config = config.plugins.on_config(config)
    if not stash:
        config.markdown_extensions[:] = [e for e in config.markdown_extensions if isinstance(e, str)]

    def render(markdown: str) -> str:
        file = File.generated(config, "papers/p.md", content=markdown)
        page = Page(None, file, config)
        page.read_source(config)
        page.render(config, Files([file]))
        return page.content or ""
    return render


def calls(fn: Callable[[], object]) -> int:
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        count += event == "call"
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def test_a_page_of_math_costs_markdown_what_plain_text_does(tmp_path: Path) -> None:
    """The audit's case: an abstract of 10,000 characters of `$a$` and a title of 150 formulas.
    Read by Python-Markdown as inline HTML, its 13,000 tags took 0.9 s and 800,000 calls (and
    grew with the square of their number); stashed whole, the page costs what plain text does."""
    math = page_markdown(tmp_path / "math", MATH_TITLE, MATH_ABSTRACT)
    plain = page_markdown(tmp_path / "plain", PLAIN_TITLE, PLAIN_ABSTRACT)
    assert math.count("<math>") > 250 and len(math) > 2 * len(plain)  # the page holds its MathML
    render = mkdocs_render()
    render(plain)  # MkDocs and Markdown import and compile what they need once
    assert calls(lambda: render(math)) <= 1.2 * calls(lambda: render(plain))


@pytest.mark.parametrize("abstract", [MATH_ABSTRACT, r"A $\mathcal{O}(n^3)$, 12\% of https://x.org {{ x }}."])
def test_the_stash_changes_no_byte_of_a_page(tmp_path: Path, abstract: str) -> None:
    markdown = page_markdown(tmp_path, r"Kernels: $x^2$ and $\alpha$ -- a `b` *c*", abstract)
    assert mkdocs_render()(markdown) == mkdocs_render(stash=False)(markdown)


def test_a_texts_mathml_is_bounded_and_real_ones_are_whole() -> None:
    """At most four times the text's length and 2,000 bytes more; from the first formula past it,
    the math shows as text. Math as dense as real abstracts hold is whole."""
    text = " ".join(["$a$"] * 2_500)
    shown = str(tex_markup(text))
    assert 500 < shown.count("<math>") < 700 and len(shown) < 4 * len(text) + 2_000 + len(text)
    assert shown.endswith(" a a a")  # the rest read as text
    real = ("We prove that $O(\\log n)$ rounds suffice, with $\\Omega(\\sqrt{n})$ messages, "
            "for $k \\geq 2$ and $\\epsilon < 1/2$; ") * 5
    assert str(tex_markup(real)).count("<math>") == sum(p.math for p in tex_parts(real)) == 15
