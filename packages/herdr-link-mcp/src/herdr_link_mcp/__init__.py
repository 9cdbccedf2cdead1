"""Herdr Link as a stdio MCP server (``herdr-link-mcp``) for Claude Code, Codex, AGY, Gemini CLI and others.

The server starts dormant: ``tools/list`` holds only the ``herdr_link`` gateway. Calling it with
``{}`` activates the connection; the Tier 1 tools then appear, and hosts that never re-list tools
reach them through the gateway's action dispatch.

Every name loads from its submodule on first use (``lazy_loader``, PEP 562; ``__init__.pyi`` types
the same names, and a test holds the two lists equal), so importing the package costs only what is
used."""

import lazy_loader

_EXPORTS = {
    "_codex": ["SESSION_START", "codex_home", "command_hook_hash", "hook_trust_key"],
    "_hint": ["HINT_HOSTS", "hint_output"],
    "_hosts": [
        "DEFAULT_NAMESPACE",
        "HOST_FORMS",
        "NON_RELISTING_CLIENTS",
        "SERVER_NAME",
        "WIRING_FORMS",
        "WIRING_HOSTS",
        "presentation_form",
        "relists_tools",
    ],
    "_server": ["RELIST_WAIT", "ConnectionState", "create_server", "initialization_options"],
    "_version": ["__version__"],
    "_wiring": ["FORWARDED_VARIABLES", "Wiring", "WiringFile", "server_command", "wiring"],
}
"""Each submodule and the names it provides (``__init__.pyi`` lists the same, for type checkers)."""

__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs=_EXPORTS)
