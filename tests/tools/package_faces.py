"""Every package's face, one style: its names are written once, as explicit ``TYPE_CHECKING`` imports
in ``__init__.py`` (what a reader and a type checker read), and everything after them is generated
from those imports: the table ``_EXPORTS`` and the few lines (PEP 562, standard library only) that
load each name from its submodule on first use. ``tests/test_distributions.py`` regenerates every
face and fails when one differs.

    python tests/tools/package_faces.py          # regenerate every face's loader from its imports
    python tests/tools/package_faces.py --check  # exit 1 and name the faces that are stale
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def faces() -> list[Path]:
    """Every ``__init__.py`` of every distribution's packages and subpackages."""
    return sorted(p for p in (ROOT / "packages").glob("*/src/*/**/__init__.py") if "node_modules" not in p.parts)


def imported_names(tree: ast.Module) -> dict[str, list[str]]:
    """The names the face's ``if TYPE_CHECKING:`` block re-exports, per submodule, in order."""
    table: dict[str, list[str]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.If) and isinstance(statement.test, ast.Name):
            if statement.test.id != "TYPE_CHECKING":
                continue
            for inner in statement.body:
                if isinstance(inner, ast.ImportFrom) and inner.level == 1:
                    names = [alias.name for alias in inner.names if alias.asname == alias.name]
                    if names:
                        table.setdefault(inner.module or "", []).extend(names)
    return table


LOADER = '''"""Each submodule and the names it provides: generated from the imports above."""

if not TYPE_CHECKING:  # type checkers read the imports above, so a misspelt name stays an error
    _MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
    __all__ = sorted(_MODULE_OF)

    def __getattr__(name):
        """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
        if name not in _MODULE_OF:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        submodule = __import__(f"{__name__}.{_MODULE_OF[name]}", fromlist=[name])  # no importlib to load
        value = getattr(submodule, name)
        globals()[name] = value
        return value

    def __dir__():
        return sorted({*globals(), *__all__})
'''
"""What follows ``_EXPORTS`` in every face."""


def render(table: dict[str, list[str]]) -> str:
    """The generated tail of a face: ``_EXPORTS`` for ``table`` and the loader, as ``ruff format`` keeps them."""
    lines = ["_EXPORTS = {"]
    for module, names in table.items():
        lines.append(f'    "{module}": [')
        lines += [f'        "{name}",' for name in names]
        lines.append("    ],")
    lines.append("}")
    return "\n".join(lines) + "\n" + LOADER


def regenerated(path: Path) -> str | None:
    """``path``'s text with everything from ``_EXPORTS`` on generated from its imports; ``None`` for a
    face without ``_EXPORTS``."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and [getattr(t, "id", None) for t in statement.targets] == ["_EXPORTS"]:
            before = text.splitlines(keepends=True)[: statement.lineno - 1]
            return "".join(before) + render(imported_names(tree))
    return None


def main(argv: list[str]) -> int:
    stale = []
    for path in faces():
        text = regenerated(path)
        if text is None or text == path.read_text(encoding="utf-8"):
            continue
        stale.append(path)
        if "--check" not in argv:
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if '--check' in argv else 'rewrote'}: {path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
