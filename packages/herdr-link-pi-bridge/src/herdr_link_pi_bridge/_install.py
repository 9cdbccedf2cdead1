"""``herdr-link-pi-bridge install``: put the extension where Pi discovers it, safely and idempotently."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from herdr_link_control import bridge_command, location_file, write_location_file

from ._extension import EXTENSION_FILE, GENERATOR, packaged_extension

__all__ = ["InstallResult", "install", "target_path"]

TRUST_NOTE: Final = "Pi loads project extensions only after the project is trusted (answer Pi's prompt once)."


@dataclass(frozen=True)
class InstallResult:
    """What ``install`` did, in words for the person running it."""

    path: Path
    action: str  # "installed", "updated", "unchanged", "refused"
    messages: list[str]


def target_path(home: Path, cwd: Path, *, project: bool) -> Path:
    """``~/.pi/agent/extensions/herdr-link.js``, or ``.pi/extensions/herdr-link.js`` with ``project``."""
    return (cwd / ".pi" / "extensions" if project else home / ".pi" / "agent" / "extensions") / EXTENSION_FILE


def install(
    home: Path, cwd: Path, environ: Mapping[str, str], *, project: bool = False, yes: bool = False
) -> InstallResult:
    """Install the packaged extension and point stubs at this environment's bridge.

    A file of ours (its first line names this generator) is replaced; a foreign file is replaced only
    with ``yes``. The extension is written atomically; nothing else is touched.
    """
    target = target_path(home, cwd, project=project)
    data = packaged_extension().read_bytes()
    messages: list[str] = []
    if target.exists():
        current = target.read_bytes()
        ours = current.split(b"\n", 1)[0].startswith(f"// {GENERATOR} ".encode())
        if not ours and not yes:
            hint = "hint: move it aside, or run again with --yes to replace it"
            return InstallResult(
                target, "refused", [f"Cowardly refusing to replace {target}: not a Herdr Link file.", hint]
            )
        action = "unchanged" if current == data else "updated"
    else:
        action = "installed"
    if action != "unchanged":
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name("." + target.name + ".tmp")  # a dot file, which Pi does not load
        temporary.write_bytes(data)
        temporary.replace(target)
    messages.append(f"{action}: {target}")
    location = location_file(environ, home)
    command = bridge_command()
    if write_location_file(location, command):
        messages.append(f"bridge location: {location} -> {' '.join(command)}")
    if project:
        messages.append(TRUST_NOTE)
    messages.append("Alternative: Pi's built-in MCP with herdr-link-mcp (herdr-link-mcp wiring --host pi).")
    return InstallResult(target, action, messages)
