"""The distributions meet only through public, documented names.

* No distribution, test or benchmark imports another distribution's underscore module.
* Every name in a package's ``__all__`` resolves and is documented where it is defined (classes and
  functions by their docstring, constants and aliases by the string literal that follows them).
* A package that loads names lazily (``lazy_loader``) lists each name once in its ``_EXPORTS``
  table, its ``__init__.pyi`` (what type checkers read) lists exactly the same, and each resolves
  to its submodule's object.
"""

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())
PACKAGES = {dist: dist.replace("-", "_") for dist in DISTRIBUTIONS}
OURS = set(PACKAGES.values())


def _python_files(*roots: Path) -> list[Path]:
    return [
        p for root in roots for p in root.rglob("*.py") if "node_modules" not in p.parts and ".cache" not in p.parts
    ]


def _private_imports(path: Path, own: str | None) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        for module in modules:
            parts = module.split(".")
            if parts[0] in OURS and parts[0] != own and any(p.startswith("_") for p in parts[1:]):
                found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)} {module}")
    return found


def test_no_distribution_imports_another_ones_private_module():
    found = []
    for dist, package in PACKAGES.items():
        found += [hit for p in _python_files(ROOT / "packages" / dist) for hit in _private_imports(p, package)]
    found += [hit for p in _python_files(ROOT / "tests", ROOT / "benchmarks") for hit in _private_imports(p, None)]
    assert found == []


def _documented_constants(package_dir: Path) -> set[str]:
    """Names assigned at module level and followed by a string literal, in any module of the package."""
    names = set()
    for path in package_dir.glob("*.py"):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for statement, following in zip(body, [*body[1:], None], strict=True):
            targets: list[ast.expr] = [statement.target] if isinstance(statement, ast.AnnAssign) else []
            targets += statement.targets if isinstance(statement, ast.Assign) else []
            value = following.value if isinstance(following, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_every_public_name_resolves_and_is_documented(dist):
    module = importlib.import_module(PACKAGES[dist])
    assert module.__doc__
    constants = _documented_constants(Path(str(module.__file__)).parent)
    undocumented = []
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, type) or callable(value) and hasattr(value, "__code__"):
            documented = bool(value.__doc__)
        else:
            documented = name in constants
        if not documented:
            undocumented.append(name)
    assert undocumented == []


def _stub_names(package_dir: Path) -> dict[str, list[str]] | None:
    """The names ``__init__.pyi`` re-exports, per submodule; ``None`` for a package without a stub."""
    stub = package_dir / "__init__.pyi"
    if not stub.is_file():
        return None
    names: dict[str, list[str]] = {}
    for statement in ast.parse(stub.read_text(encoding="utf-8")).body:
        if isinstance(statement, ast.ImportFrom):
            assert statement.level == 1 and all(a.asname == a.name for a in statement.names), "re-export as itself"
            names.setdefault(statement.module or "", []).extend(a.name for a in statement.names)
    return names


def _package_dir(dist: str) -> Path:
    return ROOT / "packages" / dist / "src" / PACKAGES[dist]


LAZY = [d for d in DISTRIBUTIONS if _stub_names(_package_dir(d)) is not None]


def test_the_lazy_packages_are_the_ones_on_the_start_up_path():
    assert set(LAZY) >= {"herdr-link-protocol", "herdr-link-control", "herdr-link-mcp", "herdr-link"}


@pytest.mark.parametrize("dist", LAZY)
def test_a_lazy_package_loads_exactly_what_its_stub_lists(dist):
    table = _stub_names(_package_dir(dist))
    assert table is not None
    names = [name for group in table.values() for name in group]
    assert len(names) == len(set(names))
    module = importlib.import_module(PACKAGES[dist])
    assert sorted(module.__all__) == sorted(names)
    assert {m: sorted(n) for m, n in module._EXPORTS.items()} == {m: sorted(n) for m, n in table.items()}
    for submodule, group in table.items():
        defined = importlib.import_module(f"{PACKAGES[dist]}.{submodule}")
        assert all(getattr(module, name) is getattr(defined, name) for name in group)
