"""Why the model suggests a topic for a paper, in the paper's own words: what `survey review`
shows a curator under each topic ("words that point to Serving: kv cache, throughput").

`survey explain` lists the model's features (`serving rule 'speed in the title'`, `tag rules
of 'kv-cache'`, `word 'cache' [abstract]`) with their weights: right for tuning the model, not
for deciding a paper. Here every feature that moved a topic's confidence becomes the words of the
paper it stands for (a rule's matches, a tag's, the word itself), summed over the features that
name the same word, so a curator reads which words of the title and abstract pushed the topic up
and which pulled it down. A rule of another topic that a topic's model weighs is shown by the
words it matched under the topic it moved, never under the topic it was written for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..corpus.taxonomy import Taxonomy
from .model import WORD, TopicVerdict
from .rules import Scan, evaluate
from .suggest import suggest

# A word whose summed effect on a topic's log-odds is smaller moves its confidence by under 2.5
# points at even odds: not worth a curator's look.
WORTH = 0.1


@dataclass(frozen=True)
class Why:
    """A topic as the model sees one paper: its confidence (None from the rules alone), whether
    it suggests it, and the paper's words for and against it, strongest first."""

    id: str
    name: str
    confidence: float | None
    suggested: bool
    toward: tuple[str, ...]
    against: tuple[str, ...]


def why(taxonomy: Taxonomy, title: str, abstract: str) -> list[Why]:
    """Each topic of the taxonomy, in its order (a topic the model has no weights for is left out)."""
    suggestion = suggest(taxonomy, title, abstract)
    scan = Scan(title, abstract, taxonomy)
    found: dict[str, tuple[str, ...]] = {}  # feature -> the words it stands for
    for topic in taxonomy.topics:
        hits = evaluate(topic.rules, title, abstract, scan)
        for hit in hits:
            found[f"rule:{topic.id}:{hit.rule.name}"] = hit.found
        found[f"score:{topic.id}"] = tuple(w for hit in hits if hit.points > 0 for w in hit.found)
    for tag in suggestion.tags:
        found[f"tag:{tag.id}"] = tuple(w for hit in tag.hits for w in hit.found)
    written = {"title": _written(title), "abstract": _written(abstract)}
    out = []
    for v in suggestion.topics:
        if isinstance(v, TopicVerdict):
            effects = [(_words_of(f, found, written), e) for f, e in v.contributions]
            out.append(Why(v.id, v.name, v.confidence, v.chosen, *_words(effects)))
        else:
            effects = [(hit.found, float(hit.points)) for hit in v.hits]
            out.append(Why(v.id, v.name, None, v.chosen, *_words(effects)))
    return out


def _words_of(feature: str, found: dict[str, tuple[str, ...]], written: dict[str, dict[str, str]]
              ) -> tuple[str, ...]:
    kind, _, rest = feature.partition(":")
    if kind in ("title", "abstract"):  # a word, or two: each as the paper writes it
        return (" ".join(written[kind].get(w, w) for w in rest.split(" ")),)
    return found.get(feature, ())


# The model's words (model.WORD) are read from the lowercased text and end before a dot, so the
# abbreviation "e.g." is its word "e.g": a fragment to a reader. Shown, a word is as the paper
# first writes it, its case kept and an abbreviation's last dot with it (letters a dot apart).
_WRITTEN = re.compile(WORD.pattern, re.ASCII | re.IGNORECASE)
_ABBREVIATION = re.compile(r"[a-z](?:\.[a-z])+")


def _written(text: str) -> dict[str, str]:
    """Each of the model's words of the text -> the text's first writing of it."""
    out: dict[str, str] = {}
    for m in _WRITTEN.finditer(text):
        word = m.group().lower()
        if word not in out:
            dot = text[m.end():m.end() + 1] == "." and _ABBREVIATION.fullmatch(word)
            out[word] = m.group() + "." if dot else m.group()
    return out


def _words(effects: list[tuple[tuple[str, ...], float]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words for and against, by their summed effect (a word two features name counts
    both); the same word in another case is one word."""
    total: dict[str, float] = {}
    shown: dict[str, str] = {}
    for words, effect in effects:
        for word in dict.fromkeys(w.casefold() for w in words):
            total[word] = total.get(word, 0.0) + effect
        for w in words:  # a capital that only starts a word of the title is no acronym
            shown.setdefault(w.casefold(), w.lower() if w[:1].isupper() and w[1:].islower() else w)
    ranked = sorted(total, key=lambda w: (-abs(total[w]), w))
    return (tuple(shown[w] for w in ranked if total[w] >= WORTH),
            tuple(shown[w] for w in ranked if total[w] <= -WORTH))
