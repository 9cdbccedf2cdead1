"""Who a tool call comes from, and where: one immutable value an adapter builds per call and passes
into ``Link.run`` with it. The shared ``Link`` keeps none of it, so concurrent calls of several
hosts, sessions or panes never see each other's."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["DIRECT", "CallContext"]


@dataclass(frozen=True, slots=True)
class CallContext:
    """The facts of one call that are not its arguments."""

    adapter: str = ""
    """What serves the call, for the trace: ``mcp``, ``bridge`` (empty: a direct library call)."""
    host: str = ""
    """The host it serves (its MCP ``clientInfo.name``, or the bridge client's name): the trace names
    it, and whether this process may act as its pane without a terminal that shows it depends on it
    (PROTOCOL.md §6.1)."""
    session: str = ""
    """The adapter's session, for the loop guard and the trace (an MCP server has one per process)."""
    caller_pane: str | None = None
    """The caller's pane when it is not this process's own (``Link.session_pane``)."""
    directory: str | None = None
    """The session's directory, where a start places its agent by default (``Starter.start``)."""
    meta: Mapping[str, Any] | None = None
    """The call's ``_meta`` as its client sent it: a host whose shared process runs several panes' sessions
    names the call's thread there, which may show the caller's pane (``Link.settle``)."""


DIRECT: Final = CallContext()
"""A call made directly through the library, by no adapter for no host."""
