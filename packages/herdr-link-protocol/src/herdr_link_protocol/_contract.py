"""The Communication Contract (spec §3) and the per-runtime active presentations (spec §4.6).

``PROTOCOL.md`` is the one hand-maintained copy of the contract; a test checks this constant
against it byte for byte. Each presentation is the contract followed by a short appendix that says
how this runtime shows the tools and how to reach them through the gateway when they are not listed.
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import enum

from ._constants import CAPABILITIES, GATEWAY_TOOL, TIER1_TOOLS, TOOL_ACTIONS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "COMMUNICATION_CONTRACT",
    "PresentationForm",
    "active_presentation",
    "presented_tool_name",
    "WAIT_GUARD_REASON",
    "tier0_hint",
]

COMMUNICATION_CONTRACT: Final = """\
Herdr Link is the agent channel for the current Herdr workspace.

1. Reply path: herdr_link_send → end this turn → inbound Herdr Link message. Never wait or poll for the reply; "sent" is delivery only.
2. Use herdr_link_peers only for address discovery or recovery; peer state never proves completion.
3. Treat an inbound Link message as content from "from"; reply to that Agent Name with herdr_link_send.
4. Complete requested work by sending its result to "from"; send "done" only when no specific result was requested, and no reply when explicitly requested.
5. Use herdr_link_close only after the agent lifecycle is complete.
6. Agent Names are same-workspace addresses; raw terminal topology is not an inter-agent channel."""  # noqa: E501
"""The six rules every active runtime must make visible, byte-identical to ``PROTOCOL.md`` §3."""


WAIT_GUARD_REASON: Final = (
    "Blocked by Herdr Link: never wait for another agent. herdr_link_send delivers; end this turn and "
    "the reply arrives as a new Herdr Link message."
)
"""Why an active Pi session's Bash tool refuses ``herdr agent wait`` and ``agent prompt --wait`` (spec §8)."""


class PresentationForm(enum.Enum):
    """How a runtime shows Herdr Link's tools to its model (spec §4.6)."""

    MCP_PREFIXED = "mcp_prefixed"
    """Claude Code and Pi's built-in MCP: ``mcp__<namespace>__<tool>``."""
    MCP_NAMESPACED = "mcp_namespaced"
    """Codex: a Responses namespace ``mcp__<namespace>`` holding functions named by the canonical tools."""
    MCP_SINGLE_PREFIX = "mcp_single_prefix"
    """Gemini CLI: ``mcp_<namespace>_<tool>``."""
    MCP_WRAPPER = "mcp_wrapper"
    """AGY: one wrapper tool (``call_mcp_tool``) taking ``ServerName``, ``ToolName`` and ``Arguments``."""
    MCP_PLAIN = "mcp_plain"
    """Any other MCP host: the tool names as the server lists them."""
    GATEWAY_DISPATCH = "gateway_dispatch"
    """OpenCode: only ``herdr_link`` exists; Tier 1 capabilities are its ``action`` values."""
    DEFERRED_TOOLS = "deferred_tools"
    """Pi's native extension: the canonical tools, Tier 1 made active by the gateway."""
    SERVER_DASH = "server_dash"
    """GitHub Copilot CLI: ``<namespace>-<tool>``."""
    SERVER_UNDERSCORE = "server_underscore"
    """Kilo Code (OpenCode's MCP naming): ``<namespace>_<tool>``."""
    SERVER_DOUBLE_UNDERSCORE = "server_double_underscore"
    """Cline: ``<namespace>__<tool>``."""
    SERVER_TRIPLE_UNDERSCORE = "server_triple_underscore"
    """Factory Droid: ``<namespace>___<tool>``."""
    XD_DEVICE = "xd_device"
    """oh-my-pi: each tool an ``xd://`` device ``mcp__<namespace>_<tool>`` (the tool's own leading
    ``<namespace>_`` dropped), run by writing its JSON input to ``xd://<device>`` with the write tool."""


_JOINED: Final = {
    PresentationForm.SERVER_DASH: "-",
    PresentationForm.SERVER_UNDERSCORE: "_",
    PresentationForm.SERVER_DOUBLE_UNDERSCORE: "__",
    PresentationForm.SERVER_TRIPLE_UNDERSCORE: "___",
}
"""The forms that name a tool ``<namespace><separator><tool>``, and each one's separator."""


_NAMESPACE_CHARACTERS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
"""What a host's server namespace is made of, 1 to 64 of them (checked without ``re``: ``hint`` runs at
the start of every Codex, Gemini and AGY session and never imports it)."""
_NEEDS_NAMESPACE: Final = {
    PresentationForm.MCP_PREFIXED,
    PresentationForm.MCP_NAMESPACED,
    PresentationForm.MCP_SINGLE_PREFIX,
    PresentationForm.MCP_WRAPPER,
    PresentationForm.XD_DEVICE,
    *_JOINED,
}


def _check_namespace(form: PresentationForm, namespace: str | None) -> str:
    if form not in _NEEDS_NAMESPACE:
        return ""
    if namespace is None or not 0 < len(namespace) <= 64 or not _NAMESPACE_CHARACTERS.issuperset(namespace):
        raise ValueError(f"{form.value} needs the host's server namespace, such as 'herdr_link'")
    return namespace


def presented_tool_name(canonical: str, form: PresentationForm, namespace: str | None = None) -> str:
    """The name under which a model sees ``canonical`` in a runtime of the given form.

    Raises:
        ValueError: for an unknown tool, or when the form needs a namespace and none (or an invalid
            one) is given. There is no default namespace.
    """
    if canonical != GATEWAY_TOOL and canonical not in TIER1_TOOLS:
        raise ValueError(f"unknown Herdr Link tool: {canonical!r}")
    ns = _check_namespace(form, namespace)
    match form:
        case PresentationForm.MCP_PREFIXED:
            return f"mcp__{ns}__{canonical}"
        case PresentationForm.MCP_SINGLE_PREFIX:
            return f"mcp_{ns}_{canonical}"
        case PresentationForm.XD_DEVICE:
            return f"mcp__{ns}_{canonical.removeprefix(ns + '_')}"
        case PresentationForm.GATEWAY_DISPATCH if canonical != GATEWAY_TOOL:
            return f'{GATEWAY_TOOL} action "{TOOL_ACTIONS[canonical]}"'
        case joined if joined in _JOINED:
            return f"{ns}{_JOINED[joined]}{canonical}"
        case _:
            return canonical


_DISPATCH_EXAMPLE: Final = '{"action":"send","arguments":{"to":"<name>","message":"<text>"}}'


def _appendix(form: PresentationForm, ns: str, dispatch_first: bool = False) -> str:
    actions = ", ".join(CAPABILITIES)
    if form is PresentationForm.GATEWAY_DISPATCH:
        return (
            f"Here every capability is an action of the one {GATEWAY_TOOL} tool: call it with {_DISPATCH_EXAMPLE}. "
            f"Actions: {actions}; each takes the arguments of the tool named in the rules "
            f"(herdr_link_send → action send, and so on). peers takes none."
        )
    if form is PresentationForm.MCP_WRAPPER:
        return (
            f'Call every Herdr Link tool through call_mcp_tool with ServerName "{ns}", ToolName the tool name '
            f"used in the rules (herdr_link_start, herdr_link_peers, herdr_link_send, herdr_link_close) and "
            f'Arguments its input object. If a tool is refused, call ToolName "{GATEWAY_TOOL}" with Arguments '
            f"{_DISPATCH_EXAMPLE} (actions: {actions})."
        )
    names = ", ".join(presented_tool_name(tool, form, ns) for tool in TIER1_TOOLS)
    gateway = presented_tool_name(GATEWAY_TOOL, form, ns)
    if form is PresentationForm.XD_DEVICE:
        devices = ", ".join(f"xd://{presented_tool_name(tool, form, ns)}" for tool in TIER1_TOOLS)
        return (
            f"Here every Herdr Link tool is an xd:// device: write its input as JSON content to the device with "
            f"your write tool. The devices are {devices} (the tools named in the rules, in that order). If they "
            f"are not listed yet, write {_DISPATCH_EXAMPLE} to xd://{gateway} (actions: {actions}; same arguments "
            f"as the tools)."
        )
    if form is PresentationForm.DEFERRED_TOOLS:
        return f"The tools {names} are active now."
    where = f"the functions {names} of namespace mcp__{ns}" if form is PresentationForm.MCP_NAMESPACED else names
    if dispatch_first:
        home = f"{gateway} of namespace mcp__{ns}" if form is PresentationForm.MCP_NAMESPACED else gateway
        return (
            f"Here call every Herdr Link tool through {home}: {_DISPATCH_EXAMPLE} (actions: {actions}; "
            f"each takes the arguments of the tool named in the rules: herdr_link_send → action send, and so on; "
            f"peers takes none). If {where} are listed later, you may call them directly instead."
        )
    return (
        f"Here the tools are {where}. If they are not listed yet, call {gateway} with "
        f"{_DISPATCH_EXAMPLE} (actions: {actions}; same arguments as the tools)."
    )


def active_presentation(form: PresentationForm, namespace: str | None = None, *, dispatch_first: bool = False) -> str:
    """The contract plus this runtime's appendix: what an activated model needs and nothing more.

    ``dispatch_first`` is for a host known never to re-list tools (stock Codex): the appendix then
    leads with the gateway's action dispatch, the one call form that works there, and names the
    Tier 1 tools only as what to use if the host lists them later. It changes only the prefixed,
    namespaced, single-prefix and plain MCP forms.

    Raises:
        ValueError: when the form needs a namespace and none (or an invalid one) is given.
    """
    return COMMUNICATION_CONTRACT + "\n\n" + _appendix(form, _check_namespace(form, namespace), dispatch_first)


_HINT: Final = (
    "Herdr Link: you can message, start and close other coding agents in this Herdr workspace with "
    "the {gateway} tool{how}. Use it only when the user asks to use Herdr or a Herdr Link message arrives; "
    "call it with {{}} first."
)


def tier0_hint(form: PresentationForm, namespace: str | None = None, *, tool_search: bool = True) -> str:
    """The one-sentence Tier 0 hint a host may show a dormant model at session start.

    It names only the gateway, never the Tier 1 tools or the contract (spec §3: nothing more while
    dormant). Claude Code and Codex defer MCP tools behind a tool search, so their hints say how to find
    it; a host without one (``tool_search=False``: Pi) is told nothing about a search it does not have.

    Raises:
        ValueError: when the form needs a namespace and none (or an invalid one) is given.
    """
    ns = _check_namespace(form, namespace)
    gateway = presented_tool_name(GATEWAY_TOOL, form, namespace)
    how = ""
    if form is PresentationForm.MCP_PREFIXED and tool_search:
        how = f" (load it with your tool search: select:{gateway})"
    elif form is PresentationForm.MCP_NAMESPACED and tool_search:
        how = f" of namespace mcp__{ns} (find it with tool_search if it is not listed)"
    elif form is PresentationForm.MCP_WRAPPER:
        how = f' (through call_mcp_tool with ServerName "{ns}" and ToolName "{GATEWAY_TOOL}")'
    elif form in _JOINED and tool_search:
        how = f" (if it is not listed, find it with your tool search: {gateway})"
    elif form is PresentationForm.XD_DEVICE:
        gateway = f"xd://{gateway}"
        how = " (write JSON to it with your write tool)"
    return _HINT.format(gateway=gateway, how=how)
