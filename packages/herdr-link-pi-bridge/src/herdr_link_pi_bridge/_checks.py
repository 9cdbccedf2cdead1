"""The Pi extension check for ``herdr-link doctor``. Reads only."""

from pathlib import Path
from typing import Literal

from herdr_link_control.userfiles import made_by

from ._extension import GENERATOR, packaged_extension
from ._install import target_path

__all__ = ["ExtensionState", "extension_status"]

ExtensionState = Literal["current", "older", "foreign", "absent"]
"""What an installed extension file is: the shipped one, an older one of ours, another's, or none."""


def extension_status(home: Path, cwd: Path) -> tuple[ExtensionState, Path | None]:
    """The installed extension (global first, then this project's) and what it is."""
    shipped = packaged_extension().read_bytes()
    for project in (False, True):
        path = target_path(home, cwd, project=project)
        if path.is_file():
            data = path.read_bytes()
            if data == shipped:
                return "current", path
            if made_by(data, GENERATOR):
                return "older", path
            return "foreign", path
    return "absent", None
