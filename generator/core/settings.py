"""The survey's own settings, read from mkdocs.yml: its name, its address, and whether the site
publishes the papers that wait for a curator (the survey plugin's `publish_waiting`).

mkdocs.yml is the one place a person sets them ("Make it yours" in the README); commands that
run without MkDocs (`survey build`, `survey add`) read them here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
    publish_waiting: bool = False  # corpus/publish.py


def mkdocs_config(config_file: Path | str = "mkdocs.yml") -> Any:
    """mkdocs.yml as data, its tags (`!ENV`, the `!!python/name:` of the notice's line) read as
    nothing: what a safe YAML loader cannot read. Raises OSError or yaml.YAMLError."""
    return yaml.load(Path(config_file).read_text(encoding="utf-8"), Loader=_Loader)


def read_settings(config_file: Path | str = "mkdocs.yml") -> SiteSettings:
    """The settings of this mkdocs.yml; the defaults when there is none or it does not parse."""
    try:
        data = mkdocs_config(config_file)
    except (OSError, yaml.YAMLError):
        return SiteSettings()
    config = data if isinstance(data, dict) else {}
    name, url = (config[key].strip() if isinstance(config.get(key), str) else ""
                 for key in ("site_name", "site_url"))
    return SiteSettings(name=name or DEFAULT_NAME, url=url if not url or url.endswith("/") else url + "/",
                        publish_waiting=_survey_options(config.get("plugins")).get("publish_waiting") is True)


def _survey_options(plugins: object) -> dict[str, object]:
    """The survey plugin's options, from `plugins` as a list (`- survey: {...}`) or a mapping."""
    if isinstance(plugins, dict):
        options = plugins.get("survey")
        return options if isinstance(options, dict) else {}
    for item in plugins if isinstance(plugins, list) else []:
        if isinstance(item, dict) and isinstance(item.get("survey"), dict):
            return item["survey"]  # type: ignore[no-any-return]
    return {}


def today() -> str:
    """Today's date, or the one SOURCE_DATE_EPOCH fixes for reproducible runs."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), tz=UTC).date().isoformat()
    return datetime.now(tz=UTC).date().isoformat()
