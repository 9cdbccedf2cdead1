"""How the installer's lines reach the person running it: a line that cannot be written to its
stream (a closed or full stdout) goes to stderr, so that the final ``state:`` line is never lost."""

import contextlib
import sys
from collections.abc import Callable

__all__ = ["to_stderr", "teller"]


def to_stderr(line: str) -> None:
    """Write ``line`` to stderr."""
    sys.stderr.write(line + "\n")


def teller(say: Callable[[str], None]) -> Callable[[str], None]:
    """``say``, falling back to stderr when it fails."""

    def tell(line: str) -> None:
        try:
            say(line)
        except OSError:
            with contextlib.suppress(OSError):
                sys.stderr.write(line + "\n")

    return tell
