"""Herdr Link as a stdio MCP server (``herdr-link-mcp``) for Claude Code, Codex, AGY, Gemini CLI and others.

The server starts dormant: ``tools/list`` holds only the ``herdr_link`` gateway. Calling it with
``{}`` activates the connection; the Tier 1 tools then appear, and hosts that never re-list tools
reach them through the gateway's action dispatch.
"""

from ._hosts import presentation_form
from ._server import DEFAULT_NAMESPACE, RELIST_WAIT, SERVER_NAME, ConnectionState, create_server, initialization_options

__all__ = [
    "DEFAULT_NAMESPACE",
    "RELIST_WAIT",
    "SERVER_NAME",
    "ConnectionState",
    "create_server",
    "initialization_options",
    "presentation_form",
]
