"""The JSON-lines bridge: how the JavaScript stubs (the OpenCode plugins, the Pi extension) reach Link.

``herdr-link-bridge`` (:func:`main`, also ``python -m herdr_link_control.bridge``) serves
:class:`BridgeServer` on stdin and stdout; the contract's messages are the ``Bridge*`` models
(``docs/bridge.md`` shows every line); :func:`bridge_client_js` and :func:`bridge_client_data` are
what every stub embeds to speak it. Not ``herdr-link/1``: how our adapters reach our bridge.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._messages import (
        BRIDGE_CONTRACT as BRIDGE_CONTRACT,
        BRIDGE_OPS as BRIDGE_OPS,
        GATEWAY_OP as GATEWAY_OP,
        INVALID_CALL as INVALID_CALL,
        BridgeContext as BridgeContext,
        BridgeError as BridgeError,
        BridgeHello as BridgeHello,
        BridgeHelloReply as BridgeHelloReply,
        BridgeReply as BridgeReply,
        BridgeRequest as BridgeRequest,
    )
    from ._server import BridgeServer as BridgeServer, main as main
    from ._stub import bridge_client_data as bridge_client_data, bridge_client_js as bridge_client_js

    __all__: list[str]

_EXPORTS = {
    "_messages": [
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
    ],
    "_server": [
        "BridgeServer",
        "main",
    ],
    "_stub": [
        "bridge_client_data",
        "bridge_client_js",
    ],
}
"""Each submodule and the names it provides: generated from the imports above."""

if not TYPE_CHECKING:  # type checkers read the imports above, so a misspelt name stays an error
    _MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
    __all__ = sorted(_MODULE_OF)

    def __getattr__(name):
        """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
        if name not in _MODULE_OF:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        submodule = __import__(f"{__name__}.{_MODULE_OF[name]}", fromlist=[name])  # no importlib to load
        value = getattr(submodule, name)
        globals()[name] = value
        return value

    def __dir__():
        return sorted({*globals(), *__all__})
