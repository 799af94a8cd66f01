"""Turning corpus text into Markdown that shows it literally, whatever extensions are enabled.

Every ASCII character that some Markdown processor could read as syntax becomes a hex
character reference, so no Markdown, HTML, template or snippet syntax (`*`, `<`, `{{`,
`--8<--`, `$`, `|`, `:emoji:` ...) survives for any processor to act on; browsers show the
characters as written. What no processor reads stays as it is: letters, spaces, commas, a full
stop before a space or at the end, a hyphen between two letters or digits, and digits, except
a digit that opens the text ("1. " would start a list) or comes before a letter ("1st" is
1<sup>st</sup> under smartsymbols). Those are most of a text's punctuation: Markdown then has
a reference to parse for a few characters, not for every comma and digit (the real corpus's
9,896 pages: 43.3 s of Markdown CPU against 60.1 s with every sign a reference, the same HTML;
`python benchmarks/ab_stages.py markdown CORPUS`). Hex (`&#x23;`)
rather than decimal (`&#35;`) keeps `#` followed by digits out of the output, which
issue-link extensions would otherwise pick up.
"""

from __future__ import annotations

import html
import re
import string
from collections.abc import Callable
from urllib.parse import quote

from markupsafe import Markup

_SAFE = set(string.ascii_letters + " ")
_TABLE = {c: f"&#x{c:X};" for c in range(128) if chr(c) not in _SAFE}
# Bidirectional overrides and zero-width characters are kept, but as references, so they stay
# visible in the generated Markdown and cannot reorder the Markdown source around them.
for _c in (0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
           0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF):
    _TABLE[_c] = f"&#x{_c:X};"

# Characters that are safe only in some places (see the module's docstring): everywhere else
# they are encoded. A comma is safe everywhere.
_PLACED = set("0123456789.-,")
_ALNUM = "A-Za-z0-9"
# The characters to encode, split out in one pass (a capturing group keeps them, at the odd
# places) and each looked up in a C-level map: no Python function called per character.
_SPECIAL = re.compile(
    "(" + "|".join((
        r"\A[0-9]",  # a digit opening the text: "1." would start a list
        r"[0-9](?=[A-Za-z])",  # "1st", "2nd": smartsymbols' ordinals
        r"\.(?!\s|\Z)",  # a full stop not before a space or the end: "...", "www.x.org"
        rf"(?<![{_ALNUM}])-|-(?![{_ALNUM}])",  # a hyphen not between letters: "--", "- x", "-->"
        "[" + "".join(re.escape(chr(c)) for c in sorted(_TABLE) if chr(c) not in _PLACED) + "]",
    )) + ")")
_REFERENCES = {chr(c): ref for c, ref in _TABLE.items()}
_encode = _REFERENCES.__getitem__


def md_text(text: str) -> str:
    parts = _SPECIAL.split(text)
    if len(parts) > 1:
        parts[1::2] = map(_encode, parts[1::2])
    return "".join(parts)


_KEEP = {ord(c) for c in "<>&\"'"} | {c for c in _TABLE if c >= 128}
_REFERENCE = re.compile(r"&#x([0-9A-F]{1,2});")


def _plain(digits: str) -> str:
    code = int(digits, 16)
    return f"&#x{digits};" if code in _KEEP or code < 32 else chr(code)


# What compact_html writes for each reference it can find, by its hex digits ("2C", "0A", "9").
_PLAIN = {d: _plain(d) for d in (*"0123456789ABCDEF",
                                 *(a + b for a in "0123456789ABCDEF" for b in "0123456789ABCDEF"))}
_decode = _PLAIN.__getitem__


def compact_html(html_text: str) -> str:
    """Turn back into characters the references `md_text` wrote, once Markdown is done with them.

    In HTML they are only text; what HTML itself reads (< > & and quotes) stays a reference.
    A page shrinks by a sixth or more: every comma and full stop of an abstract is one byte again.
    """
    # Split at the references (their digits at the odd places) and map those through a table:
    # no Python call per reference (a paper page has a thousand); three times faster than `sub`.
    parts = _REFERENCE.split(html_text)
    parts[1::2] = map(_decode, parts[1::2])
    return "".join(parts)


def finalize(value: object) -> object:
    """Jinja `finalize`: every `{{ }}` output is literal text unless marked trusted (Markup)."""
    if isinstance(value, Markup):
        return str(value)
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # counts and positions computed by the generator
    return md_text(str(value))


def trusted(value: str) -> Markup:
    return Markup(value)


def external_url(url: str) -> Markup:
    """An http(s) URL made safe inside a Markdown link target: no spaces, parentheses, brackets
    or quotes left that could end the target early."""
    safe = quote(url, safe="/:?#&=%+.,~-@;!$*_'")
    return Markup(safe.replace("'", "%27").replace("*", "%2A").replace("_", "%5F"))


# A whole http(s) URL in running text: up to a space or a character no URL holds raw (RFC 3986;
# a real abstract has "https://github.com/x/y{this url}", a TeX link's remains). What closes a
# sentence or a bracket after it is not part of it (`_TRAILING`).
_URL = re.compile(r"https?://[^\s<>\"'`\\{}|^]+")
_TRAILING = re.compile(r"[.,;:!?*]+\Z")


def _url_end(url: str) -> str:
    """The URL without what follows it in the sentence: closing punctuation, and a closing
    bracket it did not open ('(see https://x.org/a)')."""
    while True:
        url = _TRAILING.sub("", url)
        for close, open_ in ((")", "("), ("]", "["), ("}", "{")):
            if url.endswith(close) and url.count(close) > url.count(open_):
                url = url[:-1]
                break
        else:
            return url


def linked_text(text: str, render: Callable[[str], str] = md_text) -> Markup:
    """Text shown literally (each piece through `render`), with every whole http(s) URL in it a
    link to itself: the link's text is rendered as the rest, its target made safe by `href`;
    nothing else of the text can become a link. The link is HTML, as the rest is references: the
    whole can be an HTML paragraph, which no Markdown engine reads (an abstract's, templates/paper.md.j2)."""
    out, at = [], 0
    for match in _URL.finditer(text):
        url = _url_end(match.group())
        if url.endswith("://"):  # no address after the scheme
            continue
        start = match.start()
        out.append(render(text[at:start]))
        out.append(f'<a href="{href(url)}">{render(url)}</a>')
        at = start + len(url)
    out.append(render(text[at:]))
    return Markup("".join(out))


def href(url: str) -> Markup:
    """An http(s) URL as an HTML attribute's value (`external_url`, its `&` written `&amp;`)."""
    return Markup(html.escape(str(external_url(url)), quote=True))


def html_attr(text: str) -> str:
    """For front matter values that themes insert into HTML unescaped (title, description)."""
    return html.escape(text, quote=True)


# An element up to its first closing tag: the body runs to each `<` at once (`[^<]*`), and a `<`
# that does not close it is let in. What `<(pre|textarea|script)\b.*?</\2>` matches, twice as
# fast: the lazy `.*?` tried the closing tag at every character of a script.
_PRE = re.compile(r"(<(pre|textarea|script)\b[^<]*(?:<(?!/\2>)[^<]*)*</\2>)", re.S | re.I)
_INDENT = re.compile(r"\n[ \t\n]+")


def dedent_html(html_text: str) -> str:
    """Drop the theme's indentation and blank lines, outside <pre>, <textarea> and <script>.

    A line break followed by spaces renders exactly as a line break: no page looks different,
    and a paper page loses a fifth of its bytes.
    """
    parts = _PRE.split(html_text)
    out = []
    for i, part in enumerate(parts):
        kind = i % 3
        if kind == 0:
            out.append(_INDENT.sub("\n", part))
        elif kind == 1:
            out.append(part)
    return "".join(out)
