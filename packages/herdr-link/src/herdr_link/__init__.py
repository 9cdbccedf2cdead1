"""Herdr Link, the umbrella distribution: installs every package and provides ``herdr-link``."""

from ._demo import DemoEvent, run_demo
from ._doctor import Check, diagnose

__all__ = ["Check", "DemoEvent", "diagnose", "run_demo"]
