"""The distribution's version: the one place it is written (hatch reads it for the package metadata)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
"""The ``herdr-link-testkit`` version."""
