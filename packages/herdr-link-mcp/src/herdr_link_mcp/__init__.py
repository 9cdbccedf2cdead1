"""Herdr Link as a stdio MCP server (``herdr-link-mcp``) for Claude Code, Codex, AGY, Gemini CLI and others.

The server starts dormant: ``tools/list`` holds only the ``herdr_link`` gateway. Calling it with
``{}`` activates the connection; the Tier 1 tools then appear, and hosts that never re-list tools
reach them through the gateway's action dispatch.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._codex import (
        SESSION_START as SESSION_START,
        command_hook_hash as command_hook_hash,
        event_label as event_label,
        hook_trust_key as hook_trust_key,
        session_start_hash as session_start_hash,
    )
    from ._hint import hint_output as hint_output, prints_plain as prints_plain
    from ._hosts import (
        DEFAULT_NAMESPACE as DEFAULT_NAMESPACE,
        SERVER_NAME as SERVER_NAME,
        hint_hosts as hint_hosts,
        presentation_form as presentation_form,
        relists_tools as relists_tools,
        wiring_hosts as wiring_hosts,
    )
    from ._repair import Damage as Damage, codex_damage_at as codex_damage_at
    from ._server import (
        RELIST_WAIT as RELIST_WAIT,
        ConnectionState as ConnectionState,
        create_server as create_server,
        initialization_options as initialization_options,
    )
    from ._version import __version__ as __version__
    from ._wiring import (
        ALLOW_RULE as ALLOW_RULE,
        SCOPES as SCOPES,
        Wiring as Wiring,
        WiringFile as WiringFile,
        required_hosts as required_hosts,
        server_command as server_command,
        trust_hosts as trust_hosts,
        wiring as wiring,
    )

    __all__: list[str]

_EXPORTS = {
    "_codex": [
        "SESSION_START",
        "command_hook_hash",
        "event_label",
        "hook_trust_key",
        "session_start_hash",
    ],
    "_hint": [
        "hint_output",
        "prints_plain",
    ],
    "_hosts": [
        "DEFAULT_NAMESPACE",
        "SERVER_NAME",
        "hint_hosts",
        "presentation_form",
        "relists_tools",
        "wiring_hosts",
    ],
    "_repair": [
        "Damage",
        "codex_damage_at",
    ],
    "_server": [
        "RELIST_WAIT",
        "ConnectionState",
        "create_server",
        "initialization_options",
    ],
    "_version": [
        "__version__",
    ],
    "_wiring": [
        "ALLOW_RULE",
        "SCOPES",
        "Wiring",
        "WiringFile",
        "required_hosts",
        "server_command",
        "trust_hosts",
        "wiring",
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
