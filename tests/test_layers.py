"""The import graph of the distributions: each imports only what its ``pyproject.toml`` depends on (so
no circle and no package importing a higher one; ``docs/architecture.md``'s picture)."""

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())


def _module(distribution: str) -> str:
    return distribution.replace("-", "_")


def _declared(package: Path) -> set[str]:
    project = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {spec.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip() for spec in project["dependencies"]}
    return {_module(name) for name in names if name.startswith("herdr-link")}


def _imported(package: Path) -> set[str]:
    """Every ``herdr_link*`` top-level module the package's sources import, type-checking imports included."""
    found: set[str] = set()
    for path in (package / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found |= {name.split(".")[0] for name in names if name.startswith("herdr_link")}
    return found


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_a_distribution_imports_only_what_it_depends_on(package):
    own = _module(package.name)
    assert _imported(package) - {own} <= _declared(package)


def test_the_dependencies_have_no_circle():
    graph = {_module(p.name): _declared(p) for p in PACKAGES}
    seen: dict[str, int] = {}

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, " → ".join((*path, node))
        if seen.get(node):
            return
        for child in graph.get(node, ()):
            visit(child, (*path, node))
        seen[node] = 1

    for node in graph:
        visit(node, ())
