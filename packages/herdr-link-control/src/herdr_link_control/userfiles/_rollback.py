"""Rollback: put back what a user's file held before this run replaced it."""

import os
from pathlib import Path

from ._complete import copy_complete

__all__ = ["roll_back"]


def roll_back(target: Path, backup: Path | None, scratch: Path) -> str:
    """Restore ``target`` from ``backup`` (through ``scratch``, then one ``os.replace``), or delete it
    when there was no file before this run (``backup`` is ``None``). Returns what ``target`` is now, in
    words for the user.

    Raises:
        OSError: the rollback failed; ``scratch`` is removed and ``target`` holds what this run wrote.
    """
    try:
        if backup is None:
            target.unlink(missing_ok=True)  # the file this run wrote, and only that
            return "removed again (rolled back: this run had written it)"
        copy_complete(backup, scratch)  # bytes, mode and times; as private as the backup from its first byte
        os.replace(scratch, target)
        return f"restored from {backup} (rolled back)"
    except OSError:
        scratch.unlink(missing_ok=True)
        raise
