"""The topic model's numbers that a paper file keeps: `confidence` and `doubt` (docs/schema.md).

YAML gives them as text (the corpus's loader reads no floats): 0.87 is "0.87".
"""

from __future__ import annotations

import re
from typing import Any

from ..core.text import shorten
from .fields import Fields

FRACTION_RE = re.compile(r"^[01](?:\.\d{1,6})?\Z", re.ASCII)
DOUBT_RE = re.compile(r"^\d{1,3}(?:\.\d{1,6})?\Z", re.ASCII)
MAX_DOUBT = 200  # at most one a topic: a taxonomy of more topics than this is no survey's


def confidence_field(f: Fields, topics: list[str]) -> dict[str, float]:
    raw = f.data.get("confidence")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        f.problem("confidence", "must be a mapping of topic to the model's confidence, from 0 to 1")
        return {}
    out = {}
    for topic, value in raw.items():
        name = f"confidence.{topic}"
        if topic not in topics:
            f.problem(name, "is not one of the paper's topics: remove it (a topic a person chose "
                            "has no confidence; list topics in curated)")
            continue
        number = _number(value, FRACTION_RE, 1)
        if number is None:
            f.problem(name, f"{shorten(value)} is not a number from 0 to 1")
        else:
            out[topic] = number
    return out


def doubt_field(f: Fields) -> float | None:
    raw = f.data.get("doubt")
    if raw is None:
        return None
    number = _number(raw, DOUBT_RE, MAX_DOUBT)
    if number is None:
        f.problem("doubt", f"{shorten(raw)} is not a number from 0 to {MAX_DOUBT} (the topics the model "
                           "expects to be wrong)")
    return number


def _number(value: Any, pattern: re.Pattern[str], top: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if isinstance(value, str) and not pattern.match(value):
        return None
    number = float(value)
    return number if 0 <= number <= top else None  # NaN is not
