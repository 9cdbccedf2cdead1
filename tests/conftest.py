"""The cross-package tests. ``tests/real_hosts`` and ``tests/dist`` run only when named
(``nox -s real_hosts`` puts the first in an isolated network namespace; ``nox -s
dist`` builds the wheelhouse the second installs from), so a plain ``uv run pytest`` leaves them out."""

from pathlib import Path

import pytest

NAMED_ONLY = ("real_hosts", "dist")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave out ``tests/real_hosts`` and ``tests/dist`` unless a command-line argument names them."""
    if collection_path.name in NAMED_ONLY and collection_path.parent == Path(__file__).parent:
        named = any(f"tests/{collection_path.name}" in str(arg) for arg in config.args)
        return None if named else True
    return None
