"""Backups of a user's file before it is replaced or removed: named to sort by time, a few kept."""

import os
import time
from pathlib import Path
from typing import Final

from ._complete import copy_complete

__all__ = ["KEEP_BACKUPS", "back_up", "backup_stamp", "prune_backups"]

KEEP_BACKUPS: Final = 5
"""Backups kept per file name; older ones are removed when a new one is made."""


def backup_stamp() -> str:
    """A name part that sorts by time, to the nanosecond, in UTC (so a change of the local clock's
    zone or daylight saving never sorts a newer backup first): ``20261201T105500.123456789Z-<pid>``."""
    now = time.time_ns()
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now // 10**9)) + f".{now % 10**9:09d}Z-{os.getpid()}"


def prune_backups(directory: Path, name: str, keep: int = KEEP_BACKUPS) -> list[Path]:
    """Remove all but the ``keep`` newest complete backups of ``name`` (``<name>.<stamp>``) in
    ``directory``; returns the removed. Partial copies and other files are left alone."""
    backups = sorted(p for p in directory.glob(f"{name}.*") if p.suffix != ".partial" and p.is_file())
    removed = backups[:-keep] if len(backups) > keep else []
    for old in removed:
        old.unlink(missing_ok=True)
    return removed


def back_up(target: Path, directory: Path, *, stamp: str | None = None, keep: int = KEEP_BACKUPS) -> Path:
    """Copy ``target`` completely to ``directory/<name>.<stamp>`` (made if missing), prune older backups
    of the same name, and return the backup's path.

    Raises:
        OSError: nothing was backed up (no partial copy is left under a backup's name).
    """
    backup = directory / f"{target.name}.{stamp or backup_stamp()}"
    directory.mkdir(parents=True, exist_ok=True)
    copy_complete(target, backup)
    prune_backups(directory, target.name, keep)
    return backup
