"""Text helpers shared by every stage: normalisation, keys for matching, slugs."""

from __future__ import annotations

import re
import unicodedata

_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[\W_]+")
_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# C0/C1 controls other than whitespace never belong in a title or an abstract.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

SLUG_MAX = 64


def squash(text: str) -> str:
    """Join hard line wraps and collapse runs of white space; every other character stays."""
    return _WS.sub(" ", text).strip()


def has_control(text: str) -> bool:
    return bool(_CONTROL.search(text))


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


def slugify(title: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
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
