"""YAML front matter of the generated pages, written without PyYAML's emitter."""

from __future__ import annotations

import json
import re
from typing import Any

# Characters YAML will not take raw inside a double-quoted scalar (line separators, BOM, C1).
_YAML_UNSAFE = re.compile("[\u0080-\u009f\u2028\u2029\ufeff]")


# What json.dumps(value, ensure_ascii=False) writes for a string, without the JSONEncoder it
# makes for each call with that option (55,000 calls at 3,000 papers).
_json_string = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _yaml_text(value: str) -> str:
    """A double-quoted YAML scalar. JSON's string syntax is YAML's, and far faster to write
    than PyYAML's emitter (a tenth of the render time at 10,000 papers)."""
    quoted = _json_string(value)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def front_matter(**values: Any) -> str:
    """YAML front matter of text values and lists of text."""
    lines = ["---"]
    for key, value in values.items():
        if value in (None, [], ""):
            continue
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"- {_yaml_text(str(item))}" for item in value)
        else:
            lines.append(f"{key}: {_yaml_text(str(value))}")
    lines.append("---")
    return "\n".join(lines) + "\n"
