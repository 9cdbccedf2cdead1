"""Which presentation a host gets, from the ``clientInfo.name`` it sends (generic when unknown)."""

from typing import Final

from herdr_link_protocol import PresentationForm

__all__ = ["HOST_FORMS", "presentation_form"]

HOST_FORMS: Final = (
    ("claude", PresentationForm.MCP_PREFIXED),  # Claude Code: mcp__<ns>__<tool>
    ("codex", PresentationForm.MCP_NAMESPACED),  # Codex: Responses namespace mcp__<ns>
    ("gemini", PresentationForm.MCP_SINGLE_PREFIX),  # Gemini CLI: mcp_<ns>_<tool>
    ("antigravity", PresentationForm.MCP_WRAPPER),  # AGY: call_mcp_tool
    ("agy", PresentationForm.MCP_WRAPPER),
    ("pi", PresentationForm.MCP_PREFIXED),  # Pi's built-in MCP with exposure "direct"
)
"""Substring of the lower-cased client name → form, first match wins (``pi`` must match exactly)."""


def presentation_form(client_name: str | None) -> PresentationForm:
    """The form for a client; :attr:`PresentationForm.MCP_PLAIN` when unknown."""
    name = (client_name or "").lower()
    for needle, form in HOST_FORMS:
        if (name == needle) if needle == "pi" else (needle in name):
            return form
    return PresentationForm.MCP_PLAIN
