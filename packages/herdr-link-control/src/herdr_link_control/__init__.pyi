"""Type information for the lazily loaded names (``lazy_loader.attach_stub`` reads the same list)."""

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
from ._check import Check as Check
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
from ._location import (
    BRIDGE_COMMAND as BRIDGE_COMMAND,
    BRIDGE_CONFIG_FILE as BRIDGE_CONFIG_FILE,
    BRIDGE_ENV_VAR as BRIDGE_ENV_VAR,
    bridge_command as bridge_command,
    location_file as location_file,
    release_location_file as release_location_file,
    write_location_file as write_location_file,
)
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
from ._stub import bridge_client_data as bridge_client_data, bridge_client_js as bridge_client_js
from ._version import __version__ as __version__
