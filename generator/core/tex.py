"""TeX in a title or an abstract, read as a reader sees it: the one reading every stage uses.

Sources write TeX in plain-text fields: arXiv abstracts (`2.4$\\times$`, `\\ie`, `12\\%`,
`$\\mathcal{O}(n^3)$`), BibTeX fields (which are TeX throughout). The corpus keeps a text as its
source gave it; what shows it (pages, feeds, search, the review screen) reads it through
`tex_parts`, and the BibTeX reader reads its fields through it too (`bibtex=True`).

What is TeX and what is text (every other character stays exactly as written):

- A control word (`\\times`, `\\textbf{x}`, `\\'e`) is read with pylatexenc's table of LaTeX
  macros (hundreds of symbols, accents, Greek letters, text styles), not a table of our own;
  one it does not know (`\\method`, an author's own) shows as its name without the backslash.
- `$...$` is math only as Pandoc reads it: the opening `$` has a character other than a space
  after it, the closing one a character other than a space before it and no digit after it
  (`costs $5 and $10` holds no math). A lone `$` stays a dollar. `\\(...\\)`, `\\[...\\]` and
  `$$...$$` are math too.
- Math that is plain text (digits, signs, Greek letters, `\\times`, `\\sim`, `^{3}`, `^\\circ`)
  becomes that text (`2.4×`, `~`, `³`, `°`); the rest stays math (`Part.math`), for the site
  to write as MathML.
- `{` and `}` are TeX's braces only around TeX (`{\\delta}`, `\\emph{x}`): `{{ }}` is text.
  In a BibTeX field every brace is TeX's, and so are `--`, `---`, `~` and the quote ligatures.
- `--` and `---` are dashes where TeX sets one and a reader expects one (`2.3--46.2x`, `a -- b`,
  `hardware--software`), not in `--flag`, `-->`, a link, a path or code (`_dashes`).
- A backslash before a number is a dollar the feed lost (`\\250 million`, the author's
  `\\$250`), or nothing before a list's `3)`; before a tilde (`\\~8B`), nothing.

Hostile input costs no more than plain text: braces are matched once, in one pass, and nesting
deeper than `_DEPTH` is read as text.

A text becomes another text in these functions, and only there:
`tex_text` and `bib_text` (here: a title, an abstract or a BibTeX field as plain text);
`math_plain` (tex_math.py: math that reads as plain text); `math_text`, `snippet_text` and
`macro_text` (tex_macros.py: math, a snippet or a macro as pylatexenc's tables read it);
`md_text` and `linked_text` (site/markup.py: text shown literally in a page, its URLs links);
`tex_markup` (site/mathml.py: a title or an abstract for a page, its math as MathML).
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import NamedTuple

from .tex_macros import (
    NOTHING,
    WORDS,
    accented,
    brace_pairs,
    dashes,
    length_command,
    macro_text,
    math_text,
    snippet_text,
    takes_arguments,
)
from .tex_math import SCRIPTS, code_point, math_plain


class Part(NamedTuple):
    """A piece of a text as shown: plain text, or (math=True) TeX math to typeset. (A tuple: an
    abstract of 10,000 characters can hold 3,000 formulas, and a frozen dataclass took as long to
    make as the rest of reading one.)"""

    text: str
    math: bool = False
    display: bool = False  # $$...$$ or \[...\]


# Commands whose argument is shown as text, read on as TeX (so math inside still is math).
_STYLES = frozenset({
    "textbf", "textit", "textsc", "texttt", "textrm", "textsf", "textup", "textmd", "textsl",
    "textnormal", "emph", "underline", "uline", "mbox", "hbox", "text",
})
_REFS = frozenset({"cite", "citep", "citet", "citealp", "citeauthor", "ref", "eqref", "autoref", "cref",
                   "Cref"})
_DEPTH = 20  # braces nested deeper are text: no recursion without end on `{{{{...`
_ACCENT_BASE = re.compile(r"\s*(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))")
_LETTER_ACCENT = re.compile(r"(?:\s*\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|\s+([A-Za-z]))")
_WORD = re.compile(r"\\([A-Za-z]+)\*?")
# Where something other than a literal run may start.
_INTERESTING_TEXT = re.compile(r"[\\${}]|~(?=\\[A-Za-z])")  # a tie before a command: `paper~\cite{x}`
_INTERESTING_BIB = re.compile(r"https?://|[\\${}~`'\-]")
_LINK_ONLY = re.compile(r"\s*\\(?:href|url)\{[^{}]*\}(?:\{[^{}]*\})?\s*")
_URL = re.compile(r"https?://[^\s{}]+")  # in BibTeX, no dash or tie of a URL is read
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def tex_parts(text: str, bibtex: bool = False) -> tuple[Part, ...]:
    """The text as shown: plain text parts and math parts, adjacent text parts joined.

    bibtex=True reads a BibTeX field: every brace, `--`, `~` and quote ligature is TeX; math and
    the authors' own macros are kept as written (the corpus keeps them; a page reads them)."""
    if not (_INTERESTING_BIB.search(text) if bibtex else ("\\" in text or "$" in text or "--" in text)):
        return (Part(" ".join(text.split()) if bibtex else text),) if text else ()
    return _parts_cached(text, bibtex)


@functools.lru_cache(maxsize=4096)
def _parts_cached(text: str, bibtex: bool) -> tuple[Part, ...]:
    reader = _Reader(text, bibtex)
    reader.read(0, len(text), 0)
    return tuple(reader.joined())


def bib_text(text: str) -> str:
    """A BibTeX field as a reader sees it once LaTeX has typeset it, on one line:
    `J{\\'e}gou` is `Jégou`, `{GPU}s` is `GPUs`, `122--131` is `122–131`; math kept as written."""
    return tex_text(text, bibtex=True)


def tex_text(text: str, bibtex: bool = False) -> str:
    """The text as plain text: math that is not plain text read by pylatexenc too
    (`$\\mathcal{O}(n^3)$` is `𝒪(n^3)`). For a terminal, a feed, a page's description."""
    parts = tex_parts(text, bibtex)
    if len(parts) == 1 and not parts[0].math:
        return parts[0].text
    return _text_cached(text, bibtex)


@functools.lru_cache(maxsize=4096)
def _text_cached(text: str, bibtex: bool) -> str:
    # A site reads an abstract as text for its page's description and for each feed it is in.
    return "".join(p.text if not p.math else math_text(p.text) for p in tex_parts(text, bibtex))


class _Reader:
    def __init__(self, text: str, bibtex: bool) -> None:
        self.text = text
        self.bibtex = bibtex
        self.out: list[str | Part] = []  # text as str (joined once at the end), math as Part
        self.code: set[int] = set()  # the pieces of out that are code (`\texttt`): no dashes read
        self.close = brace_pairs(text)
        self.dollars = [m.start() for m in re.finditer(r"(?<!\\)\$", text)]
        self.interesting = _INTERESTING_BIB if bibtex else _INTERESTING_TEXT

    def joined(self) -> list[Part]:
        out: list[Part] = []
        run: list[str] = []
        code: list[tuple[int, int]] = []  # where in the run its code is
        at = 0
        for k, piece in enumerate([*self.out, None]):
            if isinstance(piece, str):
                if k in self.code:
                    code.append((at, at + len(piece)))
                run.append(piece)
                at += len(piece)
                continue
            text = "".join(run)
            if text and self.bibtex:
                text = " ".join(text.split())
            elif "--" in text:
                text = dashes(text, code, bool(out), piece is not None)
            if text:
                out.append(Part(text))
            run, code, at = [], [], 0
            if piece is not None and piece.text:
                out.append(piece)
        return out

    def emit(self, text: str) -> None:
        self.out.append(text)

    def read(self, start: int, end: int, depth: int) -> None:
        text = self.text
        i = start
        while i < end:
            found = self.interesting.search(text, i, end)
            if found is None:
                self.emit(text[i:end])
                return
            j = found.start()
            if j > i:
                self.emit(text[i:j])
            i = j
            char = text[i]
            if char == "\\":
                i = self.command(i, end, depth)
            elif char == "$":
                i = self.dollar(i, end)
            elif char == "{":
                close = self.close.get(i)
                if close is None or close > end or depth >= _DEPTH:
                    self.emit("{" if not self.bibtex else "")
                    i += 1
                elif self.bibtex or "\\" in text[i:close]:  # a TeX group: its braces are TeX's
                    self.read(i + 1, close, depth + 1)
                    i = close + 1
                else:  # `{{ }}`, `L_{2}`: text
                    self.emit("{")
                    i += 1
            elif char == "}":
                self.emit("" if self.bibtex else "}")
                i += 1
            elif char == "~" and not self.bibtex:
                self.emit(" ")
                i += 1
            else:  # BibTeX's ligatures and ties
                i = self.ligature(i, end)

    def ligature(self, i: int, end: int) -> int:
        text = self.text
        for token, shown in (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”"), ("~", " ")):
            if text.startswith(token, i) and i + len(token) <= end:
                self.emit(shown)
                return i + len(token)
        url = _URL.match(text, i, end)
        if url is not None:
            self.emit(url.group())
            return url.end()
        self.emit(text[i])
        return i + 1

    def dollar(self, i: int, end: int) -> int:
        text = self.text
        if text.startswith("$$", i):
            close = text.find("$$", i + 2, end)
            if close > i + 2:
                self.math(text[i + 2:close], display=True, written=text[i:close + 2])
                return close + 2
        k = bisect.bisect_right(self.dollars, i)  # the next `$` not escaped
        close = self.dollars[k] if k < len(self.dollars) and self.dollars[k] < end else -1
        if self.bibtex:  # TeX itself: every `$` opens or closes math
            if close > i:
                self.math(text[i + 1:close], display=False, written=text[i:close + 1])
                return close + 1
            self.emit("$")
            return i + 1
        opens = i + 1 < end and not text[i + 1].isspace()
        # ... and a digit after the closing `$` only where a price would open it (`$5-$10`):
        # `$\sim$50%` is math.
        closes = (close > i + 1 and not text[close - 1].isspace()
                  and not (close + 1 < len(text) and text[close + 1].isdigit() and text[i + 1].isdigit()))
        if opens and closes:
            self.math(text[i + 1:close], display=False, written=text[i:close + 1])
            return close + 1
        # A `$` right after a command or a percent sign, not before a word, closed math whose
        # opening `$` the source lost (`5.18\times$ latency`): it shows nothing.
        if re.search(r"(?:\\[A-Za-z]+|%)\Z", text[max(0, i - 40):i]) and not (
                i + 1 < len(text) and text[i + 1].isalnum()):
            return i + 1
        self.emit("$")
        return i + 1

    def math(self, source: str, display: bool, written: str) -> None:
        if self.bibtex:
            # `$\{$`: a brace written as math, as Google Scholar's BibTeX does
            self.emit(source[1] if source in ("\\{", "\\}") else written)
            return
        if "\\" in source and _LINK_ONLY.fullmatch(source):  # `$\href{URL}{URL}$`: a link in math
            self.out.extend(p.text if not p.math else p for p in tex_parts(source.strip()))
        elif (plain := math_plain(source)) is not None:
            self.emit(plain)
        elif source.strip():
            self.out.append(Part(source.strip(), math=True, display=display))

    def command(self, i: int, end: int, depth: int) -> int:
        text = self.text
        nxt = text[i + 1] if i + 1 < end else ""
        if nxt and nxt in "%&$#_{}":
            self.emit(nxt)
            return i + 2
        if nxt in ("(", "[") and not self.bibtex:
            close = text.find("\\)" if nxt == "(" else "\\]", i + 2, end)
            if close > i + 2:
                self.math(text[i + 2:close], display=nxt == "[", written=text[i:close + 2])
                return close + 2
        length = length_command(text, i, end) if not self.bibtex else None
        if length is not None:  # `\hspace{2em}`, `\rule{1em}{9em}`, `\raisebox{1ex}{X}`: no length shown
            self.emit(length[0])
            box = self.close.get(length[1]) if length[2] else None
            if box is not None and box <= end and depth < _DEPTH:
                self.read(length[1] + 1, box, depth + 1)
                return box + 1
            return length[1]
        if (nxt and nxt in " ,;:>") or text.startswith("\\\\", i):
            self.emit(" ")
            return i + 2
        if nxt and nxt in "!/-":
            return i + 2
        if nxt and nxt in "'\"`^~=.":
            base = _ACCENT_BASE.match(text, i + 2, end)
            # Outside BibTeX, a quote escaped before a bare consonant is the quote: arXiv's
            # `the model\'s cost` (where `Pok\'eChamp` and `\'{s}` are accents).
            if base and not (nxt in "'\"`" and not self.bibtex and base.group(2)
                             and base.group(2) not in "AEIOUYaeiouy"):
                self.emit(accented(nxt, base.group(1) or base.group(2)))
                return base.end()
            if nxt in "'\"`":  # an escaped quote: query\'s
                self.emit(nxt)
                return i + 2
        if nxt == "~" and not self.bibtex:  # `\~8B`: a tilde escaped as Markdown escapes it
            self.emit("~")
            return i + 2
        if nxt.isdigit() and not self.bibtex:
            # `\250 million`, `\1.49M`: a price whose `$` a feed dropped from the author's `\$`
            # (the same abstract's `\$250M`); `\3) Training` numbers a list: the number as typed.
            number = _NUMBER.match(text, i + 1, end)
            assert number is not None
            self.emit(number.group() if text.startswith(")", number.end()) else "$" + number.group())
            return number.end()
        word = _WORD.match(text, i, end)
        if word is None:  # a backslash before anything else is text
            self.emit("\\")
            return i + 1
        name, after = word.group(1), word.end()
        if name in "cvuHkrdb" and len(name) == 1:
            base = _LETTER_ACCENT.match(text, after, end)
            if base:
                self.emit(accented(name, base.group(1) or base.group(2)))
                return base.end()
        args = self.arguments(after, end)
        if name in _STYLES and args:
            start, close, first = *args[0], len(self.out)
            if depth < _DEPTH:
                self.read(start + 1, close, depth + 1)
            else:
                self.emit(text[start + 1:close])
            if name == "texttt":
                self.code.update(range(first, len(self.out)))
            return close + 1
        if name in ("url", "href") and args:
            target = text[args[0][0] + 1:args[0][1]]
            label = text[args[1][0] + 1:args[1][1]] if name == "href" and len(args) > 1 else target
            label = tex_text(label, self.bibtex) if "\\" in label else label
            self.emit(label if label == target else f"{label} ({target})")
            return args[1 if name == "href" and len(args) > 1 else 0][1] + 1
        if name == "unicode" and args:
            code = text[args[0][0] + 1:args[0][1]]
            char = code_point(code)
            if char is not None:
                self.emit(char)
                return args[0][1] + 1
        if name in ("textsuperscript", "textsubscript") and args:
            inner = text[args[0][0] + 1:args[0][1]]
            forms = SCRIPTS["^" if name == "textsuperscript" else "_"]
            self.emit("".join(forms[c] for c in inner) if all(c in forms for c in inner) else inner)
            return args[0][1] + 1
        spaces = self.bibtex  # TeX swallows the spaces after a control word; an abstract's
        # author who wrote `2.4\times speedup` meant the space, so outside BibTeX it stays.
        if name in _REFS:
            if self.bibtex:
                return self.verbatim(i, args, after)
            keys = ", ".join(text[s + 1:c] for s, c in args)
            self.emit(f"[{keys}]" if keys else "")
            return args[-1][1] + 1 if args else after
        if name in NOTHING:
            return _skip_spaces(text, after, end)
        if name in WORDS:
            self.emit(WORDS[name])
            return _empty_group(text, after, end) if not spaces else _skip_spaces(text, after, end)
        shown = macro_text(name)
        if shown is None:  # a macro no table knows: the authors' own
            if self.bibtex:
                return self.verbatim(i, args, after)
            self.emit(name)
            return _empty_group(text, after, end)
        if args and takes_arguments(name):
            snippet = text[i:args[-1][1] + 1]
            self.emit(snippet_text(snippet))
            return args[-1][1] + 1
        self.emit(shown)
        return _empty_group(text, after, end) if not spaces else _skip_spaces(text, after, end)

    def verbatim(self, i: int, args: list[tuple[int, int]], after: int) -> int:
        stop = args[-1][1] + 1 if args else after
        self.emit(self.text[i:stop])
        return stop

    def arguments(self, i: int, end: int) -> list[tuple[int, int]]:
        """The brace groups right after a command (`[...]` options skipped): (open, close)."""
        text = self.text
        out: list[tuple[int, int]] = []
        while i < end:
            if text[i] == "[":
                bracket = text.find("]", i, end)
                if bracket < 0 or out:
                    break
                i = bracket + 1
                continue
            close = self.close.get(i) if text[i] == "{" else None
            if close is None or close >= end:
                break
            out.append((i, close))
            i = close + 1
        return out


def _skip_spaces(text: str, i: int, end: int) -> int:
    while i < end and text[i] in " \t\n":
        i += 1
    return _empty_group(text, i, end)


def _empty_group(text: str, i: int, end: int) -> int:
    return i + 2 if text.startswith("{}", i) and i + 2 <= end else i
