"""The close-ordering rule (spec §4.5), written once for the MCP server and the bridge: a close
starts only after every call of the same session that arrived before it has finished, so a final
send completes before the close. Calls of other sessions are not held back; nothing else waits."""

from dataclasses import dataclass, field
from typing import Final

import anyio

__all__ = ["CallOrder", "Turn"]

ONE_SESSION: Final = ""
"""The session of an adapter with one connection per process (the MCP server)."""


@dataclass(eq=False)
class Turn:
    """One call's place in its session: what arrived before it, and the event that says it is done."""

    earlier: tuple[anyio.Event, ...]
    done: anyio.Event
    _order: "CallOrder"
    _session: str

    async def after_earlier(self) -> None:
        """Wait until every call of the session that arrived before this one has finished (a close does)."""
        for event in self.earlier:
            await event.wait()

    def end(self) -> None:
        """This call has finished, whatever its outcome; a later close may go on."""
        self.done.set()
        self._order._end(self)


@dataclass
class CallOrder:
    """The calls in flight, per session, in arrival order."""

    running: dict[str, list[anyio.Event]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"CallOrder(running={sum(map(len, self.running.values()))})"

    def begin(self, session: str = ONE_SESSION) -> Turn:
        """Take a place now, when the call arrives (not when it starts running)."""
        events = self.running.setdefault(session, [])
        turn = Turn(tuple(events), anyio.Event(), self, session)
        events.append(turn.done)
        return turn

    def _end(self, turn: Turn) -> None:
        events = self.running.get(turn._session, [])
        if turn.done in events:
            events.remove(turn.done)
        if not events:
            self.running.pop(turn._session, None)
