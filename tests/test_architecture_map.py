"""``docs/architecture.md`` maps every room: each source module of every distribution is named on a row
that names its package (``herdr_link_control/userfiles/`` with ``_complete.py``, or the whole path)."""

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
