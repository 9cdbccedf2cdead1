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
  params each method takes and nothing else, each in the plainest form the SDK's models read the same:
  an ``initialize`` whose ``clientInfo`` holds only strings, whose capabilities are plain objects and
  whose ``_meta`` is empty): anything unusual is left to the SDK, which answers it
  (``tests/test_front_differential.py`` holds this reading against the SDK's over generated handshakes);
* the SDK's server still reads every line: if it ever answers one otherwise than the front did, the
  session is sealed (:class:`~._wire.Seal`) and refuses every later tool call, so the two readings can
  never leave a session that acts on the front's;
* only while every earlier request was answered here: once one is left to the SDK (a tool call other
  than the activation, say), every later request is too, so state only the SDK changes is never read
  early.

In the handshake era the activation itself (``tools/call herdr_link`` with ``{}`` or
``{"action":"activate"}``) is answered here too, in a Herdr pane whose process shows it may act for
that pane (``pane_problem``, as ``Link`` decides it): ``notifications/tools/list_changed`` first, then
the result, held for at most the client's re-list wait (:func:`~._clients.relist_wait`) until its
``tools/list``, which gets the active list; the SDK, which still reads every line, activates its own
session from the same call, and its second result and second signal are dropped.

Sans-I/O: read lines go in, answer lines come out. Every line, answered or not, still goes to the
SDK's server in order (``_transport`` drops its second answer to an early one).
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import json

from herdr_link_protocol import GATEWAY_TOOL, dormant_tools_list

from ._activation import activation_texts
from ._active_tools import ACTIVE_TOOLS_RESULT
from ._clients import DEFAULT_NAMESPACE, RELIST_WAIT, SERVER_NAME, relist_wait
from ._version import __version__
from ._wire import LIST_CHANGED

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Final

    from herdr_link_protocol import JsonLine

__all__ = ["HANDSHAKE_VERSIONS", "MODERN_VERSIONS", "Answered", "EarlyAnswers"]

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


_CLIENT_INFO_KEYS: Final = frozenset({"name", "version", "title", "description", "websiteUrl"})
_NESTED_CAPABILITIES: Final = frozenset({"sampling", "elicitation", "tasks"})
_MAP_CAPABILITIES: Final = frozenset({"experimental", "extensions"})


def _plain_client_info(value: object) -> bool:
    """A ``clientInfo`` the SDK reads as this reading does: the name, the version and a few text fields,
    each a string (``icons`` or anything else typed is left to the SDK)."""
    if not isinstance(value, dict) or not _implementation(value):
        return False
    return set(value) <= _CLIENT_INFO_KEYS and all(isinstance(member, str) for member in value.values())


def _all_objects(value: object, depth: int = 0) -> bool:
    """An object whose members are objects, and theirs, a few levels down (empty capability objects)."""
    return depth < 4 and isinstance(value, dict) and all(_all_objects(member, depth + 1) for member in value.values())


def _plain_capabilities(value: object) -> bool:
    """``capabilities`` the SDK reads as this reading does: each capability the SDK types is given in the
    plainest form its model takes (``roots`` with at most a boolean ``listChanged``; the nested ones
    objects of objects; the open maps objects of objects), others (which it ignores) anything."""
    if not isinstance(value, dict):
        return False
    for key, member in value.items():
        if key == "roots":
            if not isinstance(member, dict) or not set(member) <= {"listChanged"}:
                return False
            if "listChanged" in member and not isinstance(member["listChanged"], bool):
                return False
        elif key in _NESTED_CAPABILITIES:
            if not _all_objects(member):
                return False
        elif key in _MAP_CAPABILITIES and not _objects(member):
            return False
    return True


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
_CALL_KEYS: Final = frozenset({"name", "arguments"})
_ACTIVATIONS: Final[tuple[dict[str, str], ...]] = ({}, {"action": "activate"})
"""The gateway arguments that only activate (what ``parse_call`` reads as :class:`~herdr_link_protocol.Activate`)."""
_LIST_KEYS: Final = frozenset({"cursor", "_meta"})
_DISCOVER_KEYS: Final = frozenset({"_meta"})


class Answered:
    """A request answered early: ``write`` goes out now; ``answer`` is the request's own answer line (in
    ``write``, or, when ``hold`` is above zero, held for at most that many seconds: see
    :meth:`EarlyAnswers.release`)."""

    __slots__ = ("answer", "hold", "write")

    def __init__(self, write: bytes, answer: bytes, hold: float = 0.0) -> None:
        self.write, self.answer, self.hold = write, answer, hold

    def __repr__(self) -> str:
        return f"<Answered {len(self.write)} bytes now, hold={self.hold}>"


class EarlyAnswers:
    """One connection's early answers (see the module docstring). Not thread-safe: one caller at a time.

    Args:
        in_herdr: whether the process runs in a Herdr pane (outside, ``tools/list`` is empty).
        namespace: the name the host registered the server under (the activation's presentation).
        pane_problem: why this process may not act as its pane for a client of that name, or ``None``
            when it may (:func:`herdr_link_control.pane_problem` over this process's evidence); without
            it the activation is left to the SDK.
        relist: how long the activation result waits for a host known to re-list.
    """

    def __init__(
        self,
        *,
        in_herdr: bool,
        namespace: str = DEFAULT_NAMESPACE,
        pane_problem: Callable[[str | None], str | None] | None = None,
        relist: float = RELIST_WAIT,
    ) -> None:
        self._tools = dormant_tools_list() if in_herdr else []
        self._namespace = namespace
        self._pane_problem = pane_problem
        self._relist = relist
        self._era: str | None = None
        self._handed_on = False
        self._client: str | None = None
        self._active = False
        self._held: bytes | None = None

    def __repr__(self) -> str:
        return f"<EarlyAnswers era={self._era} handed_on={self._handed_on} active={self._active}>"

    @property
    def answering(self) -> bool:
        """Whether a later request may still be answered here."""
        return not self._handed_on

    def answer(self, line: JsonLine) -> Answered | None:
        """What to write for ``line`` when it is answered here, else ``None`` (the SDK answers it)."""
        message = line.message
        if message is None or "method" not in message or "id" not in message:
            if message is None or line.fault is not None:
                self._handed_on = True  # an unreadable line: the transport answers it, in order
            return None  # a notification or a client's response: it changes nothing answered here
        result = None if self._handed_on or line.fault is not None or line.too_deep else self._decide(message)
        if result is None:
            self._handed_on = True
            return None
        written = f'{{"jsonrpc":"2.0","id":{_dumps(message["id"])},"result":{result}}}\n'.encode()
        if message["method"] == "tools/call":
            return self._activated(written)
        if message["method"] == "tools/list" and self._held is not None:  # the re-list the result waited for
            return Answered(written + (self.release() or b""), written)
        return Answered(written, written)

    def _activated(self, answer: bytes) -> Answered:
        if self._active:
            return Answered(answer, answer)
        self._active = True
        wait = relist_wait(self._client, self._relist)
        if wait <= 0:
            return Answered(LIST_CHANGED + answer, answer)
        self._held = answer
        return Answered(LIST_CHANGED, answer, wait)

    def release(self) -> bytes | None:
        """The activation result still held for a re-list (now given up), or ``None``."""
        held, self._held = self._held, None
        return held

    def _decide(self, message: dict[str, Any]) -> str | None:
        """The result's JSON text, in the SDK's bytes, when ``message`` is answered here."""
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

    def _handshake(self, method: str, message: dict[str, Any], opening: bool) -> str | None:
        if method == "initialize" and opening:
            params = _params(message, _INITIALIZE_KEYS)
            if (
                params is None
                or params.get("_meta", {}) != {}  # a progress token, say: the SDK types it
                or not isinstance(params.get("protocolVersion"), str)
                or not _plain_capabilities(params.get("capabilities"))
                or not _plain_client_info(params.get("clientInfo"))
            ):
                return None
            requested = params["protocolVersion"]
            version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
            self._client = params["clientInfo"]["name"]
            result = {"capabilities": _CAPABILITIES, "protocolVersion": version, "serverInfo": _SERVER_INFO}
            return _dumps(result, sort_keys=True)
        if method == "tools/list" and not opening:  # after an initialize answered here
            params = _params(message, _LIST_KEYS)
            if params is None or _modern_envelope(params):
                return None
            if self._active:
                return ACTIVE_TOOLS_RESULT  # the SDK's own bytes for it (generated)
            return _dumps({"tools": self._tools}, sort_keys=True)
        if method == "tools/call" and not opening:
            return self._activation(message)
        return None

    def _activation(self, message: dict[str, Any]) -> str | None:
        """The activation's result, when this call only activates and this process may act for its pane."""
        params = _params(message, _CALL_KEYS)
        if (
            params is None
            or params.get("name") != GATEWAY_TOOL
            or params.get("arguments") not in _ACTIVATIONS
            or not self._tools
            or self._pane_problem is None
            or self._pane_problem(self._client) is not None
        ):
            return None
        receipt, presentation = activation_texts(self._client, self._namespace)
        content = [{"text": receipt, "type": "text"}, {"text": presentation, "type": "text"}]
        return _dumps({"content": content, "isError": False})  # in the order the SDK's serialiser writes

    def _modern(self, method: str, message: dict[str, Any]) -> str | None:
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
        return _dumps(result | {"_meta": {_SERVER_INFO_KEY: _SERVER_INFO}})
