"""A cheap necessary condition for a regular expression: words one of which must be in the text.

Most rules fire on few papers, and a substring test is far cheaper than a regex scan, so a
rule runs only when the lower-cased text contains one of its required literals. The literals
are read off the parsed pattern: a sequence needs each of its required parts (the longest
one is kept), an alternation needs one literal of each branch. Anything this does not
understand gives no condition, so the rule always runs: the filter can only skip rules that
cannot match.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

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


@cache
def required_literals(pattern: re.Pattern[str]) -> Need:
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:
        return None
    need = _sequence(list(parsed))
    if need is not None and any(not lit.strip() for lit in need):
        return None
    return need
