"""Herdr Link's control layer: every Herdr call the protocol needs, behind one async facade.

``Link`` runs the ``herdr`` CLI (argv only, never a shell, always with a timeout), classifies every
outcome into the protocol's error codes, and implements peers, send, close, start and the self
identity bootstrap. Adapters (MCP, the JSON-lines bridge) are wiring: they read a call with
``herdr_link_protocol.parse_call`` and run it with ``Link.run``; ``Link.call`` does both.

Two subpackages stand apart from driving Herdr: :mod:`herdr_link_control.bridge` (the JSON-lines
bridge the JavaScript stubs speak) and :mod:`herdr_link_control.userfiles` (the install core and
the bridge location file, standard library only).

Every name loads from its submodule on first use (PEP 562), so importing the package costs only
what is used. The names are written once, as the ``TYPE_CHECKING`` imports below (what a
reader and a type checker read); the loader after them is generated from them
(``tests/tools/package_faces.py``).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from ._commands import (
        AgentRecord as AgentRecord,
        HerdrCommandError as HerdrCommandError,
        Role as Role,
        classify as classify,
        surface_violation as surface_violation,
    )
    from ._environment import HerdrEnvironment as HerdrEnvironment
    from ._gate import (
        GATE_VARIABLES as GATE_VARIABLES,
        HERDR_CORE_NOTE as HERDR_CORE_NOTE,
        in_herdr_core_terminal as in_herdr_core_terminal,
        in_herdr_pane as in_herdr_pane,
    )
    from ._herdr import HerdrCLI as HerdrCLI, Timeouts as Timeouts
    from ._identity import Identity as Identity, SelfContext as SelfContext
    from ._link import Link as Link
    from ._operations import (
        DEFAULT_DELIVERY_LIMIT as DEFAULT_DELIVERY_LIMIT,
        Operations as Operations,
        Survey as Survey,
    )
    from ._ordering import CallOrder as CallOrder, Turn as Turn
    from ._runner import (
        ProcessRunner as ProcessRunner,
        Runner as Runner,
        RunResult as RunResult,
        ScriptedRunner as ScriptedRunner,
        SpawnFailed as SpawnFailed,
    )
    from ._start import Starter as Starter
    from ._stdio import (
        StdioWire as StdioWire,
        claimed_stdio as claimed_stdio,
        iter_json_lines as iter_json_lines,
        read_json_lines as read_json_lines,
    )
    from ._trust import folder_trust as folder_trust, git_root as git_root, read_host_file as read_host_file
    from ._version import __version__ as __version__

    __all__: list[str]

_EXPORTS = {
    "_commands": [
        "AgentRecord",
        "HerdrCommandError",
        "Role",
        "classify",
        "surface_violation",
    ],
    "_environment": [
        "HerdrEnvironment",
    ],
    "_gate": [
        "GATE_VARIABLES",
        "HERDR_CORE_NOTE",
        "in_herdr_core_terminal",
        "in_herdr_pane",
    ],
    "_herdr": [
        "HerdrCLI",
        "Timeouts",
    ],
    "_identity": [
        "Identity",
        "SelfContext",
    ],
    "_link": [
        "Link",
    ],
    "_operations": [
        "DEFAULT_DELIVERY_LIMIT",
        "Operations",
        "Survey",
    ],
    "_ordering": [
        "CallOrder",
        "Turn",
    ],
    "_runner": [
        "ProcessRunner",
        "Runner",
        "RunResult",
        "ScriptedRunner",
        "SpawnFailed",
    ],
    "_start": [
        "Starter",
    ],
    "_stdio": [
        "StdioWire",
        "claimed_stdio",
        "iter_json_lines",
        "read_json_lines",
    ],
    "_trust": [
        "folder_trust",
        "git_root",
        "read_host_file",
    ],
    "_version": [
        "__version__",
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
