"""Type information for the lazily loaded names (``lazy_loader.attach_stub`` reads the same list)."""

from ._commands import (
    AgentRecord as AgentRecord,
    HerdrCommandError as HerdrCommandError,
    Role as Role,
    classify as classify,
    surface_violation as surface_violation,
)
from ._environment import HerdrEnvironment as HerdrEnvironment
from ._gate import GATE_VARIABLES as GATE_VARIABLES, in_herdr_pane as in_herdr_pane
from ._herdr import HerdrCLI as HerdrCLI, Timeouts as Timeouts
from ._identity import Identity as Identity, SelfContext as SelfContext
from ._link import Link as Link
from ._operations import DEFAULT_DELIVERY_LIMIT as DEFAULT_DELIVERY_LIMIT, Operations as Operations, Survey as Survey
from ._ordering import CallOrder as CallOrder, Turn as Turn
from ._runner import (
    ProcessRunner as ProcessRunner,
    Runner as Runner,
    RunResult as RunResult,
    ScriptedRunner as ScriptedRunner,
    SpawnFailed as SpawnFailed,
)
from ._start import Starter as Starter
from ._stdio import StdioWire as StdioWire, claimed_stdio as claimed_stdio, read_json_lines as read_json_lines
from ._version import __version__ as __version__
