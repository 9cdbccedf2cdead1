"""Herdr Link's control layer: every Herdr call the protocol needs, behind one async facade.

``Link`` runs the ``herdr`` CLI (argv only, never a shell, always with a timeout), classifies every
outcome into the protocol's error codes, and implements peers, send, close, start and the self
identity bootstrap. Adapters (MCP, the JSON-lines bridge) are wiring over ``Link.call``.

Every name loads from its submodule on first use (PEP 562), so importing the package costs only what
is used.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._bridge_messages import (
        BRIDGE_CONTRACT as BRIDGE_CONTRACT,
        BRIDGE_OPS as BRIDGE_OPS,
        INVALID_CALL as INVALID_CALL,
        BridgeContext as BridgeContext,
        BridgeError as BridgeError,
        BridgeHello as BridgeHello,
        BridgeHelloReply as BridgeHelloReply,
        BridgeReply as BridgeReply,
        BridgeRequest as BridgeRequest,
    )
    from ._check import (
        Check as Check,
    )
    from ._commands import (
        AgentRecord as AgentRecord,
        HerdrCommandError as HerdrCommandError,
        Role as Role,
        classify as classify,
        surface_violation as surface_violation,
    )
    from ._environment import (
        HerdrEnvironment as HerdrEnvironment,
    )
    from ._herdr import (
        HerdrCLI as HerdrCLI,
        Timeouts as Timeouts,
    )
    from ._identity import (
        Identity as Identity,
        SelfContext as SelfContext,
    )
    from ._link import (
        Link as Link,
    )
    from ._location import (
        BRIDGE_COMMAND as BRIDGE_COMMAND,
        BRIDGE_CONFIG_FILE as BRIDGE_CONFIG_FILE,
        BRIDGE_ENV_VAR as BRIDGE_ENV_VAR,
        bridge_command as bridge_command,
        location_file as location_file,
        write_location_file as write_location_file,
    )
    from ._operations import (
        DEFAULT_DELIVERY_LIMIT as DEFAULT_DELIVERY_LIMIT,
        Operations as Operations,
        Survey as Survey,
    )
    from ._runner import (
        ProcessRunner as ProcessRunner,
        Runner as Runner,
        RunResult as RunResult,
        ScriptedRunner as ScriptedRunner,
        SpawnFailed as SpawnFailed,
    )
    from ._start import (
        Starter as Starter,
    )
    from ._stub import (
        bridge_client_data as bridge_client_data,
        bridge_client_js as bridge_client_js,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "_bridge_messages": (
        "BRIDGE_CONTRACT",
        "BRIDGE_OPS",
        "INVALID_CALL",
        "BridgeContext",
        "BridgeError",
        "BridgeHello",
        "BridgeHelloReply",
        "BridgeReply",
        "BridgeRequest",
    ),
    "_check": ("Check",),
    "_commands": (
        "AgentRecord",
        "HerdrCommandError",
        "Role",
        "classify",
        "surface_violation",
    ),
    "_environment": ("HerdrEnvironment",),
    "_herdr": (
        "HerdrCLI",
        "Timeouts",
    ),
    "_identity": (
        "Identity",
        "SelfContext",
    ),
    "_link": ("Link",),
    "_location": (
        "BRIDGE_COMMAND",
        "BRIDGE_CONFIG_FILE",
        "BRIDGE_ENV_VAR",
        "bridge_command",
        "location_file",
        "write_location_file",
    ),
    "_operations": (
        "DEFAULT_DELIVERY_LIMIT",
        "Operations",
        "Survey",
    ),
    "_runner": (
        "ProcessRunner",
        "RunResult",
        "Runner",
        "ScriptedRunner",
        "SpawnFailed",
    ),
    "_start": ("Starter",),
    "_stub": (
        "bridge_client_data",
        "bridge_client_js",
    ),
}
"""Each submodule and the public names it defines; the ``TYPE_CHECKING`` imports above say the same."""

_MODULE_OF: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    """Load ``name`` from its submodule on first use, then keep it as a plain module attribute."""
    if name == "__version__":
        from importlib.metadata import version

        value: Any = version("herdr-link-control")
    elif name in _MODULE_OF:
        value = getattr(import_module(f".{_MODULE_OF[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
