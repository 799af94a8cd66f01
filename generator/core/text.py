"""Text helpers shared by every stage: normalisation, keys for matching, slugs."""

from __future__ import annotations

import os
import re
import reprlib
import unicodedata
from collections.abc import Callable, Container

from .tex import tex_text
from .tex_math import code_value

_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[\W_]+")
_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# C0/C1 controls other than whitespace never belong in a title or an abstract.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# A lone surrogate is no character: no UTF-8 file can hold one, so the YAML writer would fail
# on it. JSON escapes (`"\ud800"`) and undecodable command-line bytes make them.
_SURROGATE = re.compile("[\ud800-\udfff]")
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
    """Why a text (a title, an abstract, a name, any field) cannot be kept, naming the
    character, or None when it can."""
    found = _BAD.search(text)  # one scan for every kind: every text field of every file
    if found is None:
        return None
    char = found.group()
    if _SURROGATE.match(char):
        return (f"contains a lone surrogate (U+{ord(char):04X}), which is no character: "
                f"the source's text is damaged")
    if _CONTROL.match(char):
        return f"contains a control character (U+{ord(char):04X})"
    return (f"contains U+{ord(char):04X} ({unicodedata.name(char, 'a format character')}), an invisible "
            f"character that changes how the text around it shows")


_UNICODE = re.compile(r"\\unicode\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)")


def tex_character(text: str) -> str | None:
    """Why a text's TeX gives a character `bad_character` refuses typed (or a line separator in a
    one-line text), naming the TeX, or None. Pages, feeds and the review screen show
    `\\unicode{x202E}` (in math too: latex2mathml reads it) and `\\nolinebreak` (pylatexenc's
    U+2060) as those characters, so they are refused as the characters typed are."""
    if "\\" not in text:
        return None
    for match in _UNICODE.finditer(text):
        value = code_value(match.group(1))
        char = chr(value) if value is not None else ""
        why = bad_character(char) or (char and unicodedata.category(char) in ("Zl", "Zp") and
                                      f"contains U+{value:04X} ({unicodedata.name(char)}), a line break")
        if why:
            return f"{match.group()} gives {why.removeprefix('contains ')}"
    found = _BAD.search(tex_text(text))
    if found is None:
        return None
    why = bad_character(found.group()) or ""
    named = [f"\\{m.group(1)}" for m in _COMMAND.finditer(text) if found.group() in tex_text(m.group() + " ")]
    return f"{named[0] if named else 'its TeX'} gives {why.removeprefix('contains ')}"


# What a terminal must not be given raw: controls (an escape sequence that erases the line above
# or recolours the screen), format characters (a bidi override that reorders what follows, a
# zero-width one), line and paragraph separators, surrogates, private and unassigned ones.
_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_JOINERS = "\u200c\u200d"  # format characters, but part of how Persian and Indic names are written


def printable(text: str) -> str:
    """Text as a terminal is to show it (a message, survey explain, survey review): each unsafe
    character written as its escape, `\\x1b`, `\\u202e`; other spaces (no-break) as they are."""
    if text.isprintable():  # none unsafe: the usual case, at C speed
        return text
    return "".join(c.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(c) in _UNSAFE and c not in _JOINERS else c for c in text)


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as messages show it: relative to the working directory where possible (what is
    printed is escaped at the output boundary, core/output.py: a file's name comes from whoever
    made the file). As given where there is no relative form (another drive) or no working
    directory (removed under the shell)."""
    try:
        return os.path.relpath(path)
    except (ValueError, OSError):
        return str(path)


# In any text, characters that show nothing but change how the text around them shows: the bidi
# controls (U+202E, RIGHT-TO-LEFT OVERRIDE, shows "Ann Lee, Bo Li" as "iL oB ,eeL nnA", every
# name after it on the line included; in a title, it reverses the page's line and the feed's) and
# invisible format characters (zero-width space, word joiner, invisible operators, byte-order
# mark, soft hyphen). None is in a name, a title or an abstract of the 9,109 real papers or the
# arXiv feed. The zero-width joiner and non-joiner (U+200C, U+200D) are kept: Persian and Indic
# names are written with them.
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064"
                        "\u2066-\u206f\ufeff\ufff9-\ufffb]")
_BAD = re.compile(f"{_CONTROL.pattern}|{_SURROGATE.pattern}|{_INVISIBLE.pattern}")


def has_markup(text: str) -> bool:
    return bool(_MARKUP.search(text))


def shorten(value: object) -> str:
    """A value as an error message quotes it: its repr, cut short (a list of a million items
    or a text of megabytes is never written out whole)."""
    return _SHORT.repr(value)


def match_key(text: str) -> str:
    """The form two titles (or abstracts) share when they are the same text.

    Case, white space, punctuation and Unicode compatibility forms are ignored, and TeX is read
    as shown (`Pok\\'eChamp` from arXiv is `Pok{\\'e}Champ` from a bibliography).
    """
    if "\\" in text or "$" in text:
        text = tex_text(text)
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


def counted(count: int, one: str, many: str | None = None) -> str:
    """A count and its noun, singular for one: '1 paper', '1,264 papers', '2 entries'."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"


def first_few(lines: list[str], more: Callable[[int], str], most: int = 10) -> list[str]:
    """The first `most` lines, then `more(N)` for the N left: thousands of lines of one kind
    would bury every other line of a command's output (the summary after them counts them all)."""
    return lines[:most] + ([more(len(lines) - most)] if len(lines) > most else [])


def digest(text: str) -> str:
    """A text's fingerprint (32 hex digits): what the derived cache keys its entries by."""
    import hashlib

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
