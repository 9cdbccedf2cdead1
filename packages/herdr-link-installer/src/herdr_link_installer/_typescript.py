"""The TypeScript Herdr Link's OpenCode bundle: how it is recognised, and the note that lets
``--uninstall`` give back the one an install replaced."""

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from herdr_link_control.userfiles import backups_root, read_note, write_note

__all__ = ["TS_MARKERS", "forget_replaced", "is_typescript_bundle", "note_replaced", "replaced_backup"]

TS_MARKERS: Final = (b"herdrLinkPlugin", b"[herdr-link/1] inter-agent message delivered")
"""Byte strings only the TypeScript implementation's OpenCode bundle contains."""
REPLACED_NOTE: Final = "opencode-replaced.json"
"""Beside the backups: each plugin file that held the TypeScript bundle, and that bundle's backup."""


def is_typescript_bundle(data: bytes) -> bool:
    """Whether a plugin file is the TypeScript implementation's OpenCode bundle."""
    return any(marker in data for marker in TS_MARKERS)


def _note(environ: Mapping[str, str], home: Path) -> Path:
    return backups_root(environ, home).parent / REPLACED_NOTE


def note_replaced(environ: Mapping[str, str], home: Path, target: Path, backup: Path) -> None:
    """Record that ``target`` held the TypeScript Herdr Link's bundle, now kept at ``backup``.

    Raises:
        OSError: the note could not be written (what it held before is unchanged).
    """
    note = _note(environ, home)
    write_note(note, read_note(note) | {str(target): str(backup)})


def replaced_backup(environ: Mapping[str, str], home: Path, target: Path) -> Path | None:
    """The backup of the TypeScript bundle an install replaced at ``target``, if one is noted and is still
    that bundle."""
    noted = read_note(_note(environ, home)).get(str(target))
    try:
        return Path(noted) if isinstance(noted, str) and is_typescript_bundle(Path(noted).read_bytes()) else None
    except OSError:
        return None


def forget_replaced(environ: Mapping[str, str], home: Path, target: Path) -> None:
    """Drop ``target`` from the note once its bundle is given back.

    Raises:
        OSError: the note could not be rewritten.
    """
    note = _note(environ, home)
    kept = read_note(note)
    if kept.pop(str(target), None) is not None:
        write_note(note, kept)
