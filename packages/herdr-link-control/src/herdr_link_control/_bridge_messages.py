"""The JSON-lines bridge contract between JavaScript stubs (OpenCode, Pi) and the Python bridge.

This is how our adapters reach our bridge, not ``herdr-link/1``: it lives here, beside the bridge
that serves it, and ``herdr_link_protocol`` knows nothing of it.

One JSON object per line each way. The stub opens with ``hello``; then requests carry an ``id``, an
``op``, ``args`` and a ``context``; each reply carries the same ``id`` and either ``result`` (a
receipt) or ``error`` (``code`` and the agent-facing ``message``). ``docs/bridge.md`` shows every
line.
"""

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field

from herdr_link_protocol import ACTION_TOOLS, PROTOCOL_ID, LinkModel

__all__ = [
    "BRIDGE_CONTRACT",
    "BRIDGE_OPS",
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

BRIDGE_OPS: Final = ("bootstrap", *ACTION_TOOLS, "resolve_session_pane")
"""Every op: the self bootstrap, one per gateway action (``herdr_link_protocol.ACTION_TOOLS``) and
the OpenCode 2 session rule."""

INVALID_CALL: Final = "INVALID_CALL"
"""Reply code for a malformed line, an unknown op or non-object args (a stub bug, not a Link error)."""


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


class BridgeRequest(LinkModel):
    """One operation."""

    model_config = ConfigDict(extra="ignore")

    id: str | int
    op: str
    args: dict[str, Any] = Field(default_factory=dict)
    context: BridgeContext = Field(default_factory=BridgeContext)


class BridgeReply(LinkModel):
    """The answer to one request, with the request's ``id``."""

    id: str | int | None
    result: dict[str, Any] | None = None
    error: BridgeError | None = None
