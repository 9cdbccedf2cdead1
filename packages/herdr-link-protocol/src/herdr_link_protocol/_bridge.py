"""The JSON-lines bridge contract between JavaScript stubs (OpenCode, Pi) and the Python bridge.

One JSON object per line each way. The stub opens with ``hello``; then requests carry an ``id``,
an ``op``, ``args`` and a ``context``; each reply carries the same ``id`` and either ``result`` (a
receipt) or ``error`` (``code`` and the agent-facing ``message``). ``docs/bridge.md`` shows every
line.
"""

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field

from ._constants import PROTOCOL_ID
from ._models import LinkModel

__all__ = [
    "BRIDGE_COMMAND",
    "BRIDGE_CONFIG_FILE",
    "BRIDGE_CONTRACT",
    "BRIDGE_ENV_VAR",
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

BRIDGE_OPS: Final = ("bootstrap", "start", "peers", "send", "close", "resolve_session_pane")

BRIDGE_ENV_VAR: Final = "HERDR_LINK_BRIDGE"
"""A stub looks here first: the bridge command as a JSON array of strings (or a single path)."""

BRIDGE_CONFIG_FILE: Final = ("herdr-link", "bridge.json")
"""Then here, under the user's config directory: ``{"command": ["/path/to/herdr-link-bridge"]}``.

Installers write it outside the plugin directory, so a stub's bytes and hash never change.
"""

BRIDGE_COMMAND: Final = "herdr-link-bridge"
"""Last, this command on ``PATH``."""

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
