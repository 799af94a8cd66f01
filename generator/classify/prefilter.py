"""A cheap necessary condition for a regular expression: groups of words, one word of each
group must be in the text.

Most rules fire on few papers, and a substring test is far cheaper than a regex scan, so a
rule runs only when the lower-cased text holds a literal of each of its required groups. The
groups are read off the parsed pattern: a sequence needs each of its required parts (so each
part gives a group), an alternation needs one literal of any branch (each branch's strongest
group, joined). Anything this does not understand gives no group, so the rule always runs:
the filter can only skip rules that cannot match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

# Python's own pattern parser is private (re._parser, sre_parse before 3.11). What the prefilter
# buys: `survey classify` of 1,000 real papers 3.84 s against 13.34 s of CPU without it (5
# alternating pairs, gain 9.24 to 10.61 s, 71%; benchmarks/ab_stages.py prefilter). A test
# (tests/test_prefilter_pin.py) fails if a Python release changes the parser so that the
# prefilter changes any suggestion.
try:  # Python 3.11+
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

Need = frozenset[str] | None  # one of these literals must occur; None: no condition known

LITERAL = sre_constants.LITERAL
BRANCH = sre_constants.BRANCH
SUBPATTERN = sre_constants.SUBPATTERN
MAX_REPEAT = sre_constants.MAX_REPEAT
MIN_REPEAT = sre_constants.MIN_REPEAT
AT = sre_constants.AT
ASSERT = sre_constants.ASSERT
ASSERT_NOT = sre_constants.ASSERT_NOT
IN = sre_constants.IN
RANGE = sre_constants.RANGE
CATEGORY = sre_constants.CATEGORY
CATEGORY_DIGIT = sre_constants.CATEGORY_DIGIT


def _better(a: Need, b: Need) -> Need:
    """The stronger of two conditions: the one whose shortest literal is longest."""
    if a is None:
        return b
    if b is None:
        return a
    return a if (min(map(len, a)), -len(a)) >= (min(map(len, b)), -len(b)) else b


def _sequence(items: Any) -> Need:
    best: Need = None
    run: list[str] = []

    def close() -> None:
        nonlocal best, run
        if run:
            best = _better(best, frozenset({"".join(run)}))
        run = []

    for op, av in items:
        if op is LITERAL:
            run.append(chr(av).lower())
            continue
        if op in (AT, ASSERT_NOT):  # zero-width: a word boundary or a negative look-ahead
            continue
        close()
        if op is SUBPATTERN:
            best = _better(best, _sequence(av[-1]))
        elif op is BRANCH:
            best = _better(best, _branch(av[1]))
        elif op in (MAX_REPEAT, MIN_REPEAT) and av[0] >= 1:
            best = _better(best, _sequence(av[2]))
        elif op is ASSERT and av[0] == 0:  # a positive look-ahead must match too
            best = _better(best, _sequence(av[1]))
    close()
    return best


def _branch(branches: Any) -> Need:
    out: set[str] = set()
    for branch in branches:
        need = _sequence(branch)
        if need is None:
            return None
        out |= need
    return frozenset(out)


def _groups(items: Any) -> list[frozenset[str]]:
    """Every group a sequence needs: its literal runs and the needs of its required parts."""
    groups: list[frozenset[str]] = []
    run: list[str] = []
    for op, av in [*items, (None, None)]:
        if op is LITERAL:
            run.append(chr(av).lower())
            continue
        if op in (AT, ASSERT_NOT):
            continue
        if run:
            groups.append(frozenset({"".join(run)}))
            run = []
        if op is SUBPATTERN:
            groups.extend(_groups(av[-1]))
        elif op is BRANCH:
            need = _branch(av[1])
            if need is not None:
                groups.append(need)
        elif op in (MAX_REPEAT, MIN_REPEAT) and av[0] >= 1:
            groups.extend(_groups(av[2]))
        elif op is ASSERT and av[0] == 0:
            groups.extend(_groups(av[1]))
    return groups


def required_groups(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    """Groups of lower-case literals: a text the pattern matches holds one literal of each group.
    Empty when nothing is known."""
    return _required_groups(pattern.pattern, pattern.flags)


@cache  # by the pattern's text: a compiled pattern's hash hashes its whole program each time
def _required_groups(source: str, flags: int) -> tuple[frozenset[str], ...]:
    try:
        parsed = sre_parse.parse(source, flags)
    except Exception:  # an unexpected shape only means no filter
        return ()
    groups = {g for g in _groups(list(parsed)) if all(lit.strip() for lit in g)}
    return tuple(sorted(groups, key=lambda g: (-min(map(len, g)), sorted(g))))


Starts = frozenset[str | re.Pattern[str]]  # literals, and character classes as a pattern of one
DIGIT = re.compile(r"\d")
CLASS_CHARS = 32  # a wider range ([\x00-\x7f]) is left to finditer: most of a text's characters
WIDEST = 64  # literals a match may begin with, at most, where a class is followed by more
LONGEST = 16  # characters of such a literal: enough to be rare, and what reads them stays short
# What reading a pattern may take: each optional part doubles the ways ahead ((?:a)?(?:b)?...),
# so a pattern read in more steps than this is tried as finditer tries it (the taxonomy's rules
# take 1,126 at most).
STEPS = 20_000


class _TooLong(Exception):
    pass


def _chars(items: Any) -> Starts | None:
    """What a character class matches, as literals (lower-cased) and digits; None where it is
    wider (a negation, a word or space character: most of a text's)."""
    out: set[str | re.Pattern[str]] = set()
    for op, av in items:
        if op is LITERAL:
            out.add(chr(av).lower())
        elif op is RANGE and av[1] - av[0] < CLASS_CHARS:
            out.update(chr(c).lower() for c in range(av[0], av[1] + 1))
        elif op is CATEGORY and av is CATEGORY_DIGIT:
            out.add(DIGIT)
        else:
            return None
    return frozenset(out)


def _starts(items: list[Any], length: int, steps: list[int]) -> Starts | None:
    """What every match of the sequence begins with (after zero-width assertions): one of these
    literals (lower-cased) or a character of these classes; None where a match may begin
    otherwise, or be empty. A character is followed by what follows it (`(?:S|Q)?MoE` begins
    with smoe, qmoe or moe, not s or q: a rule is tried where one begins), up to LONGEST
    characters (`length`: those before the sequence). `steps`: the calls left (_TooLong)."""
    steps[0] -= 1
    if steps[0] < 0:
        raise _TooLong
    for i, (op, av) in enumerate(items):
        rest = items[i + 1:]
        if op in (AT, ASSERT, ASSERT_NOT):  # consumes nothing: what follows begins the match
            continue
        if op is SUBPATTERN:  # with what follows it, should the group match nothing
            return _starts([*av[-1], *rest], length, steps)
        if op is BRANCH:
            return _union(_starts([*branch, *rest], length, steps) for branch in av[1])
        if op in (MAX_REPEAT, MIN_REPEAT):
            low, high, item = av
            once = _starts([*item, *rest], length, steps) if high == 1 else _starts(list(item), length, steps)
            return once if low >= 1 else _union((once, _starts(rest, length, steps)))  # or what follows
        first = frozenset({chr(av).lower()}) if op is LITERAL else _chars(av) if op is IN else None
        if first is None:
            return None
        after = _starts(rest, length + 1, steps) if length < LONGEST else None
        if after is None or len(first) * len(after) > WIDEST or not all(
                isinstance(s, str) for s in (*first, *after)):
            return first
        return frozenset(c + s for c in first for s in after)  # type: ignore[operator]
    return None


def _union(parts: Iterable[Starts | None]) -> Starts | None:
    out: set[str | re.Pattern[str]] = set()
    for part in parts:
        if part is None:
            return None
        out |= part
    return frozenset(out)


def match_starts(pattern: re.Pattern[str]) -> Starts | None:
    """What begins every match of the pattern: lower-case literals and classes (None: not known).
    A rule's regular expression then needs to be tried only where one of them begins: a rule
    that opens with a word boundary and an alternation (most do) gives Python's engine no prefix
    to skip ahead to, so finditer tries it at every character (scoring a paper fell from 5.5 to
    3.0 ms of CPU, 1,000 synthetic papers; 224 of the 226 rules begin so)."""
    return _match_starts(pattern.pattern, pattern.flags)


@cache
def _match_starts(source: str, flags: int) -> Starts | None:
    try:
        return _starts(list(sre_parse.parse(source, flags)), 0, [STEPS])
    except Exception:  # an unexpected shape, or one too long to read (_TooLong), only means no shortcut
        return None


# Under re.IGNORECASE, four non-ASCII letters match ASCII ones (Python's re documentation):
# 'İ' and 'ı' match i, 'ſ' (long s) s, and 'K' (Kelvin sign) k; str.lower() keeps them apart
# ('ſerving'.lower() has no "serving"), so the text is folded the same way before the literals
# (ASCII in every rule) are looked up, or a rule that fires would be skipped.
FOLD = str.maketrans({"İ": "i", "ı": "i", "ſ": "s", "K": "k"})


CROWDED = 8  # a text of N characters is scanned whole past N / CROWDED places to try
LONGEST_WORD = 100  # characters: the longest literal of corpus/taxonomy.yaml has 38


class Lexicon:
    """Literals looked for in a text in one pass: every literal of a taxonomy's rules (1,230 in
    corpus/taxonomy.yaml). Looked up one by one, as each rule asks, they cost 1.3 ms a paper;
    one regular expression over them all, a trie (the letters of literals that begin alike
    written once), finds a text's in 0.3 ms (scoring a paper fell from 3.0 to 2.1 ms of CPU)."""

    def __init__(self, literals: Iterable[str]) -> None:
        # A longer literal (a rule may be 2,000 characters) is looked up when asked: the trie is
        # built and read a character deep at a time, and Python's recursion would not reach.
        self.words = frozenset(lit for lit in literals if 0 < len(lit) <= LONGEST_WORD)
        # Where the longest literal found begins, so does each literal it begins with.
        self.heads = {w: frozenset(w[:i] for i in range(1, len(w) + 1)) & self.words for w in self.words}
        self.pattern = re.compile(_trie(self.words))

    def present(self, text: str) -> frozenset[str]:
        """The literals the text holds: where one begins, the trie matches the longest."""
        found: set[str] = set()
        at = 0
        while self.words and (m := self.pattern.search(text, at)):
            found |= self.heads[m.group()]
            at = m.start() + 1
        return frozenset(found)


def _trie(words: Iterable[str]) -> str:
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        either = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{either})?" if "" in node else either  # greedy: the longer word first

    return pattern(tree)


class Presence:
    """Which literals a text holds and where: those of the lexicon found at once, any other
    looked up when a rule asks."""

    __slots__ = ("known", "present", "text", "words")

    def __init__(self, text: str, lexicon: Lexicon | None = None) -> None:
        # str.lower() gives one character for each but 'İ' (folded first): the positions of this
        # text are those of the text itself.
        self.text = text.translate(FOLD).lower()
        self.words = lexicon.words if lexicon else frozenset()
        self.present = lexicon.present(self.text) if lexicon else frozenset()
        self.known: dict[str | re.Pattern[str], tuple[int, ...]] = {}

    def holds(self, groups: tuple[frozenset[str], ...]) -> bool:
        """Whether the text holds a literal of each group."""
        for group in groups:
            if group.isdisjoint(self.present) and (
                    group <= self.words or not any(lit in self.text for lit in group - self.words)):
                return False
        return True

    def starts(self, starts: Starts) -> list[int]:
        """Where any of the literals, or a character of the classes, is in the text, in order."""
        found = set[int]()
        for lit in (starts & self.present) | (starts - self.words):
            places = self.known.get(lit)
            if places is None:
                places = self.known[lit] = _places(self.text, lit)
            found.update(places)
        return sorted(found)


def _places(text: str, lit: str | re.Pattern[str]) -> tuple[int, ...]:
    if not isinstance(lit, str):
        return tuple(m.start() for m in lit.finditer(text))
    places = []
    at = text.find(lit)
    while at >= 0:
        places.append(at)
        at = text.find(lit, at + 1)
    return tuple(places)


def matches(pattern: re.Pattern[str], text: str, presence: Presence) -> list[str]:
    """What pattern.finditer(text) finds (presence: of the same text). Where every match begins
    with one of a few literals, the pattern is tried only where one begins: a match cannot
    begin elsewhere, and the pattern matches at a position as finditer's scan would try it there
    (a word boundary or look-behind sees the characters before it). Each match consumes its
    literal, so the next is looked for from its end, as finditer does."""
    starts = match_starts(pattern)
    places = presence.starts(starts) if starts is not None else []
    # A try from Python costs what finditer's scan of some 4 to 16 characters does: where the
    # places are many (a rule that begins with [A-Z], most letters), finditer scans.
    if starts is None or len(places) * CROWDED > len(text):
        return [m.group(0) for m in pattern.finditer(text)]
    found, end = [], 0
    for at in places:
        if at >= end and (m := pattern.match(text, at)):
            found.append(m.group(0))
            end = m.end()
    return found
