"""The package tree shows the pipeline: each folder is a layer; no module imports a layer above it."""

from __future__ import annotations

import ast
import graphlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "generator"
# Lowest first: a module may import its own layer and any layer before it.
LAYERS = ["core", "corpus", "classify", "sources", "site", "adapter", "cli"]


def test_every_module_sits_in_a_layer():
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == []
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(LAYERS)


def layer(module: str) -> int:
    """The place in LAYERS of a module of generator/ (generator.site.render: site), or -1."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else -1


def upward(graph: dict[str, set[str]]) -> list[str]:
    return [f"{name} imports {target}" for name, targets in sorted(graph.items())
            for target in sorted(targets) if 0 <= layer(name) < layer(target)]


def test_no_module_imports_a_layer_above_its_own():
    assert upward(import_graph(modules({PACKAGE: ROOT}))) == []


def test_the_checker_sees_an_upward_import(tmp_path):
    for name, text in {"core/bad.py": "from ..site.render import Site\nfrom .text import squash\n",
                       "core/text.py": "", "site/render.py": "import generator.cli.main\n",
                       "cli/main.py": "def f():\n    from ..core import text\n"}.items():
        (tmp_path / "generator" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "generator" / name).write_text(text)
    assert upward(import_graph(modules({tmp_path / "generator": tmp_path}))) == [
        "generator.core.bad imports generator.site.render",
        "generator.site.render imports generator.cli.main"]


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


# --- module size and import circles, generator/ and benchmarks/ --------------------------------

MAX_LINES = 400
# Where the module names start: generator/site/render.py is generator.site.render; the benchmark
# scripts put benchmarks/ on sys.path, so benchmarks/survey_bench/cli.py is survey_bench.cli and
# benchmarks/bench.py is bench.
SOURCES = {PACKAGE: ROOT, ROOT / "benchmarks": ROOT / "benchmarks"}


def modules(sources: dict[Path, Path]) -> dict[str, Path]:
    """Every Python module under each folder, by its dotted import name."""
    found = {}
    for folder, base in sources.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            if ".venv" in parts or "__pycache__" in parts:
                continue
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Which of the known modules each one imports, wherever the import statement stands: at the
    top, inside a function (run on first call) or under `if TYPE_CHECKING:`. `from a import b`
    counts as importing a.b when that is a module, else a."""
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                source = ".".join([*base, *([node.module] if node.module else [])])
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                           for alias in node.names]
            else:
                continue
            edges.update(t for t in targets if t in known and t != name)
        graph[name] = edges
    return graph


def circle(graph: dict[str, set[str]]) -> str:
    """An import circle of the graph, as a path back to its start; "" if there is none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return " -> ".join(exc.args[1])
    return ""


def test_no_module_is_over_400_lines():
    """A module a maintainer can read through: split one that grows past this by what it does."""
    long = {str(path.relative_to(ROOT)): lines for path in modules(SOURCES).values()
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_import_circle():
    """No module imports, directly or through others, a module that imports it: what two
    modules both need goes into a module below them."""
    assert circle(import_graph(modules(SOURCES))) == ""


def test_the_checker_sees_a_circle_through_a_function(tmp_path):
    bench = tmp_path / "benchmarks"
    (bench / "pkg").mkdir(parents=True)
    (bench / "pkg" / "__init__.py").write_text("")
    (bench / "pkg" / "cli.py").write_text("from .real import run\nfrom . import util\n")
    (bench / "pkg" / "real.py").write_text("import os\n\ndef run():\n    from .cli import main\n")
    (bench / "pkg" / "util.py").write_text("from pkg import cli\n")
    (bench / "tool.py").write_text("from pkg.util import x\n")
    graph = import_graph(modules({bench: bench}))
    assert graph == {"pkg": set(), "pkg.cli": {"pkg.real", "pkg.util"}, "pkg.real": {"pkg.cli"},
                     "pkg.util": {"pkg.cli"}, "tool": {"pkg.util"}}
    path = circle(graph).split(" -> ")  # either circle: which graphlib names first is its choice
    assert path[0] == path[-1] and set(path) in ({"pkg.cli", "pkg.real"}, {"pkg.cli", "pkg.util"})
