"""Replacing a user's own config file: through a symlink to the file it names, never over a write
the run did not see, backed up by its path, and put back the same way."""

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ._backups import back_up, backup_folder
from ._complete import ChangedMeanwhile, read_current, remove_unchanged, write_complete

__all__ = [
    "DanglingLinkError",
    "NotAFileToEdit",
    "Replaced",
    "clear_partials",
    "put_back",
    "real_file",
    "regular_file",
    "replace_file",
]

PARTIAL_SUFFIX = ".herdr-link.partial"
"""The partial copy's name beside the file it will replace."""


class DanglingLinkError(OSError):
    """``path`` is a symbolic link to nothing: it is not written (its target's folder may be gone)."""


def real_file(path: Path) -> Path:
    """The file a write to ``path`` changes: ``path``, or the file its symbolic links lead to (the
    links stay links; a dotfiles repository's copy keeps changing).

    Raises:
        DanglingLinkError: ``path`` is a link whose target does not exist.
    """
    if not path.is_symlink():
        return path
    real = Path(os.path.realpath(path))
    if not real.exists():
        raise DanglingLinkError(
            f"{path} is a symbolic link to {real}, which does not exist: nothing was written through it"
        )
    return real


class NotAFileToEdit(OSError):
    """The file (or what its links lead to) is not one regular file with one name: a device, a FIFO, a
    socket, or a file with other hard links, which a replace would split off. Nothing is written."""


def regular_file(path: Path) -> Path:
    """:func:`real_file`, which must be absent or one regular file with one name (checked without opening
    it, so a FIFO never blocks, not even a ``--dry-run``); our own partial copy as its second name (left by
    a killed run, removed by :func:`clear_partials`) is not counted.

    Raises:
        DanglingLinkError: a link to nothing; IsADirectoryError: a folder; NotAFileToEdit: anything else.
    """
    real = real_file(path)
    try:
        found = os.stat(real)
    except FileNotFoundError:
        return real
    via = f" (a link to {real})" if real != path else ""
    if stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    if not stat.S_ISREG(found.st_mode):
        raise NotAFileToEdit(f"{path}{via} is not a regular file (a device, a FIFO or a socket): nothing was written")
    if found.st_nlink - _own_partial_names(real, found) > 1:
        raise NotAFileToEdit(
            f"{path}{via} has {found.st_nlink} names (hard links): replacing it would split it from the others, "
            "so nothing was written; make it one file (or a symbolic link) first"
        )
    return real


def _own_partial_names(real: Path, found: os.stat_result) -> int:
    """1 when our own partial copy beside ``real`` is another name of it (a run killed between linking a
    new file in and removing its temporary name; :func:`clear_partials` removes it), else 0."""
    try:
        partial = os.stat(real.with_name(real.name + PARTIAL_SUFFIX), follow_symlinks=False)
    except OSError:
        return 0
    return int((partial.st_dev, partial.st_ino) == (found.st_dev, found.st_ino))


def clear_partials(path: Path, *, backups: Path) -> list[Path]:
    """Remove the partial copies a killed run left for ``path``: beside the file and among its
    backups (every copy is private from its first byte, so none was ever readable by others).
    Returns the removed."""
    try:
        real = real_file(path)
    except DanglingLinkError:
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
    path: Path,
    before: bytes | None,
    after: bytes | None,
    *,
    backups: Path,
    private: bool = False,
    verify: Callable[[Path], None] | None = None,
) -> Replaced:
    """Replace ``path``'s content ``before`` (``None``: no file) with ``after`` (``None``: remove it).

    ``before`` is backed up under ``backups`` (its folder mirrored there, see :func:`backup_folder`);
    the new content is written beside the real file with that file's mode from its first byte (a new
    file: 0600 when ``private``), checked by ``verify(partial copy)`` when given (it raises
    ``OSError`` to stop: nothing is replaced), and compared with ``before`` just before one
    ``os.replace``.

    Raises:
        ChangedMeanwhile: the file no longer holds ``before``; nothing was written over it.
        DanglingLinkError, OSError: nothing was changed.
    """
    real = regular_file(path)
    _private_root(backups)
    if read_current(real) != before:
        raise ChangedMeanwhile(f"{path} changed while this run was planning (another program wrote it)")
    backup = back_up(real, backup_folder(backups, path)) if before is not None else None
    try:
        if after is None:
            assert before is not None, "nothing to remove"
            remove_unchanged(real, before, aside=real.with_name(real.name + PARTIAL_SUFFIX))
        else:
            real.parent.mkdir(parents=True, exist_ok=True)
            mode = None if before is not None else (0o600 if private else None)
            partial = real.with_name(real.name + PARTIAL_SUFFIX)
            write_complete(real, after, partial=partial, verify=verify, mode=mode, expect=before)
    except ChangedMeanwhile:
        raise
    except OSError:
        if not _holds(real, after):  # the error came before the change: nothing was changed
            raise
        # The change is in place and the error came after it (tidying up): the replace is done, so the
        # caller finishes (its record written) or puts it back, and says which, never "unchanged".
    return Replaced(path, real, before, after, backup)


def _holds(real: Path, content: bytes | None) -> bool:
    """Whether ``real`` holds ``content`` now (``None``: there is no file), as far as it can be read."""
    try:
        return read_current(real) == content
    except OSError:
        return False


def _private_root(backups: Path) -> None:
    """The backups folder readable by its owner only (0.1.0 made it 0755)."""
    try:
        if backups.is_dir() and backups.stat().st_mode & 0o077:
            os.chmod(backups, 0o700)
    except OSError:
        pass  # a backup still goes into a private folder of its own below it


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
