"""The HTML a generated page already holds, kept out of Python-Markdown's reading: math never
makes a build cost more than the same length of plain text (audit T14, docs/architecture.md).

The generated Markdown holds each formula as inline HTML (`<span class="survey-math"><math>...
</math></span>`, `site/mathml.py`), every sign of a corpus text as a character reference
(`markup.md_text`) and an abstract as a `<p>` line: what any engine passes on as written.
Python-Markdown reads inline HTML tag by tag and reference by reference, rebuilding the
paragraph's text after each one (time that grows with their square: 10,000 characters of `$a$`
took 0.9 s), and a raw HTML block with html.parser, twice. This preprocessor hands each run of
formulas and references, and each generated `<p>` or `<pre>` block, to Markdown's own stash
first, one regular expression's pass each; Markdown's last step puts them back, byte for byte
what it would have written. An engine built on Python-Markdown (Zensical) can list it under
`markdown_extensions` (`generator.adapter.htmlstash`); another engine reads the same HTML."""

from __future__ import annotations

import re
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

# A formula exactly as mathml.py writes it (no `<` inside but its MathML elements' own, and no
# `</span>`: span is not one of them, so the shortest match is the whole formula), or a character
# reference as md_text writes one. A run of them with only text as md_text writes it between
# (letters, digits, spaces, `,.-` and any non-ASCII character: nothing a Markdown extension reads)
# is stashed whole: a title of 150 formulas is one placeholder, not 150, and neither Markdown nor
# html.parser reads its references one by one. A run starts and ends with a formula or a
# reference, never at a line's `- ` or `1. `.
_TOKEN = r'(?:<span class="survey-math"><math[ >][^\n]*?</math></span>|&#x[0-9A-F]{1,6};)'
_RUN = re.compile(rf"{_TOKEN}(?:[A-Za-z0-9 ,.\-\u0080-\U0010ffff]*{_TOKEN})*")
# A raw HTML block of a generated page between blank lines, a paragraph on one line (an abstract:
# references, MathML and links) or a `<pre>` (a BibTeX entry, references throughout): Markdown
# passes it on whole in any case, after html.parser has read it reference by reference, twice
# (Markdown's raw HTML blocks and MkDocs's reader of ids, which is why a block with an id is left
# to them).
_BLOCK = re.compile(r"(?:\A|(?<=\n\n))(?:<p(?: [^>\n]*)?>[^\n]*</p>|<pre[ >](?:(?!</pre>)[\s\S])*</pre>)"
                    r"(?=\n\n|\n?\Z)")


class _Stash(Preprocessor):
    def __init__(self, md: Markdown, extension: HtmlStash) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        if not self.extension.active:
            return lines
        text = "\n".join(lines)
        store = self.md.htmlStash.store
        if "<p" in text:
            # A block stored with its line's end, as Markdown's own raw HTML reader stores one: the
            # blank lines between the page's blocks stay the same.
            text = _BLOCK.sub(lambda m: m.group() if ' id="' in m.group() else store(m.group() + "\n"), text)
        if "&#x" in text or '<span class="survey-math">' in text:
            text = _RUN.sub(lambda m: store(m.group()), text)
        return text.split("\n")


class HtmlStash(Extension):
    """`active`: the plugin turns it off for a hand-written page of docs/, which holds no
    generated HTML and may show such a span or reference as code."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.active = True

    def extendMarkdown(self, md: Markdown) -> None:
        # After normalize_whitespace (30), which removes any placeholder a page wrote itself;
        # before MkDocs's anchor reader (21) and Markdown's raw HTML blocks (20), which would
        # read every tag and reference with html.parser.
        md.preprocessors.register(_Stash(md, self), "survey_html", 25)


def makeExtension(**kwargs: Any) -> HtmlStash:
    return HtmlStash(**kwargs)
