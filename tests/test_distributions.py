"""The distributions meet only through public, documented names.

* No distribution, test or benchmark imports another distribution's underscore module.
* Every name in a package's ``__all__`` resolves and is documented where it is defined (classes and
  functions by their docstring, constants and aliases by the string literal that follows them).
* Every package and subpackage has one face style (``scripts/package_faces.py``): its names written
  once, as ``TYPE_CHECKING`` imports; the table and the PEP 562 loader after them are generated
  from those imports; each name resolves to its submodule's object and is in that
  submodule's ``__all__``.
"""

import ast
import importlib
import re
from pathlib import Path

import package_faces
import pytest

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())
PACKAGES = {dist: dist.replace("-", "_") for dist in DISTRIBUTIONS}
OURS = set(PACKAGES.values())


def _module_name(face: Path) -> str:
    source = next(parent for parent in face.parents if parent.name == "src")
    return ".".join(face.parent.relative_to(source).parts)


FACES = {_module_name(path): path for path in package_faces.faces()}
"""Every package and subpackage face, by module name (``herdr_link_control.bridge``, …)."""


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


@pytest.mark.parametrize("face", sorted(FACES))
def test_every_public_name_resolves_and_is_documented(face):
    module = importlib.import_module(face)
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


def test_every_distribution_and_subpackage_has_a_face():
    assert set(PACKAGES.values()) <= set(FACES)
    assert {"herdr_link_control.bridge", "herdr_link_control.commandline", "herdr_link_control.hosts",
            "herdr_link_control.userfiles"} <= set(FACES)  # fmt: skip


@pytest.mark.parametrize("face", sorted(FACES))
def test_a_face_writes_each_name_once_and_loads_exactly_those(face):
    """The ``TYPE_CHECKING`` imports are the face; ``_EXPORTS`` is generated from them, and each name
    is its submodule's object."""
    path = FACES[face]
    assert package_faces.regenerated(path) == path.read_text(encoding="utf-8"), (
        f"{face}: its generated loader is stale; run python scripts/package_faces.py"
    )
    table = package_faces.imported_names(ast.parse(path.read_text(encoding="utf-8")))
    names = [name for group in table.values() for name in group]
    assert names and len(names) == len(set(names))
    assert not path.with_suffix(".pyi").exists()  # no second list for type checkers
    module = importlib.import_module(face)
    assert sorted(module.__all__) == sorted(names)
    for submodule, group in table.items():
        defined = importlib.import_module(f"{face}.{submodule}")
        assert all(getattr(module, name) is getattr(defined, name) for name in group)
        assert set(group) <= set(defined.__all__), f"{face}.{submodule}: its __all__ lacks what the face exports"


def test_a_stale_table_is_found(tmp_path):
    face = tmp_path / "__init__.py"
    face.write_text(
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from ._a import A as A, B as B\n\n"
        '_EXPORTS = {\n    "_a": [\n        "A",\n    ],\n}\n'
    )
    fixed = package_faces.regenerated(face)
    assert fixed is not None and fixed != face.read_text() and '"B",' in fixed


def test_the_generated_active_tools_are_the_tool_tables():
    """``herdr_link_protocol/_active.py`` (the active ``tools/list`` without pydantic) is what
    ``scripts/active_tools.py`` writes from the tool table now."""
    import active_tools

    assert active_tools.TARGET.read_text(encoding="utf-8") == active_tools.generated(), (
        "herdr_link_protocol/_active.py is stale; run python scripts/active_tools.py"
    )


def _host_files() -> set[str]:
    """Every file path the host table holds (each ``Place``'s user and project path) and the tables
    our server's entry goes in."""
    from herdr_link_control import hosts

    found: set[str] = set()

    def walk(record: object) -> None:
        if isinstance(record, hosts.Place):
            found.update(path for path in (record.user, record.project) if path)
            # a bare folder name under a variable ("opencode" under $XDG_CONFIG_HOME) is the host's name,
            # which wire text may say; a path in it ("settings.json", "app-server-daemon/daemon.pid") is a file
            if "/" in record.under_variable or "." in record.under_variable:
                found.add(record.under_variable)
            return
        if isinstance(record, hosts.Servers) and not (record.table.isalpha() and record.table.islower()):
            # a table named by a plain word (Kilo Code's "mcp") is the protocol's own word too
            found.add(record.table)
        if isinstance(record, hosts.Extension):
            found.update(path for path in (record.file, *record.older_files, record.settings) if path)
        for slot in getattr(type(record), "__slots__", ()):
            value = getattr(record, slot, None)
            if value is not None and hasattr(type(value), "__slots__") and not isinstance(value, str | tuple):
                walk(value)

    for host in hosts.HOSTS:
        walk(host)
    return found


HOST_TABLE_NAMES = ("HOSTS", "find_host", "hosts_with", "host_for_client", "host_for_kind", "KIND_ALIASES",
                    "FORWARDED_VARIABLES", "SERVER_NAMESPACE", "_hosts")  # fmt: skip
"""What reading or holding the host table takes: its lookups, its constants, a module of that name."""


def test_the_protocol_package_names_no_host_file_and_holds_no_host_table():
    """``herdr-link/1`` is taken alone by other tools: no host's files, tables or lookups in it (host
    names in model-facing text, such as ``kind``'s description, are the wire's, not the table's)."""
    files = _host_files()
    assert {"~/.codex/config.toml", ".mcp.json", "mcpServers", "mcp_servers"} <= files  # the walk finds them
    assert {"~/.config/opencode", "plugins/herdr-link.js", "extensions/herdr-link.js"} <= files
    source = ROOT / "packages" / "herdr-link-protocol" / "src"
    found = []
    for path in sorted(source.rglob("*")):
        if path.suffix not in (".py", ".md", ".json") or "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        # a file name inside a longer one ("config.json" in "agent_config.json") is not that file
        found += [f"{path.name}: {file}" for file in files if re.search(rf"(?<![\w.-]){re.escape(file)}", text)]
        found += [f"{path.name}: {name}" for name in HOST_TABLE_NAMES if re.search(rf"\b{name}\b", text)]
    assert found == []
