"""The Pi extension check for ``herdr-link doctor``. Reads only."""

from pathlib import Path

from ._extension import ExtensionState, extension_state
from ._install import pi_scope, target_path
from ._typescript import find_typescript

__all__ = ["extension_status", "typescript_in_pi"]


def extension_status(home: Path, cwd: Path) -> tuple[ExtensionState, Path | None]:
    """The installed extension (global first, then this project's) and what it is."""
    for project in (False, True):
        path = target_path(home, cwd, project=project)
        if path.is_file():
            return extension_state(path.read_bytes()), path
    return "absent", None


def typescript_in_pi(home: Path, cwd: Path) -> tuple[list[str], bool] | None:
    """Where the TypeScript Herdr Link is wired into Pi (the user's scope first, then this project's), in
    words, and whether it is the project's; ``None`` when it is nowhere."""
    for project in (False, True):
        found = find_typescript(*pi_scope(home, cwd, project=project))
        if found is not None:
            return found.describe(), project
    return None
