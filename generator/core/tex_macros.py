"""What a TeX command or ligature shows, one at a time, for core/tex.py's reader: pylatexenc's
tables of LaTeX macros, the lengths TeX's commands take, TeX's dashes and braces.

pylatexenc (a maintained LaTeX parser and LaTeX-to-Unicode converter) knows hundreds of
macros: symbols, accents, Greek letters, text styles and their arguments. It is asked about one
macro or one small snippet at a time (cached), never about a whole text: its parser reads `%`
as a comment and `~` as a tie, which in an abstract are a percent sign and a tilde.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

# Macros whose reading pylatexenc lacks or reads otherwise than a reader of an abstract expects
# (`\ie` is the authors' shorthand for "i.e."; `\sim` in an abstract says "about").
WORDS = {
    "ie": "i.e.", "eg": "e.g.", "etal": "et al.", "etc": "etc.", "cf": "cf.", "vs": "vs.",
    "wrt": "w.r.t.", "aka": "a.k.a.", "resp": "resp.", "S": "§", "P": "¶", "copyright": "©",
    "pounds": "£", "textbar": "|", "textminus": "−", "textasciicircum": "^",
    "textperiodcentered": "·", "sim": "~", "textasciitilde": "~", "LaTeX": "LaTeX", "TeX": "TeX",
}
# Commands that typeset nothing here (font switches; \protect and \relax).
NOTHING = frozenset({
    "em", "bf", "it", "sc", "tt", "rm", "sf", "sl", "bfseries", "itshape", "scshape", "ttfamily",
    "normalfont", "upshape", "mdseries", "rmfamily", "sffamily", "relax", "protect", "noindent",
    "xspace", "displaystyle", "textstyle", "small", "footnotesize", "large", "Large",
})

_BRACES = re.compile(r"\\.|[{}]", re.S)


def brace_pairs(text: str) -> dict[int, int]:
    """Each `{` that is closed, to its `}` (escaped braces are not braces), in one pass over the
    braces and backslashes alone."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for found in _BRACES.finditer(text):
        char = found.group()
        if char == "{":
            stack.append(found.start())
        elif char == "}" and stack:
            pairs[stack.pop()] = found.start()
    return pairs


# `--` and `---` outside BibTeX: a dash where TeX would set one and a reader expects one (a range,
# `2.3--46.2x`; words, `hardware--software`; a pause, `systems -- such as`, `MELD --show`), not
# before a word that is no plain word (`--fast-math`, `--lr=0.1`), nor in an arrow or a longer rule
# (`-->`, `----`), a link or path (any word with a `/`), code in backquotes or `\texttt`. (The
# real feeds' 1,400 `--` hold no flag; each " --word" in them is a dash.)
_DASH = re.compile(r"`[^`\n]*`|(?<!\S)[^\s/]*/\S*|(?<![-<!])-{2,3}(?![->])")
_WORD_AFTER = re.compile(r"[A-Za-z]+(?![\w=./-])")


def dashes(text: str, code: list[tuple[int, int]], math_before: bool, math_after: bool) -> str:
    """A text's `--` and `---` as en and em dashes: `code` (start, end) is kept as typed
    (`\\texttt`), and math just before or after the text reads as a word beside it."""
    def dash(m: re.Match[str]) -> str:
        found, start, stop = m.group(), m.start(), m.end()
        if found[0] != "-" or any(a <= start < b for a, b in code):
            return found
        left = text[start - 1] if start else ("x" if math_before else "")
        right = text[stop] if stop < len(text) else ("x" if math_after else "")
        if not left or not right or (left.isspace() and not right.isspace()
                                     and not _WORD_AFTER.match(text, stop)):
            return found
        return "–" if len(found) == 2 else "—"
    return _DASH.sub(dash, text)


# TeX's lengths: a space (`\\hspace{2em}`, `\\kern-40em`), a rule (`\\rule{1em}{300em}`), a box
# moved (`\\moveleft{12em}{X}`, `\\raisebox{1ex}{X}`) and a line break's extra space (`\\\\[2em]`).
# As text they are a space, nothing, the box's content and a space: pylatexenc showed the length
# ("Overlay 12emREVIEWED" in a page's title, audit T17). The MathML's sizes: site/mathml.py.
_DIMEN = r"[-+]?\s*(?:\d+\.?\d*|\.\d+)\s*(?:em|ex|mu|pt|px|pc|cm|mm|in|bp|dd|cc|sp)"
_LENGTH = rf"\s*(?:\{{\s*{_DIMEN}\s*\}}|{_DIMEN})"
_LENGTHS = re.compile(
    rf"(?P<space>\\(?:[hv]space\*?|mspace|[hvm]skip|m?kern){_LENGTH}|\\\\\s*\[{_DIMEN}\s*\])"
    rf"|(?P<rule>\\rule(?:\s*\[{_DIMEN}\s*\])?{_LENGTH}{_LENGTH})"
    rf"|(?P<move>\\(?:moveleft|moveright|raise|lower){_LENGTH}|\\raisebox\s*\{{\s*{_DIMEN}\s*\}}(?:\s*\[[^]]*\]){{0,2}})\s*")


# What latex2mathml shows as text of a length ("[2em]", "\\vspace2em"): a line break's space, a
# vertical space, a rule's raise, a raisebox's, `\\hspace*`'s star and `\\hbox to 2em`'s width.
_MATHML_TEXT = re.compile(
    rf"(?P<break>\\\\)\s*\[{_DIMEN}\s*\]|\\v(?:space\*?|skip){_LENGTH}|(?<=\\hspace)\*"
    rf"|(?<=\\rule)\s*\[{_DIMEN}\s*\]|\\raisebox\s*\{{\s*{_DIMEN}\s*\}}(?:\s*\[[^]]*\]){{0,2}}"
    rf"|(?<=\\hbox)\s+to{_LENGTH}")


def mathml_lengths(source: str) -> str:
    """Math for latex2mathml, without the lengths it would show as text (those it reads become
    sizes, which site/mathml.py bounds)."""
    return _MATHML_TEXT.sub(lambda m: m.group("break") or "", source) if "\\" in source else source


def length_command(text: str, i: int, end: int) -> tuple[str, int, bool] | None:
    """The length command at text[i] (a backslash): what it shows, where it ends, and whether a
    box follows it whose content is shown; None for any other command."""
    found = _LENGTHS.match(text, i, end)
    if found is None:
        return None
    return (" " if found.group("space") else ""), found.end(), bool(found.group("move"))


@functools.lru_cache(maxsize=1024)
def math_text(source: str) -> str:
    """Math that is not plain text, as text: what pylatexenc reads (its lengths left out), or the
    source as written when it cannot read it."""
    if "\\" in source:
        source = _LENGTHS.sub(lambda m: " " if m.group("space") else "", source)
    try:
        shown = _latex2text().latex_to_text(source)
    except Exception:  # pylatexenc's reading of a malformed formula: show it as written
        return f"${source}$"
    return " ".join(shown.split()) or (f"${source}$" if source.strip() else "")


@functools.cache
def accented(accent: str, base: str) -> str:
    return snippet_text(f"\\{accent}{{{base}}}")


@functools.cache
def macro_text(name: str) -> str | None:
    """A macro's text by pylatexenc's table ("" for one that takes arguments: it is read with
    them), or None when the table does not hold it."""
    if _context().get_macro_spec(name) is None:
        return None
    return "" if takes_arguments(name) else snippet_text("\\" + name)


@functools.cache
def takes_arguments(name: str) -> bool:
    spec = _walker_context().get_macro_spec(name)
    return "{" in (getattr(getattr(spec, "args_parser", None), "argspec", None) or "")


@functools.lru_cache(maxsize=1024)
def snippet_text(snippet: str) -> str:
    try:
        return _latex2text().latex_to_text(snippet)
    except Exception:  # pylatexenc failing on a malformed snippet: show it without its backslash
        return snippet.lstrip("\\")


@functools.cache
def _latex2text() -> Any:
    # Imported when a text first holds TeX: pylatexenc takes 30 ms to import.
    from pylatexenc.latex2text import LatexNodes2Text

    # pylatexenc logs what it cannot read (a macro missing its argument) as warnings: here that
    # is a formula shown as written, not something for a build's log (or `mkdocs --strict`).
    logging.getLogger("pylatexenc").propagate = False
    logging.getLogger("pylatexenc").addHandler(logging.NullHandler())
    return LatexNodes2Text(math_mode="text", strict_latex_spaces="based-on-source")


@functools.cache
def _context() -> Any:
    from pylatexenc.latex2text import get_default_latex_context_db

    return get_default_latex_context_db()


@functools.cache
def _walker_context() -> Any:
    from pylatexenc.latexwalker import get_default_latex_context_db

    return get_default_latex_context_db()
