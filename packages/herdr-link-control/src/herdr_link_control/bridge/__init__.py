"""The JSON-lines bridge: how the JavaScript stubs (the OpenCode plugins, the Pi extension) reach Link.

``herdr-link-bridge`` (:func:`main`, also ``python -m herdr_link_control.bridge``) serves
:class:`BridgeServer` on stdin and stdout; the contract's messages are the ``Bridge*`` models
(``docs/bridge.md`` shows every line); :func:`bridge_client_js` and :func:`bridge_client_data` are
what every stub embeds to speak it. Not ``herdr-link/1``: how our adapters reach our bridge.
"""

from ._messages import (
    BRIDGE_CONTRACT,
    BRIDGE_OPS,
    GATEWAY_OP,
    INVALID_CALL,
    BridgeContext,
    BridgeError,
    BridgeHello,
    BridgeHelloReply,
    BridgeReply,
    BridgeRequest,
)
from ._server import BridgeServer, main
from ._stub import bridge_client_data, bridge_client_js

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
    "BridgeServer",
    "bridge_client_data",
    "bridge_client_js",
    "main",
]
