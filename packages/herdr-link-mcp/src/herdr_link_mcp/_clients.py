"""The server's names, and what it makes of its client from the host table
(``herdr_link_control.hosts``): which presentation a client gets from the ``clientInfo.name`` it
sends, whether it re-lists tools, and how long an activation result waits for its re-list. Each is
read from the table when asked, never copied."""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

from herdr_link_control.hosts import SERVER_NAMESPACE, host_for_client
from herdr_link_protocol import PresentationForm

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "DEFAULT_NAMESPACE",
    "RELIST_WAIT",
    "SERVER_NAME",
    "UNKNOWN_RELIST_WAIT",
    "presentation_form",
    "relist_wait",
    "relists_tools",
]

SERVER_NAME: Final = "herdr-link"
"""The ``serverInfo.name`` the server reports in ``initialize``."""
DEFAULT_NAMESPACE: Final = SERVER_NAMESPACE
"""The name hosts register the server under (``mcp__herdr_link__…``); wiring always uses it."""
RELIST_WAIT: Final = 0.25
"""Longest time the activation result waits for a host known to re-list tools, in seconds.

Claude Code re-lists about 3 ms after the change signal, and a result returned before that leaves
the new tools out of its next model request; the bound covers a busy machine."""
UNKNOWN_RELIST_WAIT: Final = 0.05
"""The same for a client the host table does not know: it may never re-list (then every activation
would lose the whole wait) and it reaches the Tier 1 tools through the gateway's dispatch either way,
so it waits no longer than a host that re-lists at once needs."""


def presentation_form(client_name: str | None) -> PresentationForm:
    """The form for a client; :attr:`PresentationForm.MCP_PLAIN` when the table has no such client."""
    host = host_for_client(client_name)
    return host.presentation if host is not None and host.presentation is not None else PresentationForm.MCP_PLAIN


def relists_tools(client_name: str | None) -> bool:
    """Whether a client is expected to re-list tools after ``list_changed``; unknown clients are.

    A host that never does (Codex 0.171, whose ``initialize`` is the same either way, so the client name
    is all there is to go on) gets the dispatch-first presentation and no re-list wait.
    """
    host = host_for_client(client_name)
    return host is None or host.relists


def relist_wait(client_name: str | None, known: float = RELIST_WAIT) -> float:
    """How long the activation result waits for ``client_name`` to re-list: ``known`` for a host the table
    says re-lists, none for one it says never does, at most :data:`UNKNOWN_RELIST_WAIT` for any other."""
    host = host_for_client(client_name)
    if host is None:
        return min(known, UNKNOWN_RELIST_WAIT)
    return known if host.relists else 0.0
