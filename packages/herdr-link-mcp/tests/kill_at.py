"""Run ``herdr-link-mcp install --host claude`` in this process and die (``os._exit``, as a kill: no
cleanup runs) at its K-th file-system call under HOME; K = -1 runs to the end and prints the count.
A seam outside production code: the installer does not know about it.

    python kill_at.py HOME K
"""

import builtins
import os
import sys
from pathlib import Path
from typing import Any


def main() -> None:
    home, kill_at = Path(sys.argv[1]), int(sys.argv[2])
    count = 0

    def traced(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal count
            if args and str(home) in str(args[0]) or name in ("fsync", "replace"):
                if count == kill_at:
                    os._exit(137)
                count += 1
            return real(*args, **kwargs)

        return call

    for name in ("open", "fsync", "replace", "unlink", "chmod", "mkdir", "rename", "rmdir", "link", "stat"):
        setattr(os, name, traced(name, getattr(os, name)))
    builtins.open = traced("open", builtins.open)

    from herdr_link_mcp import wiring
    from herdr_link_mcp._install import apply, clear_leftovers, plan

    decided = plan(wiring("claude", home=home, environ={}), home, home, environ={})
    if decided.changed:
        status = apply(decided, {}, home, lambda line: None)
    else:  # what the command does when there is nothing to write
        clear_leftovers(decided, {}, home)
        status = 0
    if kill_at < 0:
        sys.stdout.write(f"{count}\n")
    sys.exit(status)


if __name__ == "__main__":
    main()
