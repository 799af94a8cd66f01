"""The package tree shows the pipeline: each folder is a layer; no module imports a layer above it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "generator"
# Lowest first: a module may import its own layer and any layer before it.
LAYERS = ["core", "corpus", "classify", "sources", "site", "adapter", "cli"]


def imports(path: Path, root: Path = ROOT) -> list[tuple[str, int]]:
    """The generator sub-packages this module imports, with line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(root).with_suffix("").parts[:-1]  # ("generator", "site")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(here[: len(here) - node.level + 1])
                target = [*base, *(node.module or "").split(".")] if node.module else base
                if not node.module:  # from . import x
                    target = [*base, node.names[0].name]
            else:
                target = (node.module or "").split(".")
        elif isinstance(node, ast.Import):
            target = node.names[0].name.split(".")
        else:
            continue
        if target[:1] == ["generator"] and len(target) > 1:
            found.append((target[1], node.lineno))
    return found


def test_every_module_sits_in_a_layer():
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == []
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(LAYERS)


def test_no_module_imports_a_layer_above_its_own():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = path.relative_to(PACKAGE).parts[0]
        if layer not in LAYERS:
            continue
        for target, line in imports(path):
            if target in LAYERS and LAYERS.index(target) > LAYERS.index(layer):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports generator.{target}")
    assert wrong == []


def test_the_checker_sees_an_upward_import(tmp_path):
    fake = tmp_path / "generator" / "core"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text(
        "from ..site.render import Site\nfrom .text import squash\nimport generator.cli.main\n")
    assert imports(fake / "bad.py", tmp_path) == [("site", 1), ("core", 2), ("cli", 3)]


def test_only_the_adapter_imports_mkdocs():
    users = sorted(
        str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
        if re.search(r"^\s*(?:from|import) mkdocs\b", p.read_text(encoding="utf-8"), re.M)
    )
    assert users and all(u.startswith("generator/adapter/") for u in users), users


def test_the_docs_show_every_folder():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer in LAYERS:
        assert f"`generator/{layer}/`" in text, layer
