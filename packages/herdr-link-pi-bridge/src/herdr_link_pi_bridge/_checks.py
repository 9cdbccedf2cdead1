"""The Pi extension check for ``herdr-link doctor``. Reads only."""

from pathlib import Path

from ._extension import ExtensionState, extension_state
from ._install import target_path

__all__ = ["extension_status"]


def extension_status(home: Path, cwd: Path) -> tuple[ExtensionState, Path | None]:
    """The installed extension (global first, then this project's) and what it is."""
    for project in (False, True):
        path = target_path(home, cwd, project=project)
        if path.is_file():
            return extension_state(path.read_bytes()), path
    return "absent", None
