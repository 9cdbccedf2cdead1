"""Fixed vocabulary of ``herdr-link/1``: protocol id, tool names, capabilities, agent states."""

import enum
from typing import Final

__all__ = [
    "CAPABILITIES",
    "CLOSE_TOOL",
    "GATEWAY_TOOL",
    "PEERS_TOOL",
    "PROTOCOL_ID",
    "SEND_TOOL",
    "START_TOOL",
    "TIER1_TOOLS",
    "AgentState",
    "normalize_agent_state",
]

PROTOCOL_ID: Final = "herdr-link/1"
"""Protocol identifier carried in every envelope's ``protocol`` field (spec §1)."""

GATEWAY_TOOL: Final = "herdr_link"
START_TOOL: Final = "herdr_link_start"
PEERS_TOOL: Final = "herdr_link_peers"
SEND_TOOL: Final = "herdr_link_send"
CLOSE_TOOL: Final = "herdr_link_close"

TIER1_TOOLS: Final = (START_TOOL, PEERS_TOOL, SEND_TOOL, CLOSE_TOOL)
"""The four Tier 1 tools, in their canonical order."""

CAPABILITIES: Final = ("start", "peers", "send", "close")
"""Capabilities reported by the activation receipt; also the gateway's dispatch actions."""


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
