"""An installer's own small notes beside its backups (what it set aside or made, for its uninstall):
a JSON object, written whole and readable by its owner only. One of them: the folders an install made
for a file, which its uninstall takes out again while they are empty (and only those)."""

import contextlib
import json
from pathlib import Path
from typing import Any

from ._complete import write_complete

__all__ = [
    "clear_note_partial",
    "folders_to_make",
    "note_made_folders",
    "read_note",
    "remove_made_folders",
    "write_note",
]


def read_note(path: Path) -> dict[str, Any]:
    """The note at ``path``; an empty one when it is missing, unreadable or not a JSON object."""
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


def clear_note_partial(path: Path) -> list[Path]:
    """Remove the partial copy of the note at ``path`` a killed run left; returns it when there was one."""
    partial = path.with_name(path.name + ".partial")  # write_complete's partial copy
    if not partial.is_file():
        return []
    partial.unlink()
    return [partial]


def write_note(path: Path, note: dict[str, Any]) -> None:
    """Write ``note`` at ``path`` whole, 0600, its folder made (0700) when missing.

    Raises:
        OSError: it could not be written; what was there before is unchanged.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_complete(path, (json.dumps(note, indent=2) + "\n").encode(), mode=0o600)


def folders_to_make(target: Path, depth: int = 3) -> list[str]:
    """The folders above ``target`` (up to ``depth`` of them) that do not exist yet, deepest first: what
    writing ``target`` will make."""
    return [str(folder) for folder in [target.parent, *target.parent.parents][:depth] if not folder.exists()]


def note_made_folders(note: Path, target: Path, made: list[str]) -> None:
    """Note that an install made ``made`` (:func:`folders_to_make`) for ``target``; never fails the run
    (its uninstall then leaves them)."""
    if made:
        with contextlib.suppress(OSError):
            write_note(note, read_note(note) | {str(target.parent): made})


def remove_made_folders(note: Path, target: Path) -> list[str]:
    """Take out the folders an install made for ``target``, deepest first, while they are empty; says which."""
    found = read_note(note)
    made = found.pop(str(target.parent), [])
    said = []
    for folder in made if isinstance(made, list) else []:
        try:
            Path(folder).rmdir()
        except OSError:
            break
        said.append(f"removed: {folder} (empty; the install had made it)")
    if made:
        with contextlib.suppress(OSError):
            write_note(note, found)
    return said
