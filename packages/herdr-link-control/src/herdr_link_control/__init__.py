"""Herdr Link's control layer: every Herdr call the protocol needs, behind one async facade.

``Link`` runs the ``herdr`` CLI (argv only, never a shell, always with a timeout), classifies every
outcome into the protocol's error codes, and implements peers, send, close, start and the self
identity bootstrap. Adapters (MCP, the JSON-lines bridge) are wiring over ``Link.call``.
"""

from importlib.metadata import version as _version

from ._commands import AgentRecord, HerdrCommandError, Role, classify, surface_violation
from ._environment import HerdrEnvironment
from ._herdr import HerdrCLI, Timeouts
from ._identity import Identity, SelfContext
from ._link import Link
from ._location import bridge_command, location_file, write_location_file
from ._operations import DEFAULT_DELIVERY_LIMIT, Operations
from ._runner import ProcessRunner, Runner, RunResult, ScriptedRunner, SpawnFailed
from ._start import Starter
from ._stub import bridge_client_data, bridge_client_js

__version__ = _version("herdr-link-control")

__all__ = [
    "DEFAULT_DELIVERY_LIMIT",
    "AgentRecord",
    "HerdrCLI",
    "HerdrCommandError",
    "HerdrEnvironment",
    "Identity",
    "Link",
    "Operations",
    "ProcessRunner",
    "Role",
    "RunResult",
    "Runner",
    "ScriptedRunner",
    "SelfContext",
    "SpawnFailed",
    "Starter",
    "Timeouts",
    "bridge_client_data",
    "bridge_client_js",
    "bridge_command",
    "classify",
    "location_file",
    "surface_violation",
    "write_location_file",
]
