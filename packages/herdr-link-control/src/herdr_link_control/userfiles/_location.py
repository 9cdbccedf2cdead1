"""Where stubs find the bridge: the location file installers write (``docs/bridge.md``), in Herdr Link's
config directory."""

import json
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ._complete import write_complete

__all__ = [
    "BRIDGE_COMMAND",
    "BRIDGE_CONFIG_FILE",
    "BRIDGE_ENV_VAR",
    "backups_root",
    "bridge_command",
    "config_dir",
    "location_command",
    "location_file",
    "release_location_file",
    "write_location_file",
]

BRIDGE_ENV_VAR: Final = "HERDR_LINK_BRIDGE"
"""A stub looks here first: the bridge command as a JSON array of strings (or a single path)."""

BRIDGE_CONFIG_FILE: Final = ("herdr-link", "bridge.json")
"""Then here, under the user's config directory: ``{"command": ["/path/to/herdr-link-bridge"]}``.

Installers write it outside the plugin directory, so a stub's bytes and hash never change.
"""

BRIDGE_COMMAND: Final = "herdr-link-bridge"
"""Last, this command on ``PATH``."""


def bridge_command() -> list[str]:
    """This environment's bridge: the ``herdr-link-bridge`` script beside Python, else ``python -m``."""
    script = Path(sys.executable).parent / ("herdr-link-bridge.exe" if os.name == "nt" else "herdr-link-bridge")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "herdr_link_control.bridge"]


def config_dir(environ: Mapping[str, str], home: Path, *, windows: bool = os.name == "nt") -> Path:
    """Herdr Link's own directory under the user's config directory: ``$XDG_CONFIG_HOME/herdr-link``
    (else ``~/.config/herdr-link``; ``%APPDATA%\\herdr-link`` on Windows). The bridge location file and
    Claude Code's hint file live here."""
    if windows:
        base = Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    return base / BRIDGE_CONFIG_FILE[0]


def backups_root(environ: Mapping[str, str], home: Path) -> Path:
    """Where every installer keeps its backups of a user's files, each under the file's own folder
    mirrored (``backup_folder``): ``<config dir>/backups``."""
    return config_dir(environ, home) / "backups"


def location_file(environ: Mapping[str, str], home: Path, *, windows: bool = os.name == "nt") -> Path:
    """``herdr-link/bridge.json`` under the user's config directory (%APPDATA% on Windows)."""
    return config_dir(environ, home, windows=windows) / BRIDGE_CONFIG_FILE[1]


def _no_file(path: Path) -> OSError | None:
    """Why ``path`` cannot be the location file, found without opening it (a FIFO would wait for ever):
    a folder or another non-regular file; ``None`` when it is absent or a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a FIFO, a device or a socket)"
    return OSError(f"{path} is {kind}, not the bridge location file: move it aside")


def _read(path: Path) -> tuple[str, dict[str, Any]] | None:
    """The file's text and its JSON object, read once; ``None`` when it is missing, unreadable or no
    regular file."""
    if _no_file(path) is not None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
        body = json.loads(text)
    except (OSError, ValueError):
        return None
    return (text, body) if isinstance(body, dict) else None


def location_command(path: Path) -> list[str] | None:
    """The bridge command the location file names (a list of strings, as the stubs run it); ``None`` when
    the file is missing, unreadable or names none."""
    found = _read(path)
    command = found[1].get("command") if found is not None else None
    ok = isinstance(command, list) and command and all(isinstance(part, str) for part in command)
    return command if ok else None


def _users(body: dict[str, Any] | None) -> list[str] | None:
    """The runtimes recorded as using the location file; ``None`` when it records none."""
    users = body.get("users") if body is not None else None
    return [u for u in users if isinstance(u, str)] if isinstance(users, list) else None


def _text(body: dict[str, object]) -> str:
    return json.dumps(body, indent=2) + "\n"


def _write(path: Path, body: dict[str, object]) -> None:
    """Raises: OSError: ``path`` is no regular file (:func:`_no_file`) or the write failed."""
    refused = _no_file(path)
    if refused is not None:
        raise refused
    path.parent.mkdir(parents=True, exist_ok=True)
    write_complete(path, _text(body).encode("utf-8"))


def write_location_file(path: Path, command: list[str], user: str | None = None) -> bool:
    """Point stubs at ``command``; returns whether the file changed. Written atomically.

    ``user`` (``"opencode"``, ``"pi"``) is recorded in ``users``, so that uninstalling one runtime
    keeps the file while another still needs it (stubs read only ``command``).
    """
    found = _read(path)
    users = sorted({*(_users(found[1] if found else None) or []), *([user] if user else [])})
    body: dict[str, object] = {"command": command, **({"users": users} if users else {})}
    if found is not None and found[0] == _text(body):
        return False
    _write(path, body)
    return True


def release_location_file(path: Path, user: str) -> str:
    """``user`` no longer needs the location file; remove it when no runtime does. Returns what happened:
    ``"removed"``, ``"kept"`` (another runtime, or a file that records none, may need it) or ``"absent"``."""
    if not path.is_file():
        return "absent"
    found = _read(path)
    users = _users(found[1] if found else None)
    if found is None or users is None:
        return "kept"
    remaining = [u for u in users if u != user]
    if remaining:
        _write(path, {**found[1], "users": remaining})
        return "kept"
    path.unlink()
    return "removed"
