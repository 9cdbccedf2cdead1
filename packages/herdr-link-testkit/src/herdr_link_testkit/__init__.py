"""A faithful simulated Herdr 0.8.2 (socket protocol 20) for tests and demos.

``HerdrSim`` runs the socket server in a background thread and writes a ``herdr`` executable that
behaves like the real CLI; point ``HERDR_BIN_PATH`` at it. This package depends on nothing else of
Herdr Link, so adapters in any language can be tested against it.
"""

from importlib.metadata import version as _version

from ._harness import HerdrSim, write_launcher
from ._ids import decode_number, encode_number
from ._server import CallLog, Fault, SimulatorServer
from ._state import AGENT_KINDS, Delivery, HerdrError, Simulator, StartScript

__version__ = _version("herdr-link-testkit")

__all__ = [
    "AGENT_KINDS",
    "CallLog",
    "Delivery",
    "Fault",
    "HerdrError",
    "HerdrSim",
    "Simulator",
    "SimulatorServer",
    "StartScript",
    "decode_number",
    "encode_number",
    "write_launcher",
]
