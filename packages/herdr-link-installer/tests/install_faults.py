"""Faults injected from outside the installer: each step names a real operation ``install`` performs,
and :func:`inject` replaces that operation with one that fails (``OSError``) or kills the process at
once, as a power cut would. Nothing in the installer knows about it."""

import builtins
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from herdr_link_installer import _install

FAIL_STEPS = ("after-backup", "after-temp-write", "after-rename", "node-check")
"""Where an ``OSError`` is injected: writing the partial copy (after the backup), checking the written copy
before it is put in place, checking the file once in place, and Node's import check."""
CRASH_STEPS = ("during-backup", *FAIL_STEPS, "before-location")
"""Where the process is killed: also halfway through copying the backup, and writing the bridge location."""
PARTIAL: Final = ".herdr-link.partial"
"""The end of the partial copy's name beside the plugin file (the install core's)."""

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
            if str(path).endswith(PARTIAL):
                _act(action, step)
            return real_open(path, *args, **kwargs)

        patch(builtins, "open", opening)  # the install core's complete write opens the partial copy
    elif step in ("after-temp-write", "after-rename"):
        real_check = _install._check_copy

        def check(path: Path, sha256: str) -> None:
            if str(path).endswith(PARTIAL) == (step == "after-temp-write"):
                _act(action, step)
            real_check(path, sha256)

        patch(_install, "_check_copy", check)
    elif step == "node-check":
        patch(_install, "_node_import_ok", lambda path: _act(action, step))
    elif step == "before-location":
        patch(_install, "write_location_file", lambda *args, **kwargs: _act(action, step))
    else:
        raise ValueError(step)
