"""The wire the MCP server's two writers share (the early reader thread and the SDK's writer), and
the inbox between the reader thread and the SDK's transport (``_front`` starts both, ``_transport``
serves the inbox). Standard library only: it is imported before the SDK loads."""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import logging
import threading

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import queue
    from typing import Final, TypeAlias

    from herdr_link_control import StdioWire
    from herdr_link_protocol import JsonLine

    Inbox: TypeAlias = "queue.SimpleQueue[tuple[JsonLine, bytes | None] | None]"
    """Each line read, with the early answer already written for it (or ``None``); ``None`` ends the input."""

__all__ = ["SharedWriter"]

log: Final = logging.getLogger("herdr_link")


class SharedWriter:
    """The wire's writing end, shared by the reader thread (early answers) and the SDK's writer: one
    whole line at a time, so lines never interleave. A broken wire is logged once; later lines are dropped."""

    def __init__(self, wire: StdioWire) -> None:
        self._wire = wire
        self._lock = threading.Lock()
        self.broken = False

    def __repr__(self) -> str:
        return f"<SharedWriter fd={self._wire.write_fd} broken={self.broken}>"

    def write(self, data: bytes) -> None:
        """Write ``data`` whole (blocking). Never raises: the host being gone only leaves it untold."""
        with self._lock:
            if self.broken:
                return
            try:
                self._wire.write(data)
            except OSError as error:
                log.warning("could not write to stdout (%s); serving on until stdin closes", error)
                self.broken = True
