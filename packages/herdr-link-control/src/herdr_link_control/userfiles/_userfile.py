"""Replacing a user's own config file: through a symlink to the file it names, never over a write
the run did not see, backed up by its path, and put back the same way."""

import os
from dataclasses import dataclass
from pathlib import Path

from ._backups import back_up, backup_folder
from ._complete import ChangedMeanwhile, read_current, remove_unchanged, write_complete

__all__ = ["LinkError", "Replaced", "clear_partials", "put_back", "real_file", "replace_file"]

PARTIAL_SUFFIX = ".herdr-link.partial"
"""The partial copy's name beside the file it will replace."""


class LinkError(OSError):
    """``path`` is a symbolic link to nothing: it is not written (its target's folder may be gone)."""


def real_file(path: Path) -> Path:
    """The file a write to ``path`` changes: ``path``, or the file its symbolic links lead to (the
    links stay links; a dotfiles repository's copy keeps changing).

    Raises:
        LinkError: ``path`` is a link whose target does not exist.
    """
    if not path.is_symlink():
        return path
    real = Path(os.path.realpath(path))
    if not real.exists():
        raise LinkError(f"{path} is a symbolic link to {real}, which does not exist: nothing was written through it")
    return real


def clear_partials(path: Path, *, backups: Path) -> list[Path]:
    """Remove the partial copies a killed run left for ``path``: beside the file and among its
    backups (every copy is private from its first byte, so none was ever readable by others).
    Returns the removed."""
    try:
        real = real_file(path)
    except LinkError:
        real = path
    found = [real.with_name(real.name + PARTIAL_SUFFIX)]
    folder = backup_folder(backups, path)
    if folder.is_dir():
        found += folder.glob(f"{real.name}.*.partial")
    removed = [p for p in found if p.is_file()]
    for partial in removed:
        partial.unlink(missing_ok=True)
    return removed


@dataclass(frozen=True)
class Replaced:
    """One file this run changed: what it held (``before``), what it holds (``after``; ``None``
    removed), and where the backup of ``before`` is."""

    path: Path
    real: Path
    before: bytes | None
    after: bytes | None
    backup: Path | None


def replace_file(
    path: Path, before: bytes | None, after: bytes | None, *, backups: Path, private: bool = False
) -> Replaced:
    """Replace ``path``'s content ``before`` (``None``: no file) with ``after`` (``None``: remove it).

    ``before`` is backed up under ``backups`` (its folder mirrored there, see :func:`backup_folder`);
    the new content is written beside the real file with that file's mode from its first byte (a new
    file: 0600 when ``private``) and compared with ``before`` just before one ``os.replace``.

    Raises:
        ChangedMeanwhile: the file no longer holds ``before``; nothing was written over it.
        LinkError, OSError: nothing was changed.
    """
    real = real_file(path)
    if read_current(real) != before:
        raise ChangedMeanwhile(f"{path} changed while this run was planning (another program wrote it)")
    backup = back_up(real, backup_folder(backups, path)) if before is not None else None
    if after is None:
        assert before is not None, "nothing to remove"
        remove_unchanged(real, before, aside=real.with_name(real.name + PARTIAL_SUFFIX))
    else:
        real.parent.mkdir(parents=True, exist_ok=True)
        mode = None if before is not None else (0o600 if private else None)
        write_complete(real, after, partial=real.with_name(real.name + PARTIAL_SUFFIX), mode=mode, expect=before)
    return Replaced(path, real, before, after, backup)


def put_back(replaced: Replaced) -> str:
    """Undo :func:`replace_file`, unless another program wrote the file since; returns what the file is
    now, in words.

    Raises:
        ChangedMeanwhile: another program wrote the file after this run did; it is left as it is.
        OSError: the undo failed; the file holds what this run wrote.
    """
    real = replaced.real
    if read_current(real) != replaced.after:
        raise ChangedMeanwhile(
            f"{replaced.path} was written by another program after this run wrote it: left as it is"
            + (f" (the backup is {replaced.backup})" if replaced.backup else "")
        )
    if replaced.backup is None:
        if replaced.after is not None:
            remove_unchanged(real, replaced.after, aside=real.with_name(real.name + PARTIAL_SUFFIX))
        return "removed again (rolled back: this run had written it)"
    data = replaced.backup.read_bytes()
    mode = replaced.backup.stat().st_mode & 0o777
    write_complete(real, data, partial=real.with_name(real.name + PARTIAL_SUFFIX), mode=mode, expect=replaced.after)
    return f"restored from {replaced.backup} (rolled back)"
