"""Complete writes: a file appears under its name only whole, or not at all, and every copy is as
private as the file it copies from its first byte."""

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = [
    "UNCHECKED",
    "ChangedMeanwhile",
    "copy_complete",
    "failure_reason",
    "read_current",
    "remove_unchanged",
    "write_complete",
]


class _Unchecked:
    """The type of :data:`UNCHECKED`."""


UNCHECKED: Final = _Unchecked()
"""``expect`` for :func:`write_complete` when the file's current content is not compared."""


class ChangedMeanwhile(OSError):
    """Another program wrote the file after it was read; nothing was written over its write."""


def failure_reason(error: OSError) -> str:
    """What an installer says of a write that failed: the system's reason and the file it names, or for
    :class:`ChangedMeanwhile` its own words and what to do (``… : run again``)."""
    if isinstance(error, ChangedMeanwhile):
        return f"{error}: run again"
    return f"{error.strerror or error}" + (f": {error.filename}" if error.filename else "")


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
        if isinstance(expect, _Unchecked):
            os.replace(partial, path)
        else:
            _put_in_place(partial, path, expect)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _changed(path: Path) -> ChangedMeanwhile:
    return ChangedMeanwhile(f"{path} changed while this run was writing it (another program wrote it)")


def _put_in_place(partial: Path, path: Path, expect: bytes | None) -> None:
    """Move ``partial`` to ``path`` only while ``path`` holds ``expect`` (``None``: no file), never over
    another program's write.

    A new file is linked into place, which fails if one appeared meanwhile. An existing one is compared,
    then swapped with the partial in one step (Linux ``renameat2(RENAME_EXCHANGE)``); what the swap took
    out is compared again, and if a write landed between the compare and the swap it is swapped back
    (unless a newer write already replaced ours, which then stays). Where the system cannot swap, the
    compare is followed by ``os.replace``: a write landing between the two (microseconds) is lost.

    Raises:
        ChangedMeanwhile: ``path`` did not hold ``expect``; it holds the other program's write.
    """
    if expect is None:
        try:
            os.link(partial, path)  # fails if a file appeared meanwhile: no window at all
        except FileExistsError:
            raise _changed(path) from None
        except OSError:  # a file system without hard links: compare, then replace
            if path.exists():
                raise _changed(path) from None
            os.replace(partial, path)
            return
        _discard(partial)
        return
    if read_current(path) != expect:
        raise _changed(path)
    ours = os.stat(partial).st_ino
    if not _exchange(partial, path):
        os.replace(partial, path)  # the compare just before is the only window: microseconds
        return
    try:
        taken = partial.read_bytes()
    except OSError:  # ours is in place; what it took out stays beside it (as private as the file)
        return
    if taken == expect:  # what the swap took out is what the run read
        _discard(partial)
        return
    if os.stat(path).st_ino == ours:  # a write landed between the compare and the swap: give it back
        _exchange(partial, path)
    partial.unlink()  # ours, or (when a newer write replaced ours) the older write it supersedes
    raise _changed(path)


def _discard(partial: Path) -> None:
    """Remove a copy once the file is in place: failing to is no failure of the write, which is done
    (the copy is as private as the file; the next run removes it)."""
    try:
        partial.unlink()
    except OSError:
        pass


def remove_unchanged(path: Path, expect: bytes, *, aside: Path) -> None:
    """Remove ``path`` only while it holds ``expect``, never another program's write: it is moved to
    ``aside`` in one step and compared there; a write it turns out to be goes back under its name
    (unless a newer file already took the name, which then stays).

    Raises:
        ChangedMeanwhile: ``path`` did not hold ``expect``; it holds the other program's write.
    """
    if read_current(path) != expect:
        raise _changed(path)
    aside.unlink(missing_ok=True)  # a copy a killed run left
    os.replace(path, aside)
    if aside.read_bytes() == expect:
        aside.unlink()
        return
    try:
        os.link(aside, path)  # back under its name, unless a newer file took it
    except FileExistsError:
        pass
    except OSError:  # a file system without hard links
        if not path.exists():
            os.replace(aside, path)
    aside.unlink(missing_ok=True)
    raise _changed(path)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two names in one step (Linux ``renameat2`` with ``RENAME_EXCHANGE``); ``False`` where the
    system or file system cannot, having changed nothing.

    Raises:
        OSError: the swap failed for another reason; nothing was changed.
    """
    if sys.platform != "linux":
        return False
    import ctypes  # only here: importing the package stays cheap
    import errno

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):  # a C library without it (glibc before 2.28, or another C library)
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


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
