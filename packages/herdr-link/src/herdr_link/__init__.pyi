"""Type information for the lazily loaded names (``lazy_loader.attach_stub`` reads the same list)."""

from ._demo import DemoEvent as DemoEvent, agent_session as agent_session, run_demo as run_demo
from ._doctor import Check as Check, diagnose as diagnose, render as render, to_json as to_json
from ._version import __version__ as __version__
