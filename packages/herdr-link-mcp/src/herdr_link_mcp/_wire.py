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

__all__ = ["LIST_CHANGED", "Seal", "SharedWriter"]

log: Final = logging.getLogger("herdr_link")

LIST_CHANGED: Final = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
"""The handshake era's change signal, as the SDK writes it. A connection activates once, so the wire
carries it at most once: the front's (an activation answered early) or the SDK's."""


class SharedWriter:
    """The wire's writing end, shared by the reader thread (early answers) and the SDK's writer: one
    whole line at a time, so lines never interleave; :data:`LIST_CHANGED` once. A broken wire is logged
    once; later lines are dropped."""

    def __init__(self, wire: StdioWire) -> None:
        self._wire = wire
        self._lock = threading.Lock()
        self.broken = False
        self._signalled = False

    def __repr__(self) -> str:
        return f"<SharedWriter fd={self._wire.write_fd} broken={self.broken}>"

    def write(self, data: bytes) -> None:
        """Write ``data`` whole (blocking). Never raises: the host being gone only leaves it untold."""
        with self._lock:
            if data.startswith(LIST_CHANGED):  # the SDK's signal for an activation the front signalled
                if self._signalled:
                    data = data[len(LIST_CHANGED) :]
                self._signalled = True
            if self.broken or not data:
                return
            try:
                self._wire.write(data)
            except OSError as error:
                log.warning("could not write to stdout (%s); serving on until stdin closes", error)
                self.broken = True


class Seal:
    """Closes a connection to every tool call once its front and its SDK read a line differently (the SDK
    answered a line otherwise than the front already had): from then on nothing the connection asks is
    done (``_server`` refuses each call), since the host may be acting on the front's reading and the
    server on the SDK's. Set from the SDK's writer, read by its handlers; never opened again."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def __repr__(self) -> str:
        return f"<Seal {'closed' if self.reason else 'open'}>"

    def close(self, reason: str) -> None:
        """Seal the connection (the first reason is kept, and logged)."""
        if self.reason is None:
            self.reason = reason
            log.warning("this connection refuses every tool call from now on: %s", reason)
