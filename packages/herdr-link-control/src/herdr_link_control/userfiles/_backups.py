"""Backups of a user's file before it is replaced or removed: named to sort by time, kept private,
found by the path they came from, and the first one (the bytes before Herdr Link ever wrote) kept."""

import os
import time
from pathlib import Path
from typing import Final

from ._complete import copy_complete

__all__ = ["KEEP_BACKUPS", "back_up", "backup_folder", "backup_stamp", "prune_backups"]

KEEP_BACKUPS: Final = 5
"""Backups kept per file: the oldest (the only copy of the original bytes) and the newest others."""


def backup_stamp() -> str:
    """A name part that sorts by time, to the nanosecond, in UTC (so a change of the local clock's
    zone or daylight saving never sorts a newer backup first): ``20261201T105500.123456789Z-<pid>``."""
    now = time.time_ns()
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now // 10**9)) + f".{now % 10**9:09d}Z-{os.getpid()}"


def backup_folder(root: Path, target: Path) -> Path:
    """Where ``target``'s backups go under ``root``: its absolute folder, mirrored
    (``~/.claude/settings.json`` -> ``<root>/home/me/.claude/``), so that a backup's path says which
    file it came from and two files of the same name never share (or prune) each other's backups."""
    absolute = Path(os.path.abspath(target))
    parts = [part.replace(":", "") for part in absolute.parent.parts[1:]]
    drive = absolute.drive.replace(":", "")
    return root.joinpath(*([drive] if drive else []), *parts)


def _private_folder(directory: Path) -> None:
    """Make ``directory`` (and its missing parents) readable by its owner only."""
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    for made in (directory, *missing):
        if made.exists():
            os.chmod(made, 0o700)


def prune_backups(directory: Path, name: str, keep: int = KEEP_BACKUPS) -> list[Path]:
    """Remove backups of ``name`` (``<name>.<stamp>``) in ``directory`` beyond ``keep``: the oldest
    stays (it holds the original bytes), then the newest. Returns the removed. Partial copies and
    other files are left alone."""
    backups = sorted(
        p
        for p in directory.glob(f"{name}.*")
        if p.suffix != ".partial" and p.is_file() and p.name[len(name) + 1 : len(name) + 2].isdigit()
    )
    removed = backups[1 : len(backups) - (keep - 1)] if len(backups) > keep else []
    for old in removed:
        old.unlink(missing_ok=True)
    return removed


def back_up(target: Path, directory: Path, *, stamp: str | None = None, keep: int = KEEP_BACKUPS) -> Path:
    """Copy ``target`` completely to ``directory/<name>.<stamp>`` (the folder made readable by its owner
    only; the copy as private as ``target`` from its first byte), prune older backups of the same
    name, and return the backup's path.

    Raises:
        OSError: nothing was backed up (no partial copy is left under a backup's name).
    """
    backup = directory / f"{target.name}.{stamp or backup_stamp()}"
    _private_folder(directory)
    for left in directory.glob(f"{target.name}.*.partial"):  # a backup a killed run had not finished
        left.unlink(missing_ok=True)
    copy_complete(target, backup)
    prune_backups(directory, target.name, keep)
    return backup
