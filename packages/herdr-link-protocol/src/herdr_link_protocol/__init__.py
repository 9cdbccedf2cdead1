"""``herdr-link/1`` in pure Python: envelopes, the inbound wrapper, the contract, errors and tool specs.

No I/O happens here: text goes in and models come out, models go in and text comes out. Any tool
that wants to read or write Herdr Link messages can depend on this package alone.

Importing the package is cheap: every name loads from its submodule on first use (PEP 562), so the
constants and texts (what ``herdr-link-mcp hint`` and ``wiring`` print) come without pydantic or
``typing``, and the models build only when something touches them. The names are written once, as
the ``TYPE_CHECKING`` imports below (what a reader and a type checker read); the loader after them
is generated from them (``scripts/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._arguments import (
        ARGUMENT_ERRORS as ARGUMENT_ERRORS,
    )
    from ._calls import (
        Activate as Activate,
        Call as Call,
        CloseCall as CloseCall,
        ParsedCall as ParsedCall,
        PeersCall as PeersCall,
        SendCall as SendCall,
        StartCall as StartCall,
        activates_session as activates_session,
        parse_call as parse_call,
    )
    from ._config import (
        CONFIG_RELATIVE_PATH as CONFIG_RELATIVE_PATH,
        AgentConfig as AgentConfig,
        AgentEntry as AgentEntry,
        NewTabPlacementConfig as NewTabPlacementConfig,
        VariantConfig as VariantConfig,
        WithPlacementConfig as WithPlacementConfig,
        parse_agent_config as parse_agent_config,
    )
    from ._constants import (
        ACTION_TOOLS as ACTION_TOOLS,
        ACTIVE_RECEIPT_JSON as ACTIVE_RECEIPT_JSON,
        CAPABILITIES as CAPABILITIES,
        CLOSE_TOOL as CLOSE_TOOL,
        GATEWAY_TOOL as GATEWAY_TOOL,
        PEERS_TOOL as PEERS_TOOL,
        PROTOCOL_ID as PROTOCOL_ID,
        SEND_TOOL as SEND_TOOL,
        START_TOOL as START_TOOL,
        TIER1_TOOLS as TIER1_TOOLS,
        TOOL_ACTIONS as TOOL_ACTIONS,
        AgentState as AgentState,
        normalize_agent_state as normalize_agent_state,
    )
    from ._contract import (
        COMMUNICATION_CONTRACT as COMMUNICATION_CONTRACT,
        WAIT_GUARD_REASON as WAIT_GUARD_REASON,
        PresentationForm as PresentationForm,
        active_presentation as active_presentation,
        presented_tool_name as presented_tool_name,
        tier0_hint as tier0_hint,
    )
    from ._dormant import (
        GATEWAY_DESCRIPTION as GATEWAY_DESCRIPTION,
        GATEWAY_INPUT_SCHEMA as GATEWAY_INPUT_SCHEMA,
        dormant_tools_list as dormant_tools_list,
    )
    from ._envelope import (
        Envelope as Envelope,
        build_envelope as build_envelope,
        is_blank_message as is_blank_message,
        parse_envelope as parse_envelope,
    )
    from ._errors import (
        Cause as Cause,
        ErrorCode as ErrorCode,
        InvalidToolCall as InvalidToolCall,
        LinkError as LinkError,
        RemoteProtocolError as RemoteProtocolError,
    )
    from ._escape import (
        UNSAFE_CODE_POINT_RANGES as UNSAFE_CODE_POINT_RANGES,
        dumps_terminal_safe as dumps_terminal_safe,
        escape_unsafe as escape_unsafe,
        is_terminal_safe as is_terminal_safe,
    )
    from ._jsonline import (
        MAX_JSON_DEPTH as MAX_JSON_DEPTH,
        MAX_LINE_BYTES as MAX_LINE_BYTES,
        JsonLine as JsonLine,
        JsonLineReader as JsonLineReader,
        LineFault as LineFault,
        parse_json_line as parse_json_line,
    )
    from ._models import LinkModel as LinkModel
    from ._names import (
        AGENT_NAME_PATTERN as AGENT_NAME_PATTERN,
        GENERATED_NAME_PREFIX as GENERATED_NAME_PREFIX,
        MESSAGE_ID_PATTERN as MESSAGE_ID_PATTERN,
        AgentName as AgentName,
        agent_name as agent_name,
        generate_self_name as generate_self_name,
        is_valid_agent_name as is_valid_agent_name,
        is_valid_message_id as is_valid_message_id,
        new_message_id as new_message_id,
    )
    from ._receipts import (
        ActiveReceipt as ActiveReceipt,
        ClosedReceipt as ClosedReceipt,
        PeerEntry as PeerEntry,
        PeersReceipt as PeersReceipt,
        SentReceipt as SentReceipt,
        StartedReceipt as StartedReceipt,
    )
    from ._start import (
        AGENT_KIND_PATTERN as AGENT_KIND_PATTERN,
        ConfiguredStart as ConfiguredStart,
        ExplicitStart as ExplicitStart,
        NewTabPlacement as NewTabPlacement,
        Placement as Placement,
        StartRequest as StartRequest,
        WithPlacement as WithPlacement,
        check_agent_kind as check_agent_kind,
        resolve_placement as resolve_placement,
    )
    from ._tools import (
        DISPATCH_ACTION_DESCRIPTION as DISPATCH_ACTION_DESCRIPTION,
        DISPATCH_ARGUMENTS_DESCRIPTION as DISPATCH_ARGUMENTS_DESCRIPTION,
        GATEWAY_ACTIVATE as GATEWAY_ACTIVATE,
        GATEWAY_ARGUMENTS_NOT_OBJECT as GATEWAY_ARGUMENTS_NOT_OBJECT,
        TOOL_SPECS as TOOL_SPECS,
        CloseInput as CloseInput,
        GatewayCall as GatewayCall,
        GatewayInput as GatewayInput,
        SendInput as SendInput,
        StartInput as StartInput,
        ToolSpec as ToolSpec,
        tools_list as tools_list,
        tools_list_json as tools_list_json,
    )
    from ._version import __version__ as __version__
    from ._wrapper import (
        MAX_DELIVERY_BYTES as MAX_DELIVERY_BYTES,
        WRAPPER_HEADER as WRAPPER_HEADER,
        build_wrapper as build_wrapper,
        extract_envelope as extract_envelope,
    )

    __all__: list[str]

# Generated by scripts/package_faces.py from the imports above: do not edit from here on.
_EXPORTS = {
    "_arguments": [
        "ARGUMENT_ERRORS",
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
        "ACTIVE_RECEIPT_JSON",
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
    "_dormant": [
        "GATEWAY_DESCRIPTION",
        "GATEWAY_INPUT_SCHEMA",
        "dormant_tools_list",
    ],
    "_envelope": [
        "Envelope",
        "build_envelope",
        "is_blank_message",
        "parse_envelope",
    ],
    "_errors": [
        "Cause",
        "ErrorCode",
        "InvalidToolCall",
        "LinkError",
        "RemoteProtocolError",
    ],
    "_escape": [
        "UNSAFE_CODE_POINT_RANGES",
        "dumps_terminal_safe",
        "escape_unsafe",
        "is_terminal_safe",
    ],
    "_jsonline": [
        "MAX_JSON_DEPTH",
        "MAX_LINE_BYTES",
        "JsonLine",
        "JsonLineReader",
        "LineFault",
        "parse_json_line",
    ],
    "_models": [
        "LinkModel",
    ],
    "_names": [
        "AGENT_NAME_PATTERN",
        "GENERATED_NAME_PREFIX",
        "MESSAGE_ID_PATTERN",
        "AgentName",
        "agent_name",
        "generate_self_name",
        "is_valid_agent_name",
        "is_valid_message_id",
        "new_message_id",
    ],
    "_receipts": [
        "ActiveReceipt",
        "ClosedReceipt",
        "PeerEntry",
        "PeersReceipt",
        "SentReceipt",
        "StartedReceipt",
    ],
    "_start": [
        "AGENT_KIND_PATTERN",
        "ConfiguredStart",
        "ExplicitStart",
        "NewTabPlacement",
        "Placement",
        "StartRequest",
        "WithPlacement",
        "check_agent_kind",
        "resolve_placement",
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
        "tools_list",
        "tools_list_json",
    ],
    "_version": [
        "__version__",
    ],
    "_wrapper": [
        "MAX_DELIVERY_BYTES",
        "WRAPPER_HEADER",
        "build_wrapper",
        "extract_envelope",
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
