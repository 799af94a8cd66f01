"""TeX math that reads as plain text (`2.4$\\times$`, `$\\sim$`, `$10^{-3}$`), as that text, for
core/tex.py's reader; the rest is math for the site to typeset (site/mathml.py). And
`\\unicode{...}`, which math reads as one character.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .tex_macros import NOTHING, WORDS, macro_text, takes_arguments

# A raised or lowered text whose characters all have a Unicode form (`10^{-3}` is 10⁻³).
SCRIPTS = {"^": dict(zip("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾", strict=True)),
            "_": dict(zip("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎", strict=True))}
_SCRIPT_WORDS = {"circ": "°", "prime": "′", "dagger": "†", "ast": "*", "star": "*"}


def code_value(code: str) -> int | None:
    """The code point `\\unicode{...}` names (`x202E`, `8238`), or None."""
    match = re.fullmatch(r"x([0-9A-Fa-f]{1,6})|(\d{1,7})", code.strip())
    if match is None:
        return None
    value = int(match.group(1), 16) if match.group(1) else int(match.group(2))
    return value if value <= 0x10FFFF else None


def code_point(code: str) -> str | None:
    value = code_value(code)
    if value is None or unicodedata.category(chr(value)) in ("Cc", "Cf", "Cs", "Co", "Cn"):
        return None
    return chr(value)


_MATH_TOKEN = re.compile(r"\\([A-Za-z]+)|\\(.)|([\^_])|([{}])|([A-Za-z&#])|(.)", re.S)


@functools.lru_cache(maxsize=4096)
def math_plain(source: str) -> str | None:
    """Math that reads as plain text (`2.4\\times`, `\\sim`, `^{3}`, `50\\%`, `\\alpha`), as that
    text; None for math with a variable, a function or a structure (`O(n)`, `\\frac{a}{b}`)."""
    out: list[str] = []
    i = 0
    while i < len(source):
        m = _MATH_TOKEN.match(source, i)
        assert m is not None
        word, symbol, script, brace, letter, other = m.groups()
        i = m.end()
        if word is not None:
            if word == "unicode":
                group = re.match(r"\s*\{([^{}]*)\}", source[i:])
                char = code_point(group.group(1)) if group else None
                if char is None:
                    return None
                out.append(char)
                i += group.end() if group else 0
                continue
            shown = WORDS.get(word) or macro_text(word)
            if (not shown or takes_arguments(word) or any(c.isascii() and c.isalpha() for c in shown)
                    or word in NOTHING):
                return None
            out.append(shown)
        elif symbol is not None:
            if symbol in "%$#&_{}":
                out.append(symbol)
            elif symbol in " ,;:>!":
                out.append(" " if symbol != "!" else "")
            else:
                return None
        elif script is not None:
            raised, i = _script(source, i, script)
            if raised is None:
                return None
            out.append(raised)
        elif brace is not None:
            continue
        elif letter is not None:
            return None
        else:
            out.append(other)
    text = " ".join("".join(out).split())
    return text or None


def _script(source: str, i: int, kind: str) -> tuple[str | None, int]:
    """`^{3}`, `^3`, `^\\circ`, `_{2}` at i (after the sign), as Unicode; None when some
    character has no raised or lowered form."""
    group = re.match(r"\s*(?:\{([^{}]*)\}|\\([A-Za-z]+)|([0-9+\-=()]))", source[i:])
    if group is None:
        return None, i
    end = i + group.end()
    if group.group(2):
        word = group.group(2)
        return (_SCRIPT_WORDS.get(word) if kind == "^" else None), end
    inner = (group.group(1) if group.group(1) is not None else group.group(3)).strip()
    word = re.fullmatch(r"\\([A-Za-z]+)", inner)
    if word and kind == "^":
        return _SCRIPT_WORDS.get(word.group(1)), end
    forms = SCRIPTS[kind]
    if inner and all(c in forms for c in inner):
        return "".join(forms[c] for c in inner), end
    return None, end
