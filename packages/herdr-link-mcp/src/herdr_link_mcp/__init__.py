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
        codex_home as codex_home,
        command_hook_hash as command_hook_hash,
        hook_trust_key as hook_trust_key,
        session_start_hash as session_start_hash,
    )
    from ._hint import HINT_HOSTS as HINT_HOSTS, hint_output as hint_output
    from ._hosts import (
        DEFAULT_NAMESPACE as DEFAULT_NAMESPACE,
        HOST_FORMS as HOST_FORMS,
        NON_RELISTING_CLIENTS as NON_RELISTING_CLIENTS,
        SERVER_NAME as SERVER_NAME,
        WIRING_FORMS as WIRING_FORMS,
        WIRING_HOSTS as WIRING_HOSTS,
        presentation_form as presentation_form,
        relists_tools as relists_tools,
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
        FORWARDED_VARIABLES as FORWARDED_VARIABLES,
        SCOPES as SCOPES,
        TRUST_HOSTS as TRUST_HOSTS,
        Wiring as Wiring,
        WiringFile as WiringFile,
        claude_config_dir as claude_config_dir,
        claude_user_config as claude_user_config,
        server_command as server_command,
        wiring as wiring,
    )

    __all__: list[str]

_EXPORTS = {
    "_codex": [
        "SESSION_START",
        "codex_home",
        "command_hook_hash",
        "hook_trust_key",
        "session_start_hash",
    ],
    "_hint": [
        "HINT_HOSTS",
        "hint_output",
    ],
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
        "FORWARDED_VARIABLES",
        "SCOPES",
        "TRUST_HOSTS",
        "Wiring",
        "WiringFile",
        "claude_config_dir",
        "claude_user_config",
        "server_command",
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
