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
    "LOCATION_RELEASED",
    "backups_root",
    "bridge_command",
    "config_dir",
    "location_command",
    "location_file",
    "reinstall_commands",
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


def _command(value: object) -> list[str] | None:
    """``value`` as a bridge command (a non-empty list of strings, as the stubs run it), else ``None``."""
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        return [str(part) for part in value]
    return None


def location_command(path: Path) -> list[str] | None:
    """The bridge command the location file names (a list of strings, as the stubs run it); ``None`` when
    the file is missing, unreadable or names none."""
    found = _read(path)
    return _command(found[1].get("command")) if found is not None else None


def _users(body: dict[str, Any] | None) -> list[str] | None:
    """The runtimes recorded as using the location file; ``None`` when it records none."""
    users = body.get("users") if body is not None else None
    return [u for u in users if isinstance(u, str)] if isinstance(users, list) else None


def _by(body: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """What each runtime's installer recorded: the bridge ``command`` it wrote and the ``reinstall``
    command that writes it again (files an earlier release wrote record none)."""
    by = body.get("by") if body is not None else None
    return {u: r for u, r in by.items() if isinstance(r, dict)} if isinstance(by, dict) else {}


def _runnable(command: list[str]) -> bool:
    return os.sep not in command[0] or os.access(command[0], os.X_OK)


def reinstall_commands(path: Path) -> dict[str, str]:
    """The command that writes each recorded runtime's bridge location again (``herdr-link-opencode-install
    --runtime v2``), as its installer recorded it."""
    found = _read(path)
    by = _by(found[1] if found else None)
    return {u: r["reinstall"] for u, r in by.items() if isinstance(r.get("reinstall"), str)}


def _text(body: dict[str, object]) -> str:
    return json.dumps(body, indent=2) + "\n"


def _write(path: Path, body: dict[str, object]) -> None:
    """Raises: OSError: ``path`` is no regular file (:func:`_no_file`) or the write failed."""
    refused = _no_file(path)
    if refused is not None:
        raise refused
    path.parent.mkdir(parents=True, exist_ok=True)
    write_complete(path, _text(body).encode("utf-8"))


def write_location_file(path: Path, command: list[str], user: str | None = None, reinstall: str | None = None) -> bool:
    """Point stubs at ``command``; returns whether the file changed. Written atomically.

    ``user`` (``"opencode"``, ``"pi"``) is recorded in ``users``, so that uninstalling one runtime
    keeps the file while another still needs it (stubs read only ``command``), and in ``by`` with
    ``command`` and the ``reinstall`` command that writes it again (for the other runtime's uninstall
    and the doctor's fix).
    """
    found = _read(path)
    users = sorted({*(_users(found[1] if found else None) or []), *([user] if user else [])})
    by: dict[str, object] = dict(_by(found[1] if found else None))
    if user:
        by[user] = {"command": command, **({"reinstall": reinstall} if reinstall else {})}
    body: dict[str, object] = {"command": command, **({"users": users} if users else {}), **({"by": by} if by else {})}
    if found is not None and found[0] == _text(body):
        return False
    _write(path, body)
    return True


LOCATION_RELEASED: Final = {
    "removed": "removed",
    "kept": "kept (another runtime may use it)",
    "re-pointed": "kept for another runtime, now naming the bridge it installed (this one goes with its tool)",
    "absent": "absent",
}
"""What :func:`release_location_file`'s outcome is called in an uninstall's ``state:`` line."""


def release_location_file(path: Path, user: str, own: list[str] | None = None) -> str:
    """``user`` no longer needs the location file; remove it when no runtime does. Returns what happened:
    ``"removed"``, ``"kept"`` (another runtime, or a file that records none, may need it), ``"re-pointed"``
    (kept, and pointed from ``user``'s bridge, which goes with its tool, to one another runtime recorded
    that still runs) or ``"absent"``. ``own``: the releasing installation's bridge command, for a file
    that records no command for ``user``."""
    if not path.is_file():
        return "absent"
    found = _read(path)
    users = _users(found[1] if found else None)
    if found is None or users is None:
        return "kept"
    remaining = [u for u in users if u != user]
    if not remaining:
        path.unlink()
        return "removed"
    body, by = found[1], _by(found[1])
    mine = [c for c in (_command(by.get(user, {}).get("command")), own) if c is not None]
    others = by.copy()
    others.pop(user, None)
    usable = [c for u in remaining if (c := _command(others.get(u, {}).get("command"))) is not None and _runnable(c)]
    command = usable[0] if body.get("command") in mine and usable else body.get("command")
    rest = {k: v for k, v in body.items() if k not in ("command", "users", "by")}
    _write(path, {"command": command, "users": remaining, **({"by": others} if others else {}), **rest})
    return "re-pointed" if command != body.get("command") else "kept"
