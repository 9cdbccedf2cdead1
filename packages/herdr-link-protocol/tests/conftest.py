import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    """Compare text with ``golden/<name>``; ``HERDR_LINK_UPDATE_GOLDEN=1`` rewrites the file instead."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("HERDR_LINK_UPDATE_GOLDEN") == "1":
            path.write_text(text, encoding="utf-8", newline="")
        assert path.read_bytes().decode("utf-8") == text, f"golden/{name} differs"

    return check


@pytest.fixture(scope="session")
def ts_fixtures() -> dict[str, Any]:
    """Outputs of the TypeScript herdr-link 0.5.1 MCP server (see data/README.md)."""
    data: dict[str, Any] = json.loads((HERE / "data" / "ts-fixtures.json").read_text(encoding="utf-8"))
    return data
