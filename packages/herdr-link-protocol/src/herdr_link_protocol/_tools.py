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

from ._constants import CAPABILITIES, CLOSE_TOOL, GATEWAY_TOOL, PEERS_TOOL, SEND_TOOL, START_TOOL, TIER1_TOOLS
from ._errors import Cause, InvalidToolCall, LinkError
from ._start import StartRequest, validate_start_input

__all__ = [
    "ARGUMENT_ERRORS",
    "GATEWAY_ACTIVATE",
    "TOOL_SPECS",
    "UNKNOWN_GATEWAY_ACTION",
    "CloseInput",
    "GatewayCall",
    "GatewayInput",
    "SendInput",
    "StartInput",
    "ToolSpec",
    "parse_gateway_call",
    "tools_list",
    "tools_list_json",
    "validate_close_input",
    "validate_send_input",
    "validate_start_arguments",
]

GATEWAY_ACTIVATE: Final = "activate"
"""The gateway action that only activates; the same as calling it with ``{}``."""

UNKNOWN_GATEWAY_ACTION: Final = f"Unknown gateway action; use one of {', '.join(CAPABILITIES)}, or omit it to activate"
"""The error of a dispatcher-only adapter (the OpenCode 2 plugin) for an ``action`` it does not know."""

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
        ToolSpec(
            GATEWAY_TOOL,
            "Herdr Link: message, start and close other coding agents in this Herdr workspace. Call with {} "
            "only when the user asks to use Herdr or a Herdr Link message arrives; the result explains the rest.",
            GatewayInput,
        ),
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


ARGUMENT_ERRORS: Final[Mapping[str, Mapping[str, Cause]]] = {
    START_TOOL: {
        "name": Cause.START_FIELD_INVALID,
        "with": Cause.START_FIELD_INVALID,
        "cwd": Cause.START_FIELD_INVALID,
        "config_agent": Cause.START_FIELD_INVALID,
        "kind": Cause.START_KIND_INVALID,
        "args": Cause.START_FIELD_INVALID,
        "*": Cause.START_FIELD_UNKNOWN,
    },
    SEND_TOOL: {"to": Cause.PEER_ARGUMENT_INVALID, "message": Cause.MESSAGE_NOT_TEXT, "*": Cause.SEND_FIELD_UNKNOWN},
    CLOSE_TOOL: {"agent": Cause.PEER_ARGUMENT_INVALID, "*": Cause.CLOSE_FIELD_UNKNOWN},
    PEERS_TOOL: {},
}
"""Which cause (and so which code) a missing, mistyped or unknown argument earns, per tool.

``"*"`` is any key the tool does not define. ``herdr_link_peers`` ignores arguments. Arguments that
are not an object, unknown tools and unknown gateway actions are not in this table: they are
protocol-level errors (:class:`InvalidToolCall`).
"""

_ADAPTERS: Final[Mapping[str, TypeAdapter[Any]]] = {
    SEND_TOOL: TypeAdapter(SendInput),
    CLOSE_TOOL: TypeAdapter(CloseInput),
}


def _validate(tool: str, arguments: object) -> Any:
    if not isinstance(arguments, dict):
        raise InvalidToolCall(f"{tool} arguments must be an object")
    try:
        return _ADAPTERS[tool].validate_python(arguments)
    except ValidationError as error:
        first = error.errors()[0]
        key = str(first["loc"][0]) if first["loc"] else "*"
        table = ARGUMENT_ERRORS[tool]
        if first["type"] == "extra_forbidden" or key not in table:
            raise LinkError(table["*"], "unknown argument", field=key) from None
        raise LinkError(table[key], f"argument {key}: {first['type']}", field=key) from None


def validate_send_input(arguments: object) -> SendInput:
    """Check ``herdr_link_send`` arguments' shape; the name and blank checks belong to the operation.

    Raises:
        InvalidToolCall: when ``arguments`` is not an object.
        LinkError: per :data:`ARGUMENT_ERRORS`.
    """
    result: SendInput = _validate(SEND_TOOL, arguments)
    return result


def validate_close_input(arguments: object) -> CloseInput:
    """Check ``herdr_link_close`` arguments' shape.

    Raises:
        InvalidToolCall: when ``arguments`` is not an object.
        LinkError: per :data:`ARGUMENT_ERRORS`.
    """
    result: CloseInput = _validate(CLOSE_TOOL, arguments)
    return result


def validate_start_arguments(arguments: object) -> StartRequest:
    """Check ``herdr_link_start`` arguments, including the mode rules that need no file.

    Raises:
        InvalidToolCall: when ``arguments`` is not an object.
        LinkError: ``START_INPUT_INVALID``.
    """
    if not isinstance(arguments, dict):
        raise InvalidToolCall(f"{START_TOOL} arguments must be an object")
    return validate_start_input(arguments)


@dataclass(frozen=True, slots=True)
class GatewayCall:
    """A parsed gateway call: ``tool`` is ``None`` for plain activation, else the Tier 1 tool to run."""

    tool: str | None
    arguments: dict[str, Any]


def parse_gateway_call(arguments: object) -> GatewayCall:
    """Interpret ``herdr_link`` arguments.

    ``{}`` or ``{"action":"activate"}`` activates. ``{"action":A,"arguments":{...}}`` dispatches to
    Tier 1 tool ``herdr_link_A``; without ``arguments`` the other top-level keys are used
    (``{"action":"close","agent":"x"}``).

    Raises:
        InvalidToolCall: for non-object arguments, an unknown action, or non-object ``arguments``.
    """
    if not isinstance(arguments, dict):
        raise InvalidToolCall(f"{GATEWAY_TOOL} arguments must be an object")
    action = arguments.get("action", GATEWAY_ACTIVATE)
    if action == GATEWAY_ACTIVATE:
        return GatewayCall(None, {})
    if action not in CAPABILITIES:
        shown = action if isinstance(action, str) and action.isidentifier() and len(action) <= 32 else "?"
        raise InvalidToolCall(f"Unknown gateway action: {shown}; use one of {', '.join(CAPABILITIES)}")
    if "arguments" in arguments:
        inner = arguments["arguments"]
        if not isinstance(inner, dict):
            raise InvalidToolCall(f'{GATEWAY_TOOL} "arguments" must be an object')
        return GatewayCall(f"{GATEWAY_TOOL}_{action}", dict(inner))
    return GatewayCall(f"{GATEWAY_TOOL}_{action}", {k: v for k, v in arguments.items() if k != "action"})
