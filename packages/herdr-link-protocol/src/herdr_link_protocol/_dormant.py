"""The dormant surface as plain data: the gateway's ``tools/list`` entry, without pydantic.

A server answers its first ``tools/list`` from this before anything heavy has loaded (``herdr-link-mcp``
does, while the MCP SDK imports). :data:`~herdr_link_protocol.TOOL_SPECS` takes the gateway's
description from here, and its schema generated from ``GatewayInput`` is held equal to
:data:`GATEWAY_INPUT_SCHEMA` by a test.
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import copy

from ._constants import CAPABILITIES, GATEWAY_TOOL

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["GATEWAY_DESCRIPTION", "GATEWAY_INPUT_SCHEMA", "dormant_tools_list"]

GATEWAY_DESCRIPTION: Final = (
    "Herdr Link: message, start and close other coding agents in this Herdr workspace. Call with {} "
    "only when the user asks to use Herdr or a Herdr Link message arrives; the result explains the rest."
)
"""The gateway tool's description: the whole model-facing cost of a dormant session."""

GATEWAY_INPUT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "action": {"enum": list(CAPABILITIES), "type": "string"},
        "arguments": {"type": "object"},
    },
}
"""The gateway's input schema: ``{}`` activates; ``action`` (+ ``arguments``) dispatches."""


def dormant_tools_list() -> list[dict[str, Any]]:
    """The dormant ``tools/list`` entries (the gateway alone), as ``tools_list(active=False)`` gives them."""
    return [
        {"name": GATEWAY_TOOL, "description": GATEWAY_DESCRIPTION, "inputSchema": copy.deepcopy(GATEWAY_INPUT_SCHEMA)}
    ]
