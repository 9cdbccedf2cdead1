"""Tool specifications: the single source of every adapter's names, descriptions, schemas and
argument rules.

Each tool's input is a ``TypedDict``; its JSON Schema is generated from it (titles removed, to keep
the model-facing surface small), and the argument-error table says which code a bad argument earns.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Final, NotRequired, Required

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from ._arguments import ARGUMENT_ERRORS, refuse_topology
from ._constants import (
    ACTION_TOOLS,
    CAPABILITIES,
    CLOSE_TOOL,
    GATEWAY_TOOL,
    PEERS_TOOL,
    SEND_TOOL,
    START_TOOL,
    TIER1_TOOLS,
)
from ._dormant import GATEWAY_DESCRIPTION
from ._errors import Cause, InvalidToolCall, LinkError

__all__ = [
    "DISPATCH_ACTION_DESCRIPTION",
    "DISPATCH_ARGUMENTS_DESCRIPTION",
    "GATEWAY_ACTIVATE",
    "GATEWAY_ARGUMENTS_NOT_OBJECT",
    "TOOL_SPECS",
    "CloseInput",
    "GatewayCall",
    "GatewayInput",
    "SendInput",
    "StartInput",
    "ToolSpec",
    "parse_gateway_call",
    "tools_list",
    "tools_list_json",
    "typed_arguments",
]

GATEWAY_ACTIVATE: Final = "activate"
"""The gateway action that only activates; the same as calling it with ``{}``."""

DISPATCH_ACTION_DESCRIPTION: Final = "Omit to activate this session; then start, peers, send or close"
"""The ``action`` field of a dispatcher-only gateway (OpenCode), whose schema lists every field."""
DISPATCH_ARGUMENTS_DESCRIPTION: Final = "The action's arguments; or give them as top-level fields"
"""The ``arguments`` field of a dispatcher-only gateway."""

GATEWAY_ARGUMENTS_NOT_OBJECT: Final = f'{GATEWAY_TOOL} "arguments" must be an object'
"""The protocol-level error for a dispatch whose ``arguments`` is not an object."""

_STRICT = ConfigDict(extra="forbid", strict=True)


class GatewayInput(TypedDict, total=False):
    """``herdr_link``: ``{}`` activates; ``action`` (+ ``arguments``) dispatches to a Tier 1 tool.

    Other top-level keys are allowed: without ``arguments`` they are the dispatched tool's arguments.
    """

    action: Annotated[str, Field(json_schema_extra={"enum": list(CAPABILITIES)})]
    arguments: dict[str, Any]


StartInput = TypedDict(
    "StartInput",
    {
        "name": Required[Annotated[str, Field(description="Agent Name for the new agent")]],
        "with": NotRequired[Annotated[str, Field(description="Agent to place it beside (no cwd then)")]],
        "cwd": NotRequired[Annotated[str, Field(description="New-tab working directory")]],
        "config_agent": NotRequired[Annotated[str, Field(description="Entry of .agents/agent_config.json")]],
        "kind": NotRequired[Annotated[str, Field(description="Agent kind: claude, codex, pi, opencode...")]],
        "args": NotRequired[Annotated[list[str], Field(description="Agent arguments; [] for none")]],
    },
)
StartInput.__pydantic_config__ = _STRICT  # type: ignore[attr-defined]
StartInput.__doc__ = (
    "``herdr_link_start``: a name plus ``config_agent``, or ``kind`` and ``args`` (``with`` is a keyword)."
)


class PeersInput(TypedDict):
    """``herdr_link_peers`` takes no arguments (any given are ignored)."""


@with_config(_STRICT)
class SendInput(TypedDict):
    """``herdr_link_send``."""

    to: Annotated[str, Field(description="Recipient Agent Name")]
    message: Annotated[str, Field(description="Message text")]


@with_config(_STRICT)
class CloseInput(TypedDict):
    """``herdr_link_close``."""

    agent: Annotated[str, Field(description="Agent Name whose pane to close")]


def _schema(input_type: type) -> dict[str, Any]:
    generated = TypeAdapter(input_type).json_schema()
    # Titles repeat the key, and "additionalProperties": true is JSON Schema's default: both only cost tokens.
    properties = {
        key: {k: v for k, v in prop.items() if k != "title" and (k, v) != ("additionalProperties", True)}
        for key, prop in generated.get("properties", {}).items()
    }
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if generated.get("required"):
        schema["required"] = generated["required"]
    if generated.get("additionalProperties") is False:
        schema["additionalProperties"] = False
    return schema


@dataclass(frozen=True)
class ToolSpec:
    """One tool as every adapter presents it."""

    name: str
    description: str
    input_type: type
    read_only: bool = False
    input_schema: Mapping[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "input_schema", _schema(self.input_type))

    def to_mcp(self) -> dict[str, Any]:
        """The tool as an MCP ``tools/list`` entry (wire names)."""
        entry: dict[str, Any] = {"name": self.name, "description": self.description, "inputSchema": self.input_schema}
        if self.read_only:
            entry["annotations"] = {"readOnlyHint": True}
        return entry


TOOL_SPECS: Final[Mapping[str, ToolSpec]] = {
    spec.name: spec
    for spec in (
        ToolSpec(GATEWAY_TOOL, GATEWAY_DESCRIPTION, GatewayInput),
        ToolSpec(
            START_TOOL,
            "Start a Herdr agent with Link-managed placement: config_agent, or kind and args. Default placement "
            "is a new tab; with puts it beside a live agent.",
            StartInput,
        ),
        ToolSpec(
            PEERS_TOOL,
            "List live agents of this workspace and your own name. For finding or recovering an address only.",
            PeersInput,
            read_only=True,
        ),
        ToolSpec(
            SEND_TOOL,
            'Send a Herdr Link message or reply. "sent" is delivery only: then end your turn; '
            "the answer arrives as a new message.",
            SendInput,
        ),
        ToolSpec(
            CLOSE_TOOL,
            "Close the named agent's pane once its lifecycle is complete, as its own step after earlier Herdr "
            "Link calls returned. Sends no message.",
            CloseInput,
        ),
    )
}
"""Every tool, gateway first, then Tier 1 in canonical order."""


def tools_list(*, active: bool) -> list[dict[str, Any]]:
    """The MCP ``tools/list`` entries: the gateway alone while dormant, all five once active."""
    names = (GATEWAY_TOOL, *TIER1_TOOLS) if active else (GATEWAY_TOOL,)
    return [TOOL_SPECS[name].to_mcp() for name in names]


def tools_list_json(*, active: bool) -> str:
    """The ``tools/list`` result as compact JSON: the bytes the budgets are measured on."""
    return json.dumps({"tools": tools_list(active=active)}, ensure_ascii=False, separators=(",", ":"))


_ADAPTERS: Final[Mapping[str, TypeAdapter[Any]]] = {
    SEND_TOOL: TypeAdapter(SendInput),
    CLOSE_TOOL: TypeAdapter(CloseInput),
}


def typed_arguments(tool: str, values: Mapping[str, Any]) -> Any:
    """Validate the fields of already normalised ``values`` for ``herdr_link_send`` or ``herdr_link_close``.

    Raises:
        LinkError: the cause :data:`ARGUMENT_ERRORS` gives the first bad field.
    """
    try:
        return _ADAPTERS[tool].validate_python(dict(values))
    except ValidationError as error:
        first = error.errors()[0]
        key = str(first["loc"][0])  # values hold only the tool's own keys, so the error names one of them
        cause = ARGUMENT_ERRORS[tool][key]
        assert isinstance(cause, Cause)
        raise LinkError(cause, f"argument {key}: {first['type']}", field=key) from None


@dataclass(frozen=True, slots=True)
class GatewayCall:
    """A parsed gateway call: ``tool`` is ``None`` for plain activation, else the Tier 1 tool to run."""

    tool: str | None
    arguments: dict[str, Any]


def parse_gateway_call(arguments: object) -> GatewayCall:
    """Interpret ``herdr_link`` arguments.

    ``{}`` or ``{"action":"activate"}`` activates. ``{"action":A,"arguments":{...}}`` dispatches to
    Tier 1 tool ``herdr_link_A``; without ``arguments`` the other top-level keys are used
    (``{"action":"close","agent":"x"}``). Keys a host adds beside ``action`` and ``arguments`` are
    ignored; raw id or layout keys are refused with the dispatched tool's input code. The dispatched
    arguments are not checked here: they go to the tool, which applies its own rules.

    Raises:
        InvalidToolCall: for non-object arguments, an unknown action, non-object ``arguments``, or
            a raw id or layout key on an activation.
        LinkError: a raw id or layout key beside a dispatched action, with that tool's input code.
    """
    if not isinstance(arguments, dict):
        raise InvalidToolCall(f"{GATEWAY_TOOL} arguments must be an object")
    action = arguments.get("action", GATEWAY_ACTIVATE)
    if action is None or action == GATEWAY_ACTIVATE:
        refuse_topology(GATEWAY_TOOL, arguments)
        return GatewayCall(None, {})
    tool = ACTION_TOOLS.get(action) if isinstance(action, str) else None
    if tool is None:
        shown = action if isinstance(action, str) and action.isidentifier() and len(action) <= 32 else "?"
        raise InvalidToolCall(f"Unknown gateway action: {shown}; use one of {', '.join(CAPABILITIES)}")
    if "arguments" in arguments:
        inner = arguments["arguments"]
        if not isinstance(inner, dict):
            raise InvalidToolCall(GATEWAY_ARGUMENTS_NOT_OBJECT)
        refuse_topology(tool, arguments)
        return GatewayCall(tool, dict(inner))
    return GatewayCall(tool, {k: v for k, v in arguments.items() if k != "action"})
