"""Fixed vocabulary of ``herdr-link/1``: protocol id, tool names, capabilities, agent states."""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import enum
from collections.abc import Mapping
from types import MappingProxyType

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "ACTION_TOOLS",
    "ACTIVE_RECEIPT_JSON",
    "CAPABILITIES",
    "CLOSE_TOOL",
    "GATEWAY_TOOL",
    "PEERS_TOOL",
    "PROTOCOL_ID",
    "SEND_TOOL",
    "START_TOOL",
    "TIER1_TOOLS",
    "TOOL_ACTIONS",
    "AgentState",
    "normalize_agent_state",
]

PROTOCOL_ID: Final = "herdr-link/1"
"""Protocol identifier carried in every envelope's ``protocol`` field (spec §1)."""

GATEWAY_TOOL: Final = "herdr_link"
"""The Tier 0 gateway: the one tool a model sees until the connection is activated (spec §4.1)."""
START_TOOL: Final = "herdr_link_start"
"""Start a named agent in a new tab or beside a named agent (spec §4.2)."""
PEERS_TOOL: Final = "herdr_link_peers"
"""List the caller and the named agents of its workspace (spec §4.3)."""
SEND_TOOL: Final = "herdr_link_send"
"""Deliver one message to a peer's prompt (spec §4.4)."""
CLOSE_TOOL: Final = "herdr_link_close"
"""Close a peer's pane (spec §4.5)."""

ACTION_TOOLS: Final[Mapping[str, str]] = MappingProxyType(
    {"start": START_TOOL, "peers": PEERS_TOOL, "send": SEND_TOOL, "close": CLOSE_TOOL}
)

"""The one action ↔ tool table: each gateway action (and bridge op) and the Tier 1 tool it runs,
in canonical order."""

TOOL_ACTIONS: Final[Mapping[str, str]] = MappingProxyType({tool: action for action, tool in ACTION_TOOLS.items()})
""":data:`ACTION_TOOLS` read the other way: a Tier 1 tool's action."""

TIER1_TOOLS: Final = tuple(ACTION_TOOLS.values())
"""The four Tier 1 tools, in their canonical order."""

CAPABILITIES: Final = tuple(ACTION_TOOLS)
"""Capabilities reported by the activation receipt; also the gateway's dispatch actions."""
ACTIVE_RECEIPT_JSON: Final = '{"status":"active","capabilities":[' + ",".join(f'"{c}"' for c in CAPABILITIES) + "]}"
"""The activation receipt as it is sent (``ActiveReceipt().to_json()``, which a test holds equal), for
what answers it before pydantic loads."""


class AgentState(enum.StrEnum):
    """Herdr's ``AgentStatus`` as Herdr Link reports it (spec §4.3)."""

    IDLE = "idle"
    WORKING = "working"
    BLOCKED = "blocked"
    DONE = "done"
    UNKNOWN = "unknown"


def normalize_agent_state(value: object) -> AgentState:
    """Map any reported status onto :class:`AgentState`; anything unrecognised is ``unknown``.

    Surrounding whitespace and case are ignored, as the TypeScript implementation does.
    """
    if isinstance(value, str):
        try:
            return AgentState(value.strip().lower())
        except ValueError:
            pass
    return AgentState.UNKNOWN
