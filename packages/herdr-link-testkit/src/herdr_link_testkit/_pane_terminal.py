"""A pane's terminal for a process a test starts itself (``PROTOCOL.md`` §6.1's pane proof).

Herdr's server starts each pane's process as the leader of a new session whose controlling terminal is
a pseudo-terminal whose master side the server keeps. :func:`pane_terminal` makes such a terminal in this
process, which is the simulated Herdr's server when a :class:`~herdr_link_testkit.HerdrSim` runs in it,
and gives the argument prefix that runs a command as that terminal's session leader, its standard
streams left as the caller made them (pipes to an MCP client, say). An adapter so started shows the
pane its environment names, as one a host spawns in that pane does. Linux and macOS only.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

__all__ = ["TAKE_TERMINAL", "pane_terminal"]

TAKE_TERMINAL: Final = (
    "-c",
    "import os, sys\n"
    "try:\n    os.setsid()\nexcept OSError:\n    pass\n"  # already a session's leader (started with a new session)
    "os.close(os.open(sys.argv[1], os.O_RDWR))\n"  # a session leader's first terminal becomes its own
    "os.execvp(sys.argv[2], sys.argv[2:])",
)
"""``python -c TAKE_TERMINAL <terminal> <argv>``: run ``argv`` leading a session of its own whose controlling
terminal is ``<terminal>``."""


@contextmanager
def pane_terminal() -> Iterator[tuple[str, ...]]:
    """A fresh pseudo-terminal whose master this process holds while the block runs, and the prefix that
    runs a command in it: ``(*prefix, *argv)``. The command's terminal shows a pane only where this
    process serves the Herdr socket in the command's environment (an in-process ``HerdrSim``)."""
    if sys.platform == "win32":
        raise OSError("pane terminals are pseudo-terminals (Linux and macOS)")
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        os.close(slave)
        yield (sys.executable, *TAKE_TERMINAL, name)
    finally:
        os.close(master)
