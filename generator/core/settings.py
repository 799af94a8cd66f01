"""The survey's own settings, read from mkdocs.yml: its name and its address.

mkdocs.yml is the one place a person sets them ("Make it yours" in the README); commands that
run without MkDocs (`survey build`, `survey add`) read them here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml

DEFAULT_NAME = "ML Systems Survey"


class _Loader(yaml.SafeLoader):
    """Safe loading that reads MkDocs' tags (!ENV, !!python/name) as nothing."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


@dataclass(frozen=True)
class SiteSettings:
    name: str = DEFAULT_NAME
    url: str = ""  # ends with "/" when set


def read_settings(config_file: Path | str = "mkdocs.yml") -> SiteSettings:
    """The settings of this mkdocs.yml; the defaults when there is none or it does not parse."""
    try:
        data = yaml.load(Path(config_file).read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, yaml.YAMLError):
        return SiteSettings()
    config = data if isinstance(data, dict) else {}
    name, url = (config[key].strip() if isinstance(config.get(key), str) else ""
                 for key in ("site_name", "site_url"))
    return SiteSettings(name=name or DEFAULT_NAME, url=url if not url or url.endswith("/") else url + "/")


def today() -> str:
    """Today's date, or the one SOURCE_DATE_EPOCH fixes for reproducible runs."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), tz=UTC).date().isoformat()
    return datetime.now(tz=UTC).date().isoformat()
