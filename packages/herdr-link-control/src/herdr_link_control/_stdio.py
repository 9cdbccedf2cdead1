"""The process's stdin and stdout as a JSON-lines wire, for the MCP server and the bridge alike.

Guarantee: while a :func:`claimed_stdio` block runs, descriptor 0 is the null device and descriptor 1
is stderr, and the wire lives on private descriptors that no child inherits. A process started
meanwhile (a ``herdr`` call, anything a library spawns) reads end-of-file, never protocol bytes, and
what it prints goes to the operator log, never onto the wire. Both descriptors are restored after.

Lines are read with :class:`herdr_link_protocol.JsonLineReader` (one reader, one set of rules);
nothing here imports the MCP SDK.
"""

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Final

import anyio

from herdr_link_protocol import JsonLine, JsonLineReader

__all__ = ["StdioWire", "claimed_stdio", "iter_json_lines", "read_json_lines"]

log: Final = logging.getLogger("herdr_link")

CHUNK: Final = 1 << 16
"""Bytes asked for per read of the wire."""


@dataclass(frozen=True)
class StdioWire:
    """The wire's two private descriptors: read requests from ``read_fd``, write replies to ``write_fd``."""

    read_fd: int
    write_fd: int

    def write(self, data: bytes) -> None:
        """Write all of ``data`` (blocking; call it from a worker thread). Raises ``OSError`` when the
        reader is gone."""
        view = memoryview(data)
        while view:
            view = view[os.write(self.write_fd, view) :]


def _private_copy(fd: int) -> int:
    """A copy of ``fd`` numbered above 0-2 that no child inherits: Python's copies never are (PEP 446;
    on POSIX ``os.dup`` asks for close-on-exec in the same call), on every system, without ``fcntl``."""
    low: list[int] = []
    copy = os.dup(fd)
    while copy < 3:  # 0, 1 or 2 was closed: keep it taken until the copy lands above
        low.append(copy)
        copy = os.dup(fd)
    for taken in low:
        os.close(taken)
    return copy


@contextlib.contextmanager
def claimed_stdio() -> Iterator[StdioWire]:
    """Move the wire off descriptors 0 and 1 for the block (see the module docstring).

    Where a descriptor cannot be copied (it is closed, or the process is out of descriptors), the wire
    is served from it in place and the operator log says so.
    """
    moved: list[tuple[int, int]] = []
    wire = {0: 0, 1: 1}
    diversions: tuple[tuple[int, Callable[[], int]], ...] = (
        (0, lambda: os.open(os.devnull, os.O_RDONLY)),  # children read end-of-file
        (1, lambda: os.dup(2)),  # what anything prints goes to the operator log
    )
    for fd, diversion in diversions:
        try:
            private = _private_copy(fd)
        except OSError as error:
            log.warning("serving fd %d in place: it cannot be copied (%s)", fd, error)
            continue
        try:
            replacement = diversion()
            try:
                os.dup2(replacement, fd)
            finally:
                os.close(replacement)
        except OSError as error:
            log.warning("serving fd %d in place: it cannot be diverted (%s)", fd, error)
            os.close(private)
            continue
        wire[fd] = private
        moved.append((fd, private))
    try:
        yield StdioWire(wire[0], wire[1])
    finally:
        for fd, private in moved:
            with contextlib.suppress(OSError):
                os.dup2(private, fd)
            # ``private`` stays open: a worker thread may still be blocked reading it, and a closed
            # number could be reused under that read. The process is about to end anyway.


def _read_chunk(fd: int) -> bytes:
    """The next bytes of ``fd`` (blocking); ``b""`` at end-of-file, or on a read error, which is logged."""
    try:
        return os.read(fd, CHUNK)
    except OSError as error:
        log.warning("stdin could not be read (%s); treating it as closed", error)
        return b""


def iter_json_lines(fd: int) -> Iterator[JsonLine]:
    """:func:`read_json_lines` for a thread of its own: every line read from ``fd`` until end-of-file,
    blocking on each read."""
    lines = JsonLineReader()
    while chunk := _read_chunk(fd):
        yield from lines.feed(chunk)
    yield from lines.end()


async def read_json_lines(fd: int) -> AsyncIterator[JsonLine]:
    """Every line read from ``fd`` until end-of-file (or a read error, logged), as
    :class:`~herdr_link_protocol.JsonLineReader` reads them. Reads in a worker thread, abandoned on
    cancellation."""
    lines = JsonLineReader()
    while chunk := await anyio.to_thread.run_sync(_read_chunk, fd, abandon_on_cancel=True):
        for line in lines.feed(chunk):
            yield line
    for line in lines.end():
        yield line
