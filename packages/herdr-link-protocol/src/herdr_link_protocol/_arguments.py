"""Argument rules shared by every adapter: which keys a tool takes, refuses or ignores (PROTOCOL.md §7.2).

Hosts add keys of their own to tool calls (Gemini CLI's ``wait_for_previous``, ``_meta``-like fields,
``reply_to`` from older docs). Such a key must never break a call, so any key outside a tool's schema
is ignored. Only keys that would carry a raw Herdr id or layout into model-facing input are refused,
because spec §4.2 and §8 keep those out of it entirely.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._constants import CLOSE_TOOL, GATEWAY_TOOL, PEERS_TOOL, SEND_TOOL, START_TOOL
from ._errors import Cause, InvalidToolCall, LinkError

__all__ = [
    "ARGUMENT_ERRORS",
    "IGNORED",
    "TOOL_FIELDS",
    "TOPOLOGY_KEYS",
    "NormalizedArguments",
    "known_arguments",
    "normalize_arguments",
]

TOPOLOGY_KEYS: Final = (
    "pane",
    "pane_id",
    "tab",
    "tab_id",
    "workspace",
    "workspace_id",
    "terminal_id",
    "direction",
    "ratio",
    "focus",
)
"""Keys that carry a raw id or layout: refused on every tool and on the gateway, before any Herdr call."""

TOOL_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    START_TOOL: ("name", "with", "cwd", "config_agent", "kind", "args"),
    PEERS_TOOL: (),
    SEND_TOOL: ("to", "message"),
    CLOSE_TOOL: ("agent",),
    GATEWAY_TOOL: ("action", "arguments"),
}
"""Every key each tool's schema defines, in schema order."""

IGNORED: Final = "ignored"
"""What :data:`ARGUMENT_ERRORS` says of the ``"*"`` row: any other key is dropped, never an error."""

ARGUMENT_ERRORS: Final[Mapping[str, Mapping[str, Cause | str | None]]] = {
    START_TOOL: {
        "name": Cause.START_FIELD_INVALID,
        "with": Cause.START_FIELD_INVALID,
        "cwd": Cause.START_FIELD_INVALID,
        "config_agent": Cause.START_FIELD_INVALID,
        "kind": Cause.START_KIND_INVALID,
        "args": Cause.START_FIELD_INVALID,
        "topology": Cause.START_TOPOLOGY_REFUSED,
        "*": IGNORED,
    },
    SEND_TOOL: {
        "to": Cause.PEER_ARGUMENT_INVALID,
        "message": Cause.MESSAGE_NOT_TEXT,
        "topology": Cause.SEND_TOPOLOGY_REFUSED,
        "*": IGNORED,
    },
    CLOSE_TOOL: {"agent": Cause.PEER_ARGUMENT_INVALID, "topology": Cause.CLOSE_TOPOLOGY_REFUSED, "*": IGNORED},
    PEERS_TOOL: {"topology": None, "*": IGNORED},
    GATEWAY_TOOL: {"topology": None, "*": IGNORED},
}
"""Per tool: the cause a missing or mistyped argument earns, and what happens to other keys.

``"topology"`` stands for every key of :data:`TOPOLOGY_KEYS`; ``None`` there means the tool has no
input code of its own (peers, the gateway's activation), so the refusal is protocol-level
(:class:`InvalidToolCall`). ``"*"`` is any other key outside the schema: :data:`IGNORED`.
"""


@dataclass(frozen=True, slots=True)
class NormalizedArguments:
    """A tool's arguments with every key outside its schema removed; ``ignored`` names the removed keys."""

    values: dict[str, Any]
    ignored: tuple[str, ...] = ()


def refuse_topology(tool: str, arguments: Mapping[str, Any]) -> None:
    """Refuse a raw id or layout key the way ``tool`` refuses input.

    Raises:
        LinkError: the tool's input code (``START_INPUT_INVALID``, ``SEND_FAILED``, ``CLOSE_FAILED``).
        InvalidToolCall: for a tool without an input code (peers, the gateway's activation).
    """
    refused = next((key for key in TOPOLOGY_KEYS if key in arguments), None)
    if refused is None:
        return
    cause = ARGUMENT_ERRORS[tool]["topology"]
    if isinstance(cause, Cause):
        raise LinkError(cause, f"argument {refused} carries a raw id or layout", field=refused)
    raise InvalidToolCall(f'{tool} does not accept "{refused}": agents are addressed by Agent Name only')


def normalize_arguments(tool: str, arguments: object) -> NormalizedArguments:
    """Apply the argument rules of ``tool`` (a canonical tool name) to raw model arguments.

    Raw id and layout keys are refused; every other key outside the tool's schema is dropped and
    named in ``ignored``, so an adapter can log it for the operator. Values are not checked here.

    Raises:
        InvalidToolCall: ``arguments`` is not an object, the tool is unknown, or (for a tool without
            an input code) a raw id or layout key is present.
        LinkError: the tool's input code for a raw id or layout key.
    """
    if tool not in TOOL_FIELDS:
        raise InvalidToolCall(f"Unknown tool: {tool}")
    if not isinstance(arguments, dict):
        raise InvalidToolCall(f"{tool} arguments must be an object")
    return known_arguments(tool, arguments)


def known_arguments(tool: str, arguments: dict[str, Any]) -> NormalizedArguments:
    """:func:`normalize_arguments` for a caller that has already checked ``tool`` and that
    ``arguments`` is an object (the one inbound parse): raw ids refused, other unknown keys dropped."""
    refuse_topology(tool, arguments)
    fields = TOOL_FIELDS[tool]
    values = {key: value for key, value in arguments.items() if key in fields}
    ignored = tuple(str(key) for key in arguments if key not in fields)
    return NormalizedArguments(values, ignored)
