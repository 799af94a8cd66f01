"""Text helpers shared by every stage: normalisation, keys for matching, slugs."""

from __future__ import annotations

import os
import re
import reprlib
import unicodedata
from collections.abc import Container

_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[\W_]+")
_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# C0/C1 controls other than whitespace never belong in a title or an abstract.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# A lone surrogate is no character: no UTF-8 file can hold one, so the YAML writer would fail
# on it. JSON escapes (`"\ud800"`) and undecodable command-line bytes make them.
_SURROGATE = re.compile("[\ud800-\udfff]")
_BAD = re.compile(f"{_CONTROL.pattern}|{_SURROGATE.pattern}")
# Markup where a name is text: the start of an HTML tag, comment or declaration (`<` then a
# letter, `/`, `!` or `?`). Any other `<`, `&` or quote is text, shown as written.
_MARKUP = re.compile(r"<[A-Za-z/!?]")

SLUG_MAX = 64

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80
_SHORT.maxlist = _SHORT.maxdict = 4
_SHORT.maxlevel = 2


def squash(text: str) -> str:
    """Join hard line wraps and collapse runs of white space; every other character stays."""
    return _WS.sub(" ", text).strip()


def has_control(text: str) -> bool:
    return bool(_CONTROL.search(text))


def bad_character(text: str) -> str | None:
    """Why a text cannot be kept, naming the character, or None when it can."""
    found = _BAD.search(text)  # one scan for both kinds: every text field of every file
    if found is None:
        return None
    if _SURROGATE.match(found.group()):
        return (f"contains a lone surrogate (U+{ord(found.group()):04X}), which is no character: "
                f"the source's text is damaged")
    return f"contains a control character (U+{ord(found.group()):04X})"


# What a terminal must not be given raw: controls (an escape sequence that erases the line above
# or recolours the screen), format characters (a bidi override that reorders what follows, a
# zero-width one), line and paragraph separators, surrogates, private and unassigned ones.
_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: str) -> str:
    """Text as a terminal is to show it (a message, survey explain, survey review): each unsafe
    character written as its escape, `\\x1b`, `\\u202e`; other spaces (no-break) as they are."""
    if text.isprintable():  # none unsafe: the usual case, at C speed
        return text
    return "".join(c.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(c) in _UNSAFE else c for c in text)


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as messages show it: relative to the working directory where possible, and
    printable (a file's name comes from whoever made the file)."""
    try:
        return printable(os.path.relpath(path))
    except ValueError:
        return printable(str(path))


# In a name, characters that show nothing but change how the text around them shows: the bidi
# controls (U+202E, RIGHT-TO-LEFT OVERRIDE, shows "Ann Lee, Bo Li" as "iL oB ,eeL nnA", every
# name after it on the line included) and invisible format characters (zero-width space, word
# joiner, invisible operators, byte-order mark, soft hyphen). None is in a name, a title or an
# abstract of the 9,109 real papers or the arXiv feed. The zero-width joiner and non-joiner
# (U+200C, U+200D) are kept: Persian and Indic names are written with them.
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064"
                        "\u2066-\u206f\ufeff\ufff9-\ufffb]")


def bad_name(text: str) -> str | None:
    """Why a person's name cannot be kept (what `bad_character` refuses, and invisible characters
    that reorder or hide text), or None when it can."""
    bad = bad_character(text)
    if bad is not None:
        return bad
    found = _INVISIBLE.search(text)
    if found is None:
        return None
    char = found.group()
    return (f"contains U+{ord(char):04X} ({unicodedata.name(char, 'a format character')}), an invisible "
            f"character that changes how the text around it shows")


def has_markup(text: str) -> bool:
    return bool(_MARKUP.search(text))


def shorten(value: object) -> str:
    """A value as an error message quotes it: its repr, cut short (a list of a million items
    or a text of megabytes is never written out whole)."""
    return _SHORT.repr(value)


def match_key(text: str) -> str:
    """The form two titles (or abstracts) share when they are the same text.

    Case, white space, punctuation and Unicode compatibility forms are ignored.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_NON_WORD.sub(" ", text).split())


def words(text: str) -> list[str]:
    return match_key(text).split()


def is_slug(value: str) -> bool:
    return len(value) <= SLUG_MAX + 8 and bool(_SLUG_RE.match(value))


def slugify(title: str, taken: Container[str] = frozenset()) -> str:
    """A URL-safe ASCII slug from a title, cut at a word boundary, unique among `taken`."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    parts = re.sub(r"[^a-z0-9]+", " ", ascii_text.lower()).split()
    slug = ""
    for part in parts:
        candidate = f"{slug}-{part}" if slug else part
        if len(candidate) > SLUG_MAX:
            break
        slug = candidate
    if not slug:
        slug = (parts[0][:SLUG_MAX] if parts else "") or "paper"
    unique, n = slug, 2
    while unique in taken:
        unique = f"{slug}-{n}"
        n += 1
    return unique


def shingles(text: str, size: int = 3) -> set[str]:
    """Word n-grams of a text's match form, for near-duplicate detection."""
    w = words(text)
    if len(w) < size:
        return {" ".join(w)} if w else set()
    return {" ".join(w[i : i + size]) for i in range(len(w) - size + 1)}


def first_sentence(text: str, limit: int = 240) -> str:
    """The abstract's first sentence, cut at a word boundary when it is very long."""
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z(\"'])", text)
    sentence = text[: match.start()] if match else text
    if len(sentence) > limit:
        cut = sentence[:limit].rsplit(" ", 1)[0]
        sentence = cut.rstrip(",;:") + " …"
    return sentence


# LaTeX that arXiv metadata carries in plain-text fields: escaped specials, accents, text
# styles and links. Math (`$...$`, `\(...\)`) and authors' own macros (`\ours`) are kept as
# written: nothing says what they stand for.
_TEX_SPECIAL = re.compile(r"\\([%&$#_{}])")
_TEX_SPACE = re.compile(r"\\[ ,;]")
_TEX_ACCENT = re.compile(r"""\\(['"`^~])(?:\{\s*(\\i|[A-Za-z])\s*\}|([AEIOUYaeiouy]))""")
_TEX_ACCENTS = {"'": "\u0301", '"': "\u0308", "`": "\u0300", "^": "\u0302", "~": "\u0303"}
_TEX_STYLE = re.compile(
    r"\\(?:textbf|textit|textsc|texttt|textrm|textsf|textup|textmd|emph|underline)\{([^{}\\]*)\}")
_TEX_HREF = re.compile(r"\\href\{([^{}\s]+)\}\{([^{}\\]*)\}")
_TEX_URL = re.compile(r"\\url\{([^{}\s]+)\}")
_TEX_WORDS = {r"\textgreater": ">", r"\textless": "<", r"\LaTeX": "LaTeX", r"\TeX": "TeX"}
_TEX_WORD = re.compile(r"(\\textgreater|\\textless|\\LaTeX|\\TeX)(?![A-Za-z])(?:\{\})?")


def plain_tex(text: str) -> str:
    """Text as a reader sees it once LaTeX has typeset it: `12\\%` is `12%`, `Pok\\'eChamp` is
    `PokéChamp`, `\\textbf{fast}` is `fast`. Anything else stays as written."""
    if "\\" not in text:
        return text
    text = re.sub(r"~(?=\\(?:url|href)\{)", " ", text)  # a tie before a link
    text = _TEX_HREF.sub(lambda m: f"{m.group(2)} ({m.group(1)})" if m.group(2) else m.group(1), text)
    text = _TEX_URL.sub(r"\1", text)
    for _ in range(3):  # nested styles, innermost first
        text, n = _TEX_STYLE.subn(r"\1", text)
        if not n:
            break

    def accent(m: re.Match[str]) -> str:
        base = m.group(2) or m.group(3)
        return unicodedata.normalize("NFC", ("i" if base == "\\i" else base) + _TEX_ACCENTS[m.group(1)])

    text = _TEX_ACCENT.sub(accent, text)
    text = re.sub(r"\\(['\"`])", r"\1", text)  # an escaped quote: query\'s
    text = _TEX_WORD.sub(lambda m: _TEX_WORDS[m.group(1)], text)
    text = _TEX_SPACE.sub(" ", text)
    return _TEX_SPECIAL.sub(r"\1", text)


# BibTeX fields are LaTeX source: braces group (`{GPU}s` keeps a capital under a bibliography
# style that lowercases), accents come in every form (`{\'e}`, `\'{e}`, `\c{c}`, `{\o}`),
# dashes are `--` and `---`, a tie `~` is a space. `typeset_tex` reads all of it as a page shows
# it; math and authors' own macros stay as written, as `plain_tex` keeps them.
_TEX_LETTER_ACCENTS = {"=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
                       "H": "\u030b", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331"}
_TEX_LETTERS = {"ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å",
                "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ"}
_TEX_MORE_WORDS = {r"\ldots": "…", r"\dots": "…", r"\textendash": "–", r"\textemdash": "—",
                   r"\textasciitilde": "~", r"\textasciicircum": "^", r"\textbackslash": "\\",
                   r"\textquotesingle": "'",
                   r"\textbar": "|", r"\S": "§", r"\P": "¶", r"\copyright": "©", r"\pounds": "£",
                   r"\texttimes": "×", r"\textdiv": "÷", r"\textpm": "±", r"\textminus": "−",
                   r"\textdegree": "°", r"\textmu": "µ", r"\textregistered": "®", r"\texttrademark": "™",
                   r"\textbullet": "•", r"\textperiodcentered": "·", r"\textdagger": "†",
                   r"\textellipsis": "…", r"\textquoteleft": "‘", r"\textquoteright": "’",
                   r"\textquotedblleft": "“", r"\textquotedblright": "”"}
# A raised or lowered text: digits and signs have their Unicode forms (`10\textsuperscript{-3}`
# is 10⁻³, not 10-3); anything else reads inline (`4\textsuperscript{th}` is 4th).
_SCRIPTS = {"super": dict(zip("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾", strict=True)),
            "sub": dict(zip("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎", strict=True))}
_TEX_SWITCHES = ("em", "bf", "it", "sc", "tt", "rm", "sf", "sl", "bfseries", "itshape", "scshape",
                 "ttfamily", "normalfont", "upshape", "mdseries", "rmfamily", "sffamily", "relax",
                 "protect")  # and two commands that typeset nothing
_TEX_STYLES = ("textbf", "textit", "textsc", "texttt", "textrm", "textsf", "textup", "textmd", "textsl",
               "textnormal", "emph", "underline", "mbox", "hbox", "text")
_TEX_ALL_WORDS = {**_TEX_WORDS, **_TEX_MORE_WORDS}
_BASE = r"(?:\\[ij](?![A-Za-z])|[A-Za-z])"
_TEX_TOKEN = re.compile(
    r"(?P<math>(?<!\\)\$[^$]*(?<!\\)\$)"  # math: kept as written
    r"|(?P<link>https?://[^\s{}]+)"  # a bare URL: no dash or tie in it is read
    r"|\\url\{(?P<url>[^{}\s]*)\}"
    r"|\\href\{(?P<href>[^{}\s]*)\}\{(?P<label>[^{}\\]*)\}"
    r"|\\(?P<special>[%&$#_{}])"
    rf"|\\(?P<accent>['\"`^~=.])\s*(?:\{{\s*(?P<base>{_BASE})\s*\}}|(?P<bare>{_BASE}))"
    rf"|\\(?P<letter_accent>[cvuHkrdb])(?:\s*\{{\s*(?P<lbase>{_BASE})\s*\}}|\s+(?P<lbare>[A-Za-z]))"
    rf"|\\(?P<letter>{'|'.join(sorted(_TEX_LETTERS, key=len, reverse=True))})(?![A-Za-z])\s*"
    # a control word swallows the spaces after it, as TeX reads it (`3\texttimes 4` is 3×4)
    rf"|(?P<word>{'|'.join(re.escape(w) for w in sorted(_TEX_ALL_WORDS, key=len, reverse=True))})"
    r"(?![A-Za-z])\s*"
    rf"|\\(?:{'|'.join(_TEX_STYLES)})\s*(?=\{{)"  # the group's braces go below
    rf"|\\(?:{'|'.join(_TEX_SWITCHES)})(?![A-Za-z])\s*"
    r"|\\~\{\}"  # a tilde character
    r"|(?P<space>\\[ ,;:>]|\\\\)|\\[!/-]"
    r"|(?P<dash>---?)|``|''|~|[{}]"
    r"|\\text(?P<script>super|sub)script\s*\{(?P<raised>[^{}\\]*)\}"
    r"|(?P<macro>\\[A-Za-z]+(?:\{[^{}]*\})*)"  # an author's own macro (`\cite{x}`): kept whole
)
_TEX_FIXED = {"\\~{}": "~", "---": "—", "--": "–", "``": "“", "''": "”", "~": " ", "{": "", "}": ""}


def _accented(base: str, mark: str) -> str:
    letter = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", letter + mark)


def _tex_token(m: re.Match[str]) -> str:
    kind = m.lastgroup
    if kind == "math" and m.group(0) in ("$\\{$", "$\\}$"):  # a brace written as math, as Scholar does
        return m.group(0)[2]
    if kind in ("math", "link", "url", "special", "macro"):
        return m.group(kind)
    if kind == "label" or m.group("href") is not None:
        return f"{m.group('label')} ({m.group('href')})" if m.group("label") else m.group("href")
    if m.group("accent"):
        return _accented(m.group("base") or m.group("bare"), _TEX_ACCENTS.get(m.group("accent"))
                         or _TEX_LETTER_ACCENTS[m.group("accent")])
    if m.group("letter_accent"):
        return _accented(m.group("lbase") or m.group("lbare"), _TEX_LETTER_ACCENTS[m.group("letter_accent")])
    if m.group("letter"):
        return _TEX_LETTERS[m.group("letter")]
    if m.group("script"):
        forms = _SCRIPTS[m.group("script")]
        raised = m.group("raised")
        return "".join(forms[c] for c in raised) if all(c in forms for c in raised) else raised
    if m.group("word"):
        return _TEX_ALL_WORDS[m.group("word")]
    if m.group("space"):
        return " "
    return _TEX_FIXED.get(m.group(0), "")


def typeset_tex(text: str) -> str:
    """A BibTeX field as a reader sees it once LaTeX has typeset it, on one line:
    `J{\\'e}gou` is `Jégou`, `{GPU}s` is `GPUs`, `122--131` is `122–131`, `\\&` is `&`."""
    return squash(_TEX_TOKEN.sub(_tex_token, text))
