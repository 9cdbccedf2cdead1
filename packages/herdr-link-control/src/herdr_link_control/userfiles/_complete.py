"""Complete writes: a file appears under its name only whole, or not at all, and every copy is as
private as the file it copies from its first byte."""

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = ["UNCHECKED", "ChangedMeanwhile", "copy_complete", "read_current", "write_complete"]


class _Unchecked:
    """The type of :data:`UNCHECKED`."""


UNCHECKED: Final = _Unchecked()
"""``expect`` for :func:`write_complete` when the file's current content is not compared."""


class ChangedMeanwhile(OSError):
    """Another program wrote the file after it was read; nothing was written over its write."""


def _opener(mode: int) -> Callable[[str, int], int]:
    def opener(path: str, flags: int) -> int:
        return os.open(path, flags | os.O_EXCL, mode)  # the mode is the file's from its first byte

    return opener


def read_current(path: Path) -> bytes | None:
    """``path``'s bytes, ``None`` when it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def write_complete(
    path: Path,
    data: bytes,
    *,
    partial: Path | None = None,
    verify: Callable[[Path], None] | None = None,
    mode: int | None = None,
    expect: bytes | None | _Unchecked = UNCHECKED,
) -> None:
    """Write ``data`` under ``path`` only once it is all on disk: to ``partial`` (default
    ``<path>.partial``; give one where the reader of ``path``'s directory never loads it), created
    with ``mode`` (default: ``path``'s own; a new file's as the umask makes it) so that no copy is ever readable by more
    people than the file; fsync, ``verify(partial)`` when given (it raises to stop), then compare
    ``path`` with ``expect`` (its content when the run read it; ``None``: it did not exist) and
    ``os.replace``. On any failure the partial file is removed and ``path`` is as it was.

    Raises:
        ChangedMeanwhile: ``path`` no longer holds ``expect`` (another program wrote it).
    """
    partial = partial or path.with_name(path.name + ".partial")
    if mode is None and path.exists():  # a new file's mode is as the umask makes it
        mode = path.stat().st_mode & 0o7777
    partial.unlink(missing_ok=True)  # a partial copy a killed run left
    try:
        with open(partial, "wb", opener=_opener(0o666 if mode is None else mode & 0o777)) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(partial, mode)  # the umask only narrows the mode given at creation: now exactly the file's
        if verify is not None:
            verify(partial)
        if expect is not UNCHECKED and read_current(path) != expect:
            raise ChangedMeanwhile(f"{path} changed while this run was writing it (another program wrote it)")
        os.replace(partial, path)  # the compare just before is the only window: microseconds
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def copy_complete(source: Path, destination: Path) -> None:
    """Copy ``source`` (bytes, mode and times) so that ``destination`` exists only complete: a crash
    leaves at most ``<destination>.partial``, never a short file under ``destination``'s name, and the
    copy is never readable by more people than ``source``."""
    partial = destination.with_name(destination.name + ".partial")
    mode = source.stat().st_mode & 0o777
    partial.unlink(missing_ok=True)  # a partial copy a killed run left
    try:
        with open(source, "rb") as reader, open(partial, "wb", opener=_opener(mode)) as writer:
            shutil.copyfileobj(reader, writer)
            writer.flush()
            os.fsync(writer.fileno())
        shutil.copystat(source, partial)
        os.replace(partial, destination)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
