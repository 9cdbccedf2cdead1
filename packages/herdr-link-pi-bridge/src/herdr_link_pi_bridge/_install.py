"""``herdr-link-pi-bridge install``: put the extension where Pi discovers it, safely and idempotently."""

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from herdr_link_control import bridge_command, location_file, write_location_file

from ._extension import EXTENSION_FILE, GENERATOR, packaged_extension

__all__ = ["InstallResult", "install", "target_path"]

BACKUP_DIR: Final = "herdr-link-backups"
"""Where a replaced foreign file is kept: beside ``extensions/``, never inside it."""
TRUST_NOTE: Final = "Pi loads project extensions only after the project is trusted (answer Pi's prompt once)."


@dataclass(frozen=True)
class InstallResult:
    """What ``install`` did, in words for the person running it."""

    path: Path
    action: str  # "installed", "updated", "unchanged", "refused", "failed"
    messages: list[str]


def target_path(home: Path, cwd: Path, *, project: bool) -> Path:
    """``~/.pi/agent/extensions/herdr-link.js``, or ``.pi/extensions/herdr-link.js`` with ``project``."""
    return (cwd / ".pi" / "extensions" if project else home / ".pi" / "agent" / "extensions") / EXTENSION_FILE


def install(
    home: Path, cwd: Path, environ: Mapping[str, str], *, project: bool = False, yes: bool = False
) -> InstallResult:
    """Install the packaged extension and point stubs at this environment's bridge.

    A file of ours (its first line names this generator) is replaced; a foreign file is replaced
    only with ``yes``, and kept first in ``herdr-link-backups/`` beside the extensions directory,
    where Pi loads nothing (a backup exists under its name only when complete). The extension is
    written atomically. The last message always says what the extension file and the bridge location
    are now, whatever failed.
    """
    target = target_path(home, cwd, project=project)
    data = packaged_extension().read_bytes()
    messages: list[str] = []
    backup: Path | None = None
    if target.exists():
        current = target.read_bytes()
        ours = current.split(b"\n", 1)[0].startswith(f"// {GENERATOR} ".encode())
        if not ours and not yes:
            hint = "hint: move it aside, or run again with --yes to replace it"
            return InstallResult(
                target, "refused", [f"Cowardly refusing to replace {target}: not a Herdr Link file.", hint]
            )
        action = "unchanged" if current == data else "updated"
        if not ours:
            stamp = f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
            backup = target.parent.parent / BACKUP_DIR / f"{target.name}.{stamp}"
    else:
        action = "installed"
    if action != "unchanged":
        temporary = target.with_name("." + target.name + ".tmp")  # a dot file, which Pi does not load
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if backup is not None:
                backup.parent.mkdir(parents=True, exist_ok=True)
                _write_complete(backup, target.read_bytes())
                messages.append(f"backup: {backup}")
            _write_complete(temporary, data)
            temporary.replace(target)
        except OSError as error:
            temporary.unlink(missing_ok=True)
            kept = f"; backup {backup}" if backup is not None and backup.exists() else ""
            state = f"state: {target} is unchanged{kept}; bridge location unchanged"
            return InstallResult(target, "failed", [*messages, f"error: {error.strerror or error}", state])
    messages.append(f"{action}: {target}")
    try:
        location = location_file(environ, home)
        command = bridge_command()
        where = f"{location} -> {' '.join(command)}"
        bridge = where if write_location_file(location, command) else f"{where} (already)"
    except OSError as error:
        messages.append(
            f"state: {target} is the current extension; bridge location not written: {error.strerror or error}"
        )
        return InstallResult(target, "failed", messages)
    if project:
        messages.append(TRUST_NOTE)
    messages.append("Alternative: Pi's built-in MCP with herdr-link-mcp (herdr-link-mcp wiring --host pi).")
    messages.append(f"state: {target} is the current extension; bridge location {bridge}")
    return InstallResult(target, action, messages)


def _write_complete(path: Path, data: bytes) -> None:
    """Write ``data`` under ``path`` only once it is all on disk (a partial name, fsync, rename)."""
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
