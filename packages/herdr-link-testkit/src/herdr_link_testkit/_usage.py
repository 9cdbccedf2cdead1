"""The simulated CLI's usage error (exit 2, plain text, no socket access)."""

__all__ = ["Usage"]


class Usage(Exception):
    """A local argument error: plain text on stderr, exit 2, no socket access."""
