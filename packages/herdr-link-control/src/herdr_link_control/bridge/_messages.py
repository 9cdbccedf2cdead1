"""The JSON-lines bridge contract between JavaScript stubs (OpenCode, Pi) and the Python bridge.

This is how our adapters reach our bridge, not ``herdr-link/1``: it lives here, beside the bridge
that serves it, and ``herdr_link_protocol`` knows nothing of it.

One JSON object per line each way. The stub opens with ``hello``; then requests carry an ``id``, an
``op``, ``args`` and a ``context``; each reply carries the same ``id`` and either ``result`` (a
receipt) or ``error`` (``code`` and the agent-facing ``message``), and a ``gateway`` reply also says
whether the call activates the session. ``docs/bridge.md`` shows every line.
"""

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field

from herdr_link_protocol import ACTION_TOOLS, PROTOCOL_ID, LinkModel

__all__ = [
    "BRIDGE_CONTRACT",
    "BRIDGE_OPS",
    "GATEWAY_OP",
    "INVALID_CALL",
    "BridgeContext",
    "BridgeError",
    "BridgeHello",
    "BridgeHelloReply",
    "BridgeReply",
    "BridgeRequest",
]

BRIDGE_CONTRACT: Final = 1
"""Version of this contract; a stub and a bridge work together only when theirs are equal."""

GATEWAY_OP: Final = "gateway"
"""The op that carries a ``herdr_link`` gateway call exactly as the model gave it (an addition to
contract 1: a stub that never sends it keeps working). The bridge reads it with
``herdr_link_protocol.parse_call``, as the MCP server does, so no stub has gateway rules of its own."""

BRIDGE_OPS: Final = ("bootstrap", *ACTION_TOOLS, GATEWAY_OP, "resolve_session_pane")
"""Every op: the self bootstrap, one per gateway action (``herdr_link_protocol.ACTION_TOOLS``: the
Tier 1 tools' raw arguments), the raw gateway call, and the OpenCode 2 session rule."""

INVALID_CALL: Final = "INVALID_CALL"
"""Reply code for a protocol-level fault: a malformed line, an unknown op (a stub bug), or a tool call
that is not one of ours (non-object arguments, an unknown gateway action: ``InvalidToolCall``)."""


class BridgeHello(LinkModel):
    """The stub's first line."""

    model_config = ConfigDict(extra="ignore")

    type: Literal["hello"] = "hello"
    contract: int
    protocol: str = PROTOCOL_ID
    client: str = ""
    """The stub's generator and version, for the operator log (``herdr-link-opencode-bridge/0.1.0``)."""


class BridgeError(LinkModel):
    """Why a request failed: a ``herdr-link/1`` error code (or :data:`INVALID_CALL`) and the agent text."""

    code: str
    message: str


class BridgeHelloReply(LinkModel):
    """The bridge's answer to ``hello``: its version and ops, or why the pair cannot work together."""

    type: Literal["hello"] = "hello"
    contract: int = BRIDGE_CONTRACT
    protocol: str = PROTOCOL_ID
    bridge: str
    ops: tuple[str, ...] = ()
    error: BridgeError | None = None


class BridgeContext(LinkModel):
    """Where a request comes from."""

    model_config = ConfigDict(extra="ignore")

    session: str = ""
    """The runtime's session id: a ``close`` waits for every earlier request of the same session."""
    directory: str | None = None
    """The session's directory, the start context directory (and the directory rule of OpenCode 2)."""
    caller_by_directory: bool = False
    """The caller is the one agent pane whose cwd is ``directory`` (OpenCode 2's session rule), not the
    bridge's own ``HERDR_PANE_ID``: one OpenCode 2 server serves the sessions of many panes."""


class BridgeRequest(LinkModel):
    """One operation."""

    model_config = ConfigDict(extra="ignore")

    id: str | int
    op: str
    args: Any = Field(default_factory=dict)
    """The tool's raw arguments, as the model gave them: checked by the one inbound parse, not here."""
    context: BridgeContext = Field(default_factory=BridgeContext)


class BridgeReply(LinkModel):
    """The answer to one request, with the request's ``id``."""

    id: str | int | None
    activates: bool | None = None
    """``gateway`` replies only: whether the call activates the session (it was one of ours, well
    formed or not, in Herdr), on success and on failure alike."""
    result: dict[str, Any] | None = None
    error: BridgeError | None = None
