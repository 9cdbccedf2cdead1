"""``herdr-link-mcp serve``: the process's life, arranged so a host's first answers never wait for the SDK.

1. stdin and stdout are claimed (:func:`herdr_link_control.claimed_stdio`).
2. A reader thread reads the wire's lines (:func:`herdr_link_control.iter_json_lines`) and gives each
   to :class:`~herdr_link_mcp._early.EarlyAnswers`: an answer it gives is written at once (an
   activation's result may be held a moment for the host's re-list: a thread of its own gives it up). Every line,
   answered or not, then goes into the inbox, in order.
3. Meanwhile the main thread imports the MCP SDK, builds the server and serves the inbox
   (``_transport``): the SDK sees every line, so its state is what it would have been, and its second
   answer to a line answered early is dropped.

Nothing here imports the SDK, pydantic or anyio: steps 1 and 2 run while the SDK loads.
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import logging
import os
import queue
import sys
import threading
import time

from herdr_link_control import (
    HERDR_CORE_NOTE,
    PaneWitness,
    claimed_stdio,
    in_herdr_core_terminal,
    in_herdr_pane,
    iter_json_lines,
    pane_problem,
)

from ._early import EarlyAnswers
from ._wire import Seal, SharedWriter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Final

    from herdr_link_protocol import JsonLine

    from ._wire import Inbox

__all__ = ["EarlyDesk", "serve"]

log: Final = logging.getLogger("herdr_link")

LOADING_SWITCH_INTERVAL: Final = 0.0002
"""Seconds between the interpreter's thread switches while the SDK loads (Python's default is 0.005):
the reader thread gets the GIL within this after a host's line arrives."""


class EarlyDesk:
    """The early answers of one connection and the writer they go to, for the reader thread, and the
    thread that gives up a held activation result when its re-list wait is over (:meth:`run_releases`,
    started before the first line is read: starting a thread while the SDK's import holds the GIL would
    delay the reader's next line)."""

    def __init__(self, early: EarlyAnswers, writer: SharedWriter) -> None:
        self._early = early
        self._writer = writer
        self._lock = threading.Lock()
        self._due = threading.Condition(self._lock)
        self._deadline: float | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"<EarlyDesk {self._early!r}>"

    def take(self, line: JsonLine) -> bytes | None:
        """Answer ``line`` if it is answered early (written now, or held: see :meth:`run_releases`); returns
        its answer line, or ``None`` when the SDK answers it."""
        with self._lock:
            answered = self._early.answer(line)
            if answered is None:
                return None
            self._writer.write(answered.write)
            if answered.hold > 0:
                self._deadline = time.monotonic() + answered.hold
                self._due.notify()
        return answered.answer

    def _release(self) -> None:
        self._deadline = None
        held = self._early.release()
        if held is not None:
            self._writer.write(held)

    def run_releases(self) -> None:
        """The releasing thread: gives up each held result at its deadline, until :meth:`close`."""
        with self._lock:
            while not self._closed:
                if self._deadline is None:
                    self._due.wait()
                elif (remaining := self._deadline - time.monotonic()) > 0:
                    self._due.wait(remaining)
                else:
                    self._release()

    def close(self) -> None:
        """Write what is still held and end :meth:`run_releases`."""
        with self._lock:
            self._release()
            self._closed = True
            self._due.notify()


def read_wire(fd: int, desk: EarlyDesk, inbox: Inbox) -> None:
    """The reader thread: every line read from ``fd`` into ``inbox`` (with the early answer given to it,
    or ``None``), then ``None`` for the end of input. Never raises."""

    def take(line: JsonLine) -> None:
        inbox.put((line, desk.take(line)))

    try:
        for line in iter_json_lines(fd):
            take(line)
    except Exception:  # a fault of ours must still end the input, so the server returns
        log.exception("the stdin reader failed; treating stdin as closed")
    finally:
        inbox.put(None)


def serve(namespace: str) -> int:
    """Serve MCP on stdin and stdout until stdin closes; returns the exit status."""
    with claimed_stdio() as wire:
        writer = SharedWriter(wire)
        inbox: Inbox = queue.SimpleQueue()
        in_herdr = in_herdr_pane(os.environ)
        witness = PaneWitness(os.environ) if in_herdr else None
        early = EarlyAnswers(
            in_herdr=in_herdr,
            namespace=namespace,
            pane_problem=(lambda client: pane_problem(witness.current(), client)) if witness is not None else None,
        )
        desk = EarlyDesk(early, writer)
        threading.Thread(target=desk.run_releases, name="herdr-link-relist-wait", daemon=True).start()
        if in_herdr_core_terminal(os.environ):
            log.warning("%s; the server lists no tools", HERDR_CORE_NOTE)
        reader = threading.Thread(
            target=read_wire, args=(wire.read_fd, desk, inbox), name="herdr-link-stdin", daemon=True
        )
        reader.start()
        # The SDK loads here, while the reader answers the dormant surface. The import holds the GIL for
        # long stretches: a short switch interval lets the reader answer a line as soon as it arrives.
        interval = sys.getswitchinterval()
        sys.setswitchinterval(LOADING_SWITCH_INTERVAL)
        try:
            from ._sdk import load_stdio_sdk

            log.debug("MCP SDK loaded: %s", load_stdio_sdk())
            import anyio

            from herdr_link_control import Link

            from ._server import create_server, initialization_options
            from ._transport import inbox_transport

            seal = Seal()  # shared by the transport, which closes it, and the server, which obeys it
            server = create_server(Link(pane_evidence=witness), namespace=namespace, seal=seal)
        finally:
            sys.setswitchinterval(interval)

        async def run() -> None:
            async with inbox_transport(inbox, writer, seal) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, initialization_options(server))

        anyio.run(run)
        desk.close()  # a result still held for a re-list when the input ended: every request is answered
    return 0
