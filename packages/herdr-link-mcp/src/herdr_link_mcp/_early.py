"""The dormant surface, answered before the MCP SDK has loaded.

A host decides what its model sees from its first answers: the handshake's ``initialize`` (or
``server/discover`` in the 2026-07-28 era) and ``tools/list``. Dormant, those depend only on the
protocol package's tool table, the server's name and version, and whether the process runs in a
Herdr pane, so :class:`EarlyAnswers` gives them while the SDK is still importing, in the bytes the
SDK's own path writes (``tests/test_early.py`` compares both for every era and protocol version the
server accepts).

Rules, so that an early answer is always the one the SDK would have given:

* the first request decides the era, as the SDK's dual-era loop decides it: ``initialize`` opens the
  handshake era, a request carrying the 2026-07-28 envelope the modern one;
* only plainly well-formed requests are answered (an id that is an integer or printable ASCII, the
  params each method takes and nothing else): anything unusual is left to the SDK, which answers it;
* only while every earlier request was answered here: once one is left to the SDK (a tool call, say),
  every later request is too, so state only the SDK changes (activation) is never read early.

Sans-I/O: read lines go in, answer lines come out. Every line, answered or not, still goes to the
SDK's server in order (``_transport`` drops its second answer to an early one).
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import json

from herdr_link_protocol import dormant_tools_list

from ._hosts import SERVER_NAME
from ._version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any, Final

    from herdr_link_protocol import JsonLine

__all__ = ["HANDSHAKE_VERSIONS", "MODERN_VERSIONS", "EarlyAnswers"]

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the SDK negotiates with ``initialize``; any other request gets the last."""
MODERN_VERSIONS: Final = ("2026-07-28",)
"""The per-request-envelope versions the SDK serves."""

_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
_CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
_SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
_LARGEST_ID: Final = 2**53
"""Integer ids up to this size are written the same by every JSON library."""

_CAPABILITIES: Final = {"tools": {"listChanged": True}}
_SERVER_INFO: Final = {"name": SERVER_NAME, "version": __version__}


def _dumps(value: object, *, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)


def _plain_id(request_id: object) -> bool:
    if isinstance(request_id, bool):
        return False
    if isinstance(request_id, int):
        return abs(request_id) < _LARGEST_ID
    return isinstance(request_id, str) and all(" " <= c <= "~" for c in request_id)


def _objects(value: object) -> bool:
    """Whether ``value`` is an object whose members are all objects (client capabilities)."""
    return isinstance(value, dict) and all(isinstance(member, dict) for member in value.values())


def _implementation(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("name"), str) and isinstance(value.get("version"), str)


def _params(message: dict[str, Any], allowed: frozenset[str]) -> dict[str, Any] | None:
    """The request's params when present only with ``allowed`` keys (absent reads as ``{}``), else ``None``."""
    params = message.get("params", {})
    if not isinstance(params, dict) or not set(params) <= allowed:
        return None
    if "_meta" in params and not isinstance(params["_meta"], dict):
        return None
    if "cursor" in params and not isinstance(params["cursor"], str):
        return None
    return params


def _modern_envelope(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and _VERSION_KEY in meta


def _valid_envelope(params: dict[str, Any]) -> bool:
    meta = params.get("_meta", {})
    return (
        meta.get(_VERSION_KEY) in MODERN_VERSIONS
        and _objects(meta.get(_CAPABILITIES_KEY))
        and (_CLIENT_INFO_KEY not in meta or _implementation(meta[_CLIENT_INFO_KEY]))
    )


_INITIALIZE_KEYS: Final = frozenset({"protocolVersion", "capabilities", "clientInfo", "_meta"})
_LIST_KEYS: Final = frozenset({"cursor", "_meta"})
_DISCOVER_KEYS: Final = frozenset({"_meta"})


class EarlyAnswers:
    """One connection's early answers (see the module docstring).

    Args:
        in_herdr: whether the process runs in a Herdr pane (outside, ``tools/list`` is empty).
    """

    def __init__(self, *, in_herdr: bool) -> None:
        self._tools = dormant_tools_list() if in_herdr else []
        self._era: str | None = None
        self._handed_on = False

    def __repr__(self) -> str:
        return f"<EarlyAnswers era={self._era} handed_on={self._handed_on}>"

    @property
    def answering(self) -> bool:
        """Whether a later request may still be answered here."""
        return not self._handed_on

    def answer(self, line: JsonLine) -> bytes | None:
        """The whole answer line for ``line`` when it is given here, else ``None`` (the SDK answers it)."""
        message = line.message
        if message is None or "method" not in message or "id" not in message:
            if message is None or line.fault is not None:
                self._handed_on = True  # an unreadable line: the transport answers it, in order
            return None  # a notification or a client's response: it changes nothing answered here
        answer = None if self._handed_on or line.fault is not None or line.too_deep else self._decide(message)
        if answer is None:
            self._handed_on = True
            return None
        result, sort_keys = answer
        text = _dumps(result, sort_keys=sort_keys)
        return f'{{"jsonrpc":"2.0","id":{_dumps(message["id"])},"result":{text}}}\n'.encode()

    def _decide(self, message: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
        method, request_id = message["method"], message["id"]
        if message.get("jsonrpc") != "2.0" or not _plain_id(request_id) or not isinstance(method, str):
            return None
        opening = self._era is None
        if opening:
            params = message.get("params")
            modern = method != "initialize" and isinstance(params, dict) and _modern_envelope(params)
            self._era = "modern" if modern else "handshake"
        if self._era == "handshake":
            return self._handshake(method, message, opening)
        return self._modern(method, message)

    def _handshake(self, method: str, message: dict[str, Any], opening: bool) -> tuple[dict[str, Any], bool] | None:
        if method == "initialize" and opening:
            params = _params(message, _INITIALIZE_KEYS)
            if (
                params is None
                or not isinstance(params.get("protocolVersion"), str)
                or not _objects(params.get("capabilities"))
                or not _implementation(params.get("clientInfo"))
            ):
                return None
            requested = params["protocolVersion"]
            version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
            return {"capabilities": _CAPABILITIES, "protocolVersion": version, "serverInfo": _SERVER_INFO}, True
        if method == "tools/list" and not opening:  # after an initialize answered here
            params = _params(message, _LIST_KEYS)
            if params is None or _modern_envelope(params):
                return None
            return {"tools": self._tools}, True
        return None

    def _modern(self, method: str, message: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
        keys = {"server/discover": _DISCOVER_KEYS, "tools/list": _LIST_KEYS}.get(method)
        params = None if keys is None else _params(message, keys)
        if params is None or not _valid_envelope(params):
            return None
        if method == "server/discover":
            result: dict[str, Any] = {
                "cacheScope": "private",
                "capabilities": _CAPABILITIES,
                "resultType": "complete",
                "supportedVersions": list(MODERN_VERSIONS),
                "ttlMs": 0,
            }
        else:
            tools = [{key: tool[key] for key in sorted(tool)} for tool in self._tools]
            result = {"cacheScope": "private", "resultType": "complete", "tools": tools, "ttlMs": 0}
        return result | {"_meta": {_SERVER_INFO_KEY: _SERVER_INFO}}, False
