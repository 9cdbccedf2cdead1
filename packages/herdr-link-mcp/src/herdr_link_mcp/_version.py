"""The distribution's version, from its installed metadata (read when first asked for)."""

from importlib.metadata import version

__all__ = ["__version__"]

__version__ = version("herdr-link-mcp")
"""The installed ``herdr-link-mcp`` version."""
