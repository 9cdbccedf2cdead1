"""The package's shape: pure (no I/O library), and cheap to import (models load on first use)."""

import ast
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import herdr_link_protocol


def test_the_package_imports_no_io_library():
    banned = {"anyio", "asyncio", "subprocess", "socket", "os", "shutil", "io", "pathlib"}
    source_dir = Path(herdr_link_protocol.__file__).parent
    for path in source_dir.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert not roots & banned, f"{path.name} imports {roots & banned}"


def loaded_after(code: str) -> set[str]:
    """The top-level modules a fresh interpreter holds after running ``code``."""
    probe = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    output = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(output.stdout))


def test_the_constants_and_texts_come_without_pydantic():
    texts = (
        "import herdr_link_protocol as p\n"
        "p.tier0_hint(p.PresentationForm.MCP_PREFIXED, 'herdr_link'), p.COMMUNICATION_CONTRACT, p.ACTION_TOOLS,"
        " p.TIER1_TOOLS, p.PROTOCOL_ID, p.LinkError(p.Cause.MESSAGE_EMPTY), p.is_valid_agent_name('a'),"
        " p.dumps_terminal_safe('x')\n"
        "from herdr_link_protocol._arguments import normalize_arguments\n"
        "normalize_arguments(p.SEND_TOOL, {'to': 'a'})"
    )
    assert "pydantic" not in loaded_after(texts)


def test_a_model_loads_pydantic_when_first_touched():
    assert "pydantic" in loaded_after("import herdr_link_protocol as p\np.build_envelope('a', 'b', 'hi')")


def test_an_unknown_name_is_an_attribute_error_and_the_version_is_the_distributions():
    with pytest.raises(AttributeError, match="NOT_A_NAME"):
        herdr_link_protocol.NOT_A_NAME  # type: ignore[attr-defined]  # noqa: B018
    assert herdr_link_protocol.__version__ == version("herdr-link-protocol")
