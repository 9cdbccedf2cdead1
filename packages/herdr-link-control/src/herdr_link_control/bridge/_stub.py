"""What every JavaScript stub embeds: the bridge client (``js/bridge-client.js``) and the values it reads."""

from importlib.resources import files
from typing import Any

from herdr_link_protocol import GATEWAY_ACTIVATE, PROTOCOL_ID, Cause, LinkError

from ..userfiles import BRIDGE_COMMAND, BRIDGE_CONFIG_FILE, BRIDGE_ENV_VAR
from ._messages import BRIDGE_CONTRACT, GATEWAY_OP

__all__ = ["bridge_client_data", "bridge_client_js"]


def bridge_client_js() -> str:
    """The JavaScript bridge client, spliced into a stub's ``/*@BRIDGE_CLIENT@*/``."""
    return (files("herdr_link_control.bridge") / "js" / "bridge-client.js").read_text(encoding="utf-8")


def bridge_client_data(client: str) -> dict[str, Any]:
    """The ``LINK`` members the bridge client reads, for a stub that names itself ``client`` in ``hello``.

    A stub merges these into its own data (and may add further ``errors``).
    """
    return {
        "client": client,
        "protocol": PROTOCOL_ID,
        "bridge": {
            "contract": BRIDGE_CONTRACT,
            "envVar": BRIDGE_ENV_VAR,
            "configFile": list(BRIDGE_CONFIG_FILE),
            "command": BRIDGE_COMMAND,
            "gatewayOp": GATEWAY_OP,
        },
        "gatewayActivate": GATEWAY_ACTIVATE,
        "errors": {
            "unavailable": str(LinkError(Cause.BRIDGE_UNAVAILABLE)),
            "incompatible": str(LinkError(Cause.BRIDGE_INCOMPATIBLE)),
        },
    }
