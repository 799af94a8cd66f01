"""TeX math of a title or an abstract as MathML, written at build: browsers typeset MathML
themselves (Chromium since 109, Firefox, Safari), so a page shows math with no script and no
request to another host.

latex2mathml reads the TeX. Its output is not trusted as it is: it copies text into the markup
unescaped (`\\text{<script>}` gives `<mtext><script></mtext>`) and passes attributes through
(`\\href{javascript:...}`, `\\style{...}`). So its element tree is written out again here, with
only MathML's presentation elements, a few attributes whose values are plain words or lengths,
and every text character that HTML or Markdown could read written as a character reference.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from markupsafe import Markup

from ..core.tex import math_text, tex_parts
from ..core.tex_macros import mathml_lengths
from .markup import md_text

_ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac",
    "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded",
    "mphantom", "menclose", "merror",
})
_ATTRIBUTES = frozenset({
    "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "accent", "accentunder",
    "displaystyle", "scriptlevel", "form", "largeop", "movablelimits", "symmetric", "minsize",
    "maxsize", "width", "height", "depth", "linethickness", "columnalign", "rowalign",
    "columnspacing", "rowspacing", "columnlines", "rowlines", "frame", "notation",
})
_VALUE = re.compile(r"[A-Za-z0-9. %-]{1,40}")
# A length latex2mathml writes from the TeX (`\\rule{1em}{300em}`, `\\hspace{100000em}`,
# `\\moveleft{12em}`, `\\kern-40em`) is at most 3 em either way, as large as TeX's own spaces and
# delimiters get (`\\qquad` 2 em, `\\Bigg` 2.47 em): a rule 300 em tall set an abstract's first
# line 4,800 px down, past the first screen (audit T11).
_LENGTHS = frozenset({"width", "height", "depth", "lspace", "rspace", "minsize", "maxsize", "linethickness",
                      "columnspacing", "rowspacing"})
_MEASURE = re.compile(r"([-+]?)(\d+\.?\d*|\.\d+)(em|ex|mu|pt|px|pc|cm|mm|in|%|)")
_EMS = {"em": 1, "ex": 0.5, "mu": 1 / 18, "pt": 1 / 12, "px": 1 / 16, "pc": 1, "cm": 2.4, "mm": 0.24, "in": 6,
        "": 1, "%": 0}
_MOST = 3
# A wrapper Markdown reads as inline HTML: a paragraph that starts with <math>, a block-level
# tag to Python-Markdown, would be passed through raw and lose its attributes line.
_OPEN = '<span class="survey-math">'
_CLOSE = "</span>"


@functools.lru_cache(maxsize=4096)
def mathml(source: str, display: bool = False) -> str | None:
    """The math as safe MathML inside a span, or None when latex2mathml cannot read it."""
    try:
        root = _converter().convert_to_element(mathml_lengths(source),
                                               display="block" if display else "inline")
    except Exception:  # latex2mathml on a formula it cannot read: the caller shows it as text
        return None
    out: list[str] = []
    _write(root, out, depth=0)
    if not out:
        return None
    return _OPEN + "".join(out) + _CLOSE


# Chromium draws only mathvariant="normal" (MathML Core): latex2mathml gives `\mathsf{A}` as the
# letter 𝖠 itself, but `\mathsf{SetX}` as one <mi mathvariant="sans-serif"> per letter, which
# showed as spaced italics. Such a letter or digit is written as its Unicode math character
# (Unicode's name for it: the variant's words, then "CAPITAL S"), the attribute dropped.
_VARIANT_NAMES = {
    "bold": "BOLD", "italic": "ITALIC", "bold-italic": "BOLD ITALIC", "script": "SCRIPT",
    "bold-script": "BOLD SCRIPT", "fraktur": "FRAKTUR", "bold-fraktur": "BOLD FRAKTUR",
    "double-struck": "DOUBLE-STRUCK", "sans-serif": "SANS-SERIF", "bold-sans-serif": "SANS-SERIF BOLD",
    "sans-serif-italic": "SANS-SERIF ITALIC", "sans-serif-bold-italic": "SANS-SERIF BOLD ITALIC",
    "monospace": "MONOSPACE",
}
# Unicode's letters that stand in the math alphabets' gaps (script B is U+212C, not U+1D49D).
_GAPS = {"SCRIPT": "SCRIPT", "FRAKTUR": "BLACK-LETTER", "DOUBLE-STRUCK": "DOUBLE-STRUCK"}
# latex2mathml's `\setminus` is U+29F5, a character Chromium's fonts here lack (it drew a box).
_SYMBOLS = {"\u29f5": "\u2216"}
# A function name (`\log`) ran into what follows it ("loglogΔ"): TeX sets a thin space there.
_FUNCTION = re.compile(r"[a-z]{2,}")
_THIN = '<mspace width="0.1667em"></mspace>'


@functools.lru_cache(maxsize=1024)
def _styled(char: str, variant: str) -> str | None:
    """The math character of a letter or digit in a mathvariant, or None."""
    words = _VARIANT_NAMES.get(variant)
    if words is None or not char.isascii() or not char.isalnum():
        return None
    what = f"DIGIT {unicodedata.name(char).split()[-1]}" if char.isdigit() else \
        f"{'CAPITAL' if char.isupper() else 'SMALL'} {char.upper()}"
    for name in (f"MATHEMATICAL {words} {what}", f"{_GAPS.get(words, '?')} {what}",
                 "PLANCK CONSTANT" if (words, char) == ("ITALIC", "h") else "?"):
        try:
            return unicodedata.lookup(name)
        except KeyError:
            continue
    return None


def _write(node: ET.Element, out: list[str], depth: int) -> None:
    tag = node.tag.rsplit("}", 1)[-1] if isinstance(node.tag, str) else ""
    keep = tag in _ELEMENTS and depth < 64
    text = html.unescape(node.text or "")  # latex2mathml writes symbols as references
    if keep:
        chars = [_styled(c, node.get("mathvariant", "")) for c in text]
        styled = "".join(c for c in chars if c) if text and None not in chars else None
        if styled is not None:
            text = styled
        text = _SYMBOLS.get(text, text)
        attrs = "".join(f' {name}="{_bounded(value) if name in _LENGTHS else value}"'
                        for name, value in sorted(node.attrib.items())
                        if name in _ATTRIBUTES and _VALUE.fullmatch(value)
                        and not (name == "mathvariant" and styled is not None))
        if tag == "math" and node.get("display") == "block":
            attrs += ' display="block"'
        out.append(f"<{tag}{attrs}>")
    if text:
        out.append(_escaped(text))
    if depth < 64:
        children = list(node)
        for i, child in enumerate(children):
            _write(child, out, depth + 1)
            if (child.tag == "mi" and _FUNCTION.fullmatch(child.text or "") and i + 1 < len(children)
                    and children[i + 1].tag != "mo"):
                out.append(_THIN)
    if keep:
        out.append(f"</{tag}>")
    if node.tail and depth > 0:
        out.append(_text(node.tail))


def _bounded(value: str) -> str:
    """A length attribute's value with each length past `_MOST` em made `_MOST` em (its sign
    kept); a named space (`thinmathspace`) or a percentage as it is."""
    def bound(m: re.Match[str]) -> str:
        sign, number, unit = m.groups()
        return m.group() if float(number) * _EMS[unit] <= _MOST else f"{sign}{_MOST}em"
    return _MEASURE.sub(bound, value)


def _text(text: str) -> str:
    # latex2mathml writes symbols as references (`&#x1D4AA;`): read them, then write every
    # character Markdown or HTML could act on as a reference again.
    return _escaped(html.unescape(text))


def _escaped(text: str) -> str:
    return md_text(text).replace("<", "&#x3C;").replace(">", "&#x3E;")


@functools.cache
def _converter() -> Any:
    # Imported when a page first shows math: latex2mathml takes 40 ms to import.
    import latex2mathml.converter

    return latex2mathml.converter


def tex_markup(text: str, render: Callable[[str], str] = md_text) -> Markup:
    """A title or an abstract for a page (the `tex` filter of the templates): its text shown
    literally (`md_text`, or `render`: markup.linked_text also links its URLs), its TeX read
    (`core.tex`), its math as MathML.

    A text's MathML weighs at most four times the text's length and 2,000 bytes more: from the
    first formula that does not fit, its math shows as text, as a formula latex2mathml cannot read
    does. Real texts stay far within (at most 2,284 bytes, an abstract of 1,697 characters with 13
    formulas; a title 189 bytes), where an abstract of 2,500 `$a$` was 230 KB of MathML and a topic
    page of 40 titles of 150 formulas 600 KB, which every later step of a build reads (audit T14)."""
    out: list[str] = []
    shown: list[str] = []  # text since the last MathML, rendered in one piece
    budget = 4 * len(text) + 2_000
    for part in tex_parts(text):
        made = mathml(part.text, part.display) if part.math and budget > 0 else None
        if made is not None and len(made) <= budget:
            budget -= len(made)
            out += [render("".join(shown)), made] if shown else [made]
            shown = []
        else:
            budget = budget if made is None else 0
            shown.append(math_text(part.text) if part.math else part.text)
    out.append(render("".join(shown)))
    return Markup("".join(out))
