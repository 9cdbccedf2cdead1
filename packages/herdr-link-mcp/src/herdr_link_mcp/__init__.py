"""Herdr Link as a stdio MCP server (``herdr-link-mcp``) for Claude Code, Codex, AGY, Gemini CLI and others.

The server starts dormant: ``tools/list`` holds only the ``herdr_link`` gateway. Calling it with
``{}`` activates the connection; the Tier 1 tools then appear, and hosts that never re-list tools
reach them through the gateway's action dispatch.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only what
is used.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._checks import (
        WIRING_CHECKS as WIRING_CHECKS,
        wiring_checks as wiring_checks,
    )
    from ._hosts import (
        DEFAULT_NAMESPACE as DEFAULT_NAMESPACE,
        HOST_FORMS as HOST_FORMS,
        SERVER_NAME as SERVER_NAME,
        presentation_form as presentation_form,
    )
    from ._server import (
        RELIST_WAIT as RELIST_WAIT,
        ConnectionState as ConnectionState,
        create_server as create_server,
        initialization_options as initialization_options,
    )
    from ._wiring import (
        FORWARDED_VARIABLES as FORWARDED_VARIABLES,
        HINT_HOSTS as HINT_HOSTS,
        WIRING_HOSTS as WIRING_HOSTS,
        Wiring as Wiring,
        WiringFile as WiringFile,
        hint_output as hint_output,
        server_command as server_command,
        wiring as wiring,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "_checks": (
        "WIRING_CHECKS",
        "wiring_checks",
    ),
    "_hosts": (
        "DEFAULT_NAMESPACE",
        "HOST_FORMS",
        "SERVER_NAME",
        "presentation_form",
    ),
    "_server": (
        "RELIST_WAIT",
        "ConnectionState",
        "create_server",
        "initialization_options",
    ),
    "_wiring": (
        "FORWARDED_VARIABLES",
        "HINT_HOSTS",
        "WIRING_HOSTS",
        "Wiring",
        "WiringFile",
        "hint_output",
        "server_command",
        "wiring",
    ),
}
"""Each submodule and the public names it defines; the ``TYPE_CHECKING`` imports above say the same."""

_MODULE_OF: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
    if name == "__version__":
        from importlib.metadata import version

        value: Any = version("herdr-link-mcp")
    elif name in _MODULE_OF:
        value = getattr(import_module(f".{_MODULE_OF[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
