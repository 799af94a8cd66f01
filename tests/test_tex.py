"""TeX in titles and abstracts (issue 34, item 3): read as text, or written as MathML at build,
through core/tex.py, wherever a reader or a curator sees a paper. The expectations are what a
typeset page shows, written out by hand."""

from __future__ import annotations

import gzip
import html.parser
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import make_corpus, make_project, mkdocs_build, real_papers, survey

from generator.core.tex import Part, bib_text, tex_parts, tex_text
from generator.core.text import tex_character
from generator.corpus.model import Paper
from generator.corpus.store import paper_text
from generator.site.mathml import mathml, tex_markup


@pytest.mark.parametrize(("tex", "shown"), [
    # the cases
    (r"up to 2.5$\times$ faster", "up to 2.5× faster"),
    (r"up to 2.4\times speedup", "up to 2.4× speedup"),  # a seed: \times outside math
    (r"up to 5.18\times$ latency reductions", "up to 5.18× latency reductions"),  # a seed: lost `$`
    (r"bubbles (\ie, idle waiting time)", "bubbles (i.e., idle waiting time)"),
    (r"by 43.8\% on average", "by 43.8% on average"),
    (r"PIXART-{\alpha} and PIXART-{\delta}, $\beta$ and $\Delta$", "PIXART-α and PIXART-δ, β and Δ"),
    (r"$\sim$50\% of $\sim$ 3 GPUs", "~50% of ~ 3 GPUs"),
    (r"$10^{3}$ and $10^3$, H$_2$O and 90$^\circ$", "10³ and 10³, H₂O and 90°"),
    (r"we propose \method, and \method{} wins; \prot\ runs", "we propose method, and method wins; prot runs"),
    # what else the real feed and the seeds hold
    (r"T\"ulu and M\'elange, na\"{\i}vely; the model\'s cost", "Tülu and Mélange, naïvely; the model's cost"),
    (r"$1.2$--$10\times$ and $2.55 \times$", "1.2–10× and 2.55 ×"),
    (r"impact$\unicode{x2014}$especially", "impact—especially"),
    (r"\textbf{hardware (HSPI)} and \emph{fast} and \underline{E}dge", "hardware (HSPI) and fast and Edge"),
    (r"heuristics~\cite{IterativeGreedy22} that", "heuristics [IterativeGreedy22] that"),
    (r"at $\href{https://github.com/U/O}{https://github.com/U/O}$.", "at https://github.com/U/O."),
    (r"on \href{https://github.com/A/B}{Github}.", "on Github (https://github.com/A/B)."),
    (r"costs \$250M", "costs $250M"), (r"Code: \url{https://example.org/x}.", "Code: https://example.org/x."),
    # what was left as typed (issue 43, item 5): `--` read as TeX sets it, where a reader expects a
    # dash; a backslash before a number is the author's `\$` without its `$` (or a list's `3)`)
    (r"2.3--46.2x; 10--15%; hardware--software; Third---and; systems -- such as; MELD --show; 1.7×-- 4.7×",
     "2.3–46.2x; 10–15%; hardware–software; Third—and; systems – such as; MELD –show; 1.7×– 4.7×"),
    (r"costs over \250 million, \1.49M and \0.1; \3) Training; \~8B models",
     "costs over $250 million, $1.49M and $0.1; 3) Training; ~8B models"),
    (r"\texttt{--fast} and \texttt{a--b}", "--fast and a--b"),
])
def test_simple_tex_reads_as_text(tex: str, shown: str) -> None:
    assert tex_parts(tex) == (Part(shown),)
    assert tex_text(tex) == shown


@pytest.mark.parametrize("text", [
    "<kernel> + <programming model>", "S* and C# for a|b", "costs $5 and $10", "a lone $5", "$",
    "$42 training cost", "{{ 7*7 }} and {% raw %}", "10^4 L_{2} x_1", "50% of 100%, ~3 GPUs - or more",
    "a `quote` and ''two''", "US$ 5 and 5 $", "\\", "{", "}", "a {b} c",
    # `--` that is no dash: an option, an arrow, a rule, in a link, a path or code
    "--fast-math, --lr=0.1, --use_fast; a --> b <-- c; ----; --; x--", "https://x.org/a--b and a/b--c",
    "run `a --b--c` here",
])
def test_text_that_is_not_tex_shows_as_written(text: str) -> None:
    assert tex_parts(text) == (Part(text),)


def test_math_stays_math() -> None:
    assert tex_parts(r"complexity $\mathcal{O}(n^3)$ for a matrix of size $n\times n$.") == (
        Part("complexity "), Part(r"\mathcal{O}(n^3)", math=True), Part(" for a matrix of size "),
        Part(r"n\times n", math=True), Part("."))
    assert tex_parts(r"\(W_1\) and $$x+y$$") == (
        Part("W_1", math=True), Part(" and "), Part("x+y", math=True, display=True))
    assert tex_text(r"complexity $\mathcal{O}(n^3)$") == "complexity 𝒪(n^3)"  # for a terminal, a feed


def test_bibtex_keeps_math_and_authors_macros_for_the_page_to_read() -> None:
    assert bib_text(r"{MoE}$^2$ and \ours{} with {\'e}") == r"MoE$^2$ and \ours{} with é"
    assert tex_text(bib_text(r"{MoE}$^2$ and \ours{} with {\'e}")) == "MoE² and ours with é"


def test_mathml_is_math_and_nothing_else() -> None:
    made = mathml(r"\mathcal{O}(n^3)")
    assert made is not None
    math = BeautifulSoup(made, "html.parser").find("math")
    assert math.find("msup").get_text() == "n3" and math.get_text() == "𝒪(n3)"


def test_mathml_writes_styled_letters_as_chromium_draws_them() -> None:
    """Chromium draws no mathvariant but "normal": a styled word is its Unicode math letters
    (`\\mathsf{SetX}` showed as spaced italics), `\\setminus` the set-minus sign (U+29F5 drew a
    box), and a function name is set apart from its argument ("loglogΔ")."""
    def read(tex: str) -> tuple[str, list[str]]:
        math = BeautifulSoup(mathml(tex) or "", "html.parser").find("math")
        return math.get_text(), [e["mathvariant"] for e in math.find_all(mathvariant=True)]

    assert read(r"\mathsf{SetX}") == ("𝖲𝖾𝗍𝖷", [])
    assert read(r"\mathsf{B \setminus A}") == ("𝖡∖𝖠", ["sans-serif"])
    assert read(r"\mathbf{x_1} + \mathcal{BO} + \mathbb{R}") == ("𝐱𝟏+ℬ𝒪+ℝ", [])
    assert read(r"\mathrm{SetX}")[1] == ["normal"] * 4  # Chromium draws "normal"
    log = BeautifulSoup(mathml(r"\log\log\Delta") or "", "html.parser").find("math")
    assert [e.name for e in log.mrow.children] == ["mi", "mspace", "mi", "mspace", "mi"]
    call = BeautifulSoup(mathml(r"\log(n)") or "", "html.parser").find("math")
    assert [e.name for e in call.mrow.children][:2] == ["mi", "mo"]


class _Markup(html.parser.HTMLParser):
    """Every tag and attribute of a piece of HTML, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs


MATHML_TAGS = {"span", "math", "mrow", "mi", "mn", "mo", "mtext", "msup", "msub", "msubsup", "mfrac",
               "msqrt", "mroot", "mover", "munder", "mstyle", "mspace", "mtable", "mtr", "mtd", "mpadded"}


@pytest.mark.parametrize("tex", [
    r"$\text{<script>alert(1)</script>}$", r"$\href{javascript:alert(1)}{x} y$",
    r"$\style{background:url(http://evil.example/x)}{x} y$", r"$\color{red}{x} \mathrm{\"><img src=x>}$",
    r"$x_{\text{\" onmouseover=\"alert(1)}}$", r"$\unicode{x3C}script\unicode{x3E} z$",
    r"$\mathcal{O}(n^3) {{ 7*7 }} \text{--8<-- mkdocs.yml}$", r"$\frac{1}{2$",
    r"$\begin{array}{c}a\end{array}$", r"$a & b \\ c$",
])
def test_mathml_of_hostile_math_is_safe(tex: str) -> None:
    written = str(tex_markup(tex))
    parser = _Markup()
    parser.feed(written)
    assert set(parser.tags) <= MATHML_TAGS, written
    assert {name for name, _ in parser.attributes} <= {"class", "mathvariant", "stretchy", "display", "fence",
                                                       "separator", "lspace", "rspace", "columnalign",
                                                       "columnspacing", "rowspacing", "displaystyle",
                                                       "movablelimits", "accent", "width"}, written
    assert not re.search(r"javascript|url\(|evil|[{}*_`|]{2}|--", written), written


# --- math held to the text rules (issue 44, item 4) ----------------------------------------


def test_tex_that_gives_an_invisible_character_is_refused_as_the_character_typed_is(tmp_path: Path) -> None:
    """`\\unicode{x202E}` in math (latex2mathml reads it) and `\\nolinebreak` (pylatexenc gives
    U+2060) are refused by check, add and every reader, in one line naming file, entry and field;
    the joiners a typed text may hold (U+200D, `\\textcompwordmark`'s U+200C) pass (audit T7, T9)."""
    corpus = make_corpus(tmp_path / "corpus", "empty")
    (corpus / "papers").mkdir()
    paper = Paper(slug="p", title=r"Pipeline $\unicode{x202E}x^2$ kernels", date="2025-01-02",
                  abstract=r"We study \nolinebreak pipelines, $\unicode{x200D}y^2$ and a\textcompwordmark b.")
    (corpus / "papers" / "p.yaml").write_text(paper_text(paper), encoding="utf-8")
    result = survey("check", "--corpus", "corpus", cwd=tmp_path)
    where = "corpus/papers/p.yaml: entry p: field"
    invisible = "an invisible character that changes how the text around it shows"
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        rf"{where} 'title': \unicode{{x202E}} gives U+202E (RIGHT-TO-LEFT OVERRIDE), {invisible}",
        rf"{where} 'abstract': \nolinebreak gives U+2060 (WORD JOINER), {invisible}",
        "survey check: 2 problem(s)"]
    added = survey("add", "--corpus", str(make_corpus(tmp_path / "other", "empty")), "--dry-run",
                   "--title", r"A $\unicode{x2066}y^2$ title", "--abstract", "Plain words here.")
    assert added.returncode != 0 and r"\unicode{x2066} gives U+2066 (LEFT-TO-RIGHT ISOLATE)" in added.stderr
    allowed = r"$\unicode{x200D}y$ a\textcompwordmark b, $\unicode{x2014}$, $\unicode{xE000}$"
    assert tex_character(allowed) is None


def test_no_command_of_latex2mathml_writes_an_invisible_character() -> None:
    """Beside `\\unicode`, which check reads: the symbols of latex2mathml's table whose character
    check would refuse (`\\hspace{0pt}`, a zero-width space) write none into the MathML."""
    from latex2mathml.symbols_parser import SYMBOLS

    hidden = [tex for tex, code in SYMBOLS.items() if re.fullmatch(r"[0-9A-F]{4,6}", code)
              and tex_character(f"\\unicode{{x{code}}}")]
    assert hidden == [r"\hspace{0pt}"]
    for tex in hidden:
        assert not tex_character(BeautifulSoup(mathml(tex) or "", "html.parser").get_text() or "x")


@pytest.mark.parametrize(("tex", "shown"), [
    (r"Overlay $\moveleft{12em}{\text{REVIEWED}}$ BY", "Overlay REVIEWED BY"),
    (r"A $\rule{1em}{300em}$ and \rule[2pt]{1em}{30em} B", "A  and  B"),
    (r"A $\hspace{100000em}x$ \hspace*{2em} \vspace{12em} $\kern-40em y$ $\mkern500mu z$", "A x     y z"),
    (r"$\raise{12em}{x}$ \raisebox{1ex}[2ex]{y} $a\\[50em]b$ $\hskip 4em c$", "x y a b c"),
])
def test_lengths_show_as_no_text(tex: str, shown: str) -> None:
    """What a title's `<title>`, a feed and the review screen show of TeX's lengths: a space or
    nothing, never "12em" (audit T17)."""
    assert tex_text(tex) == shown


def test_mathml_lengths_are_at_most_three_em() -> None:
    """A rule 300 em tall set an abstract's first line 4,800 px down (audit T11): every size of
    the MathML is 3 em at the most either way; TeX's own (`\\qquad`, `\\Bigg(`) are untouched."""
    sizes = re.compile(r'(?:width|height|depth|lspace|rspace|minsize|maxsize)="([^"]*)"')
    written = " ".join(mathml(t) or "" for t in (r"\rule{1em}{300em}", r"\hspace{100000em}", r"\kern-40em x",
                                                  r"\moveleft{12em}{x}", r"\mkern500mu x", r"\hspace{3cm}"))
    assert sizes.findall(written) == ["3em", "1em", "3em", "-3em", "-3em", "3em", "3em"]
    assert sizes.findall(mathml(r"\qquad \Bigg(") or "") == ["2em", "2.470em", "2.470em"]
    # and none is the math's text ("[2em]", "\\vspace2em" as latex2mathml showed them)
    for tex in (r"\hspace*{2em}x", r"\vspace{2em}x", r"\vskip 2em x", r"\rule[1em]{1em}{2em}x",
                r"\raisebox{2em}{x}", r"\hbox to 2em{x}", r"\begin{array}{c}x\\[2em]x\end{array}"):
        assert BeautifulSoup(mathml(tex) or "", "html.parser").get_text() in ("x", "xx"), tex


# --- where a reader sees a paper ------------------------------------------------------------

MATH_TITLE = r"MoE$^2$: Kernels in $\mathcal{O}(n^3)$ at 2.4\times"
MATH_ABSTRACT = (r"We reach 2.5$\times$ speedups (\ie, 5.18\times$ less time) on 12\% of $\sim$ 100 GPUs at "
                 r"30$^\circ$C, where $\mathcal{O}(n^3)$ was the cost of \method; a lone $5 and "
                 r"<kernel> S* C# | {{ }} stay.")
MATH_SHOWN = ("We reach 2.5× speedups (i.e., 5.18× less time) on 12% of ~ 100 GPUs at 30°C, where "
              "𝒪(n3) was the cost of method; a lone $5 and <kernel> S* C# | {{ }} stay.")


# Audit T11 and T17: lengths that set the abstract's first line 4,800 px down and put "12em" into
# the page's title.
LENGTHS_TITLE = r"Overlay $\moveleft{12em}{\text{REVIEWED BY THE EDITORS}}$ kernels"
LENGTHS_ABSTRACT = (r"$\rule{1em}{300em}$ $\hspace{100000em}x$ $\lower{40em}{y}$ We study kernels. "
                    + " ".join(["The rest of the abstract reads on."] * 20))


@pytest.fixture(scope="module")
def math_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("math")
    corpus = make_corpus(tmp / "corpus", "empty")
    (corpus / "papers").mkdir()
    paper = Paper(slug="math-paper", title=MATH_TITLE, abstract=MATH_ABSTRACT, topics=["kernels"],
                  tags=["cuda"], date="2025-01-02", added="2026-11-28")
    (corpus / "papers" / "math-paper.yaml").write_text(paper_text(paper), encoding="utf-8")
    lengths = Paper(slug="lengths", title=LENGTHS_TITLE, abstract=LENGTHS_ABSTRACT, date="2024-01-02",
                    added="2026-11-28", curated=["topics"])  # reviewed as none of the four: published
    (corpus / "papers" / "lengths.yaml").write_text(paper_text(lengths), encoding="utf-8")
    return mkdocs_build(make_project(tmp, corpus))


@pytest.mark.slow
def test_pages_feeds_and_descriptions_read_the_tex(math_site: Path) -> None:
    page = BeautifulSoup((math_site / "papers" / "math-paper" / "index.html").read_text(), "html.parser")
    h1 = page.select_one("article h1")
    assert h1.find(string=True) == "MoE²: Kernels in "
    assert [m.get_text() for m in h1.find_all("math")] == ["𝒪(n3)"]
    abstract = page.find(id="abstract").find_next("p")
    assert abstract.get_text() == MATH_SHOWN
    assert abstract.find("math").find("msup")  # n³ typeset by the browser, not as text
    assert page.title.get_text() == "MoE²: Kernels in 𝒪(n^3) at 2.4× - ML Systems Survey"
    assert page.find("meta", attrs={"name": "description"})["content"] == MATH_SHOWN.replace("(n3)", "(n^3)")
    assert not page.find("script", src=re.compile("mathjax|katex", re.I))
    topic = BeautifulSoup((math_site / "topics" / "kernels" / "index.html").read_text(), "html.parser")
    entry = topic.find("a", href="../../papers/math-paper/")
    assert entry.get_text() == "MoE²: Kernels in 𝒪(n3) at 2.4×"
    feed = ET.parse(math_site / "feed.xml").getroot()
    atom = "{http://www.w3.org/2005/Atom}"
    item = feed.find(f"{atom}entry")
    assert item.findtext(f"{atom}title") == "MoE²: Kernels in 𝒪(n^3) at 2.4×"
    assert item.findtext(f"{atom}summary") == MATH_SHOWN.replace("(n3)", "(n^3)")


@pytest.fixture(scope="module")
def math_base(math_site: Path) -> Iterator[str]:
    from test_browser import serve

    with serve(math_site) as base:
        yield base


@pytest.mark.slow
@pytest.mark.browser
def test_chromium_typesets_the_math_with_no_script_and_no_other_host(math_base: str) -> None:
    from test_browser import DESKTOP, PHONE, goto, launch_chromium, open_tab

    with launch_chromium() as browser:
        with open_tab(browser) as tab:
            goto(tab, math_base + "papers/math-paper/")
            boxes = tab.page.evaluate("""() => {
              const math = document.querySelector("article h2#abstract + p math");
              const [base, raised] = math.querySelector("msup").children;
              const box = el => el.getBoundingClientRect();
              return {width: box(math).width, base: box(base).top, raised: box(raised).top,
                      display: getComputedStyle(math).display};
            }""")
            assert boxes["width"] > 20 and boxes["raised"] < boxes["base"], boxes  # the 3 is raised
            tab.assert_clean()
        for viewport in (DESKTOP, PHONE):  # lengths keep the abstract on the first screen, in its column
            with open_tab(browser, viewport) as tab:
                goto(tab, math_base + "papers/lengths/")
                shown = tab.page.evaluate("""() => {
                  const p = document.querySelector("article h2#abstract + p"), words = document.createRange();
                  words.selectNodeContents(p.lastChild);
                  return {words: words.getClientRects()[0].bottom, title: document.title,
                          wide: document.documentElement.scrollWidth};
                }""")
                assert shown["words"] < viewport["height"], shown  # "We study kernels." on the first screen
                assert shown["wide"] <= viewport["width"], shown
                assert shown["title"].startswith("Overlay REVIEWED BY THE EDITORS kernels"), shown


@pytest.mark.real
def test_the_real_arxiv_feed_shows_no_raw_tex() -> None:
    """Of the feed's 1,203 abstracts and titles, 242 hold TeX as written; shown, none does: no
    command, no escaped sign, no `--` where a dash belongs. What is left of `$` (a price is
    `$2.5`) opens no math as Pandoc reads it (`$ O(log(n))$`: a space after it) or is a sign
    (`(in $)`). The daily papers' 9,109 hold no such leftover at all (`\\250 million` was one)."""
    feed = real_papers().parent / "arxiv-mlsys-2024-12-to-2025-12.atom.xml.gz"
    root = ET.fromstring(gzip.decompress(feed.read_bytes()))
    atom = "{http://www.w3.org/2005/Atom}"
    texts = [" ".join((e.findtext(f"{atom}{name}") or "").split())
             for e in root.iter(f"{atom}entry") for name in ("title", "summary")]
    raw = re.compile(r"\\[A-Za-z]+|\\[%&#_{}$]|\$[^$\s][^$]*\$")
    assert sum(bool(raw.search(t)) for t in texts) > 240
    leftover = re.compile(r"\\[A-Za-z%&#_{}$~\d]|(?<![-<!])--(?![->])|\$(?![\d\s])")

    def left(texts: list[str]) -> list[str]:
        out = []
        for text in texts:
            parts = tex_parts(text)
            shown = "".join(p.text for p in parts if not p.math)
            out += [shown[max(0, m.start() - 20):m.end() + 20] for m in leftover.finditer(shown)]
            for part in parts:
                assert not part.math or mathml(part.text, part.display), part
        return out

    assert left(texts) == ["pancy is $ O(log(n))$. For the discrepanc",
                           "nd upgrade cost (in $) and cost depreciat"]
    items = json.loads(gzip.decompress(real_papers().read_bytes()))
    daily = [" ".join((i["paper"].get(name) or "").split()) for i in items for name in ("title", "summary")]
    assert [t for t in left(daily) if "$" not in t] == []
