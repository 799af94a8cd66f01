"""The documentation tells the truth: its example outputs are what the commands print."""

from __future__ import annotations

import re
import shlex

import pytest
from conftest import ROOT, survey

DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
REPLAYED = ("survey explain", "survey check")


def console_blocks() -> list[tuple[str, str, str]]:
    found = []
    for path in DOCS:
        for block in re.findall(r"```console\n(.*?)```", path.read_text(), re.S):
            lines = block.split("\n")
            single = not any(line.startswith("$ ") for line in lines[1:])
            if single and lines[0].startswith("$ ") and lines[0][2:].startswith(REPLAYED) \
                    and "<" not in lines[0]:
                found.append((path.name, lines[0][2:], "\n".join(lines[1:])))
    return found


@pytest.mark.parametrize(("page", "command", "shown"), console_blocks())
def test_example_output_is_real(page: str, command: str, shown: str) -> None:
    result = survey(*shlex.split(command)[1:])
    assert result.stdout.strip() == shown.strip(), f"{page}: {command}"


def test_documented_commands_exist() -> None:
    commands = set()
    for path in DOCS:
        commands |= set(re.findall(r"`survey ([a-z]+)\b", path.read_text()))
    assert commands
    for command in sorted(commands):
        assert survey(command, "--help").returncode == 0, command


def test_readme_gives_the_two_fresh_machine_commands() -> None:
    text = (ROOT / "README.md").read_text()
    assert "pip install -e . && mkdocs serve" in text
    assert "pip install -e '.[test]' && python -m pytest" in text
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text) + re.findall(r'<img src="([^"]+)"', text)
    assert len(images) >= 2
    for image in images:
        assert (ROOT / image).is_file(), image
