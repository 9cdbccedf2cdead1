"""``herdr-link-conformance``: check any ``herdr-link/1`` adapter (a stdio MCP server or a JSON-lines
bridge) against ``PROTOCOL.md``, each check on a fresh simulated Herdr."""

from ._adapters import CALL_TIMEOUT, CAPABILITIES, Adapter, AdapterSpec, Outcome, open_adapter
from ._checks import CHECKS, CheckSpec, Context, Failed
from ._runner import CHECK_TIMEOUT, Result, run_checks, selected, to_json

__all__ = [
    "CALL_TIMEOUT",
    "CAPABILITIES",
    "CHECKS",
    "CHECK_TIMEOUT",
    "Adapter",
    "AdapterSpec",
    "CheckSpec",
    "Context",
    "Failed",
    "Outcome",
    "Result",
    "open_adapter",
    "run_checks",
    "selected",
    "to_json",
]
