"""The server's names, and which presentation a host gets from the ``clientInfo.name`` it sends."""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

from herdr_link_protocol import PresentationForm

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "DEFAULT_NAMESPACE",
    "HOST_FORMS",
    "NON_RELISTING_CLIENTS",
    "SERVER_NAME",
    "WIRING_FORMS",
    "WIRING_HOSTS",
    "presentation_form",
    "relists_tools",
]

SERVER_NAME: Final = "herdr-link"
"""The ``serverInfo.name`` the server reports in ``initialize``."""
DEFAULT_NAMESPACE: Final = "herdr_link"
"""The name hosts register the server under (``mcp__herdr_link__…``); wiring always uses it."""

HOST_FORMS: Final = (
    ("claude", PresentationForm.MCP_PREFIXED),  # Claude Code: mcp__<ns>__<tool>
    ("codex", PresentationForm.MCP_NAMESPACED),  # Codex: Responses namespace mcp__<ns>
    ("gemini", PresentationForm.MCP_SINGLE_PREFIX),  # Gemini CLI: mcp_<ns>_<tool>
    ("antigravity", PresentationForm.MCP_WRAPPER),  # AGY: call_mcp_tool
    ("agy", PresentationForm.MCP_WRAPPER),
    ("pi", PresentationForm.MCP_PREFIXED),  # Pi's built-in MCP with exposure "direct"
)
"""Substring of the lower-cased client name → form, first match wins (``pi`` must match exactly)."""

NON_RELISTING_CLIENTS: Final = ("codex",)
"""Substrings of the lower-cased ``clientInfo.name`` of hosts known never to re-list tools by default.

Codex 0.171 (``codex-mcp-client``) ignores ``tools/list_changed`` unless started with
``--enable mcp_tool_list_changed``, and its ``initialize`` is the same either way, so the client name
is all there is to go on. Such a host gets the dispatch-first presentation and no re-list wait.
"""


WIRING_FORMS: Final = {
    "claude": PresentationForm.MCP_PREFIXED,
    "codex": PresentationForm.MCP_NAMESPACED,
    "agy": PresentationForm.MCP_WRAPPER,
    "gemini": PresentationForm.MCP_SINGLE_PREFIX,
    "pi": PresentationForm.MCP_PREFIXED,
}
"""The tool names each host shows, by ``wiring --host`` name (hints and registration)."""
WIRING_HOSTS: Final = tuple(WIRING_FORMS)
"""Hosts ``wiring --host`` prints a registration for."""


def presentation_form(client_name: str | None) -> PresentationForm:
    """The form for a client; :attr:`PresentationForm.MCP_PLAIN` when unknown."""
    name = (client_name or "").lower()
    for needle, form in HOST_FORMS:
        if (name == needle) if needle == "pi" else (needle in name):
            return form
    return PresentationForm.MCP_PLAIN


def relists_tools(client_name: str | None) -> bool:
    """Whether a client is expected to re-list tools after ``list_changed``; unknown clients are."""
    name = (client_name or "").lower()
    return not any(needle in name for needle in NON_RELISTING_CLIENTS)
