"""Complete writes: a file appears under its name only whole, or not at all."""

import os
import shutil
from collections.abc import Callable
from pathlib import Path

__all__ = ["copy_complete", "write_complete"]


def write_complete(
    path: Path, data: bytes, *, partial: Path | None = None, verify: Callable[[Path], None] | None = None
) -> None:
    """Write ``data`` under ``path`` only once it is all on disk: to ``partial`` (default
    ``<path>.partial``; give one where the reader of ``path``'s directory never loads it), fsync,
    ``verify(partial)`` when given (it raises to stop), then one ``os.replace``. On any failure the
    partial file is removed and ``path`` is as it was.
    """
    partial = partial or path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if verify is not None:
            verify(partial)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def copy_complete(source: Path, destination: Path) -> None:
    """Copy ``source`` (bytes and times) so that ``destination`` exists only complete: a crash leaves at
    most ``<destination>.partial``, never a short file under ``destination``'s name."""
    partial = destination.with_name(destination.name + ".partial")
    try:
        with open(source, "rb") as reader, open(partial, "wb") as writer:
            shutil.copyfileobj(reader, writer)
            writer.flush()
            os.fsync(writer.fileno())
        shutil.copystat(source, partial)
        os.replace(partial, destination)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
