"""``herdr-link-pi-bridge install``: put the extension where Pi discovers it, safely and idempotently."""

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from herdr_link_control.userfiles import (
    back_up,
    bridge_command,
    location_file,
    made_by,
    release_location_file,
    write_complete,
    write_location_file,
)

from ._extension import EXTENSION_FILE, GENERATOR, packaged_extension

__all__ = ["InstallResult", "install", "plan", "target_path", "uninstall"]

BACKUP_DIR: Final = "herdr-link-backups"
"""Where a replaced foreign file is kept: beside ``extensions/``, never inside it."""
TRUST_NOTE: Final = "Pi loads project extensions only after the project is trusted (answer Pi's prompt once)."


@dataclass(frozen=True)
class InstallResult:
    """What ``install`` did, in words for the person running it."""

    path: Path
    action: str  # "installed", "updated", "replaced" (a foreign file, backed up), "unchanged", "refused", "failed"
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
        ours = made_by(current, GENERATOR)
        if not ours and not yes:
            hint = "to replace it (a backup is kept), run again with --yes; or move it aside"
            return InstallResult(
                target, "refused", [f"refused: {target} is not a Herdr Link file; nothing was changed", hint]
            )
        action = "unchanged" if current == data else "updated" if ours else "replaced"
    else:
        action = "installed"
    if action != "unchanged":
        temporary = target.with_name("." + target.name + ".tmp")  # a dot file, which Pi does not load
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if action == "replaced":  # a foreign file: kept beside extensions/, where Pi loads nothing
                backup = back_up(target, target.parent.parent / BACKUP_DIR)
                messages.append(f"backup: {backup}")
            write_complete(target, data, partial=temporary)
        except OSError as error:
            kept = f"; backup {backup}" if backup is not None else ""
            state = f"state: {target} is unchanged{kept}; bridge location unchanged"
            return InstallResult(target, "failed", [*messages, f"error: {error.strerror or error}", state])
    messages.append(f"{action}: {target}")
    try:
        location = location_file(environ, home)
        command = bridge_command()
        where = f"{location} -> {' '.join(command)}"
        bridge = where if write_location_file(location, command, user="pi") else f"{where} (already)"
    except OSError as error:
        messages.append(
            f"state: {target} is the current extension; bridge location not written: {error.strerror or error}"
        )
        return InstallResult(target, "failed", messages)
    messages.extend(_pi_notes(environ))
    if project:
        messages.append(TRUST_NOTE)
    messages.append("Alternative: Pi's built-in MCP with herdr-link-mcp (herdr-link-mcp wiring --host pi).")
    messages.append(f"state: {target} is the current extension; bridge location {bridge}")
    return InstallResult(target, action, messages)


def plan(home: Path, cwd: Path, environ: Mapping[str, str], *, project: bool = False) -> list[str]:
    """What ``install`` would do, in words; writes nothing (``install --dry-run``)."""
    target = target_path(home, cwd, project=project)
    current = target.read_bytes() if target.exists() else None
    if current is None:
        what = f"would install {target}"
    elif current == packaged_extension().read_bytes():
        what = f"{target} is already the current extension"
    elif made_by(current, GENERATOR):
        what = f"would update {target} (an older Herdr Link extension)"
    else:
        what = f"would refuse to replace {target} (not Herdr Link's) without --yes, and back it up with it"
    location = location_file(environ, home)
    return [what, f"would point the bridge location {location} at {' '.join(bridge_command())}", *_pi_notes(environ)]


def uninstall(home: Path, cwd: Path, environ: Mapping[str, str], *, project: bool = False) -> InstallResult:
    """Remove our extension (a file that is not Herdr Link's is left alone), and the bridge location
    when no other runtime still needs it. The last message says what each file is now."""
    target = target_path(home, cwd, project=project)
    location = location_file(environ, home)
    if target.exists() and not made_by(target.read_bytes(), GENERATOR):
        return InstallResult(
            target, "refused", [f"{target} is not Herdr Link's: left alone", f"state: {target} is unchanged"]
        )
    action = "removed" if target.exists() else "absent"
    target.unlink(missing_ok=True)
    bridge = release_location_file(location, "pi")
    shown = {"removed": "removed", "kept": "kept (another runtime may use it)", "absent": "absent"}[bridge]
    return InstallResult(target, action, [f"{action}: {target}", f"state: bridge location {location} {shown}"])


def _pi_notes(environ: Mapping[str, str]) -> list[str]:
    if shutil.which("pi", path=environ.get("PATH", os.defpath)) is None:
        return ["warning: pi is not on PATH; the extension waits for the first Pi session"]
    return []
