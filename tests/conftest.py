"""The cross-package tests. ``tests/real_hosts`` runs only when named (``python3 -m nox -s real_hosts``
puts it in an isolated network namespace first), so a plain ``uv run pytest`` leaves it out."""

from pathlib import Path

import pytest


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave out ``tests/real_hosts`` unless a command-line argument names it."""
    if collection_path.name == "real_hosts" and collection_path.parent == Path(__file__).parent:
        named = any("real_hosts" in str(arg) for arg in config.args)
        return None if named else True
    return None
