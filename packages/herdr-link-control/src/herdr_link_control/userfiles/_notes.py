"""An installer's own small notes beside its backups (what it set aside or made, for its uninstall):
a JSON object, written whole and readable by its owner only."""

import json
from pathlib import Path
from typing import Any

from ._complete import write_complete

__all__ = ["read_note", "write_note"]


def read_note(path: Path) -> dict[str, Any]:
    """The note at ``path``; an empty one when it is missing, unreadable or not a JSON object."""
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


def write_note(path: Path, note: dict[str, Any]) -> None:
    """Write ``note`` at ``path`` whole, 0600, its folder made (0700) when missing.

    Raises:
        OSError: it could not be written; what was there before is unchanged.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_complete(path, (json.dumps(note, indent=2) + "\n").encode(), mode=0o600)
