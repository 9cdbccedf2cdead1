"""Faults injected from outside the installer: each step names a real operation ``install`` performs,
and :func:`inject` replaces that operation with one that fails (``OSError``) or kills the process at
once, as a power cut would. Nothing in the installer knows about it."""

import builtins
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from herdr_link_installer import _install

FAIL_STEPS = ("after-backup", "after-temp-write", "after-rename", "node-check")
"""Where an ``OSError`` is injected: writing the temporary copy, renaming it over the target, reading
the renamed file for the final check, and Node's import check."""
CRASH_STEPS = ("during-backup", *FAIL_STEPS, "before-location")
"""Where the process is killed: also halfway through copying the backup, and writing the bridge location."""

Patch = Callable[[Any, str, Any], None]


def _act(action: str, step: str) -> None:
    if action == "crash":
        os._exit(9)
    raise OSError(f"injected failure {step}")


def inject(step: str, action: str, target: Path, patch: Patch = setattr) -> None:
    """Make ``step`` fail (``action="fail"``) or die (``"crash"``); ``patch`` sets an attribute
    (``monkeypatch.setattr`` in a test, plain ``setattr`` in a throwaway process)."""
    if step == "during-backup":

        def copy(source: Any, destination: Any, *args: Any, **kwargs: Any) -> None:
            data = source.read()
            destination.write(data[: len(data) // 2])
            destination.flush()
            _act(action, step)

        patch(shutil, "copyfileobj", copy)
    elif step == "after-backup":
        real_open = open

        def opening(path: Any, *args: Any, **kwargs: Any) -> Any:
            if str(path).endswith(".tmp"):
                _act(action, step)
            return real_open(path, *args, **kwargs)

        patch(builtins, "open", opening)  # the install core's complete write opens the temporary copy
    elif step == "after-temp-write":
        real_replace = os.replace

        def replace(source: Any, destination: Any) -> None:
            if Path(destination) == target and str(source).endswith(".tmp"):
                _act(action, step)
            real_replace(source, destination)

        patch(os, "replace", replace)
    elif step == "after-rename":
        real_read = Path.read_bytes

        def read_bytes(self: Path) -> bytes:
            if self == target:
                _act(action, step)
            return real_read(self)

        patch(Path, "read_bytes", read_bytes)
    elif step == "node-check":
        patch(_install, "_node_import_ok", lambda path: _act(action, step))
    elif step == "before-location":
        patch(_install, "write_location_file", lambda *args, **kwargs: _act(action, step))
    else:
        raise ValueError(step)
