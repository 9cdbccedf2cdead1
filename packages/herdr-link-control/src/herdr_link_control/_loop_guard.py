"""The loop guard: more than N messages from one session to the same agent within T seconds are refused.

Two agents that acknowledge each other can keep messaging until someone notices the bill. The guard
counts, in memory only, the messages each session (an MCP connection; a bridge session) has had typed
to each agent, over a sliding window; a send past the limit is refused before anything is typed, and
the window moving on allows sends again. Nothing is persisted or shared between processes (spec §9):
it is a brake on one session, not a record. The limit is the user's (``LinkSettings``); how to raise it
is said to the user (the operator log, the README, the doctor), never to the model, which could raise
it and loop on.
"""

import time
from collections import deque
from collections.abc import Callable

__all__ = ["LoopGuard"]


class LoopGuard:
    """Counts sends per (session, target) over the last ``seconds``; at most ``messages`` pass."""

    def __init__(
        self, messages: int, seconds: float, *, clock: Callable[[], float] = time.monotonic, where: str = ""
    ) -> None:
        self.messages = messages
        self.seconds = seconds
        self.clock = clock
        self.where = where
        """Where the user raises the limit (the settings file), for the operator log."""
        self._sent: dict[tuple[str, str], deque[float]] = {}

    def __repr__(self) -> str:
        return f"LoopGuard(messages={self.messages}, seconds={self.seconds:g})"

    def admit(self, session: str, target: str) -> bool:
        """Count one send from ``session`` to ``target`` and return ``True``, or return ``False`` (nothing
        counted) when the last ``seconds`` already hold ``messages`` of them. Always ``True`` when off."""
        if self.messages <= 0:
            return True
        now = self.clock()
        sent = self._sent.setdefault((session, target), deque())
        while sent and now - sent[0] >= self.seconds:
            sent.popleft()
        if len(sent) >= self.messages:
            return False
        sent.append(now)
        self._forget(now)
        return True

    def _forget(self, now: float) -> None:
        """Drop the pairs whose window is empty, so a long session's memory stays bounded."""
        if len(self._sent) > 256:
            for key in [k for k, sent in self._sent.items() if not sent or now - sent[-1] >= self.seconds]:
                del self._sent[key]
