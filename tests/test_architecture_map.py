"""``docs/architecture.md`` maps every room: each source module of every distribution is named on a row
that names its package (``herdr_link_control/userfiles/`` with ``_complete.py``, or the whole path)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAIN: frozenset[str] = frozenset({"__init__.py", "__main__.py", "_version.py"})
"""Every package has these; the package faces and versions are described once, not per package."""


def unmapped(text: str) -> list[str]:
    """The source modules no line of ``text`` names together with their package's folder."""
    lines = text.splitlines()
    missing = []
    for module in sorted(ROOT.glob("packages/*/src/**/*.py")):
        if module.name in PLAIN or "__pycache__" in module.parts:
            continue
        package = "/".join(module.parts[module.parts.index("src") + 1 : -1]) + "/"
        if not any(package in line and module.name in line for line in lines):
            missing.append(f"{package}{module.name}")
    return missing


def test_every_source_module_has_its_row():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert unmapped(text) == []


def test_the_check_finds_a_room_without_a_row():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    without = "\n".join(line for line in text.splitlines() if "_pane_proof.py" not in line)
    assert unmapped(without) == ["herdr_link_control/_pane_proof.py"]


CONTROL = ROOT / "packages" / "herdr-link-control" / "src" / "herdr_link_control"
CORNER = ("hosts",)
"""Control's host corner (``herdr_link_control.hosts``): the Herdr core stands on it only through what it calls."""


def _annotations(tree: ast.AST) -> set[int]:
    """The ids of every node inside an annotation (an argument's, a return's, an annotated name's)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        roots: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            roots.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        inside |= {id(n) for root in roots if root is not None for n in ast.walk(root)}
    return inside


def annotation_only_imports(source: str) -> list[str]:
    """Names a module imports from the host corner at run time and uses only in annotations."""
    tree = ast.parse(source)
    checking = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and getattr(node.test, "id", "") ==
                "TYPE_CHECKING" for n in ast.walk(node)}  # fmt: skip
    imported = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and id(node) not in checking and node.module:
            if node.module.split(".")[-1] in CORNER or node.module.startswith("herdr_link_control.hosts"):
                imported += [alias.asname or alias.name for alias in node.names]
    annotated = _annotations(tree)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in annotated}
    return [name for name in imported if name not in used]


def test_the_herdr_core_stands_on_the_host_corner_only_through_what_it_calls():
    """A collaborator the core is handed (``HostQuestions``) is known by a protocol of its own
    (``QuestionsAhead``), not imported from the corner to annotate it."""
    found = []
    for module in sorted(CONTROL.rglob("*.py")):
        if "hosts" in module.relative_to(CONTROL).parts or module.name == "__init__.py":
            continue
        found += [f"{module.relative_to(CONTROL)}: {name}" for name in annotation_only_imports(module.read_text())]
    assert found == []


def test_the_check_finds_an_import_only_to_annotate():
    source = "from .hosts import HostQuestions, host_for_kind\n\n\ndef f(questions: HostQuestions) -> None:\n"
    assert annotation_only_imports(source + "    host_for_kind('pi')\n") == ["HostQuestions"]
    assert annotation_only_imports(source + "    HostQuestions({}).ahead(host_for_kind('pi'))\n") == []
