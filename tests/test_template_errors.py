"""A template whose expression raises something other than a Jinja error (`{{ (1/0) }}`, a
filter given the wrong type) is a template error like any other (issue 31): `mkdocs build` fails
in one line naming the template and the line, and `mkdocs serve` shows the error page instead
of hanging on a traceback. In-process: the plugin's on_files on a project of one paper."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import make_corpus, make_project
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("templates")
    return make_project(tmp, make_corpus(tmp / "corpus", "papers", ["rewrite-the-stars"]))


def on_files(project: Path, command: str):  # type: ignore[no-untyped-def]
    config = load_config(str(project / "mkdocs.yml"))
    plugin = config.plugins["survey"]
    plugin.on_startup(command=command, dirty=False)
    plugin.on_config(config)
    try:
        plugin.on_files(Files([]), config=config)
    finally:
        plugin.on_shutdown()
    return plugin


@pytest.mark.parametrize(("expression", "error"), [("{{ (1/0) }}", "ZeroDivisionError: division by zero"),
                                                  ("{{ paper.title | round }}", "TypeError: "),
                                                  ("{{ paper.no_such_field }}", "UndefinedError: ")])
def test_an_expression_that_raises_is_a_template_error(project: Path, expression: str, error: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)  # where mkdocs runs: messages name paths from there
    template = project / "templates" / "paper.md.j2"
    original = template.read_text(encoding="utf-8")
    line = original.count("\n") + 2
    template.write_text(original + "\n" + expression + "\n", encoding="utf-8")
    try:
        with pytest.raises(PluginError) as raised:
            on_files(project, "build")
        message = str(raised.value)
        assert "\n" not in message
        assert re.fullmatch(rf"survey: templates/paper\.md\.j2:{line}: {re.escape(error)}.*", message)
        served = on_files(project, "serve")  # no exception: the error page instead
        assert served.failure == message
    finally:
        template.write_text(original, encoding="utf-8")
