"""``herdr-link/1`` in pure Python: envelopes, the inbound wrapper, the contract, errors and tool specs.

No I/O happens here: text goes in and models come out, models go in and text comes out. Any tool
that wants to read or write Herdr Link messages can depend on this package alone.

Importing the package is cheap: every name loads from its submodule on first use (``lazy_loader``,
PEP 562; ``__init__.pyi`` types the same names, and a test holds the two lists equal), so the
constants and texts (what ``herdr-link-mcp hint`` and ``wiring`` print) come without pydantic or
``typing``, and the models build only when something touches them."""

import lazy_loader

_EXPORTS = {
    "_arguments": [
        "ARGUMENT_ERRORS",
        "IGNORED",
        "TOOL_FIELDS",
        "TOPOLOGY_KEYS",
        "NormalizedArguments",
        "normalize_arguments",
    ],
    "_calls": [
        "Activate",
        "Call",
        "CloseCall",
        "ParsedCall",
        "PeersCall",
        "SendCall",
        "StartCall",
        "activates_session",
        "parse_call",
    ],
    "_config": [
        "CONFIG_RELATIVE_PATH",
        "AgentConfig",
        "AgentEntry",
        "NewTabPlacementConfig",
        "VariantConfig",
        "WithPlacementConfig",
        "parse_agent_config",
    ],
    "_constants": [
        "ACTION_TOOLS",
        "CAPABILITIES",
        "CLOSE_TOOL",
        "GATEWAY_TOOL",
        "PEERS_TOOL",
        "PROTOCOL_ID",
        "SEND_TOOL",
        "START_TOOL",
        "TIER1_TOOLS",
        "TOOL_ACTIONS",
        "AgentState",
        "normalize_agent_state",
    ],
    "_contract": [
        "COMMUNICATION_CONTRACT",
        "WAIT_GUARD_REASON",
        "PresentationForm",
        "active_presentation",
        "presented_tool_name",
        "tier0_hint",
    ],
    "_envelope": ["Envelope", "build_envelope", "is_blank_message", "parse_envelope"],
    "_errors": ["Cause", "ErrorCode", "InvalidToolCall", "LinkError", "RemoteProtocolError"],
    "_escape": ["UNSAFE_CODE_POINT_RANGES", "dumps_terminal_safe", "is_terminal_safe"],
    "_jsonline": [
        "MAX_JSON_DEPTH",
        "MAX_LINE_BYTES",
        "TOO_DEEP",
        "JsonLine",
        "JsonLineReader",
        "LineFault",
        "TooDeep",
        "parse_json_line",
    ],
    "_models": ["LinkModel"],
    "_names": [
        "AGENT_NAME_PATTERN",
        "GENERATED_NAME_PREFIX",
        "MESSAGE_ID_PATTERN",
        "generate_self_name",
        "is_valid_agent_name",
        "is_valid_message_id",
        "new_message_id",
    ],
    "_receipts": ["ActiveReceipt", "ClosedReceipt", "PeerEntry", "PeersReceipt", "SentReceipt", "StartedReceipt"],
    "_start": [
        "AGENT_KIND_PATTERN",
        "START_FIELDS",
        "ConfiguredStart",
        "ExplicitStart",
        "NewTabPlacement",
        "Placement",
        "StartRequest",
        "WithPlacement",
        "check_agent_kind",
        "resolve_placement",
        "validate_start_input",
    ],
    "_tools": [
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
        "validate_close_input",
        "validate_send_input",
        "validate_start_arguments",
    ],
    "_version": ["__version__"],
    "_wrapper": ["MAX_DELIVERY_BYTES", "WRAPPER_HEADER", "build_wrapper", "extract_envelope"],
}
"""Each submodule and the names it provides (``__init__.pyi`` lists the same, for type checkers)."""

__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs=_EXPORTS)
